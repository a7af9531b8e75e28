"""When the public table message is edited: with few tables, every move once the interval (1 s)
has passed; with many, at once for phases, at milestones once the interval has passed, after
quiet spells, and less often the more tables run; never two edits of a message within a second."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from cogs.live.pace import PublicPace
from engine.core import Event


@dataclass
class Seat:
    user_id: int | None
    name: str
    is_ai: bool = False
    away: bool = False
    left: bool = False


@dataclass
class Table:
    id: str = "T1"
    phase: str = "running"
    version: int = 0
    seats: list[Seat] = field(default_factory=lambda: [Seat(1, "Ali"), Seat(2, "Bob"), Seat(None, "AI 1", True),
                                                       Seat(None, "AI 2", True)])
    recent: list[Event] = field(default_factory=list)
    state: Any = None
    channel_id: int | None = None

    def move(self, *events: Event) -> None:
        self.version += 1
        self.recent.extend(events)


def play(seat: int) -> Event:
    return Event("play", seat, ())


def shown_now(pace: PublicPace, t: Any, now: float) -> bool:
    wait = pace.due(t, now)
    if wait == 0:
        pace.shown(t, now)
        return True
    return False


def test_phases_at_once_moves_wait_and_a_trick_won_once_the_interval_passed() -> None:
    pace = PublicPace(lambda: 40.0, min_interval=20, min_quiet=8)
    t = Table()
    assert shown_now(pace, t, 0.0)  # a table seen for the first time
    assert pace.due(t, 0.5) is None  # nothing new
    t.move(Event("exchange", None, (1,)))
    assert shown_now(pace, t, 1.0)  # the pass exchanged: a phase
    t.move(play(0))
    wait = pace.due(t, 2.0)
    assert wait is not None and wait > 0  # a card: not now
    t.move(Event("trick", 0, ()))
    assert pace.due(t, 5.0) != 0  # a trick won, but only 4 s after the last edit
    t.move(play(1))
    assert pace.due(t, 6.0) != 0
    t.move(Event("trick", 1, ()))
    assert shown_now(pace, t, 21.5)  # the first trick won once 20 s have passed
    t.move(Event("hand_end", None, ()), Event("game_end", None, ()))
    t.phase = "finished"
    assert pace.due(t, 22.0) == 0.5 and pace.urgent("T1")  # the end: at once, a second after the last edit
    assert shown_now(pace, t, 22.5)


def test_a_still_table_is_shown_and_the_move_after_a_quiet_spell_at_once() -> None:
    pace = PublicPace(lambda: 40.0, min_interval=20, min_quiet=8)
    t = Table()
    assert shown_now(pace, t, 0.0)
    t.move(play(0))
    wait = pace.due(t, 1.0)
    # Nothing more happens: the move is shown once the table has been still for a while, and
    # not before the interval (the recall comes then).
    assert wait == 19.0
    assert shown_now(pace, t, 20.0)
    t.move(play(1))  # after 40 s of silence, the last edit 21 s ago: at once
    assert shown_now(pace, t, 41.0)
    t.move(play(2))  # right after: waits
    assert pace.due(t, 42.0) != 0
    t.move(play(3))  # after a quiet spell again, but the last edit was only 10 s ago: waits
    assert pace.due(t, 51.0) == 10.0


def test_busy_moves_without_milestones_are_shown_at_most_two_intervals_apart() -> None:
    pace = PublicPace(lambda: 40.0, min_interval=20, min_quiet=8)
    t = Table()
    assert shown_now(pace, t, 0.0)
    now, shown = 0.0, []
    while now < 100:
        now += 1.0
        t.move(play(int(now) % 4))
        if shown_now(pace, t, now):
            shown.append(now)
    assert shown == [40.0, 80.0]


def test_the_interval_grows_with_the_tables_running() -> None:
    pace = PublicPace(lambda: 40.0, min_interval=20, min_quiet=8, share=0.5)
    for n in range(100):
        pace.due(Table(id=f"T{n}"), 0.0)
    assert pace.interval == 20  # 100 tables: the floor
    for n in range(100, 1000):
        pace.due(Table(id=f"T{n}"), 0.0)
    assert pace.interval == 1000 / 20 and pace.quiet == 25  # 1000 tables share 20 edits a second
    for n in range(1000):
        t = Table(id=f"T{n}", phase="finished")
        pace.due(t, 1.0)
        pace.shown(t, 1.0)
    assert pace.interval == 20  # the finished ones are forgotten


def test_only_public_facts_decide() -> None:
    # Two tables with the same public story (their hands differ: the pace never sees them) are
    # shown at the same moments.
    times: list[list[float]] = []
    for tid in ("A", "B"):
        pace = PublicPace(lambda: 40.0, min_interval=20, min_quiet=8)
        t = Table(id=tid)
        seen = []
        for n in range(60):
            t.move(Event("trick", 0, ()) if n % 4 == 3 else play(n % 4))
            if shown_now(pace, t, n * 1.5):
                seen.append(n * 1.5)
        times.append(seen)
    assert times[0] == times[1] and len(times[0]) >= 3


def test_the_end_is_shown_at_once_however_busy_the_budget() -> None:
    pace = PublicPace(lambda: 10.0, min_interval=20, min_quiet=8, share=0.5)
    for n in range(1000):
        pace.due(Table(id=f"T{n}"), 0.0)
    assert pace.interval == 200  # a thousand tables on a starved budget: an edit every 200 s
    t = Table(id="T1")
    assert shown_now(pace, t, 1.0)
    t.move(play(0), Event("trick", 0, ()))
    assert pace.due(t, 2.0) == 199.0  # a trick won: waits its turn
    t.move(Event("hand_end", None, ()), Event("game_end", None, ()))
    t.phase = "finished"
    assert pace.due(t, 3.0) == 0.0 and pace.urgent("T1")  # the end: at once, in the queue


def test_a_move_the_clock_made_is_shown_at_once() -> None:
    pace = PublicPace(lambda: 40.0, min_interval=20, min_quiet=8)
    t = Table()
    assert shown_now(pace, t, 0.0)
    t.move(play(0))
    assert pace.due(t, 1.0) != 0
    t.move(play(1))  # Bob's time ran out: the listener made a clock line for it
    assert pace.due(t, 2.0, notes=1) == 0.0


def follow(pace: PublicPace, t: Table, plays: list[float], until: float) -> tuple[list[float], list[float]]:
    """Plays at the given moments, the listener asking whenever the pace said to: when each play
    was first shown, and when the message was edited."""
    shown_at: list[float] = []
    edits: list[float] = []
    due_at: float | None = None
    pending: list[int] = []
    moments = sorted(set(plays) | {round(x * 0.05, 2) for x in range(int(until / 0.05))})
    for now in moments:
        if now in plays:
            t.move(play(len(shown_at) + len(pending)))
            pending.append(len(shown_at) + len(pending))
            due_at = None
        if due_at is None or now >= due_at - 1e-9:
            wait = pace.due(t, now)
            if wait == 0:
                pace.shown(t, now)
                edits.append(now)
                shown_at += [now] * len(pending)
                pending.clear()
                due_at = None
            else:
                due_at = None if wait is None else now + wait
    return shown_at, edits


def test_with_few_tables_the_message_follows_every_move() -> None:
    pace = PublicPace(lambda: 36.0)  # the bot's own settings
    others = [Table(id=f"T{n}") for n in range(9)]
    for o in others:
        pace.due(o, 0.0)
    t = Table()
    assert shown_now(pace, t, 0.0)
    assert pace.interval_of(t.id) == 1.0
    plays = [round(1.0 + 0.7 * n + (0.4 if n % 3 == 0 else 0.0), 2) for n in range(40)]
    shown, edits = follow(pace, t, plays, until=plays[-1] + 5)
    lags = [s - p for s, p in zip(shown, plays, strict=True)]
    # Every play on the table message within the interval, or a quarter second more when a sixth
    # edit in five seconds has to wait.
    assert max(lags) <= 1.25 + 1e-9 and sorted(lags)[len(lags) // 2] <= 1.0
    gaps = [b - a for a, b in zip(edits, edits[1:], strict=False)]
    assert min(gaps) >= 1.0 - 1e-9  # never more often than once a second...
    assert all(b - a > 5.0 for a, b in zip(edits, edits[5:], strict=False))  # ...nor 6 times in 5 s


def test_a_crowded_token_stretches_the_interval_of_token_edited_tables() -> None:
    pace = PublicPace(lambda: 36.0, token_rate=40)
    for n in range(10):
        pace.free(f"T{n}", True)
        pace.due(Table(id=f"T{n}"), 0.0)
    assert pace.token_interval == 1.0 and pace.interval_of("T0") == 1.0
    for n in range(10, 400):
        pace.free(f"T{n}", True)
        pace.due(Table(id=f"T{n}"), 0.0)
    assert pace.token_interval == 400 / 40 and pace.interval_of("T0") == 10  # 40 edits a second in all
    assert pace.interval == 1.0  # the REST budget pays for none of them
    pace.free("T0", False)  # its token ran out: the REST budget's now
    pace.due(Table(id="T0"), 1.0)
    assert pace.interval_of("T0") == 1.0 and pace.token_interval == 399 / 40
    t = Table(id="T5")
    assert shown_now(pace, t, 1.0)
    t.move(play(0))
    assert pace.due(t, 2.0) == pytest.approx(1.0 + 399 / 40 - 2.0)  # crowded: a move waits its interval


def test_rest_edited_tables_in_one_channel_share_its_edit_limit() -> None:
    pace = PublicPace(lambda: 36.0)
    a, b, c = Table(id="A", channel_id=1), Table(id="B", channel_id=1), Table(id="C", channel_id=2)
    for t in (a, b, c):
        pace.due(t, 0.0)
    assert pace.interval_of("A") == pace.interval_of("B") == 2 * 1.1 and pace.interval_of("C") == 1.0
    b.phase = "finished"
    pace.due(b, 1.0)
    pace.shown(b, 1.0)
    assert pace.interval_of("A") == 1.0


def test_phases_in_a_burst_are_a_second_apart_at_least() -> None:
    pace = PublicPace(lambda: 36.0)
    t = Table()
    assert shown_now(pace, t, 0.0)
    t.seats[2].away = True  # a seat change: shown at once...
    assert pace.due(t, 0.3) == 0.7 and pace.urgent("T1")  # ...a second after the last edit
    assert shown_now(pace, t, 1.0)
    edits = [0.0, 1.0]
    now = 1.0
    for n in range(20):  # a phase every 0.2 s: one edit a second
        now = round(now + 0.2, 2)
        t.move(Event("deal", None, (n, "left")))
        if shown_now(pace, t, now):
            edits.append(now)
    assert all(b - a >= 1.0 - 1e-9 for a, b in zip(edits, edits[1:], strict=False)) and len(edits) >= 5
    assert all(b - a >= 5.25 - 1e-9 for a, b in zip(edits, edits[5:], strict=False))  # Discord: 5 in 5 s
