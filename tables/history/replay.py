"""A finished game as a small JSON file, and replaying it.

``/game replay id:`` attaches :meth:`GameRecord.to_json` (the seed, the options, the seats' names
and the whole action log); anyone can check the result with::

    python -m tables.history.replay deckhand-F9V56G.json

which replays the log through the engine, prints a hand-by-hand recap and the final scores, and
exits 0 when they equal the result written in the file (1 when they do not, 2 when the file cannot
be read or replayed).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NotRequired, TypedDict

import engine
import words
from engine.core import Event, Game, Options, Outcome
from engine.replays import ReplayHooks
from tables.storage.base import Record
from tables.table import LogEntry, Phase, Table

FORMAT = "deckhand-replay"
FORMAT_VERSION = 1


class SeatJSON(TypedDict):
    name: str
    ai: bool
    hints: NotRequired[int]  # how many decisions the person asked a hint for (none: left out)


class RecordJSON(TypedDict):
    """A replay file (:meth:`GameRecord.to_json`): ``actions`` are ``[seq, seat, code, time, auto(, True)]``,
    the sixth only for a move the clock made."""

    format: str
    format_version: int
    id: str
    game: str
    options: Options
    speed: str
    seed: int | None
    seats: list[SeatJSON]
    ended_early: bool
    created_at: float | None
    finished_at: float | None
    actions: list[list[int | str | float | bool]]
    result: dict[str, list[int]] | None


@dataclass(frozen=True)
class GameRecord:
    """Everything needed to replay one game, and to say who played it."""

    id: str
    game: str
    options: Options
    seed: int | None
    names: list[str]
    ai: list[bool]
    log: list[LogEntry]
    phase: str = "finished"
    speed: str = "normal"
    ended_early: bool = False
    created_at: float | None = None
    finished_at: float | None = None
    result: dict[str, list[int]] | None = field(default=None, compare=False)  # as written in a file
    #: Per seat, the decisions for which the person asked for a hint (empty: none counted).
    hints: list[int] = field(default_factory=list)
    #: Per seat, the person's Discord id (None for an AI seat; empty in an exported file, which
    #: carries names only): who may review their own play.
    user_ids: list[int | None] = field(default_factory=list, compare=False)
    #: The channel the table was in (None in an exported file): who may know of the game.
    channel_id: int | None = field(default=None, compare=False)

    @property
    def players(self) -> int:
        return len(self.names)

    def stand_in(self) -> Table:
        """A table with this record's id, game, options and speed (no place, seats or state): for code
        that takes a table and reads no more of it (a renderer's ``score_text``)."""
        return Table(id=self.id, game=self.game, options=dict(self.options), speed=self.speed,
                     guild_id=0, channel_id=self.channel_id or 0, host_id=0)

    def hint_count(self, seat: int) -> int:
        """The decisions for which seat ``seat`` asked for a hint (0 in records from before hints)."""
        return self.hints[seat] if 0 <= seat < len(self.hints) else 0

    @property
    def finished(self) -> bool:
        return self.phase == Phase.FINISHED

    # ---- from the runtime and the storage -------------------------------------------------
    @classmethod
    def of_table(cls, t: Table) -> GameRecord:
        return cls(
            id=t.id, game=t.game, options=dict(t.options), seed=t.seed, names=t.names(),
            ai=[s.is_ai for s in t.seats], log=list(t.log), phase=str(t.phase), speed=t.speed,
            ended_early=t.ended_early, created_at=t.created_at, finished_at=t.finished_at,
            hints=[s.hints for s in t.seats], user_ids=[s.user_id for s in t.seats], channel_id=t.channel_id,
        )

    @classmethod
    def of_stored(cls, record: Record, log: Sequence[LogEntry]) -> GameRecord:
        """From a storage row; raises ``ValueError`` naming what is damaged."""
        try:
            options = json.loads(record["options"])
            seats = json.loads(record["seats"])
            names = [str(s["name"]) for s in seats]
            ai = [bool(s["is_ai"]) for s in seats]
            hints = [int(s.get("hints") or 0) for s in seats]
            user_ids = [None if s.get("user_id") is None else int(s["user_id"]) for s in seats]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise ValueError("its options or seats cannot be read") from None
        return cls(
            id=str(record["id"]), game=str(record["game"]), options=options, seed=record.get("seed"),
            names=names, ai=ai, log=list(log), phase=str(record.get("phase")), speed=str(record.get("speed")),
            ended_early=bool(record.get("ended_early")), created_at=record.get("created_at"),
            finished_at=record.get("finished_at"), hints=hints, user_ids=user_ids,
            channel_id=None if record.get("channel_id") is None else int(record["channel_id"]),
        )

    # ---- replaying ---------------------------------------------------------------------------
    def replay(self) -> tuple[Game, list[Event]]:
        """The game state after every logged action, and all the events on the way."""
        if self.seed is None:
            raise ValueError("this table never started, so there is nothing to replay")
        return engine.replay(self.game, self.players, self.options, self.seed, [(e.seat, e.code) for e in self.log])

    # ---- the file ----------------------------------------------------------------------------
    def to_json(self, outcome: Outcome | None = None) -> RecordJSON:
        if outcome is None and self.seed is not None:
            state, _ = self.replay()
            outcome = state.outcome()
        seats: list[SeatJSON] = []
        for i, (n, a) in enumerate(zip(self.names, self.ai, strict=True)):
            seats.append({"name": n, "ai": a})
            if self.hint_count(i):
                seats[-1]["hints"] = self.hints[i]
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "id": self.id,
            "game": self.game,
            "options": self.options,
            "speed": self.speed,
            "seed": self.seed,
            "seats": seats,
            "ended_early": self.ended_early,
            "created_at": self.created_at,
            "finished_at": self.finished_at,
            # A sixth item only for a move the clock made (older files have five; both read back).
            "actions": [[e.seq, e.seat, e.code, e.time, e.auto, *([True] if e.timeout else [])] for e in self.log],
            "result": None if outcome is None else {
                "scores": list(outcome.scores), "places": list(outcome.places), "winners": list(outcome.winners),
            },
        }

    @classmethod
    def from_json(cls, data: object) -> GameRecord:
        """Read an exported file's JSON; raises ``ValueError`` with a reason."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError(f"this is not a {FORMAT} file")
        if data.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"format version {data.get('format_version')!r} is not {FORMAT_VERSION}")
        try:
            seats = data["seats"]
            log = [LogEntry(int(seq), int(seat), str(code), float(at), bool(auto), bool(rest and rest[0]))
                   for seq, seat, code, at, auto, *rest in data["actions"]]
            return cls(
                id=str(data["id"]), game=str(data["game"]), options=dict(data["options"]), seed=data["seed"],
                names=[str(s["name"]) for s in seats], ai=[bool(s["ai"]) for s in seats], log=log,
                hints=[int(s.get("hints") or 0) for s in seats],
                speed=str(data.get("speed", "normal")), ended_early=bool(data.get("ended_early")),
                created_at=data.get("created_at"), finished_at=data.get("finished_at"), result=data.get("result"),
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"the file is incomplete or damaged ({type(e).__name__}: {e})") from None


# ==== words ======================================================================================
def recap(record: GameRecord, locale: str = "en") -> list[str]:
    """One line per hand (plain text, for the CLI and the cogs alike) as the game's replay hooks
    word it (``GameSpec.replay``: engine/replays.py), each followed by a line for every person whose
    time ran out in that hand (the clock moved for them).  The log is played again from the game's
    creation, whose events (the first deal) belong to the first hand."""
    if record.seed is None:
        return []
    spec = engine.get(record.game)
    hooks = spec.replay or ReplayHooks()
    names = record.names
    state = spec.game.create(record.players, record.options, record.seed)
    hand_events: list[Event] = [e for e in state.start_events if e.to is None]
    hands: list[str] = []
    marks: dict[int, list[int]] = {}  # the seats whose time ran out, by hand (from 1), once per move
    hand = 1
    for entry in record.log:
        events = state.apply(entry.seat, spec.game.action_from_code(entry.code))
        if entry.timeout:
            marks.setdefault(hand, []).append(entry.seat)
        for e in events:
            if e.to is not None:
                continue
            hand_events.append(e)
            if e.kind != "hand_end":
                continue
            line = hooks.recap_line(names, len(hands) + 1, state.public_view(), hand_events)
            if line is not None:
                hands.append(line)
            hand += 1
            hand_events = []
    if not marks:
        return hands
    lines: list[str] = []
    for n, line in enumerate(hands, 1):
        lines += [line, *_timeout_lines(names, marks.pop(n, []), locale)]
    for n in sorted(marks):  # the hand the game ended in, unfinished: no line of its own
        lines += _timeout_lines(names, marks[n], locale)
    return lines


def _timeout_lines(names: Sequence[str], seats: Sequence[int], locale: str = "en") -> list[str]:
    """``⏰ Ali's time ran out — the move was made for them.`` once per person, in the order it
    first happened (as the replay viewer and the live table say it)."""
    lines = []
    for seat in dict.fromkeys(seats):
        if not 0 <= seat < len(names):
            continue
        times = seats.count(seat)
        if times == 1:
            lines.append("⏰ " + words.translate(locale, "{name}'s time ran out — the move was made for them.",
                                                 name=names[seat]))
        else:
            lines.append("⏰ " + words.ngettext(locale, "{name}'s time ran out {n} time — the move was made for them.",
                                                "{name}'s time ran out {n} times — the moves were made for them.",
                                                times, name=names[seat]))
    return lines


def standings(record: GameRecord, outcome: Outcome | None) -> list[str]:
    if outcome is None:
        return ["The game did not finish (ended early)."] if record.ended_early else ["The game is not over."]
    order = sorted(range(len(outcome.scores)), key=lambda s: (outcome.places[s], s))
    return [f"{outcome.places[s]}. {record.names[s]} — {outcome.scores[s]}" for s in order]


# ==== python -m tables.history.replay FILE ================================================================
def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tables.history.replay",
                                description="Replay an exported Deckhand game and check its result.")
    p.add_argument("file", type=Path, help="the JSON file attached by /game replay")
    p.add_argument("--quiet", action="store_true", help="print only the final scores")
    args = p.parse_args(argv)
    try:
        record = GameRecord.from_json(json.loads(args.file.read_text()))
        state, _ = record.replay()
    except (OSError, ValueError) as e:
        print(f"Cannot replay {args.file}: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # an illegal action, an unknown game: the file does not replay
        print(f"Cannot replay {args.file}: {getattr(e, 'reason', None) or e}", file=sys.stderr)
        return 2
    outcome = state.outcome()
    title = engine.get(record.game).game.title
    if not args.quiet:
        print(f"{title} · table {record.id} · seed {record.seed} · {len(record.log)} actions")
        for line in recap(record):
            print(line)
    for line in standings(record, outcome):
        print(line)
    got = None if outcome is None else list(outcome.scores)
    want = (record.result or {}).get("scores") if record.result is not None else None
    if want is None:
        print("The file records no result to compare with.")
        return 0
    if got == want:
        print("The replay gives the recorded result.")
        return 0
    print(f"MISMATCH: the replay gives {got}, the file records {want}.", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
