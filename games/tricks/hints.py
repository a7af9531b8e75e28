"""Tricks' hint facts (engine/hints.py asks them for the reason of a hint): what a move does
under docs/rules.md §2, from what the seat may know."""

from __future__ import annotations

from typing import Any

from engine.core import Action
from engine.hints import labels, trick_facts, with_odds
from engine.words import said
from words import N_


def tricks_facts(state: Any, seat: int, action: Action) -> list[str]:
    if action.kind != "play" or len(action.cards) != 1:
        return []
    c = action.cards[0]
    may = state.knowledge(seat)
    others = [s for s in range(4) if s != seat]
    out = set().union(*(may[s] for s in others))
    trick = list(state.trick)
    played = {s for s, _ in trick}
    later = [may[s] for s in others if s not in played and trick]
    hand = list(state.hands[seat])
    facts = with_odds(trick_facts(c, trick, hand, out, later, lambda _: 0), c, trick, out, later)
    if trick and c.suit != trick[0][1].suit:
        bosses = [x for x in hand if not any(y.suit == x.suit and y.value > x.value for y in out)]
        if bosses and c not in bosses:
            facts.append(said(N_("keeps your {cards} to win tricks later"),
                              cards=labels(sorted(bosses, key=lambda x: -x.value)[:2])))
    elif not trick and facts and facts[0].startswith("the highest") and len(hand) > 1:
        facts.append(said(N_("a sure trick, cashed while it is")))
    return facts

