"""Siege's strong level (games/siege/search.py) and its hint words (games/siege/hints.py): in
positions built by hand the search finds the sound move the normal AI misses, and a hint says why
in words (no card codes, no seat numbers)."""

from __future__ import annotations

import random
import re

import engine
from engine.hints import hint
from engine.search import SearchAI
from games.siege.ai import SiegeAI
from games.siege.rules import Siege
from tests.engine.test_siege_rules import crafted

PLAYOUTS = 60

#: The spades player (seat 2 as people count) has eight spades on their King pile and needs the 9♠.
SPADES_NEED_NINE = "2S 3S 4S 5S 6S 7S 8S TS"


def handing_over() -> Siege:
    """Building, the hearts player holds the 9♠ and a bare spade Jack pile: placing the card raises
    the pile to 1, and the spades player's Queen pile (4) then takes it at once and wins."""
    return crafted(turn=0, phase="build", hands=("9S", "", "", ""), kings=("2H 3H", SPADES_NEED_NINE, "", ""),
                   houses={0: ["JS", None, None], 1: ["QD 5D 5C", None, None]})


def exposing() -> Siege:
    """Attacking, the hearts player's Queen pile (8) could win two hearts from the diamonds player —
    but it shields the Jack pile holding the 9♠, and the spades player's pile (4) is next to move:
    once the Queen pile is spent, the spades player takes the 9♠ and wins."""
    return crafted(turn=0, phase="attack", kings=("2H 3H", SPADES_NEED_NINE, "", ""),
                   houses={0: ["QC 7C 7D 8C 8D", "JS 9S", None], 1: ["QD 5D 5C", None, None],
                           2: ["JH 4H 5H", None, None]})


def strong_move(g: Siege, seed: int = 1) -> str:
    spec = engine.get("siege")
    return SearchAI(spec.search, spec.ai(), PLAYOUTS).choose(g, g.turn, random.Random(seed)).code


def normal_move(g: Siege) -> str:
    return SiegeAI().choose(g, g.turn, random.Random(0)).code


def test_siege_has_a_strong_level() -> None:
    assert engine.levels("siege") == ("normal", "strong")
    assert isinstance(engine.ai_for("siege", "strong", playouts=10), SearchAI)


def test_strong_keeps_the_leaders_last_card_out_of_a_weak_pile() -> None:
    g = handing_over()
    assert normal_move(g) == "place 9S 1"
    for seed in range(3):
        assert strong_move(g, seed) == "end"


def test_strong_keeps_the_shield_in_front_of_the_leaders_last_card() -> None:
    g = exposing()
    assert normal_move(g) == "attack 1 3"
    for seed in range(3):
        assert strong_move(g, seed) == "build"


def test_strong_still_takes_a_free_win() -> None:
    """The sound move both levels see: the fight wins the 9♥, the last card of the King pile."""
    g = crafted(turn=0, phase="attack", kings=("2H 3H 4H 5H 6H 7H 8H TH", "", "", ""),
                houses={0: ["QC 7C 7D", None, None], 2: ["JH 9H", None, None]})
    assert normal_move(g) == strong_move(g) == "attack 1 3"


def _player_words(text: str) -> None:
    assert not re.search(r"\b(?:[2-9TJQKA][HSDCX]|10[HSDCX])\b", text), text  # no card codes
    assert "seat" not in text.lower() and not re.search(r"(?i)\b(player|slot|pile) [1-4]\b", text), text


def test_the_hint_says_why_in_words() -> None:
    h = hint(handing_over(), 0, random.Random(2), playouts=PLAYOUTS)
    assert h.level == "strong" and h.action.code == "end"
    assert h.reason.startswith("ends your turn: the 9♠ goes to the discard pile rather than into a pile; "
                               "the search expects about "), h.reason
    assert h.reason.endswith(" more of a lead in the King pile race than with the 9♠ on your pile ①"), h.reason
    h = hint(exposing(), 0, random.Random(2), playouts=PLAYOUTS)
    assert h.level == "strong" and h.action.code == "build"
    assert h.reason.startswith("keeps your piles home to defend"), h.reason
    assert "than with attacking the diamonds player with your pile ②" in h.reason, h.reason
    for r in (h.reason, hint(handing_over(), 0, random.Random(2), playouts=PLAYOUTS).reason):
        _player_words(r.split("about")[0])


def test_an_attack_hint_names_the_piles_and_the_spoils() -> None:
    from engine.hints import explain
    from games.siege.rules import Siege as S

    g = crafted(turn=0, phase="attack", kings=("2H 3H", "", "", ""),
                houses={0: ["QC 7C 7D 8C 8D", None, None], 2: ["JH 4H 5H", None, None]})
    why = explain(g, 0, S.action_from_code("attack 1 3"))
    assert why == ("your Queen pile ① (score 8) beats the diamonds player's Jack pile ① (score 2); "
                   "you win 2 number cards, 2 of them hearts for your King pile")
    _player_words(why)
