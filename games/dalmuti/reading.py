"""Reading what a Dalmuti player types as a set of cards (docs/rules.md §3): ``5 5 5``, ``three 5s``,
``5x3``, ``2 9 jester``, ``two 9s and a jester``.  The forgiving text reader gives every way to read
the words, in tiers; the game's ``parse_action`` (rules.py) keeps the one reading that is legal."""

from __future__ import annotations

import re

from games.dalmuti.cards import _NUMBER_WORDS, _card_number

# ---- the forgiving text reader ------------------------------------------------------------------
_COUNT_WORDS = {"single": 1, "a": 1, "an": 1, "one": 1, "pair": 2, "double": 2, "triple": 3, "both": 2}
_COUNT_WORDS.update({w: i + 1 for i, w in enumerate(_NUMBER_WORDS)})
_PLURALS = {w + "s": i + 1 for i, w in enumerate(_NUMBER_WORDS)}
_PLURALS.update({"sixes": 6})
_FILLER = {"and", "plus", "with", "of", "&", "+", ","}


def _readings(text: str) -> list[list[list[int]]]:
    """The ways to read ``text`` as a multiset of card numbers (13 = Jester), in tiers: the caller
    takes the one legal reading of the first tier that has one, and asks when a tier has two.
    ``5 5 5`` is read card by card first; ``2 9 jester`` (not a set card by card) then as two 9s
    and a Jester; ``5x3`` is read as three 5s and as five 3s alike."""
    t = text.replace(",", " , ").replace("+", " + ").replace("×", "x")
    t = re.sub(r"(\d)\s*[x*]\s*(\d)", r"\1 x \2", t)
    tokens = [tok for tok in t.split() if tok not in _FILLER]
    if not tokens:
        return []
    if len(tokens) == 3 and tokens[1] in ("x", "*"):
        a, b = _card_number(tokens[0]), _card_number(tokens[2])
        if a is None or b is None:
            return []
        return [[[number] * count for number, count in ((a, b), (b, a)) if 1 <= count <= 12]]
    tiers: list[list[list[int]]] = []
    # A plural ("5s", "jesters") means counting, so the card-by-card reading does not apply.
    if not any(_is_plural(tok) for tok in tokens):
        numbers = [_card_number(tok) for tok in tokens]
        literal = [x for x in numbers if x is not None]
        if len(literal) == len(numbers):
            tiers.append([literal])
    counted = _counted(tokens)
    if counted is not None and all(counted not in tier for tier in tiers):
        tiers.append([counted])
    return tiers


def _is_plural(tok: str) -> bool:
    return tok in _PLURALS or tok in ("jesters", "jokers") or (
        tok.endswith("s") and tok.rstrip("s").rstrip("'").isdigit())


def _counted(tokens: list[str]) -> list[int] | None:
    """``three 5s``, ``2 9 jester``, ``two 9s a jester``: a count, then what is counted."""
    out: list[int] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        count = None
        if i + 1 < len(tokens):
            count = _COUNT_WORDS.get(tok)
            if count is None and tok.isdigit() and 1 <= int(tok) <= 12:
                count = int(tok)
        if count is not None:
            what = _item(tokens[i + 1])
            if what is None:
                return None
            out.extend([what] * count)
            i += 2
            continue
        what = _item(tok)
        if what is None:
            return None
        out.append(what)
        i += 1
    return out


def _item(tok: str) -> int | None:
    if tok in _PLURALS:
        return _PLURALS[tok]
    for suffix in ("'s", "s"):
        if tok.endswith(suffix) and tok[: -len(suffix)].isdigit():
            tok = tok[: -len(suffix)]
            break
    return _card_number(tok)
