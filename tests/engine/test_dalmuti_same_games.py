"""The Great Dalmuti plays the very same games in both builds of its rules (issue 35: they are
compiled with mypyc, tools/native.py): the random playouts bench/engine.py times, full games of
every table size, and AI games, from the same seeds, give the same actions, events, states and
views, digest for digest, in the build the engine picked (compiled after ``make build``) and in the
pure source.  The digests were taken from the rules as they were before they were compiled; a
change to any move, event, deal, tax or view of any of these games changes them."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import sys
from typing import Any

import pytest

import engine
from tools import native

FAST = engine.get("dalmuti").game
PURE = native.pure("dalmuti").Dalmuti
BUILDS = {"engine": FAST, "pure": PURE}


def _pure_ai() -> Any:
    """The normal AI read from its source against the pure rules: it looks plays up by their
    cards, and the pure build's cards are its own objects."""
    name = "games.dalmuti._pure_ai"
    if name not in sys.modules:
        saved = sys.modules["games.dalmuti.rules"]
        sys.modules["games.dalmuti.rules"] = native.pure("dalmuti")
        try:
            spec = importlib.util.spec_from_file_location(name, native.ROOT / "games" / "dalmuti" / "ai.py")
            assert spec is not None and spec.loader is not None
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            sys.modules[name] = mod
        finally:
            sys.modules["games.dalmuti.rules"] = saved
    return sys.modules[name].DalmutiAI()


AIS: dict[str, Any] = {"engine": engine.get("dalmuti").ai, "pure": _pure_ai}

# sha256 of every game's record, per "players,options" (the bench's one-hand games, then full games).
RANDOM_DIGESTS = {
    "6,hands=1": "bf5ff383364b4f4c24eee6d56c66262414349c1e509231b190bbb04e06f5304d",
    "6,hands=1,pass=open": "adc8e7d26eb3ca2f4c12530ffd08c32403cd2e105daca8f74912c471745f3c5f",
    "4,hands=5": "54ea410ea4fa00c3b401efbefb8ec72db8d0fe889140ec15b21b3791b0321459",
    "5,hands=3,pass=open": "8c7448b82cbcb16636af6dbf4e04b4b99e9adf15b1f49862b4cb67b1a189febd",
    "7,hands=2": "adb86691412e1161e586a546d873e2ecae9f267ccaa524b65b20e01516875d83",
    "8,hands=5,pass=open": "20f9bf676163c94046818e4863d418b9092f0c48a70adfb14837c26f58d6ed7f",
}
AI_DIGEST = "ddbab11beb280e17de5e78756abeeca7f4d46d2755dafc8f67779f5155277b44"


def _setup(key: str) -> tuple[int, dict[str, object]]:
    players, *rest = key.split(",")
    out: dict[str, object] = {}
    for kv in rest:
        k, v = kv.split("=")
        out[k] = int(v) if v.isdigit() else v
    return int(players), out


def _events(h: hashlib._Hash, events: list) -> None:
    for e in events:
        h.update(repr((e.kind, e.seat, e.to, [getattr(x, "code", x) for x in e.data])).encode())


def random_games(cls: Any, key: str, seeds: range) -> str:
    """The bench's random playouts (bench/engine.py random_playout), every move and event recorded,
    with the state and a seat's view now and then."""
    players, options = _setup(key)
    h = hashlib.sha256()
    for seed in seeds:
        g = cls.create(players, options, seed)
        _events(h, g.start_events)
        rng = random.Random(seed)
        n = 0
        while not g.is_over:
            acting = g.to_act()
            seat = acting[0] if len(acting) == 1 else rng.choice(acting)
            a = g.random_action(seat, rng)
            h.update(f"{seat} {a.code} ".encode())
            _events(h, g.apply(seat, a))
            n += 1
            if n % 5 == 0:
                h.update(json.dumps(g.to_dict(), sort_keys=True).encode())
            if n % 7 == 0:
                h.update(json.dumps(g.view(n % players), sort_keys=True).encode())
                h.update(repr(sorted(g.hidden_from(n % players))).encode())
        h.update(json.dumps(g.to_dict(), sort_keys=True).encode())
        h.update(repr(g.outcome()).encode())
    return h.hexdigest()


def ai_games(cls: Any, ai: Any, seeds: range) -> str:
    """The normal AI's games, each move with the seat's legal actions."""
    h = hashlib.sha256()
    for seed in seeds:
        players, options = _setup(list(RANDOM_DIGESTS)[seed % len(RANDOM_DIGESTS)])
        g = cls.create(players, options, f"same-{seed}")
        rng = random.Random(seed)
        while not g.is_over:
            acting = g.to_act()
            seat = acting[-1] if len(acting) > 1 else acting[0]
            h.update(repr([a.code for a in g.legal_actions(seat)]).encode())
            a = ai.choose(g, seat, rng)
            h.update(f"{seat} {a.code} ".encode())
            _events(h, g.apply(seat, a))
        h.update(json.dumps(g.to_dict(), sort_keys=True).encode())
    return h.hexdigest()


@pytest.mark.parametrize("build", BUILDS)
@pytest.mark.parametrize("key", RANDOM_DIGESTS)
def test_random_games_are_the_games_they_always_were(key: str, build: str) -> None:
    seeds = range(200) if key.endswith("hands=1") or "hands=1," in key else range(15)
    assert random_games(BUILDS[build], key, seeds) == RANDOM_DIGESTS[key]


@pytest.mark.parametrize("build", BUILDS)
def test_ai_games_are_the_games_they_always_were(build: str) -> None:
    assert ai_games(BUILDS[build], AIS[build](), range(40)) == AI_DIGEST


DEALS = {"engine": importlib.import_module("games.dalmuti.deal"), "pure": sys.modules["games.dalmuti._pure_deal"]}


@pytest.mark.parametrize("build", BUILDS)
def test_creation_draws_what_the_seeded_generators_draw(build: str) -> None:
    """create seeds its C generators itself and draws the opening draw's samples without
    random.Random's Python-level calls: the same draws (ties and redraws included) and the same
    shuffles as ``rng_for`` and ``random.Random.sample``, for every table size."""
    from engine.core import rng_for, shuffled

    deal = DEALS[build]
    ties = 0
    for seed in [*range(1500), "x", "same-3", "é/ü", -7]:
        for players in range(4, 9):
            want = deal.opening_draw(players, rng_for(seed, "draw"))
            assert deal.opening_draw(players, deal._generator(f"{seed}/draw")) == want, (seed, players)
            ties += len(want[0]) > 1
        assert (shuffled(deal.DECK_NUMBERS, deal._generator(f"{seed}/deal/3").random)
                == shuffled(deal.DECK_NUMBERS, rng_for(seed, "deal", 3).random)), seed
    assert ties > 1000  # redraws were compared too


def test_the_engine_plays_the_compiled_rules_wherever_a_build_is_loaded() -> None:
    """The comparison above sets the build the engine picked against the source: with a build
    loaded (CI, make build) that must be the compiled rules, cards and phases all."""
    assert PURE.__module__ == "games.dalmuti._pure_rules" and PURE is not FAST
    assert [c.__module__ for c in PURE.__mro__[1:-1]] == [
        "games.dalmuti._pure_play", "games.dalmuti._pure_taxes", "games.dalmuti._pure_deal"]
    assert issubclass(FAST, engine.Game) and isinstance(FAST.create(5), engine.Game)
    for name in ("games.dalmuti.cards", "games.dalmuti.deal", "games.dalmuti.taxes", "games.dalmuti.play",
                 "games.dalmuti.rules"):
        assert native.is_compiled(name) == (native.BUILD == "compiled"), (name, native.REASON)
    assert native.module("dalmuti") == "games.dalmuti.rules" and native.module("cards") == "engine.cards"
