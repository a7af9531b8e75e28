"""The mypyc-compiled Hearts (tools/native.py, tools/build.py) plays exactly like its pure Python
source: the same deals from the same seeds, the same events, refusals, views and results, for random
games, AI games and the strong AI's searches.  ``games.hearts.rules`` is whichever build the engine
picked (compiled after ``make build``); the pure module is imported from games/hearts/rules.py
explicitly."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import sysconfig

import pytest

import engine
from engine.core import IllegalAction, rng_for
from games.hearts.rules import DECK
from tests import ci_guard
from tools import native

FAST = engine.get("hearts").game
PURE = native.pure("hearts").Hearts
OPTIONS = [{"target": 1}, {"rules": "mcgill", "target": 1}, {"moon": "shooter_minus_26", "target": 1}, {}]


def test_the_pure_module_is_the_source_and_the_engine_uses_the_build_it_says():
    assert native.pure("hearts").__file__.endswith("games/hearts/rules.py")
    # The phases' classes it extends (deal.py, passing.py, play.py) are read from their sources too.
    assert [c.__module__ for c in PURE.__mro__[1:-1]] == [
        "games.hearts._pure_play", "games.hearts._pure_passing", "games.hearts._pure_deal"]
    assert PURE is not FAST and issubclass(PURE, engine.Game) and issubclass(FAST, engine.Game)
    assert native.is_compiled("hearts") == (native.BUILD == "compiled"), native.REASON


def test_the_build_is_compiled_wherever_one_was_made():
    """CI (and anyone who ran make build) must be testing the compiled module, not the fallback."""
    made = (native.BUILD_DIR / native.MANIFEST).exists()
    # In CI nothing excuses the pure engine (.ci/run builds with --strict and unsets DECKHAND_PURE):
    # every comparison below would set the pure module against itself.
    if not ci_guard.active() and (not made or os.environ.get(native.PURE_ENV)):
        # Asked for the pure engine, or no build was ever made here: it runs the sources and says why.
        assert native.BUILD == "pure" and native.REASON, native.REASON
        assert not native.is_compiled("hearts")
        return
    assert native.BUILD == "compiled", native.REASON
    assert FAST.__module__ == "games.hearts.rules" and native.is_compiled("hearts")
    # Cards too: Hearts reads their attributes directly only when Card is the compiled class.
    assert native.is_compiled("cards") and type(DECK[0]).__module__ == "engine.cards"


def play(cls, options, seed, *, illegal_every=7):
    """A random game, recorded: every action, its events (with who may see them), the acting seat's
    decision, and now and then an arbitrary card tried (refused or played, never a crash)."""
    g = cls.create(4, options, seed)
    rng = random.Random(seed)
    log = []
    n = 0
    while not g.is_over:
        acting = g.to_act()
        seat = acting[0] if len(acting) == 1 else rng.choice(acting)
        d = g.decision(seat)
        log.append(("decision", seat, [a.code for a in d.actions], [c.code for c in d.cards], d.pick))
        n += 1
        if n % illegal_every == 0:
            before = g.to_dict()
            wrong = rng.choice(DECK)
            try:
                events = g.apply(rng.randrange(4), engine.Action("play", (wrong,)))
                log.append(("played", [(e.code, e.to) for e in events]))
            except IllegalAction as e:
                log.append(("refused", e.code, e.reason))
                assert g.to_dict() == before
            continue
        if n % 11 == 0:
            log.append(("view", seat, json.dumps(g.view(seat), sort_keys=True), sorted(g.hidden_from(seat))))
            log.append(("copy", g.copy().to_dict() == g.to_dict(), g.legal_plays(seat) == g.copy().legal_plays(seat)))
        a = g.random_action(seat, rng)
        log.append((seat, a.code, [(e.code, e.to) for e in g.apply(seat, a)]))
    return log, g.to_dict(), g.outcome()


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "full")
def test_random_games_are_the_same_in_both_builds(options):
    seeds = range(25) if not options else range(150)
    for seed in seeds:
        assert play(FAST, options, seed) == play(PURE, options, seed), (options, seed)


def test_ai_games_and_replays_are_the_same_in_both_builds():
    ai = engine.get("hearts").ai()
    for seed in range(40):
        logs = []
        for cls in (FAST, PURE):
            g = cls.create(4, OPTIONS[seed % 3], f"ai-{seed}")
            rng = random.Random(seed)
            log = []
            while not g.is_over:
                seat = g.to_act()[0]
                a = ai.choose(g, seat, rng)
                log.append((seat, a.code, [e.code for e in g.apply(seat, a)]))
            logs.append((log, g.to_dict(), g.outcome()))
            # The log replays to the same state through the other build's classmethods too.
            replayed = cls.create(4, OPTIONS[seed % 3], f"ai-{seed}")
            for seat, code, _ in log:
                replayed.apply(seat, cls.action_from_code(code))
            assert replayed.to_dict() == g.to_dict()
        assert logs[0] == logs[1], seed


def test_the_strong_ai_searches_the_same_in_both_builds():
    strong = engine.ai_for("hearts", "strong", playouts=24)
    for seed in range(6):
        fast = FAST.create(4, {"target": 1}, f"s-{seed}")
        rng = random.Random(seed)
        while fast.phase == "pass":
            seat = rng.choice(fast.to_act())
            fast.apply(seat, fast.random_action(seat, rng))
        for _ in range(5 + seed * 3):
            seat = fast.to_act()[0]
            fast.apply(seat, fast.random_action(seat, rng))
        pure = PURE.from_dict(fast.to_dict())
        seat = fast.to_act()[0]
        assert strong.choose(fast, seat, random.Random(seed)) == strong.choose(pure, seat, random.Random(seed))
        worlds = [fast.sample_world(seat, random.Random(k)).to_dict() for k in range(5)]
        assert worlds == [pure.sample_world(seat, random.Random(k)).to_dict() for k in range(5)]


def test_deals_are_the_shuffle_stored_games_were_dealt_with():
    """Every stored game's deal depends on sorting the deck by one random key per card, drawn in
    deck order: the compiled build draws the keys first and must give the very same hands."""
    for seed in [*range(60), "F9V56G", "x/y"]:
        for hand_no in (0, 1, 5):
            rnd = rng_for(seed, "deal", hand_no).random
            deck = sorted(DECK, key=lambda _: rnd())
            expected = [deck[0::4], deck[1::4], deck[2::4], deck[3::4]]
            for cls in (FAST, PURE):
                g = cls.create(4, {}, seed)
                g.hand_no = hand_no
                assert g._deal() == expected, (seed, hand_no)


def test_a_missing_stale_or_incomplete_build_is_never_picked(tmp_path):
    assert native.check(tmp_path).startswith("no compiled build")
    (tmp_path / native.MANIFEST).write_text("{not json")
    assert "unreadable" in native.check(tmp_path)
    stale = dict(native.fingerprint(), sources="0" * 64)
    (tmp_path / native.MANIFEST).write_text(json.dumps({"fingerprint": stale}))
    assert "stale" in native.check(tmp_path)
    (tmp_path / native.MANIFEST).write_text(json.dumps({"fingerprint": native.fingerprint()}))
    # Every game's compiled modules (each game's own COMPILED), after the engine's, then the library.
    hearts = "games.hearts.deal, games.hearts.passing, games.hearts.play, games.hearts.rules"
    assert hearts in ", ".join(native.COMPILED)
    assert f"lacks engine.cards, {', '.join(native.COMPILED[1:])}, engine.native__mypyc" in native.check(tmp_path)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    assert native.built("games.hearts.rules", tmp_path) == tmp_path / "games" / "hearts" / f"rules{suffix}"
    for m in native.COMPILED:  # the modules without the library they share
        native.built(m, tmp_path).parent.mkdir(parents=True, exist_ok=True)
        native.built(m, tmp_path).write_bytes(b"")
    assert native.check(tmp_path).endswith("lacks engine.native__mypyc")
    (tmp_path / "engine" / f"native__mypyc{suffix}").write_bytes(b"")
    assert native.check(tmp_path) is None  # complete by its files (whether it loads is activate's to try)


def test_the_pure_sources_run_when_asked_and_say_so():
    code = ("import logging; logging.basicConfig(level=logging.INFO); import engine, tools.native as n, "
            "games.hearts.rules as h; print(n.BUILD, h.__file__.endswith('.py'), "
            "engine.get('hearts').game.create(4, {}, 1).to_dict()['hands'][0][0])")
    root = str(native.ROOT)
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=60,
                         env={**os.environ, native.PURE_ENV: "1"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["pure", "True", FAST.create(4, {}, 1).to_dict()["hands"][0][0]]
    assert "DECKHAND_PURE is set" not in out.stderr  # asked for: no warning


def test_each_game_declares_what_it_compiles_in_its_own_package(tmp_path):
    """tools/native.py names no game: it reads a literal ``COMPILED`` from each games/<name>/__init__.py."""
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "__init__.py").write_text('"""B."""\nimport engine\n\nCOMPILED = ("deal", "rules")\n')
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "__init__.py").write_text('"""A game with nothing compiled."""\nimport engine\n')
    assert native.declared(tmp_path) == ("games.b.deal", "games.b.rules")
    assert native.COMPILED == ("engine.cards", *native.declared())
    assert "games.hearts.rules" in native.COMPILED and "games/hearts/rules.py" in native.SOURCES
