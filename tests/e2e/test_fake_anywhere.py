"""The fake Discord models an app installed to a person's account and used where the bot is not a
member (issue 32): each rule Discord keeps there is shown refusing a bot that breaks it.  No bot
runs here: the test answers the interactions itself over HTTP, as a bot would."""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import pytest

from tests.fakediscord import FakeDiscord
from tests.fakediscord import payloads as P
from tests.fakediscord.server import USER_APP_FOLLOWUPS
from tests.fakediscord.users import CannotDoThat, Person

#: A global command installable both ways and usable everywhere (what issue 32's commands declare).
ANYWHERE = {"type": 1, "name": "game", "description": "Play a card game", "integration_types": [0, 1],
            "contexts": [0, 1, 2], "options": [{"type": 1, "name": "list", "description": "The games"}]}
#: One that only servers with the bot offer (today's guild-only commands).
SERVER_ONLY = {"type": 1, "name": "stats", "description": "Your results", "integration_types": [0], "contexts": [0]}


async def _register(fd: FakeDiscord, s: aiohttp.ClientSession, body: list[dict[str, Any]]) -> aiohttp.ClientResponse:
    return await s.put(f"{fd.api_base}/applications/{fd.application_id}/commands", json=body,
                       headers={"Authorization": f"Bot {fd.token}"})


async def _answer(fd: FakeDiscord, s: aiohttp.ClientSession, i: Any, body: dict[str, Any]) -> int:
    async with s.post(f"{fd.api_base}/interactions/{i.id}/{i.token}/callback", json=body) as r:
        return r.status


async def _followup(fd: FakeDiscord, s: aiohttp.ClientSession, i: Any, content: str) -> tuple[int, Any]:
    await asyncio.sleep(0.03)  # the webhook route's window (5 per 2 s), shortened 100 times below
    async with s.post(f"{fd.api_base}/webhooks/{fd.application_id}/{i.token}?wait=1", json={"content": content}) as r:
        return r.status, await r.json()


def _group(fd: FakeDiscord) -> tuple[list[Person], Any]:
    people = [fd.add_member(n) for n in ("Ann", "Ben", "Cat", "Dan")]
    fd.install_to_account(people[0])
    return people, fd.add_group_dm("Friday cards", people)


async def test_an_interaction_from_a_group_dm_carries_its_context_and_the_persons_install() -> None:
    async with FakeDiscord() as fd, aiohttp.ClientSession() as s:
        assert (await _register(fd, s, [ANYWHERE])).status == 200
        (ann, ben, *_), group = _group(fd)
        i = fd.send_interaction(ann.id, P.APPLICATION_COMMAND, {"name": "game"}, group.id, "/game list")
        payload = fd.interaction_payload(i)
        assert payload["context"] == P.PRIVATE_CHANNEL_CONTEXT and "guild_id" not in payload
        assert payload["authorizing_integration_owners"] == {"1": str(ann.id)}
        assert payload["channel"]["type"] == 3 and len(payload["channel"]["recipients"]) == 4
        assert int(payload["app_permissions"]) == P.USER_APP_PERMISSIONS
        assert await _answer(fd, s, i, {"type": 4, "data": {"content": "the table"}}) == 204
        # Everyone in the group sees a public answer; nobody outside it does.
        assert [m.content for m in ben.sees(group)] == ["the table"]
        outsider = fd.add_member("Eve")
        assert outsider.sees(group) == []
        assert fd.problems == []


async def test_a_channel_route_where_the_bot_is_not_a_member_is_refused_and_recorded() -> None:
    async with FakeDiscord() as fd, aiohttp.ClientSession(headers={"Authorization": "Bot fake-bot-token"}) as s:
        _, group = _group(fd)
        async with s.post(f"{fd.api_base}/channels/{group.id}/messages", json={"content": "hello"}) as r:
            assert r.status == 403 and (await r.json())["code"] == 50001
        async with s.post(f"{fd.api_base}/channels/{group.id}/typing") as r:
            assert r.status == 403
        assert len(fd.problems) == 2 and all("not in" in p for p in fd.problems)
        # A server that never added the bot: the same.
        gid = fd.add_guild("Elsewhere", bot=False)
        ch = fd.add_channel("general", guild=gid)
        async with s.post(f"{fd.api_base}/channels/{ch.id}/messages", json={"content": "hello"}) as r:
            assert r.status == 403
        assert len(fd.problems) == 3


async def test_an_app_installed_to_a_person_gets_five_followups_per_interaction() -> None:
    async with FakeDiscord(ratelimit_scale=0.01) as fd, aiohttp.ClientSession() as s:
        (ann, *_), group = _group(fd)
        i = fd.send_interaction(ann.id, P.APPLICATION_COMMAND, {"name": "game"}, group.id, "/game list")
        assert await _answer(fd, s, i, {"type": 4, "data": {"content": "the table"}}) == 204
        for n in range(USER_APP_FOLLOWUPS):
            assert (await _followup(fd, s, i, f"move {n}"))[0] == 200
        status, body = await _followup(fd, s, i, "one too many")
        assert status == 400 and body["code"] == 40094
        assert any("more than 5 followups" in p for p in fd.problems)
    # In a server with the bot the same person's followups are not limited so.
    async with FakeDiscord(ratelimit_scale=0.01) as fd, aiohttp.ClientSession() as s:
        ann = fd.add_member("Ann")
        fd.install_to_account(ann)
        i = fd.send_interaction(ann.id, P.APPLICATION_COMMAND, {"name": "game"}, fd.channel.id, "/game list")
        assert fd.interaction_payload(i)["authorizing_integration_owners"] == {"0": str(fd.guild_id),
                                                                               "1": str(ann.id)}
        assert await _answer(fd, s, i, {"type": 4, "data": {"content": "the table"}}) == 204
        for n in range(USER_APP_FOLLOWUPS + 2):
            assert (await _followup(fd, s, i, f"move {n}"))[0] == 200
        assert fd.problems == []


async def test_a_token_runs_out_after_fifteen_minutes_of_driven_clock() -> None:
    async with FakeDiscord() as fd, aiohttp.ClientSession() as s:
        (ann, *_), group = _group(fd)
        i = fd.send_interaction(ann.id, P.APPLICATION_COMMAND, {"name": "game"}, group.id, "/game list")
        assert await _answer(fd, s, i, {"type": 4, "data": {"content": "the table"}}) == 204
        fd.age_tokens(14 * 60)
        base = f"{fd.api_base}/webhooks/{fd.application_id}/{i.token}/messages/@original"
        async with s.patch(base, json={"content": "still mine"}) as r:
            assert r.status == 200
        fd.age_tokens(61)
        async with s.patch(base, json={"content": "too late"}) as r:
            assert r.status == 401 and (await r.json())["code"] == 50027
        assert any("token used after" in p for p in fd.problems)


async def test_a_click_updates_the_public_message_it_came_from_and_its_token_then_edits_that_message() -> None:
    """UPDATE_MESSAGE (type 7) where the bot is not a member: a click on the app's public message
    may answer by updating that message for everyone; the click's token then edits it as its
    ``@original`` for 15 minutes, and its followups (five at most) are new messages.  Discord refuses
    an update as the answer to a command, a second answer, and an update of a message that is gone."""
    async with FakeDiscord(ratelimit_scale=0.01) as fd, aiohttp.ClientSession() as s:
        (ann, ben, *_), group = _group(fd)
        new = fd.send_interaction(ann.id, P.APPLICATION_COMMAND, {"name": "game"}, group.id, "/game new")
        button = {"type": 1, "components": [{"type": 2, "style": 1, "label": "My hand", "custom_id": "hand"}]}
        assert await _answer(fd, s, new, {"type": 4, "data": {"content": "the table", "components": [button]}}) == 204
        (table,) = ben.sees(group)
        click = fd.send_interaction(ben.id, P.MESSAGE_COMPONENT, {"custom_id": "hand", "component_type": 2}, group.id,
                                    "click My hand", message_id=table.id)
        # Ben did not add the app: his click is answered through Ann's install, which posted the message.
        assert fd.interaction_payload(click)["authorizing_integration_owners"] == {"1": str(ann.id)}
        assert await _answer(fd, s, click, {"type": 7, "data": {"content": "the table, now",
                                                                  "components": [button]}}) == 204
        assert [m.content for m in ann.sees(group)] == ["the table, now"]  # everyone sees the update
        assert table.versions[-1].source == "update" and table.versions[-1].by == click.id
        assert await _answer(fd, s, click, {"type": 4, "data": {"content": "again", "flags": 64}}) == 400
        assert any(p.endswith("answered twice") for p in fd.problems)
        fd.problems.clear()
        base = f"{fd.api_base}/webhooks/{fd.application_id}/{click.token}"
        async with s.patch(f"{base}/messages/@original", json={"content": "the table, later"}) as r:
            assert r.status == 200 and (await r.json())["id"] == str(table.id)
        assert [m.content for m in ann.sees(group)] == ["the table, later"]
        status, body = await _followup(fd, s, click, "your hand")
        assert status == 200 and body["channel_id"] == str(group.id)
        assert [m.content for m in ben.sees(group)] == ["the table, later", "your hand"]  # (not ephemeral: all see it)
        private = {"content": "only yours", "flags": 64}
        async with s.post(f"{base}?wait=1", json=private) as r:
            assert r.status == 200
        assert "only yours" not in [m.content for m in ann.sees(group)]
        fd.age_tokens(15 * 60 + 1)
        async with s.patch(f"{base}/messages/@original", json={"content": "too late"}) as r:
            assert r.status == 401
        assert any(p.endswith("(it had run out)") for p in fd.problems)
        fd.problems.clear()
        # An update is no answer to a command (there is no message to update).
        command = fd.send_interaction(ann.id, P.APPLICATION_COMMAND, {"name": "game"}, group.id, "/game list")
        assert await _answer(fd, s, command, {"type": 7, "data": {"content": "x"}}) == 400
        assert any("does not fit" in p for p in fd.problems)
        fd.problems.clear()
        # A click on a message deleted while the click was on its way: Unknown Message.
        late = fd.send_interaction(ben.id, P.MESSAGE_COMPONENT, {"custom_id": "hand", "component_type": 2}, group.id,
                                   "click My hand", message_id=table.id)
        fd.delete_message(table.id)
        async with s.post(f"{fd.api_base}/interactions/{late.id}/{late.token}/callback",
                          json={"type": 7, "data": {"content": "x"}}) as r:
            assert r.status == 404 and (await r.json())["code"] == 10008


async def test_where_a_server_forbids_external_apps_every_answer_is_private() -> None:
    async with FakeDiscord() as fd, aiohttp.ClientSession() as s:
        gid = fd.add_guild("Strict", bot=False)
        ch = fd.add_channel("general", guild=gid)
        ch.external_apps = False
        ann, ben = fd.add_member("Ann"), fd.add_member("Ben")
        fd.install_to_account(ann)
        i = fd.send_interaction(ann.id, P.APPLICATION_COMMAND, {"name": "game"}, ch.id, "/game list")
        payload = fd.interaction_payload(i)
        assert payload["context"] == P.GUILD_CONTEXT and payload["authorizing_integration_owners"] == {"1": str(ann.id)}
        assert not int(payload["member"]["permissions"]) & P.USE_EXTERNAL_APPS
        assert await _answer(fd, s, i, {"type": 4, "data": {"content": "the table"}}) == 204
        assert (await _followup(fd, s, i, "a public move"))[0] == 200
        assert [m.content for m in ann.sees(ch)] == ["the table", "a public move"]
        assert ben.sees(ch) == []  # both were forced to Ann alone
        ch.external_apps = True
        j = fd.send_interaction(ann.id, P.APPLICATION_COMMAND, {"name": "game"}, ch.id, "/game list")
        assert await _answer(fd, s, j, {"type": 4, "data": {"content": "shown"}}) == 204
        assert [m.content for m in ben.sees(ch)] == ["shown"]


async def test_a_command_is_offered_only_where_installed_and_in_the_contexts_it_declares() -> None:
    async with FakeDiscord() as fd, aiohttp.ClientSession() as s:
        assert (await _register(fd, s, [ANYWHERE, SERVER_ONLY])).status == 200
        (ann, ben, *_), group = _group(fd)
        ann.where = ben.where = group
        with pytest.raises(CannotDoThat, match="not offered in this kind of conversation"):
            await ann.slash("stats")
        with pytest.raises(CannotDoThat, match="not installed here"):
            await ben.slash("game list")  # Ben did not add the app to his account
        assert fd.interactions == {}  # nothing reached the bot
        task = asyncio.ensure_future(ann.slash("game list"))  # Ann did: the interaction reaches the bot
        await fd.wait_for(lambda: fd.interactions, 5, "Ann's interaction")
        i = next(iter(fd.interactions.values()))
        assert await _answer(fd, s, i, {"type": 4, "data": {"content": "ok", "flags": 64}}) == 204
        assert (await task).text == "ok"


@pytest.mark.parametrize(("key", "value"), [("integration_types", [2]), ("contexts", [3]), ("contexts", []),
                                            ("integration_types", [0, 0])])
async def test_registration_refuses_install_types_and_contexts_discord_does_not_know(key: str, value: Any) -> None:
    async with FakeDiscord() as fd, aiohttp.ClientSession() as s:
        r = await _register(fd, s, [ANYWHERE | {key: value}])
        assert r.status == 400 and (await r.json())["code"] == 50035
        assert fd.commands.get(None) is None
