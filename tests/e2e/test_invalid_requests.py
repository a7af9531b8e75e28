"""Cloudflare counts a client's invalid requests — answers 401, 403 and 429 (but 429s of a shared
rate limit) — over 10 minutes: the fake warns at 1,000 and, at 10,000, bans: every request is then
answered 429 by Cloudflare itself (an HTML page, no ``Via`` header), which discord.py does not retry.
Every world's closing check holds the bot far below (conftest ``MAX_INVALID``)."""

from __future__ import annotations

import random
from typing import Any

import aiohttp
import pytest

from tests.e2e.conftest import make_world
from tests.fakediscord import FakeDiscord, Person, Reply
from tests.fakediscord import payloads as P
from tests.fakediscord.play import open_table, play_seat
from tests.fakediscord.server import Message
from tests.fakediscord.users import CannotDoThat

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


# ==== input longer or stranger than any the bot offers (issue 29 item 14) ========================
LONG_ID = "A" * 2100


def _string_options(spec: dict[str, Any], path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every string option of a registered command, with its command's path."""
    out = []
    for o in spec.get("options") or []:
        if o["type"] in (P.SUB_COMMAND, P.SUB_COMMAND_GROUP):
            out += _string_options(o, f"{path} {o['name']}")
        elif o["type"] == P.STRING:
            out.append((f"{path} {o['name']}".strip(), o))
    return out


async def _forged(person: Person, command: str, **options: Any) -> Reply:
    """``/command`` as a client that ignores the options' declared limits would send it (Discord's own
    client refuses; the bot must still answer in a sentence)."""
    short = {k: v if len(v) <= 20 else "x" for k, v in options.items()}
    data = person._command_data(command, short)
    node = data
    while node.get("options") and node["options"][0]["type"] in (P.SUB_COMMAND, P.SUB_COMMAND_GROUP):
        node = node["options"][0]
    for o in node.get("options") or []:
        o["value"] = options[o["name"]]
    i = person.fd.send_interaction(person.id, P.APPLICATION_COMMAND, data, person.where.id,
                                   label=f"/{command} (forged)")
    return await person._wait(i)


async def _forged_jump(person: Person, viewer: Message, value: str) -> Reply:
    """The replay viewer's menu as a forged client would choose: a value it never offered."""
    menu = viewer.selects()[0]
    data = {"custom_id": menu["custom_id"], "component_type": P.STRING_SELECT, "values": [value]}
    i = person.fd.send_interaction(person.id, P.MESSAGE_COMPONENT, data, viewer.channel_id, label="forged jump",
                                   message_id=viewer.id)
    return await person._wait(i)


async def test_long_ids_and_forged_values_get_a_short_sentence_and_no_error() -> None:
    async with make_world() as w:
        fd = w.fd
        # Every string option of every command declares how long it may be, so Discord refuses a
        # pasted novel before it reaches the bot.
        registered = {**fd.commands.get(None, {}), **fd.commands.get(fd.guild_id, {})}
        typed = [(f"{name} {path}", o) for name, spec in registered.items() for path, o in _string_options(spec)]
        assert {"game new game", "game new options", "game watch table", "play cards", "leaderboard game"} \
            <= {n for n, _ in typed}, [n for n, _ in typed]
        assert typed and all(o.get("max_length") for _, o in typed), [n for n, o in typed if not o.get("max_length")]
        assert max(o["max_length"] for _, o in typed) <= 300
        for command in ("game replay", "game review"):
            with pytest.raises(CannotDoThat, match="at most"):
                await w.ali.slash(command, id=LONG_ID)
        with pytest.raises(CannotDoThat, match="at most"):
            await w.ali.slash("game watch", table=LONG_ID)

        # A client that sends it anyway is told in a sentence that repeats a few characters of it.
        for command, option in (("game replay", "id"), ("game review", "id"), ("game watch", "table"),
                                ("game join", "id"), ("game end", "id")):
            said = await _forged(w.ali, command, **{option: LONG_ID})
            assert not said.failed and said.ephemeral, (command, said.interaction.failed)
            assert "There is no" in said.text and len(said.text) < 200, (command, said.text)
        lobby = await _forged(w.ali, "game new", game="hearts", options="x" * 2100)
        assert not lobby.failed and lobby.ephemeral and len(lobby.text) < 300, lobby.text
        assert not w.runtime.list(fd.guild_id)  # nothing opened

        # A finished game's viewer: a forged jump ("²" passes isdigit and fails int; 5,000 digits fail
        # int too) is a step of no game.
        table_message = await open_table(w.ali, [], options="target=1")
        await play_seat(w.ali, table_message, rng=random.Random(3), timeout=60)
        await w.until(lambda: any(b.get("label") == "Replay" for b in table_message.buttons()), 20,
                      "the Replay button on the finished table")
        viewer = (await w.stranger.click(table_message, "Replay")).message
        assert viewer is not None and viewer.selects()
        for value in ("²", "9" * 5000, "-1", "１"):
            jumped = await _forged_jump(w.stranger, viewer, value)
            assert not jumped.failed and jumped.ephemeral, (value, jumped.interaction.failed)
            assert jumped.text == "That is not a step of this game.", (value, jumped.text)
