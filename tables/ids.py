"""Short table ids that people can read aloud and type back.

Six characters from an alphabet without the lookalikes 0/O, 1/I/L: 31**6 ≈ 887 million ids, so a
random pick almost never collides, and ``new_id`` retries when it does.
"""

from __future__ import annotations

import random
from collections.abc import Container

from engine.words import echo as echo  # what an answer repeats of a typed id (the one helper)

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
LENGTH = 6
_ATTEMPTS = 1000


def new_id(rng: random.Random, taken: Container[str]) -> str:
    """A fresh id not in ``taken``."""
    for _ in range(_ATTEMPTS):
        candidate = "".join(rng.choice(ALPHABET) for _ in range(LENGTH))
        if candidate not in taken:
            return candidate
    raise RuntimeError("Could not find a free table id; is the random generator stuck?")


def normalise(text: str) -> str:
    """An id as a person might type or paste it (``#abc 123``, `` `ABC123` ``) in canonical form."""
    return "".join(ch for ch in str(text).upper() if ch not in " #`\t\n")
