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
        if not cur:
            return [said(N_("keeps your cards"))]
        kept: list[str] = [said(N_("keeps your cards rather than top {set}"), set=table)]
        # The play it would have cost: the weakest (highest-numbered) one that tops the table.
        plays = [a for a in state.legal_plays(seat) if a.kind == "play" and play_spec(a) is not None]
        if plays:
            cheapest = max(plays, key=lambda a: (play_set(a)[0], -play_set(a)[2]))
            kept.append(said(N_("topping it would spend {set}, better kept for later"),
                             set=said_set(*play_set(cheapest))))
        return kept
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
    facts.append(_why(state, seat, action, number, jesters, bool(cur)))
    if jesters:
        facts.append(said_n("spends {n} Jester as wild", "spends {n} Jesters as wild", jesters))
    return facts


def _why(state: Any, seat: int, action: Action, number: int, jesters: int, beating: bool) -> str:
    """Why this play rather than another (docs/rules.md §3: the lower the number, the stronger the
    card; the last to play leads the next round)."""
    from games.dalmuti.rules import play_spec

    counts = state.counts[seat]  # the seat's own hand: how many of each number (13: Jesters)
    weakest = max((k for k in range(1, 13) if counts[k]), default=number)
    if beating:
        # Weakest: no other play that beats the table uses a higher (weaker) number.
        others = [sp for a in state.legal_plays(seat) if a != action and (sp := play_spec(a)) is not None
                  and sp[0] < 13]
        if not any(sp[0] > number for sp in others):
            return said(N_("the weakest cards you have that beat it: your stronger ones stay in your hand"))
        return said(N_("if everyone else passes, you lead the next round"))
    if not jesters and number >= weakest:
        return said(N_("high numbers are the weakest: shed them while you lead"))
    if number <= 3:
        return said(N_("few cards can beat it, so the lead is likely to come back to you"))
    n = len(action.cards)
    return said_n("gets rid of {n} card in one play", "gets rid of {n} cards in one play", n)


def dalmuti_move_words(state: Any, seat: int, action: Action) -> str:
    """A move the search compared, as a hint names it ("three 5s", "passing"): never its code."""
    from games.dalmuti.rules import play_set, play_spec, said_set

    if action.kind == "play" and play_spec(action) is not None:
        return said_set(*play_set(action))
    return said(N_("passing")) if action.kind == "pass" else said(N_("another move"))
