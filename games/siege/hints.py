"""Siege's hint words (engine/hints.py asks them for the reason of a hint): the facts behind a
move, and how a hint names a move the search compared it with.  Only what the seat may see: its own
hand, the King piles and house piles on the table.  Rivals are named by their suit ("the spades
player"), piles by kind and slot mark ("your Queen pile ①"), cards by their labels: no codes, no
seat numbers."""

from __future__ import annotations

from typing import Any

from engine.core import Action
from engine.words import plural
from games.siege.rules import KING, KING_PILE, PILE_KINDS, SEAT_SUITS, SUIT_NAMES, defending_slot, pile_score

MARKS = "①②③"
END_FACT = "nothing more worth doing: ends your turn"


def _pile(pile: Any, slot: int) -> str:
    return f"{PILE_KINDS[pile[0].rank].capitalize()} pile {MARKS[slot]}"


def _rival(seat: int) -> str:
    return f"the {SUIT_NAMES[SEAT_SUITS[seat]]} player"


def _numbers(n: int) -> str:
    return plural(n, "number card")


def siege_facts(state: Any, seat: int, action: Action) -> list[str]:
    """Why ``action``, in one or two short phrases."""
    k, a = action.kind, action.args
    own = SEAT_SUITS[seat]
    if k == "place" and a and a[0] == KING:
        n = len(state.kings[seat]) + 1
        left = KING_PILE - n
        return [f"the {action.cards[0].label} goes onto your King pile ({n} of {KING_PILE}): "
                + ("that completes it and wins" if not left else "that is how Siege is won")]
    if k == "attack" and len(a) == 2:
        i, target = int(a[0]) - 1, int(a[1]) - 1
        mine = state.houses[seat][i]
        j = defending_slot(state.houses[target])
        if mine is None or j is None:
            return []
        dfd = state.houses[target][j]
        ms, ds = pile_score(mine), pile_score(dfd)
        taken = dfd[1:]
        facts = [f"your {_pile(mine, i)} (score {ms}) beats {_rival(target)}'s {_pile(dfd, j)} (score {ds})"
                 if ms > ds else
                 f"your {_pile(mine, i)} (score {ms}) cannot beat {_rival(target)}'s {_pile(dfd, j)} "
                 f"(score {ds}): a tie goes to the defender"]
        ours = sum(1 for c in taken if c.suit == own)
        if ms > ds and ours:
            facts.append(f"you win {_numbers(len(taken))}, {ours} of them {SUIT_NAMES[own]} for your King pile")
        elif ms > ds and taken:
            facts.append(f"you win {_numbers(len(taken))} to build with this turn")
        elif ms > ds:
            facts.append("it knocks down their shield")
        return facts
    if k == "build":
        return ["keeps your piles home to defend: a pile that attacks is spent either way"]
    if k == "start" and action.cards and a:
        c = action.cards[0]
        kind = PILE_KINDS[c.rank].capitalize()
        facts = [f"starts a {kind} pile in slot {MARKS[int(a[0]) - 1]}: a shield for your King pile"]
        numbers = [x for x in state.hands[seat] if x.is_number and x.suit != own]
        if c.rank == "J":
            fit = sum(1 for x in numbers if x.suit == c.suit)
            if fit:
                facts.append(f"{_numbers(fit)} in your hand fit it")
        elif c.rank == "Q":
            values = [x.value for x in numbers]
            pairs = sorted({v for v in values if values.count(v) >= 2})
            if pairs:
                facts.append("your hand holds a pair for it")
        return facts
    if k == "place" and action.cards and a:
        i = int(a[0]) - 1
        pile = state.houses[seat][i]
        if pile is None:
            return []
        before = pile_score(pile)
        after = pile_score([*pile, action.cards[0]])
        return [f"the {action.cards[0].label} raises your {_pile(pile, i)} from score {before} to {after}"]
    if k == "swap" and len(a) == 2:
        i, j = int(a[0]) - 1, int(a[1]) - 1
        return [f"moves your stronger pile to slot {MARKS[i]}, next to your King pile, where attacks meet it"
                if i == 0 or j == 0 else f"swaps your piles {MARKS[i]} and {MARKS[j]}"]
    if k == "end":
        d = state.decision(seat)
        unbuilt = sorted({c for a in (d.actions if d is not None else ()) if a.kind in ("place", "start")
                          for c in a.cards}, key=lambda c: (c.suit, c.value))
        if not unbuilt:
            return [END_FACT]
        named = ["the " + c.label for c in unbuilt]
        cards = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
        return [f"ends your turn: {cards} {'goes' if len(named) == 1 else 'go'} to the discard pile "
                "rather than into a pile"]
    return []


def siege_move_words(state: Any, seat: int, action: Action) -> str:
    """A move the search compared, as a hint names it ("attacking the spades player")."""
    k, a = action.kind, action.args
    if k == "attack" and len(a) == 2:
        return f"attacking {_rival(int(a[1]) - 1)} with your pile {MARKS[int(a[0]) - 1]}"
    if k == "build":
        return "building without attacking"
    if k == "start" and action.cards and a:
        return f"starting a {PILE_KINDS[action.cards[0].rank].capitalize()} pile"
    if k == "place" and action.cards and a:
        where = "your King pile" if a[0] == KING else f"your pile {MARKS[int(a[0]) - 1]}"
        return f"the {action.cards[0].label} on {where}"
    if k == "swap" and len(a) == 2:
        return f"swapping your piles {MARKS[int(a[0]) - 1]} and {MARKS[int(a[1]) - 1]}"
    if k == "end":
        return "ending your turn"
    return "another move"
