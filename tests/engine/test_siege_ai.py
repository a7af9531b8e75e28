"""The Siege computer player: always legal, deterministic, far better than chance, sensible in the
positions the rules make interesting, and never deadlocking a table of computers."""

from __future__ import annotations

import random

import engine
from games.siege.ai import SiegeAI
from games.siege.rules import Siege
from tests.engine.test_siege_rules import crafted


def ai_code(g: Siege, seat: int | None = None) -> str:
    seat = g.turn if seat is None else seat
    return SiegeAI().choose(g, seat, random.Random(0)).code


def play(seed: int, ai_seats: set[int], options: dict | None = None, turn_cap: int = 2000) -> Siege:
    g = Siege.create(4, options or {}, seed)
    ai, rng = SiegeAI(), random.Random(seed)
    while not g.is_over and g.turn_no < turn_cap:
        s = g.turn
        g.apply(s, ai.choose(g, s, rng) if s in ai_seats else g.random_action(s, rng))
    return g


# ---- legality, determinism, strength ------------------------------------------------------------
def test_registered_as_the_siege_ai() -> None:
    assert engine.get("siege").ai is SiegeAI


def test_always_legal_in_full_games() -> None:
    ai = SiegeAI()
    moves = 0
    for seed in range(40):
        g = Siege.create(4, {}, seed)
        rng = random.Random(seed)
        while not g.is_over:
            s = g.turn
            a = ai.choose(g, s, rng) if (seed + s) % 2 else g.random_action(s, rng)
            assert a in g.decision(s).actions
            g.apply(s, a)  # raises IllegalAction if the engine disagrees
            moves += 1
        assert g.winner is not None
    assert moves > 2000


def test_deterministic() -> None:
    def run(seed: int) -> list[str]:
        g = Siege.create(4, {}, seed)
        rng = random.Random(seed)
        log = []
        while not g.is_over:
            a = SiegeAI().choose(g, g.turn, rng)
            log.append(a.code)
            g.apply(g.turn, a)
        return log

    assert run(7) == run(7) and run(7) != run(8)


def test_beats_random_players() -> None:
    games, wins = 80, 0
    for seed in range(games):
        seat = seed % 4
        g = play(seed, {seat})
        wins += g.outcome().winners == (seat,)
    assert wins >= 0.75 * games  # chance is 25%; measured about 95%


def test_a_table_of_computers_always_finishes() -> None:
    """Greedy piles that only grow would lock the cards everyone needs; the AI's cap prevents it."""
    longest = 0
    for seed in range(60):
        g = play(seed, {0, 1, 2, 3})
        assert g.is_over and g.winner is not None, f"seed {seed} deadlocked"
        longest = max(longest, g.turn_no)
    assert longest < 400


# ---- scenarios ----------------------------------------------------------------------------------
def test_builds_its_king_pile_first() -> None:
    g = crafted(turn=0, hands=("QX 7X 7S 5H", "", "", ""))
    assert ai_code(g) == "place 5H king"


def test_attacks_a_weaker_pile_holding_its_own_suit() -> None:
    g = crafted(turn=0, phase="attack", houses={0: ["QX 7X 7X", None, None], 1: ["JH 3H 4H", None, None]})
    assert ai_code(g) == "attack 1 2"


def test_never_attacks_into_a_tie_or_a_stronger_pile() -> None:
    g = crafted(turn=0, phase="attack", houses={0: ["JX 4X 5X", None, None], 1: ["AS 3H 4H", None, None],
                                                 2: ["QC 2H 2D", None, None]})
    assert not ai_code(g).startswith("attack")


def test_keeps_a_strong_pile_when_the_spoils_are_nothing() -> None:
    g = crafted(turn=0, phase="attack", houses={0: ["QX 7X 7X 8X 8X", None, None], 1: ["JS", None, None]})
    assert not ai_code(g).startswith("attack")


def test_puts_pressure_on_the_leader() -> None:
    g = crafted(turn=0, phase="attack", kings=("", "2S", "2D 3D 4D 5D", ""),
                houses={0: ["QX 7X 7X", None, None], 1: ["JX 5X", None, None], 2: ["JX 6X", None, None]})
    assert ai_code(g) == "attack 1 3"


def test_starts_the_pile_kind_its_hand_supports() -> None:
    # A pair of sevens: the Queen pile scores 4 at once; the Jack has no diamonds, the Ace a 1-card straight.
    g = crafted(turn=0, hands=("QX JD AS 7X 7S 9C", "", "", ""), houses={0: ["JC", "JH", None]})
    assert ai_code(g) == "start QX 3"
    # Three diamonds: the Jack pile wins.
    g = crafted(turn=0, hands=("QX JD 4D 6D 8D", "", "", ""), houses={0: ["JC", "JH", None]})
    assert ai_code(g) == "start JD 3"


def test_adds_pairs_to_a_queen_pile_before_an_unpaired_single() -> None:
    g = crafted(turn=0, hands=("5D 8X 8S", "", "", ""), houses={0: ["QX 7X 7X", None, None]})
    assert ai_code(g) in ("place 8X 1", "place 8S 1")


def test_keeps_its_strongest_pile_in_slot_one() -> None:
    g = crafted(turn=0, houses={0: ["JX", "QX 7X 7X", None]})
    assert ai_code(g) == "swap 1 2"
    g = crafted(turn=0, houses={0: ["QX 7X 7X", "JX", None]})
    assert ai_code(g) == "end"


def test_does_not_lock_cards_into_a_pile_already_strong_enough() -> None:
    g = crafted(turn=0, hands=("9X 9S", "", "", ""), houses={0: ["QX 7X 7X 8X 8X", None, None]})
    assert ai_code(g) == "end"  # 8 points, and no rival has a pile: the nines go back into play
    g = crafted(turn=0, hands=("9X 9S", "", "", ""),
                houses={0: ["QX 7X 7X 8X 8X", None, None], 1: ["QS 2X 2X 3X 3X", None, None]})
    assert ai_code(g) in ("place 9X 1", "place 9S 1")
