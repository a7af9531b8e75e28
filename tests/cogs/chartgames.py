"""Finished games of every kind as records, played by random legal moves (for the chart and the
ratings tests)."""

from __future__ import annotations

import random

import engine
from engine.core import TABLE
from tables.history.replay import GameRecord
from tables.table import LogEntry

#: Games longer than their spec's sample game, so a chart has several hands to show; any other
#: registered game plays its sample game (GameSpec.sample).
SETUPS = {"hearts": (4, {"target": 40}), "tricks": (4, {"target": 12}), "dalmuti": (5, {"hands": 3}),
          "koth": (5, {"rounds": 2}), "siege": (4, {})}


def setup(game: str) -> tuple[int, dict]:
    if game in SETUPS:
        return SETUPS[game]
    sample = engine.get(game).sample
    assert sample is not None, f"{game} has no sample game"
    return sample[0], dict(sample[1])


def finished_record(game: str, seed: int = 3, names: list[str] | None = None) -> GameRecord:
    n, options = setup(game)
    cls = engine.get(game).game
    g = cls.create(n, options, seed)
    rng = random.Random(seed)
    log = []
    while not g.is_over:
        acting = g.to_act()
        seat = acting[0] if acting else TABLE
        action = g.random_action(seat, rng)
        g.apply(seat, action)
        log.append(LogEntry(len(log) + 1, seat, action.code, 0.0, False))
    names = names or ["Ann", "Bob", "Cy", "Dee", "Eve"][:n]
    return GameRecord(id="ABC234", game=game, options=dict(options), seed=seed, names=names,
                      ai=[i >= 2 for i in range(n)], log=log)
