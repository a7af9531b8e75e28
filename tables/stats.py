"""Game results as stats: one row per person per finished game, and the figures /stats shows.

At the end of a game the runtime stores :func:`results_of` (in the same transaction as the move that
ended it).  Game-specific figures — moons shot in Hearts, say — are counted from the events of a
replay of the log, so the engine needs no stats code and old logs can be re-counted.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine
from engine.core import Event
from tables.table import Table

log = logging.getLogger("deckhand.tables")

Figures = Callable[[Sequence[Event], int], list[dict[str, int]]]
_FIGURES: dict[str, Figures] = {}
#: What each figure is called, for the cogs.
FIGURE_NAMES: dict[str, str] = {
    "moons": "moons shot", "queens": "Q♠ taken", "hands": "hands played",
    "tricks": "tricks won", "bad_cards": "bad cards",
    "firsts": "hands finished first", "revolutions": "revolutions called",
    "rounds_as_koth": "rounds as KotH", "defences": "hills held", "teammate": "rounds as teammate",
    "attacks": "attacks made", "attacks_won": "attacks won",
}


def figures_for(game: str) -> Callable[[Figures], Figures]:
    def register(fn: Figures) -> Figures:
        _FIGURES[game] = fn
        return fn

    return register


@figures_for("hearts")
def hearts_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"moons": 0, "queens": 0, "hands": 0} for _ in range(players)]
    for e in events:
        if e.to is not None:
            continue
        if e.kind == "hand_end" and len(e.data) > players:
            moon = e.data[players]
            for f in out:
                f["hands"] += 1
            if isinstance(moon, int) and 0 <= moon < players:
                out[moon]["moons"] += 1
        elif e.kind == "trick" and e.seat is not None and any(getattr(c, "code", c) == "QS" for c in e.data[2:]):
            out[e.seat]["queens"] += 1
    return out


@figures_for("tricks")
def tricks_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"tricks": 0, "bad_cards": 0} for _ in range(players)]
    for e in events:
        if e.to is None and e.seat is not None and 0 <= e.seat < players:
            if e.kind == "trick":
                out[e.seat]["tricks"] += 1
            elif e.kind == "bad_card":
                out[e.seat]["bad_cards"] += 1
    return out


@figures_for("dalmuti")
def dalmuti_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"firsts": 0, "revolutions": 0, "hands": 0} for _ in range(players)]
    for e in events:
        if e.to is not None:
            continue
        if e.kind == "hand_end" and len(e.data) > 1:
            first = e.data[1]  # (hand_no, finishing order..., scores...)
            for f in out:
                f["hands"] += 1
            if isinstance(first, int) and 0 <= first < players:
                out[first]["firsts"] += 1
        elif e.kind == "revolution" and e.seat is not None and 0 <= e.seat < players:
            out[e.seat]["revolutions"] += 1
    return out


@figures_for("koth")
def koth_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"rounds_as_koth": 0, "defences": 0, "teammate": 0} for _ in range(players)]
    for e in events:
        # hand_end: seat = the KotH; data = (round, teammate or -1, challenge score, ...)
        if e.to is None and e.kind == "hand_end" and e.seat is not None and 0 <= e.seat < players:
            out[e.seat]["rounds_as_koth"] += 1
            mate, score = e.data[1], e.data[2]
            if isinstance(score, int) and score < 80:
                out[e.seat]["defences"] += 1
            if isinstance(mate, int) and 0 <= mate < players and mate != e.seat:
                out[mate]["teammate"] += 1
    return out


@figures_for("siege")
def siege_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"attacks": 0, "attacks_won": 0} for _ in range(players)]
    attacker: int | None = None
    for e in events:
        if e.to is not None or e.seat is None or not 0 <= e.seat < players:
            continue
        if e.kind == "attack":
            attacker = e.seat
            out[attacker]["attacks"] += 1
        elif e.kind == "fight" and attacker is not None:
            if e.seat == attacker:
                out[attacker]["attacks_won"] += 1
            attacker = None
    return out


def game_events(t: Table) -> list[Event]:
    """Every event of the table's game, from a replay of its log."""
    assert t.seed is not None
    _, events = engine.replay(t.game, len(t.seats), t.options, t.seed, [(e.seat, e.code) for e in t.log])
    return events


def results_of(t: Table, at: float) -> list[dict[str, Any]]:
    """The ``results`` rows of a game that has just ended by its rules: one per person seated
    (including someone who left and had the AI finish for them)."""
    state = t.state
    outcome = state.outcome() if state is not None else None
    if outcome is None:
        return []
    players = len(t.seats)
    per_seat: list[dict[str, int]] = [{} for _ in range(players)]
    fn = _FIGURES.get(t.game)
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
    best: int | None = None  # best score (lowest in Hearts)
    figures: Counter[str] = field(default_factory=Counter)
    hinted: int = 0  # games in which the person was shown at least one hint
    hinted_wins: int = 0  # of which won

    @property
    def average_place(self) -> float:
        return self.place_total / self.games if self.games else 0.0

    @property
    def average_score(self) -> float:
        return self.score_total / self.games if self.games else 0.0

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


LOWEST_WINS = {"hearts"}


def summarise(rows: Iterable[dict[str, Any]]) -> list[GameStats]:
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
        better = min if r["game"] in LOWEST_WINS else max
        g.best = int(r["score"]) if g.best is None else better(g.best, int(r["score"]))
        try:
            figures = json.loads(r.get("figures") or "{}")
        except ValueError:
            figures = {}
        for k, v in figures.items() if isinstance(figures, dict) else ():
            if isinstance(v, int) and not isinstance(v, bool):
                g.figures[k] += v
    return sorted(by_game.values(), key=lambda g: (-g.games, g.game))
