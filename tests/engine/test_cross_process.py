"""Determinism across processes: a restart rebuilds every running table by replaying its logged
actions in a new process (engine.replay), whose string hashes — and so the order of any set or
dict built from hashed keys — differ from the process that played.  A run inside one process
cannot see that; here a child with another ``PYTHONHASHSEED`` plays the same seeded games (the
built-in AI on some seats, random legal actions on the others) and replays the parent's logs, and
must give the same log, events, views, scores and final state, for every registered game.

``python -m tests.engine.test_cross_process < logs.json`` is the child: it prints its records."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import engine
from engine.core import TABLE

ROOT = Path(__file__).resolve().parents[2]
SEEDS = (1, 2, "restart-3", 4, 5, "F9V56G")
STEP_CAP = 5000
LOOK_EVERY = 7  # every seat's view and what is hidden from it, every 7th step


def _plain(x: Any) -> Any:
    """JSON for what the records hold besides plain data: cards by code; anything else by repr (a
    set's repr follows the hash order: a state holding one would differ between the processes)."""
    code = getattr(x, "code", None)
    return code if isinstance(code, str) else repr(x)


def _events(events: list[Any]) -> list[Any]:
    return [(e.code, e.to) for e in events]


def _games() -> list[tuple[str, int, dict[str, Any], int | str]]:
    """(game, players, options, seed) for every registered game: its short option sets, each
    number of players it takes in turn."""
    out = []
    for name, entry in sorted(engine.games().items()):
        cls = entry.game
        for i, seed in enumerate(SEEDS):
            players = cls.min_players + i % (cls.max_players - cls.min_players + 1)
            out.append((name, players, cls.read_options(cls.short_options[i % len(cls.short_options)]), seed))
    return out


def play(name: str, players: int, options: dict[str, Any], seed: int | str) -> dict[str, Any]:
    """One seeded game: the AI on even seats, random legal actions on the others and the table."""
    entry = engine.get(name)
    g = entry.game.create(players, options, seed)
    ai = entry.ai()
    rng = random.Random(f"{name}/{seed}")
    log: list[list[Any]] = []
    events: list[Any] = []
    looks: list[Any] = []
    for step in range(STEP_CAP):
        if g.is_over:
            break
        acting = g.to_act()
        seat = rng.choice(acting)
        action = ai.choose(g, seat, rng) if seat != TABLE and seat % 2 == 0 else g.random_action(seat, rng)
        log.append([seat, action.code])
        events.append(_events(g.apply(seat, action)))
        if step % LOOK_EVERY == 0:
            looks.append([list(acting), [g.view(s) for s in range(players)], g.public_view(),
                          [sorted(g.hidden_from(s)) for s in (None, *range(players))]])
    assert g.is_over, (name, seed, "did not end")
    outcome = g.outcome()
    return {"log": log, "events": events, "looks": looks, "scores": outcome and list(outcome.scores),
            "outcome": outcome, "final": g.to_dict()}


def replay(name: str, players: int, options: dict[str, Any], seed: int | str, log: list[Any]) -> dict[str, Any]:
    """The restart's way back: the game rebuilt from its creation arguments and logged actions."""
    g, events = engine.replay(name, players, options, seed, [(s, c) for s, c in log])
    outcome = g.outcome()
    return {"events": _events(events), "scores": outcome and list(outcome.scores), "final": g.to_dict(),
            "views": [g.view(s) for s in range(players)]}


def digest(record: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(record, sort_keys=True, default=_plain).encode()).hexdigest()


def records(logs: dict[str, list[Any]]) -> dict[str, Any]:
    """What one process makes of every game: a digest of each part of its own playout, and of its
    replay of ``logs`` (key -> the log another process played)."""
    played, replayed = {}, {}
    for name, players, options, seed in _games():
        key = f"{name}/{players}/{seed}"
        record = play(name, players, options, seed)
        played[key] = {part: digest(value) for part, value in record.items()} | {"log": record["log"]}
        if key in logs:
            replayed[key] = {part: digest(value) for part, value in
                             replay(name, players, options, seed, logs[key]).items()}
    return {"hash": hash("deckhand"), "played": played, "replayed": replayed}


def child(hash_seed: str, logs: dict[str, list[Any]]) -> dict[str, Any]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "tests.engine.test_cross_process"], cwd=ROOT, env=env,
                         input=json.dumps(logs), capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_every_game_plays_and_replays_the_same_in_processes_with_other_hash_seeds():
    mine = records({})
    logs = {key: r["log"] for key, r in mine["played"].items()}
    assert {key.split("/")[0] for key in logs} == set(engine.games())
    # The seeds and games give different games (a digest that ignored them would match anyway).
    assert len({r["final"] for r in mine["played"].values()}) == len(logs)
    own = os.environ.get("PYTHONHASHSEED")
    seeds = [s for s in ("1", "2", "3") if s != own][:2]
    children = [child(s, logs) for s in seeds]
    # The children really hash differently from each other.
    assert children[0]["hash"] != children[1]["hash"]
    mine_replayed = {key: {part: digest(value) for part, value in replay(*_args(key), logs[key]).items()}
                     for key in logs}
    for theirs in children:
        for key, record in mine["played"].items():
            assert theirs["played"][key] == record, key
            assert theirs["replayed"][key] == mine_replayed[key], key
        # The replay ends where the game did: the same scores and final state.
        for key, record in mine["played"].items():
            assert theirs["replayed"][key]["final"] == record["final"], key
            assert theirs["replayed"][key]["scores"] == record["scores"], key


def _args(key: str) -> tuple[str, int, dict[str, Any], int | str]:
    for name, players, options, seed in _games():
        if key == f"{name}/{players}/{seed}":
            return name, players, options, seed
    raise KeyError(key)


if __name__ == "__main__":
    json.dump(records(json.load(sys.stdin)), sys.stdout)
