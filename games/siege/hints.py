"""Siege's hint facts (engine/hints.py asks them for the reason of a hint): what a move does under
docs/rules.md §5."""

from __future__ import annotations

from typing import Any

from engine.core import Action

_SIEGE = {"attack": "attacks now: this pile beats the one it hits", "build": "builds up your defences",
          "start": "starts a new pile, a shield for your King pile", "place": "adds a card where it scores most",
          "swap": "swaps a card to strengthen a pile", "end": "nothing more worth doing: ends your turn"}


def siege_facts(state: Any, seat: int, action: Action) -> list[str]:
    if action.kind == "place" and "king" in action.args:
        return ["a card of your suit goes onto your King pile: that is how Siege is won"]
    return [_SIEGE[action.kind]] if action.kind in _SIEGE else []
