"""The games' randomness: one seeded generator per purpose, and their shuffle.  Deterministic: the
same seed gives the same deals, so a stored game replays as it was played."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar


def rng_for(seed: int | str, *parts: object) -> random.Random:
    """A deterministic generator for one purpose of one game (``rng_for(seed, "deal", 3)``), so a
    game needs no generator state in its serialised form."""
    return random.Random("/".join(map(str, (seed, *parts))))


_T = TypeVar("_T")


def shuffled(items: Sequence[_T], rnd: Callable[[], float]) -> list[_T]:
    """``sorted(items, key=lambda _: rnd())``, the games' shuffle (the deals of stored games depend
    on it), without a call of a key function per item: the keys are drawn first, in the same order,
    and the positions sorted stably by them, which is the same order."""
    keys = [rnd() for _ in items]
    return [items[i] for i in sorted(range(len(keys)), key=keys.__getitem__)]
