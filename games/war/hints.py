"""War's hint facts (engine/hints.py asks them for the reason of a hint): why the normal AI's card,
under docs/rules.md §6 — the highest rank takes the battle.  Only what the seat sees: its own
hand and the cards already in the battle."""

from __future__ import annotations

from typing import Any

from engine.core import Action
from engine.words import said
from games.war.rules import RANKS
from words import N_


def war_facts(state: Any, seat: int, action: Action) -> list[str]:
    if action.kind != "play" or len(action.cards) != 1:
        return []
    c = action.cards[0]
    rank = RANKS.index(c.code[0])
    hand = list(state.hands[seat])
    lowest = min(RANKS.index(x.code[0]) for x in hand)
    if not state.trick:
        return [said(N_("your lowest card: the higher ones wait for later battles")) if rank == lowest else
                said(N_("a high card played first: only a higher one can take the battle from it"))]
    best = max(state.trick, key=lambda sc: RANKS.index(sc[1].code[0]))[1]
    top = RANKS.index(best.code[0])
    if rank > top:
        winners = [RANKS.index(x.code[0]) for x in hand if RANKS.index(x.code[0]) > top]
        return [said(N_("the lowest card you hold that beats the {card}: the highest card takes the battle"),
                     card=best) if rank == min(winners) else
                said(N_("beats the {card}: the highest card takes the battle"), card=best)]
    if not any(RANKS.index(x.code[0]) > top for x in hand):
        return [said(N_("nothing you hold beats the {card}, so your lowest card goes"), card=best) if rank == lowest
                else said(N_("nothing you hold beats the {card}: the battle is lost whatever you play"), card=best)]
    return [said(N_("stays under the {card}: you keep your higher cards for later battles"), card=best)]
