"""The Great Dalmuti's hint facts (engine/hints.py asks them for the reason of a hint): what a move does
under docs/rules.md §3, from what the seat may know."""

from __future__ import annotations

from typing import Any

from engine.core import Action
from engine.hints import labels


def dalmuti_facts(state: Any, seat: int, action: Action) -> list[str]:
    from games.dalmuti.rules import describe, play_spec, set_name

    v = state.view(seat)
    cur = v.get("current")
    table = set_name(cur["number"], cur["count"], cur["jesters"]) if cur else ""
    if action.kind == "pass":
        return [f"keeps your cards rather than top {table}" if cur else "keeps your cards"]
    if action.kind == "give":
        return [f"gives back {labels(action.cards)}: your weakest cards"]
    if action.kind == "revolution":
        return ["calls the revolution: you hold both Jesters, so no taxes are paid this hand"]
    spec = play_spec(action)
    if action.kind != "play" or spec is None:
        return []
    number, naturals, jesters = spec
    words = describe(action)
    if len(action.cards) == len(v.get("hand") or ()):
        return [f"goes out: {words} are your last cards"]
    facts = [f"beats {table} with {words}" if cur else f"leads {words}"]
    if not cur and not jesters and number >= 9:
        facts.append("high numbers are the weakest: shed them while you lead")
    if jesters:
        facts.append(f"spends {jesters} Jester{'s' if jesters != 1 else ''} as wild")
    return facts
