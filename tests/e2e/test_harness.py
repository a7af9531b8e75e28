"""The fake Discord checks what it claims to check: these plant the mistakes it must catch."""

from __future__ import annotations

import asyncio
import time

import aiohttp
import discord
import pytest

from engine.cards import card
from tests.e2e.conftest import World, make_world
from tests.fakediscord import FakeDiscord, check_privacy
from tests.fakediscord.play import open_table
from tests.fakediscord.privacy import cards_in


async def test_the_bot_logs_in_identifies_once_and_syncs_its_commands_to_the_guild(w: World) -> None:
    fd = w.fd
    assert fd.identifies == 1 and fd.resumes == 0
    synced = fd.commands[fd.guild_id]
    assert {"game", "hand", "play"} <= set(synced)
    assert {o["name"] for o in synced["game"]["options"]} >= {"new", "join", "leave", "ai", "start", "end", "list",
                                                             "rules"}
    assert w.bot.get_guild(fd.guild_id) is not None
    assert w.bot.get_channel(fd.channel.id) is not None
    rules = await w.stranger.slash("game rules", game="hearts")
    assert rules.ephemeral and "Hearts" in rules.text and "Q♠" in rules.text  # static rules may name cards


async def test_privacy_check_catches_a_hand_shown_to_the_wrong_person(w: World) -> None:
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    table = w.table(table_message)
    await w.until(lambda: table.state is not None)
    bobs = sorted(table.state.view(1)["hand"])
    thread = w.thread_of(table_message)
    assert check_privacy(w.fd, [table]) == []
    # Bob seeing his own cards is fine ...
    w.fd._new_message(thread.id, {"content": " ".join(card(c).label for c in bobs)}, source="planted",
                      ephemeral_to=w.bob.id)
    assert check_privacy(w.fd, [table]) == []
    # ... Ali seeing one of them is a leak, and so is anyone seeing it in public, or in a custom id.
    w.fd._new_message(thread.id, {"content": f"psst, Bob holds {card(bobs[0]).name}"}, source="planted",
                      ephemeral_to=w.ali.id)
    w.fd._new_message(thread.id, {"content": "table", "components": [{"type": 1, "components": [
        {"type": 2, "style": 2, "label": "x", "custom_id": f"dh:a:{table.id}:1:play_{bobs[1]}"}]}]},
        source="planted")
    leaks = check_privacy(w.fd, [table])
    assert len(leaks) == 3, leaks
    assert any(f"user {w.ali.id} (seat 0)" in v and bobs[0] in v for v in leaks)
    assert any("everyone" in v and bobs[1] in v for v in leaks)
    assert any("component id" in v for v in leaks)
    # Planted on purpose: clear them so the closing check passes.
    for m in list(w.fd.messages.values()):
        if m.current.source == "planted":
            del w.fd.messages[m.id]


def test_cards_are_found_as_labels_codes_and_names() -> None:
    assert cards_in("Bob played 10♥ and Q♠") == {"TH", "QS"}
    assert cards_in("dh:a:ABCDEF:3:play QS") == {"QS"}
    assert cards_in("the Queen of Spades, two of clubs") == {"QS", "2C"}
    assert cards_in("table `F9V56G` seat 2, AI 1, 9 points, ♥ broken") == set()
    # A card's emoji names it as plainly as its label (Dalmuti's and Siege's blanks are no standard card).
    assert cards_in("On the table: <:dk_qs_1a2b3c:123456789012345678> <:dk_th_00ff00:1>") == {"QS", "TH"}
    assert cards_in("dk_2c_abcdef") == {"2C"}
    assert cards_in("<:dk_d5_1a2b3c:1> <:dk_5x_1a2b3c:2> <:dk_jester_1a2b3c:3> <:party_qs:4>") == set()


async def test_going_over_a_rate_limit_is_a_provoked_429_with_discords_headers() -> None:
    async with FakeDiscord(ratelimit_scale=0.2) as fd:
        url = f"{fd.api_base}/channels/{fd.channel.id}/messages"
        headers = {"Authorization": f"Bot {fd.token}"}
        async with aiohttp.ClientSession() as s:
            statuses = []
            for _ in range(6):
                async with s.post(url, json={"content": "hi"}, headers=headers) as r:
                    statuses.append(r.status)
                    last = r
                    body = await r.json()
        assert statuses == [200] * 5 + [429]
        assert last.headers["Content-Type"] == "application/json"
        assert last.headers["Via"] and last.headers["X-RateLimit-Remaining"] == "0"
        assert 0 < body["retry_after"] <= 1.0 and body["global"] is False
        assert fd.ratelimited and any("429 provoked" in p for p in fd.problems)


async def test_the_global_limit_counts_a_burst_but_not_the_fakes_own_stall() -> None:
    """Requests read in a bunch after the fake's own loop stalled (a busy machine) were sent over
    the stall: the global limit allows the limit's rate over it, and nothing more."""
    async with FakeDiscord(global_limit=5) as fd:
        # The fake's clock is the test's: a loaded machine's own stalls of the loop do not count,
        # only the one the test makes.
        now = [1000.0]
        fd.now = lambda: now[0]

        async def watched(step: float) -> None:
            """Time moves on by ``step`` and the stall watch has looked at it."""
            now[0] += step
            end = time.perf_counter() + 20
            while fd._tick_due != now[0] + 0.02:  # (the watch sets its next tick after each look)
                assert time.perf_counter() < end, "the stall watch stopped"
                await asyncio.sleep(0.005)

        await watched(0.0)
        url = f"{fd.api_base}/channels/{fd.channel.id}"
        headers = {"Authorization": f"Bot {fd.token}"}
        async with aiohttp.ClientSession() as s:

            async def burst(n: int) -> list[int]:
                out = []
                for _ in range(n):
                    async with s.get(url, headers=headers) as r:
                        out.append(r.status)
                return out

            assert await burst(6) == [200] * 5 + [429]  # no stall: the sixth is one too many
            assert len(fd.ratelimited) == 1 and fd.stalls == 0
            for _ in range(30):  # 1.2 s in steps the watch sees: a new window, no stall
                await watched(0.04)
            assert fd.stalls == 0
            now[0] += 0.47  # the fake's loop stalls: 0.45 s past its next tick, a credit of 5/s x 0.45 s = 2
            assert await burst(8) == [200] * 7 + [429]
        assert fd.stalls == 1 and fd.stalled == pytest.approx(0.45)
        assert len(fd.ratelimited) == 2


async def test_discord_py_follows_the_headers_so_a_burst_provokes_no_429(w: World) -> None:
    channel = w.bot.get_channel(w.fd.channel.id)
    await asyncio.gather(*(channel.send(f"burst {i}") for i in range(12)))
    assert len([m for m in w.fd.public() if m.content.startswith("burst")]) == 12
    assert not w.fd.ratelimited


async def test_a_body_discord_would_refuse_is_refused_and_recorded(w: World) -> None:
    channel = w.bot.get_channel(w.fd.channel.id)
    with pytest.raises(discord.HTTPException) as e:
        await channel.send("x" * 2001)
    assert e.value.status == 400 and e.value.code == 50035
    assert any("2001 characters" in p for p in w.fd.problems)
    w.allow("2001 characters")


async def test_unknown_routes_and_double_answers_are_recorded() -> None:
    async with make_world() as w:
        async with aiohttp.ClientSession() as s:
            async with s.get(f"{w.fd.api_base}/guilds/1/emojis", headers={"Authorization": f"Bot {w.fd.token}"}) as r:
                assert r.status == 404
        assert any("unknown route" in p for p in w.fd.problems)
        reply = await w.ali.slash("game list")
        i = reply.interaction
        async with aiohttp.ClientSession() as s:
            async with s.post(f"{w.fd.api_base}/interactions/{i.id}/{i.token}/callback",
                              json={"type": 4, "data": {"content": "again"}}) as r:
                assert r.status == 400 and (await r.json())["code"] == 40060
        assert any("answered twice" in p for p in w.fd.problems)
        w.allow("unknown route", "answered twice")


async def test_followups_and_original_edits_follow_discords_visibility_rules(w: World) -> None:
    """The webhook routes the bot may use after answering: @original, followups, their visibility."""
    fd = w.fd
    reply = await w.ali.slash("game list")  # answered with an ephemeral message
    i = reply.interaction
    base = f"{fd.api_base}/webhooks/{fd.application_id}/{i.token}"
    async with aiohttp.ClientSession() as s:
        async with s.get(f"{base}/messages/@original") as r:
            assert r.status == 200 and (await r.json())["id"] == str(i.original_id)
        async with s.patch(f"{base}/messages/@original", json={"content": "edited"}) as r:
            assert r.status == 200
        async with s.post(f"{base}?wait=1", json={"content": "for Ali only", "flags": 64}) as r:
            private = await r.json()
        async with s.post(f"{base}?wait=1", json={"content": "for everyone"}) as r:
            public = await r.json()
        async with s.delete(f"{base}/messages/{public['id']}") as r:
            assert r.status == 204
        async with s.post(f"{fd.api_base}/webhooks/{fd.application_id}/not-a-token", json={"content": "x"}) as r:
            assert r.status == 404 and (await r.json())["code"] == 10015
    assert reply.message.content == "edited" and reply.message.ephemeral_to == w.ali.id
    assert [m.content for m in w.ali.sees() if m.content.startswith("for")] == ["for Ali only"]
    assert [m.content for m in w.bob.sees() if m.content.startswith("for")] == []
    assert fd.messages[int(public["id"])].deleted and int(private["id"]) in i.followups


async def test_the_gateway_refuses_a_bad_token_and_an_unknown_session() -> None:
    async with FakeDiscord() as fd, aiohttp.ClientSession() as s:
        async with s.ws_connect(fd.gateway_url) as ws:
            assert (await ws.receive_json())["op"] == 10
            await ws.send_json({"op": 6, "d": {"token": fd.token, "session_id": "gone", "seq": 3}})
            assert await ws.receive_json() == {"op": 9, "d": False}
        async with s.ws_connect(fd.gateway_url) as ws:
            await ws.receive_json()
            await ws.send_json({"op": 2, "d": {"token": "wrong", "intents": 0, "properties": {}}})
            msg = await ws.receive()
            assert msg.type == aiohttp.WSMsgType.CLOSE and msg.data == 4004


async def test_a_newer_identify_on_a_shard_ends_the_older_session_as_discord_does() -> None:
    """Two connections identify for one shard: the newer gets its events, the older is closed and
    its session is over (a RESUME of it is refused with opcode 9, so it must IDENTIFY again)."""
    fd = FakeDiscord(shard_count=2)
    await fd.start()
    try:
        async with aiohttp.ClientSession(headers={"User-Agent": "probe"}) as http:

            async def identify() -> tuple[aiohttp.ClientWebSocketResponse, str]:
                ws = await http.ws_connect(fd.gateway_url)
                assert (await ws.receive_json())["op"] == 10  # HELLO
                await ws.send_json({"op": 2, "d": {"token": fd.token, "intents": 1, "shard": [1, 2]}})
                ready = await ws.receive_json()
                assert ready["t"] == "READY"
                return ws, ready["d"]["session_id"]

            old, old_id = await identify()
            new, new_id = await identify()
            closed = await old.receive()
            while closed.type == aiohttp.WSMsgType.TEXT:  # what it was sent before (its guilds)
                closed = await old.receive()
            assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 4000
            assert fd.shard_sessions[1].id == new_id and fd.overlaps
            assert [(kind, shard, sid, agent) for _, kind, shard, sid, agent in fd.session_log] == [
                ("identify", 1, old_id, "probe"), ("identify", 1, new_id, "probe")]

            again = await http.ws_connect(fd.resume_url)
            assert (await again.receive_json())["op"] == 10
            await again.send_json({"op": 6, "d": {"token": fd.token, "session_id": old_id, "seq": 1}})
            assert await again.receive_json() == {"op": 9, "d": False}
            assert fd.shard_sessions[1].id == new_id and fd.resumes == 0
            for ws in (new, again):
                await ws.close()
    finally:
        await fd.close()
