"""The Great Dalmuti's hint facts (engine/hints.py asks them for the reason of a hint): what a move does
under docs/rules.md §3, from what the seat may know."""

from __future__ import annotations

from typing import Any

from engine.core import Action
from engine.hints import labels
from engine.words import said, said_n
from words import N_


def dalmuti_facts(state: Any, seat: int, action: Action) -> list[str]:
    from games.dalmuti.rules import play_set, play_spec, said_set

    v = state.view(seat)
    cur = v.get("current")
    table = said_set(cur["number"], cur["count"], cur["jesters"]) if cur else ""
    if action.kind == "pass":
        return [said(N_("keeps your cards rather than top {set}"), set=table) if cur else said(N_("keeps your cards"))]
    if action.kind == "give":
        return [said(N_("gives back {cards}: your weakest cards"), cards=labels(action.cards))]
    if action.kind == "revolution":
        return [said(N_("calls the revolution: you hold both Jesters, so no taxes are paid this hand"))]
    spec = play_spec(action)
    if action.kind != "play" or spec is None:
        return []
    number, naturals, jesters = spec
    words = said_set(*play_set(action))
    if len(action.cards) == len(v.get("hand") or ()):
        return [said(N_("goes out: {set} are your last cards"), set=words)]
    facts: list[str] = [said(N_("beats {set} with {play}"), set=table, play=words) if cur
             else said(N_("leads {play}"), play=words)]
    if not cur and not jesters and number >= 9:
        facts.append(said(N_("high numbers are the weakest: shed them while you lead")))
    if jesters:
        facts.append(said_n("spends {n} Jester as wild", "spends {n} Jesters as wild", jesters))
    return facts


def dalmuti_move_words(state: Any, seat: int, action: Action) -> str:
    """A move the search compared, as a hint names it ("three 5s", "passing"): never its code."""
    from games.dalmuti.rules import play_set, play_spec, said_set

    if action.kind == "play" and play_spec(action) is not None:
        return said_set(*play_set(action))
    return said(N_("passing")) if action.kind == "pass" else said(N_("another move"))
