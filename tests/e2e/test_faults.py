"""Discord misbehaves; the bot copes and the table still finishes.  Each test injects one kind of
fault into the fake — 429s with proper headers, 500s, a dropped gateway, slow answers, an answer
after Discord's 3 s — then plays a whole one-hand game through it."""

from __future__ import annotations

import asyncio
import random

from tests.e2e.conftest import World, make_world
from tests.fakediscord.play import open_table, play_seat, table_controls

EDIT = "PATCH /channels/{channel_id}/messages/{message_id}"
POST = "POST /channels/{channel_id}/messages"
TOKEN_EDIT = "PATCH /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"


async def play_to_the_end(w: World, table_message, seed: int = 1) -> None:
    await asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(seed)),
                         play_seat(w.bob, table_message, rng=random.Random(seed + 1)))
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    assert w.table(table_message).state.is_over


async def test_429s_with_proper_headers_are_waited_out(w: World) -> None:
    w.fd.rate_limit(EDIT, retry_after=0.3, times=2)
    w.fd.rate_limit(POST, retry_after=0.2, times=1, global_=True)
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    await play_to_the_end(w, table_message)

    def retried() -> bool:
        # Each was retried after retry_after: a later request to the same route succeeded.  (The
        # table message is edited through the /game new token: the edits hit are the end chart's.)
        return len(w.fd.injected) == 3 and all(
            any(x.route == r.route and x.status == 200 and x.at - r.at >= 0.19 for x in w.fd.requests[n + 1:])
            for n, r in enumerate(w.fd.requests) if r.injected)

    await w.until(retried, what="every injected 429 retried")
    assert not w.fd.ratelimited  # none provoked


async def test_500s_are_retried(w: World) -> None:
    w.fd.fail(POST, status=500, times=1)
    w.fd.fail(EDIT, status=502, times=1)
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    await play_to_the_end(w, table_message)
    # (the first post is the start notice, the edit the end chart's: the table message is edited
    # through the /game new token)
    await w.until(lambda: sorted(r.status for r in w.fd.requests if r.injected) == [500, 502]
                  and [r.status for r in w.fd.requests if r.route == EDIT][-1] == 200, what="both faults met, retried")


async def test_gateway_disconnect_and_resume_mid_game(w: World) -> None:
    fd = w.fd
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    table = w.table(table_message)
    players = asyncio.gather(play_seat(w.ali, table_message, rng=random.Random(5)),
                             play_seat(w.bob, table_message, rng=random.Random(6)))
    await w.until(lambda: table.version >= 8, what="a few moves")
    await fd.drop_gateway(code=4000)
    # Someone acts while the bot is away: Discord keeps the event and replays it on RESUME.
    listed = await w.stranger.slash("game list")
    assert not listed.failed and table.id in listed.text
    # (people play from their live hand views, which the bot edits at most once a second each)
    await w.until(lambda: table.version >= 30, 20.0, what="more moves after the resume")
    await fd.request_reconnect()  # opcode 7: reconnect and resume
    await players
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    assert fd.identifies == 1 and fd.resumes == 2 and fd.connections == 3
    assert "INTERACTION_CREATE" in fd.replayed  # the /game list sent while the bot was away


async def test_slow_discord_does_not_slow_the_answers(w: World) -> None:
    # Discord holds the bot's next edits (the table message's and the live views', through their
    # tokens, and any post or REST edit) until the test lets them go: clicks made meanwhile must be
    # answered while those edits are still held, so no answer waits for an edit or a ping.  (An
    # ordering of events, not a bet on how long a delay is: an answer that waited would never come.)
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    held = [w.fd.hold(TOKEN_EDIT, times=3), w.fd.hold(EDIT, times=3), w.fd.hold(POST, times=2)]
    game = asyncio.ensure_future(play_to_the_end(w, table_message))

    def answered_while_held() -> list[str]:
        still = [r.at for r in w.fd.requests if r.injected == "held" and not r.status]
        return [i.label for i in w.fd.interactions.values()
                if still and i.created > min(still) and i.callback_at is not None]

    try:
        await w.until(lambda: len(answered_while_held()) >= 3, 20.0, what="clicks answered while edits were held")
    finally:
        for f in held:
            assert f.held is not None
            f.held.set()
    await game
    # Once Discord answers, what was held goes through.
    await w.until(lambda: all(r.status for r in w.fd.requests if r.injected == "held"), what="the held requests")


async def test_an_answer_after_the_deadline_is_caught() -> None:
    # Discord's 3 s, shortened to 0.5 s for the test; the handler is made slow on purpose.
    async with make_world(answer_within=0.5) as w:
        table_message = await open_table(w.ali, [w.bob], options="target=1")
        runtime = w.runtime
        real_act = runtime.act

        async def slow_act(*args, **kwargs):
            await asyncio.sleep(0.7)
            return await real_act(*args, **kwargs)

        hand = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
        menu = hand.message.selects()[0]
        runtime.act = slow_act
        try:
            late = await w.ali.choose(hand.message, [o["value"] for o in menu["options"][:3]])
        finally:
            runtime.act = real_act
        assert late.failed and late.text == "This interaction failed"
        i = late.interaction
        await w.until(lambda: i.late_by is not None, what="the late answer")
        assert i.late_by >= 0.5
        assert any("not answered within 0.5 s" in p for p in w.fd.problems)
        assert any("answered after" in p for p in w.fd.problems)
        w.allow("not answered within", "answered after")
        w.allow_errors("Interaction failed", "Could not reply")
        # The table carries on: Ali's pass went through late; the game still finishes.
        await play_to_the_end(w, table_message)
