"""Issue 24 items 6 and 9 through the real bot and the fake Discord: a person who has not moved
gets one short reminder ("about 10 seconds left") before a deadline runs out — whether their hand
view is open or not: Discord never tells the bot that someone dismissed it (issue 29 item 16) —
and a turn ping or reminder is deleted once the person has moved, so a thread never holds two
standing pings for one person."""

from __future__ import annotations

import math

from tests.e2e.conftest import make_world
from tests.e2e.test_live_hand import FastClock
from tests.fakediscord.play import open_table
from tests.fakediscord.server import Message
from tests.fakediscord.users import Reply

FACTOR = 20.0  # the runtime's clock runs this much faster: a 30 s deadline in 1.5 s, its nudge at 1 s


def standing_overlaps(pings: list[Message]) -> list[tuple[int, int]]:
    """Pairs of pings to one person that stood in the thread at the same time."""
    spans = sorted((m.created, m.deleted_at if m.deleted_at is not None else math.inf, m.id) for m in pings)
    out: list[tuple[int, int]] = []
    latest: tuple[float, int] = (-math.inf, 0)  # the latest end so far, and whose
    for start, end, mid in spans:
        if start < latest[0]:
            out.append((latest[1], mid))
        latest = max(latest, (end, mid))
    return out


async def test_a_dismissed_view_gets_one_nudge_per_deadline_and_old_pings_are_removed() -> None:
    clock = FastClock(FACTOR)
    options = {"clock": clock, "redraw_interval": FACTOR, "ai_delay": 0.3 * FACTOR}
    async with make_world(runtime_options=options) as w:
        w.runtime.listener.live.interval = FACTOR  # a live view is still edited at most once a second
        views: dict[int, Reply] = {}
        table_message = await open_table(w.ali, [], options="target=100", views=views)
        table = w.table(table_message)
        # Ali closes her hand view at once and lets the clock play for her until the AI takes over.
        w.ali.dismiss(views[w.ali.id].message)
        await w.until(lambda: table.seats[0].away, 60.0, "the AI taking over Ali's seat")
        thread = w.thread_of(table_message)
        nudges = [m for m in w.ali.pings() if "seconds left" in m.content]
        missed = [e for e in table.log if e.seat == 0 and e.timeout]
        assert len(missed) == 3, [e.code for e in table.log if e.seat == 0]
        # Every deadline she let run out got exactly one nudge, before it — the pass too, while
        # the bot still took her view for open (a dismissal tells it nothing).
        assert len(nudges) == 3, [m.content for m in nudges]
        for nudge, move in zip(nudges, missed, strict=True):
            assert nudge.channel_id == thread.id
            assert nudge.created < clock.real(move.time), (nudge.created, clock.real(move.time))
            assert [b["label"] for b in nudge.buttons()] == ["My hand"]
            assert nudge.pinged == frozenset({w.ali.id})
        assert len(nudges) == len({clock.real(m.time) for m in missed})
        # Turn pings and nudges: each deleted once she had moved, never two standing at once.
        turn = [m for m in w.ali.pings() if "your turn" in m.content or "seconds left" in m.content]
        assert len(turn) > len(nudges), "no turn ping: the test proves nothing"
        await w.until(lambda: all(m.deleted for m in turn), 5.0, "every turn ping and nudge removed")
        assert not standing_overlaps(turn), standing_overlaps(turn)
        await w.runtime.end(table.id, w.ali.id)
        # The closing privacy check compares the log's times with the fake's wall-clock stamps
        # (the table may have left memory by then: its log is read from the database).
        w.real_time = clock.real
