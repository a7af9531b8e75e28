"""Hearts' hint facts (engine/hints.py asks them for the reason of a hint): what playing or passing a
card does under docs/rules.md §1, from what the seat may know."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.cards import Card
from engine.core import Action
from engine.hints import labels, suit_name, trick_facts, with_odds
from engine.words import said
from words import N_

#: Sentences that name a card by the rules, not by where it is (Q♠ is the card to avoid whoever
#: holds it): the only hidden card a reason ever names (the privacy check knows them).
LOW_SPADE = N_("a low spade leaves Q♠ to whoever holds it")
CATCH_QUEEN = "could catch Q♠"
CATCH_QUEEN_SENTENCE = N_("{cards} could catch Q♠")
FIXED_PHRASES = (LOW_SPADE, CATCH_QUEEN)
#: The whole sentences they are part of (their translations are fixed words too).
FIXED_SENTENCES = (LOW_SPADE, CATCH_QUEEN_SENTENCE)


def _safe_keepers(c: Card, hand: Sequence[Card], out: set[Card]) -> str:
    """``nobody can lead to your K♦``: a high card kept that no one else can lead under."""
    keep = [x for x in hand if x is not c and x.suit != c.suit and x.value > c.value
            and not any(y.suit == x.suit and y.value < x.value for y in out)]
    if not keep:
        return ""
    x = max(keep, key=lambda x: x.value)
    return said(N_("nobody can lead to your {card}"), card=x)


def hearts_facts(state: Any, seat: int, action: Action) -> list[str]:
    from games.hearts.rules import QUEEN_SPADES, points_of

    hand = list(state.hands[seat])
    if action.kind == "pass":
        return _hearts_pass(state, seat, action, hand)
    if action.kind != "play" or len(action.cards) != 1:
        return []
    c = action.cards[0]
    may, sure = state.knowledge(seat)
    others = [s for s in range(4) if s != seat]
    out = set().union(*(may[s] for s in others), *(sure[s] for s in others))
    trick = list(state.trick)
    played = {s for s, _ in trick}
    later = [may[s] | set(sure[s]) for s in others if s not in played and trick]
    facts: list[str] = []
    if trick and c.suit != trick[0][1].suit:
        if c is QUEEN_SPADES:
            facts.append(said(N_("gets rid of Q♠ (13 points) on someone else's trick")))
        elif c.suit == "H" and not any(x.suit == "H" and x.value < c.value for x in out):
            facts.append(said(N_("the {card} can only ever take tricks: give it away now"), card=c))
        else:
            facts += trick_facts(c, trick, hand, out, later, points_of)
        keeper = _safe_keepers(c, hand, out)
        if keeper:
            facts.append(keeper)
        elif c.suit == "H":
            facts.append(said(N_("a heart on someone else's trick")))
        return facts
    if not trick and c.suit == "S" and c.value < QUEEN_SPADES.value and QUEEN_SPADES in out:
        facts.append(said(LOW_SPADE))
    if (trick and c.suit == trick[0][1].suit == "S" and QUEEN_SPADES in {x for _, x in trick}
            and c.value < QUEEN_SPADES.value):
        facts.append(said(N_("keeps clear of the Q♠ on the table")))
    if QUEEN_SPADES in hand and c is not QUEEN_SPADES and c.suit == "S" and c.value > QUEEN_SPADES.value:
        facts.append(said(N_("sheds a high spade that could catch your own Q♠")))
    facts += with_odds(trick_facts(c, trick, hand, out, later, points_of), c, trick, out, later)
    return facts


def _hearts_pass(state: Any, seat: int, action: Action, hand: Sequence[Card]) -> list[str]:
    from games.hearts.rules import QUEEN_SPADES

    cs = list(action.cards)
    facts: list[str] = []
    if QUEEN_SPADES in cs:
        facts.append(said(N_("passes Q♠ (13 points)")))
    high_spades = [c for c in cs if c.suit == "S" and c.value > QUEEN_SPADES.value]
    if high_spades and QUEEN_SPADES not in hand:
        facts.append(said(CATCH_QUEEN_SENTENCE, cards=labels(high_spades)))
    for s in "CDHS":
        if any(c.suit == s for c in cs) and not any(c.suit == s for c in hand if c not in cs):
            facts.append(said(N_("leaves you void in {suits}, to throw points on them later"), suits=suit_name(s)))
            break
    high = [c for c in cs if c.value >= 11 and c not in high_spades and c is not QUEEN_SPADES]
    if high and len(facts) < 2:
        facts.append(said(N_("{cards} would take tricks"), cards=labels(high)))
    return facts or [said(N_("passes your most dangerous cards"))]
