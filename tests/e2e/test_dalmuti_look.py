"""The Great Dalmuti's look at the cards through the wire (docs/rules.md §3, *A look at your cards*,
issue 13): Ali was dealt both Jesters and keeps quiet. From Bob's screen — the table message in
every version, the thread, his pings, his own hand view — nothing shows that anyone could have
called a revolution, nor who; the look ends on the table's clock, the same for every hand."""

from __future__ import annotations

import re

from engine.core import TABLE
from games.dalmuti.rules import LOOK_TIMER
from tests.e2e.conftest import make_world
from tests.fakediscord.play import open_table, table_controls

# World seed 3: Ali (seat 0) is dealt both Jesters (see test_refusals_games.py).
HOLDER_SEED = 3
PACE = 0.5  # the look lasts LOOK_TIMER × PACE seconds: long enough to look, short for a test
TRACE = re.compile(r"revolution|may call|declin|chose not|both jesters|keep quiet", re.IGNORECASE)


async def test_a_declined_revolution_leaves_no_trace_on_a_third_players_screen() -> None:
    async with make_world(seed=HOLDER_SEED, runtime_options={"table_pace": PACE}) as w:
        table_message = await open_table(w.ali, [w.bob], game="dalmuti", options="hands=1", ai=False)
        table = w.table(table_message)
        where = w.thread_of(table_message)
        assert table.state.public_view()["phase"] == "look"
        assert table.state.view(0)["hand"].count("JJ") == 2, "the deal changed: pick another world seed"

        # Ali is asked privately; Bob sees a look like any other.
        ali = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
        assert ali.ephemeral and "keep quiet" in ali.text
        assert "✊ Call the revolution" in [b.get("label") for b in ali.message.buttons()]
        # Her choice shows its deadline in her own view: the end of the look, as the table shows it.
        clock = re.search(r"<t:\d+:R>", next(line for line in ali.text.splitlines() if "keep quiet" in line))
        assert clock and clock.group(0) in table_message.text, (ali.text, table_message.text)
        bob = await w.bob.click(table_controls(w.bob.fd, table_message), "My hand")
        assert bob.ephemeral and not TRACE.search(bob.text), bob.text
        assert "looking at their cards" in table_message.text and "▶" not in table_message.text

        # Ali says nothing: the table ends the look on its own clock, then taxes.
        await w.until(lambda: table.state.public_view()["phase"] != "look", timeout=LOOK_TIMER * PACE + 5,
                      what="the end of the look")
        close = next(e for e in table.log if e.seat == TABLE and e.code == "close")
        assert not [e for e in table.log if e.seat == 0 and e.seq < close.seq], "Ali acted during the look"
        assert table.state.public_view()["phase"] == "tax" and table.state.public_view()["revolution"] is None
        # (Ali and Bob keep live hand views, which show them the taxes: no ping; the table message
        # shows the new phase at once.)
        await w.until(lambda: any(v.at > close.time for v in table_message.versions), what="the table in the taxes")

        # Everything Bob could see: every version of every message in the channel and the thread.
        for channel in (w.fd.channel, where):
            for m in w.bob.sees(channel):
                for v in m.versions:
                    assert not TRACE.search(v.text), (m.id, v.text)
        pinged = w.bob.pings() + w.ali.pings()
        during = [m for m in pinged if m.created < close.time]
        assert not during, "somebody was pinged during the look"
        assert not any(TRACE.search(m.text) for m in pinged)
        # The table message during the look read the same from its first to its last version.
        look_versions = [v.text for v in table_message.versions if v.at < close.time and "looking" in v.text]
        assert look_versions and len({re.sub(r"<t:\d+:R>", "", t) for t in look_versions}) == 1
