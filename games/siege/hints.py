"""Siege's hint words (engine/hints.py asks them for the reason of a hint): the facts behind a
move, and how a hint names a move the search compared it with.  Only what the seat may see: its own
hand, the King piles and house piles on the table.  Rivals are named by their suit ("the spades
player"), piles by kind and slot mark ("your Queen pile ①"), cards by their labels: no codes, no
seat numbers."""

from __future__ import annotations

from typing import Any

from engine.core import Action
from engine.words import said, said_n, suit
from games.siege.rules import KING, KING_PILE, SEAT_SUITS, SUIT_NAMES, defending_slot, pile_score
from words import N_

MARKS = "①②③"
END_FACT = N_("nothing more worth doing: ends your turn")
#: A house pile's kind, as the reasons name it.
_KINDS = {"Q": N_("Queen pile"), "J": N_("Jack pile"), "A": N_("Ace pile")}
_KIND_WORDS = {"Q": N_("a Queen pile"), "J": N_("a Jack pile"), "A": N_("an Ace pile")}


def _pile(pile: Any, slot: int) -> str:
    return said("{pile} {mark}", pile=said(_KINDS[pile[0].rank]), mark=MARKS[slot])


def _rival(seat: int) -> str:
    own = SEAT_SUITS[seat]
    return said(N_("the {suits} player"), suits=suit(own, SUIT_NAMES[own]))


def _numbers(n: int) -> str:
    return said_n("{n} number card", "{n} number cards", n)


def siege_facts(state: Any, seat: int, action: Action) -> list[str]:
    """Why ``action``, in one or two short phrases."""
    k, a = action.kind, action.args
    own = SEAT_SUITS[seat]
    if k == "place" and a and a[0] == KING:
        n = len(state.kings[seat]) + 1
        left = KING_PILE - n
        return [said(N_("the {card} goes onto your King pile ({n} of {total}): that completes it and wins") if not left
                     else N_("the {card} goes onto your King pile ({n} of {total}): that is how Siege is won"),
                     card=action.cards[0], n=n, total=KING_PILE)]
    if k == "attack" and len(a) == 2:
        i, target = int(a[0]) - 1, int(a[1]) - 1
        mine = state.houses[seat][i]
        j = defending_slot(state.houses[target])
        if mine is None or j is None:
            return []
        dfd = state.houses[target][j]
        ms, ds = pile_score(mine), pile_score(dfd)
        taken = dfd[1:]
        facts: list[str] = [said(N_("your {pile} (score {score}) beats {rival}'s {theirs} (score {their_score})"),
                      pile=_pile(mine, i), score=ms, rival=_rival(target), theirs=_pile(dfd, j), their_score=ds)
                 if ms > ds else
                 said(N_("your {pile} (score {score}) cannot beat {rival}'s {theirs} (score {their_score}): "
                         "a tie goes to the defender"),
                      pile=_pile(mine, i), score=ms, rival=_rival(target), theirs=_pile(dfd, j), their_score=ds)]
        ours = sum(1 for c in taken if c.suit == own)
        if ms > ds and ours:
            facts.append(said(N_("you win {cards}, {ours} of them {suits} for your King pile"),
                              cards=_numbers(len(taken)), ours=ours, suits=suit(own, SUIT_NAMES[own])))
        elif ms > ds and taken:
            facts.append(said(N_("you win {cards} to build with this turn"), cards=_numbers(len(taken))))
        elif ms > ds:
            facts.append(said(N_("it knocks down their shield")))
        return facts
    if k == "build":
        return [said(N_("keeps your piles home to defend: a pile that attacks is spent either way"))]
    if k == "start" and action.cards and a:
        c = action.cards[0]
        facts = [said(N_("starts {kind} in slot {mark}: a shield for your King pile"),
                      kind=said(_KIND_WORDS[c.rank]), mark=MARKS[int(a[0]) - 1])]
        numbers = [x for x in state.hands[seat] if x.is_number and x.suit != own]
        if c.rank == "J":
            fit = sum(1 for x in numbers if x.suit == c.suit)
            if fit:
                english = f"{_numbers(fit)} in your hand fit it"
                facts.append(said_n("{n} number card in your hand fits it", "{n} number cards in your hand fit it",
                                    fit, english=english))
        elif c.rank == "Q":
            values = [x.value for x in numbers]
            pairs = sorted({v for v in values if values.count(v) >= 2})
            if pairs:
                facts.append(said(N_("your hand holds a pair for it")))
        return facts
    if k == "place" and action.cards and a:
        i = int(a[0]) - 1
        pile = state.houses[seat][i]
        if pile is None:
            return []
        before = pile_score(pile)
        after = pile_score([*pile, action.cards[0]])
        return [said(N_("the {card} raises your {pile} from score {before} to {after}"), card=action.cards[0],
                     pile=_pile(pile, i), before=before, after=after)]
    if k == "swap" and len(a) == 2:
        i, j = int(a[0]) - 1, int(a[1]) - 1
        if i == 0 or j == 0:
            return [said(N_("moves your stronger pile to slot {mark}, next to your King pile, where attacks meet "
                            "it"), mark=MARKS[i])]
        return [said(N_("swaps your piles {first} and {second}"), first=MARKS[i], second=MARKS[j]),
                said(N_("the pile nearest your King pile is the one that defends it"))]
    if k == "end":
        d = state.decision(seat)
        unbuilt = sorted({c for a in (d.actions if d is not None else ()) if a.kind in ("place", "start")
                          for c in a.cards}, key=lambda c: (c.suit, c.value))
        if not unbuilt:
            return [said(END_FACT)]
        named = ["the " + c.label for c in unbuilt]
        cards = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        go = "goes" if len(named) == 1 else "go"
        english = f"ends your turn: {cards} {go} to the discard pile rather than into a pile"
        return [said_n("ends your turn: {cards} goes to the discard pile rather than into a pile",
                       "ends your turn: {cards} go to the discard pile rather than into a pile", len(named),
                       english=english, cards=tuple(unbuilt))]
    return []


def siege_move_words(state: Any, seat: int, action: Action) -> str:
    """A move the search compared, as a hint names it ("attacking the spades player")."""
    k, a = action.kind, action.args
    if k == "attack" and len(a) == 2:
        return said(N_("attacking {rival} with your pile {mark}"), rival=_rival(int(a[1]) - 1),
                    mark=MARKS[int(a[0]) - 1])
    if k == "build":
        return said(N_("building without attacking"))
    if k == "start" and action.cards and a:
        return said(N_("starting {kind}"), kind=said(_KIND_WORDS[action.cards[0].rank]))
    if k == "place" and action.cards and a:
        if a[0] == KING:
            return said(N_("the {card} on your King pile"), card=action.cards[0])
        return said(N_("the {card} on your pile {mark}"), card=action.cards[0], mark=MARKS[int(a[0]) - 1])
    if k == "swap" and len(a) == 2:
        return said(N_("swapping your piles {first} and {second}"), first=MARKS[int(a[0]) - 1],
                    second=MARKS[int(a[1]) - 1])
    if k == "end":
        return said(N_("ending your turn"))
    return said(N_("another move"))
