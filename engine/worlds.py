"""Dealing hidden cards again, consistently with what one seat knows: the tool behind every game's
``sample_world(seat, rng)`` (a random full state the seat cannot tell from the real one, for search).

A game lists the cards the seat cannot place, the *holders* they may be in (other hands, a stock, a
buried pile) with how many each must receive, and for each card the holders it may be in (a seat
that failed to follow a suit holds none of it).  :func:`deal_constrained` deals them so that every
constraint holds: the most constrained cards first, each to a random allowed holder weighted by the
room it has left, refusing any choice after which the rest could no longer be placed (Hall's
condition over the holders, exact for constraints of this "card may go to these holders" kind).

A world must depend only on what the seat knows and on the generator: a game hands the cards over
in a fixed order (never where they really are), takes the world's seed from :func:`fresh_seed`, and
draws again, or leaves empty, every record of another seat that the seat never saw (a pass, a tax,
a dead hand) — tests/engine/test_hidden_records.py checks this for every game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

#: A further test a game may add for constraints that are not per card: ``ok(holder, card, dealt)``
#: says whether ``card`` may join what ``holder`` has been dealt so far (a seat
#: known to hold no pair of a suit, say).
PairCheck = Callable[[int, T, list[T]], bool]


class NoWorld(Exception):
    """No deal satisfies the constraints (the knowledge given was contradictory)."""


def deal_constrained(
    cards: Sequence[T],
    allowed: Sequence[int],
    capacity: Sequence[int],
    rng: random.Random,
    ok: PairCheck[T] | None = None,
    tries: int = 50,
) -> list[list[T]]:
    """Deal ``cards`` to ``len(capacity)`` holders, holder ``h`` receiving exactly ``capacity[h]``.

    ``allowed[i]`` is a bit mask of the holders card ``i`` may go to.  Raises :class:`NoWorld` when
    the constraints admit no deal (or, with ``ok``, none was found in ``tries`` attempts)."""
    k = len(capacity)
    full = (1 << k) - 1
    if sum(capacity) != len(cards):
        raise NoWorld(f"{len(cards)} cards for {sum(capacity)} places")
    # Cards any holder may take need no care: they fill whatever room is left at the end, unless a
    # non-per-card check (``ok``) is given, which must see every card.
    free = [i for i in range(len(cards)) if allowed[i] & full == full and ok is None]
    tied = [i for i in range(len(cards)) if not (allowed[i] & full == full and ok is None)]
    for _ in range(max(1, tries)):
        out = _attempt(cards, allowed, capacity, rng, ok, free, tied, k, full)
        if out is not None:
            return out
    raise NoWorld("no deal found")


def _subset_room(capacity: list[int], k: int) -> list[int]:
    room = [0] * (1 << k)
    for s in range(1, 1 << k):
        low = s & -s
        room[s] = room[s ^ low] + capacity[low.bit_length() - 1]
    return room


def _attempt(cards: Sequence[T], allowed: Sequence[int], capacity: Sequence[int], rng: random.Random,
             ok: PairCheck[T] | None, free: list[int], tied: list[int], k: int, full: int) -> list[list[T]] | None:
    left = list(capacity)
    hands: list[list[T]] = [[] for _ in range(k)]
    order = list(tied)
    rng.shuffle(order)
    order.sort(key=lambda i: bin(allowed[i] & full).count("1"))
    # How many still-undealt tied cards have each mask: the Hall check sums over these.
    pending: dict[int, int] = {}
    for i in order:
        m = allowed[i] & full
        pending[m] = pending.get(m, 0) + 1
    for i in order:
        m = allowed[i] & full
        pending[m] -= 1
        c = cards[i]
        choices = [h for h in range(k) if m >> h & 1 and left[h] > 0 and (ok is None or ok(h, c, hands[h]))]
        rng.shuffle(choices)
        # Weighted by room left: a near-uniform deal among the consistent ones.
        choices.sort(key=lambda h: -left[h] * rng.random())
        placed = False
        for h in choices:
            left[h] -= 1
            if _hall(pending, left, k):
                hands[h].append(c)
                placed = True
                break
            left[h] += 1
        if not placed:
            return None
    rest = [cards[i] for i in free]
    rng.shuffle(rest)
    pos = 0
    for h in range(k):
        hands[h].extend(rest[pos:pos + left[h]])
        pos += left[h]
    return hands


def _hall(pending: dict[int, int], left: list[int], k: int) -> bool:
    """Whether the undealt tied cards still fit: for every set S of holders, the cards that may go
    only to holders in S are no more than S's room."""
    masks = [m for m, n in pending.items() if n]
    if not masks:
        return True
    room = _subset_room(left, k)
    for s in range(1, 1 << k):
        need = 0
        for m in masks:
            if m & ~s == 0:
                need += pending[m]
        if need > room[s]:
            return False
    return True


def fresh_seed(rng: random.Random) -> str:
    """A seed for a sampled world: its future deals must be as unknown to the seat as the real ones.
    Drawn from ``rng`` alone: the real seed fixes every deal, so it is hidden like the cards, and a
    world must come out the same from any state the seat cannot tell apart."""
    return f"world{rng.getrandbits(48):x}"
