"""Issue 17 part 3 through the real bot: a Hearts hand costs at most 12 REST calls that Discord's
global limit counts (interaction callbacks and interaction-token edits are exempt), nobody whose
live hand view is open is pinged, and the table message still shows the end."""

from __future__ import annotations

import asyncio
import random

from cogs.live.sendgate import counted as gate_counts
from tests.e2e.conftest import World
from tests.fakediscord.play import open_table, play_seat
from tests.fakediscord.users import Reply

BUDGET_PER_HAND = 12


def counted(w: World, since: int) -> list[str]:
    """The REST calls since ``since`` that Discord's global limit counts."""
    return [r.route for r in w.fd.requests[since:]
            if not r.is_callback and not r.route.split()[-1].startswith(("/webhooks/", "/interactions/"))
            and "/applications/" not in r.route]


async def test_a_hearts_hand_costs_at_most_twelve_counted_calls_and_pings_nobody_with_a_live_view(w: World) -> None:
    mark = len(w.fd.requests)
    views: dict[int, Reply] = {}
    table_message = await open_table(w.ali, [w.bob], options="target=1", views=views)
    logs = await asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(1), view=views[w.ali.id]),
                                play_seat(w.bob, table_message, rng=random.Random(2), view=views[w.bob.id]))
    assert all(log.moves >= 13 for log in logs)
    thread = w.thread_of(table_message)
    # The end is always shown: the table message finished, the summary posted.
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    await w.until(lambda: any("Game over" in m.text for m in w.fd.public(thread.id)), what="the summary")
    await asyncio.sleep(1.5)  # the picture's edit, anything late
    calls = counted(w, mark)
    assert len(calls) <= BUDGET_PER_HAND, calls
    # Their live views showed them every turn: no turn ping (a post, and formerly its deletion).
    assert not [m for m in w.fd.messages.values() if "your turn" in m.content]
    assert not [r for r in calls if r.startswith("DELETE")]
    # Players saw every move in their views, through their tokens (not counted).
    assert sum(1 for r in w.fd.requests[mark:] if r.route.startswith("PATCH /webhooks/")) >= 13


async def test_the_real_bot_sends_every_counted_call_through_its_gate_and_waits_out_a_global_429(w: World) -> None:
    gate = w.bot.send_gate
    mark, sent = len(w.fd.requests), gate.sent
    w.fd.rate_limit("POST /channels/{channel_id}/messages/{message_id}/threads", retry_after=0.4, global_=True)
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    await asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(3)),
                         play_seat(w.bob, table_message, rng=random.Random(4)))
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    calls = [r for r in w.fd.requests[mark:] if not r.is_callback and gate_counts(r.path)]
    assert calls and gate.sent - sent >= len(calls)
    assert gate.global_429 == 1
    # Nothing counted went out while the gate was closed: the next counted call came 0.4 s later.
    hit = next(n for n, r in enumerate(calls) if r.status == 429)
    assert calls[hit + 1].at - calls[hit].at >= 0.39
    assert not w.fd.ratelimited  # none provoked


async def test_the_table_message_is_edited_through_the_game_new_token_and_by_rest_once_it_is_gone(w: World) -> None:
    mark = len(w.fd.requests)
    views: dict[int, Reply] = {}
    table_message = await open_table(w.ali, [w.bob], options="target=1", views=views)
    table = w.table(table_message)
    live = w.bot.runtime.listener.live
    assert live.table_token(table.id) is not None
    mid = str(table_message.id)
    token_edits = [r for r in w.fd.requests[mark:] if r.route.startswith("PATCH /webhooks/") and "@original" in r.path]
    assert token_edits  # the lobby's changes and the start, uncounted
    rest_edits = [r for r in w.fd.requests[mark:] if r.route == "PATCH /channels/{channel_id}/messages/{message_id}"
                  and r.path.endswith(mid)]
    assert rest_edits == []
    # Its token runs out (or fails): the bot's own REST edit shows the rest of the game.
    live.table_token_gone(table.id)
    await asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(5), view=views[w.ali.id]),
                         play_seat(w.bob, table_message, rng=random.Random(6), view=views[w.bob.id]))
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    assert [r for r in w.fd.requests[mark:] if r.route == "PATCH /channels/{channel_id}/messages/{message_id}"
            and r.path.endswith(mid)]
