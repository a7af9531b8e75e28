"""Cloudflare counts a client's invalid requests — answers 401, 403 and 429 (but 429s of a shared
rate limit) — over 10 minutes: the fake warns at 1,000 and, at 10,000, bans: every request is then
answered 429 by Cloudflare itself (an HTML page, no ``Via`` header), which discord.py does not retry.
Every world's closing check holds the bot far below (conftest ``MAX_INVALID``)."""

from __future__ import annotations

import aiohttp

from tests.e2e.conftest import make_world
from tests.fakediscord import FakeDiscord
from tests.fakediscord.play import open_table

EDIT = "PATCH /channels/{channel_id}/messages/{message_id}"


async def test_401_403_and_429_count_the_rest_does_not() -> None:
    async with FakeDiscord(invalid_limits=(3, 100, 600.0)) as fd, aiohttp.ClientSession() as s:
        me = f"{fd.api_base}/users/@me"
        good = {"Authorization": f"Bot {fd.token}"}
        async with s.get(me, headers=good) as r:
            assert r.status == 200
        async with s.get(f"{fd.api_base}/channels/404404", headers=good) as r:  # 404: not counted
            assert r.status == 404
        assert fd.invalid_requests() == 0
        async with s.get(me, headers={"Authorization": "Bot wrong"}) as r:
            assert r.status == 401
        fd.emoji_refusal = (403, 50013, "Missing Permissions")
        async with s.get(f"{fd.api_base}/applications/{fd.application_id}/emojis", headers=good) as r:
            assert r.status == 403
        assert fd.invalid_requests() == 2 and not fd.problems
        fd.rate_limit("GET /users/@me").shared = True  # a shared resource's limit: not the client's fault
        async with s.get(me, headers=good) as r:
            assert r.status == 429 and r.headers["X-RateLimit-Scope"] == "shared"
        assert fd.invalid_requests() == 2 and not fd.problems
        fd.rate_limit("GET /users/@me")
        async with s.get(me, headers=good) as r:
            assert r.status == 429 and r.headers["X-RateLimit-Scope"] == "user"
        assert fd.invalid_requests() == 3
        assert [p for p in fd.problems if "invalid requests" in p]  # the warning, once
        assert not fd.banned


async def test_at_the_ban_every_request_is_refused_and_the_bot_does_not_hammer() -> None:
    async with make_world(invalid_limits=(5, 10, 600.0)) as w:
        fd = w.fd
        table_message = await open_table(w.ali, [w.bob], options="target=1")
        assert fd.invalid_requests() == 0
        # Others behind the same address exhaust it (Cloudflare bans an address).
        async with aiohttp.ClientSession(headers={"Authorization": "Bot wrong"}) as s:
            for _ in range(10):
                async with s.get(f"{fd.api_base}/users/@me") as r:
                    assert r.status == 401
        assert fd.banned
        before = len(fd.requests)
        listed = await w.ali.slash("game list")
        assert listed.failed  # the bot's answer was refused: the user sees "This interaction failed"
        await fd.changed(0.5)
        after = fd.requests[before:]
        assert after and all(r.status == 429 for r in after)
        assert len(after) <= 3, [r.route for r in after]  # refused once, not retried in a loop
        assert table_message.text  # (the table is still there for when the ban lifts)
        w.allow("invalid requests", "banned by Cloudflare", "not answered within")
        w.allow_errors(r"Could not reply to game .*429 Too Many Requests .*error code: 1015")
        fd.invalid.clear()  # the planted ones: the closing check is about the bot's own
