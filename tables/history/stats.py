"""Game results as stats: one row per person per finished game, and the figures /stats shows.

At the end of a game the runtime stores :func:`results_of` (in the same transaction as the move that
ended it).  Game-specific figures — a game's own feats — are counted from the events of a
replay of the log by the game's ``GameSpec.figures`` (engine/figures.py), so old logs can be re-counted.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import engine
from engine.core import Event
from tables.storage.base import Record
from tables.table import Table

log = logging.getLogger("deckhand.tables")

def figure_names() -> dict[str, str]:
    """What each figure of every registered game is called, for the cogs."""
    return {k: v for spec in engine.games().values() for k, v in spec.figure_names.items()}


def game_events(t: Table) -> list[Event]:
    """Every event of the table's game, from a replay of its log."""
    assert t.seed is not None
    _, events = engine.replay(t.game, len(t.seats), t.options, t.seed, [(e.seat, e.code) for e in t.log])
    return events


#: A person for whom the AI made more than this share of their moves did not play the game: a ranked
#: game counts as a loss for them (docs/rules.md, "Ranked and casual").
ABSENT_SHARE = 0.5


def absent(t: Table, seat: int) -> bool:
    """Whether the person at ``seat`` left the game, or the AI made more than :data:`ABSENT_SHARE`
    of their moves (their time ran out, or they were away)."""
    s = t.seats[seat]
    if s.left:
        return True
    mine = [e for e in t.log if e.seat == seat]
    return bool(mine) and sum(1 for e in mine if e.auto) > ABSENT_SHARE * len(mine)


def results_of(t: Table, at: float) -> list[Record]:
    """The ``results`` rows of a game that has just ended by its rules: one per person seated
    (including someone who left and had the AI finish for them), each saying whether the game was
    ranked and whether the person was absent from it."""
    state = t.state
    outcome = state.outcome() if state is not None else None
    if outcome is None:
        return []
    players = len(t.seats)
    per_seat: list[dict[str, int]] = [{} for _ in range(players)]
    fn = engine.get(t.game).figures
    if fn is not None:
        try:
            per_seat = fn(game_events(t), players)
        except Exception:
            log.exception("Could not count the figures of table %s; storing its results without them", t.id)
    rows = []
    for seat, s in enumerate(t.seats):
        if s.is_ai or s.user_id is None:
            continue
        rows.append({
            "table_id": t.id,
            "seat": seat,
            "guild_id": t.guild_id,
            "game": t.game,
            "user_id": s.user_id,
            "name": s.name,
            "players": players,
            "place": outcome.places[seat],
            "score": outcome.scores[seat],
            "won": int(seat in outcome.winners),
            "figures": json.dumps(per_seat[seat], sort_keys=True),
            "finished_at": at,
            "hints": s.hints,
            "ranked": int(t.rated),
            "absent": int(absent(t, seat)),
        })
    return rows


@dataclass
class GameStats:
    """One person's record at one game in one server."""

    game: str
    games: int = 0
    wins: int = 0
    place_total: int = 0
    score_total: int = 0
    best: int | None = None  # best score (the lowest where the lowest wins)
    figures: Counter[str] = field(default_factory=Counter)
    hinted: int = 0  # games in which the person was shown at least one hint
    hinted_wins: int = 0  # of which won
    ranked: int = 0  # ranked games
    ranked_finished: int = 0  # of which they played to the end themselves (not absent)

    @property
    def average_place(self) -> float:
        return self.place_total / self.games if self.games else 0.0

    @property
    def average_score(self) -> float:
        return self.score_total / self.games if self.games else 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def summarise(rows: Iterable[Record]) -> list[GameStats]:
    """Per-game totals from someone's ``results`` rows, the most played game first."""
    by_game: dict[str, GameStats] = {}
    for r in rows:
        g = by_game.setdefault(r["game"], GameStats(r["game"]))
        g.games += 1
        g.wins += int(bool(r["won"]))
        g.place_total += int(r["place"])
        if int(r.get("hints") or 0) > 0:
            g.hinted += 1
            g.hinted_wins += int(bool(r["won"]))
        g.score_total += int(r["score"])
        if int(r.get("ranked") or 0):
            g.ranked += 1
            g.ranked_finished += 0 if int(r.get("absent") or 0) else 1
        spec = engine.games().get(r["game"])
        better = min if spec is not None and spec.lowest_wins else max
        g.best = int(r["score"]) if g.best is None else better(g.best, int(r["score"]))
        try:
            figures = json.loads(r.get("figures") or "{}")
        except ValueError:
            figures = {}
        for k, v in figures.items() if isinstance(figures, dict) else ():
            if isinstance(v, int) and not isinstance(v, bool):
                g.figures[k] += v
    return sorted(by_game.values(), key=lambda g: (-g.games, g.game))
