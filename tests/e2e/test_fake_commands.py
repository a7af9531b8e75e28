"""The fake Discord registers commands only as Discord would: a payload breaking Discord's rules
(names, lengths, counts, choices, option order) is refused with 400 / 50035 and registers nothing;
the bot's real command tree passes."""

from __future__ import annotations

import copy
from typing import Any

import aiohttp
import pytest

from tests.e2e.conftest import World
from tests.fakediscord import FakeDiscord
from tests.fakediscord.commands import command_errors


def slash(name: str = "game", **extra: Any) -> dict[str, Any]:
    return {"type": 1, "name": name, "description": "Play a card game"} | extra


def option(name: str = "game", type_: int = 3, **extra: Any) -> dict[str, Any]:
    return {"type": type_, "name": name, "description": "Which game"} | extra


CHOICES = [{"name": f"Game {n}", "value": f"g{n}"} for n in range(26)]

# (what is wrong, the body, where Discord's errors name the fault)
MISTAKES = [
    ("a capital letter in a slash command's name", [slash("Game")], ["0", "name"]),
    ("a space in a name", [slash("new game")], ["0", "name"]),
    ("a name of 33 characters", [slash("g" * 33)], ["0", "name"]),
    ("an empty name", [slash("")], ["0", "name"]),
    ("an empty description", [slash(description="")], ["0", "description"]),
    ("a description of 101 characters", [slash(description="x" * 101)], ["0", "description"]),
    ("two commands of one name", [slash(), slash()], ["1", "name"]),
    ("101 slash commands", [slash(f"c{n}") for n in range(101)], []),
    ("26 options", [slash(options=[option(f"o{n}") for n in range(26)])], ["0", "options"]),
    ("26 choices", [slash(options=[option(choices=CHOICES)])], ["0", "options", "0", "choices"]),
    ("a choice value of 101 characters", [slash(options=[option(choices=[{"name": "x", "value": "v" * 101}])])],
     ["0", "options", "0", "choices", "0", "value"]),
    ("a required option after an optional one",
     [slash(options=[option("a"), option("b", required=True)])], ["0", "options", "1", "required"]),
    ("two options of one name", [slash(options=[option("a"), option("a")])], ["0", "options", "1", "name"]),
    ("an option name in capitals", [slash(options=[option("Game")])], ["0", "options", "0", "name"]),
    ("choices and autocomplete at once", [slash(options=[option(choices=CHOICES[:2], autocomplete=True)])],
     ["0", "options", "0", "autocomplete"]),
    ("subcommands mixed with plain options",
     [slash(options=[option("new", 1), option("game")])], ["0", "options"]),
    ("a subcommand inside a subcommand",
     [slash(options=[option("new", 1, options=[option("deeper", 1)])])], ["0", "options", "0", "options", "0", "type"]),
    ("a user command with a description", [{"type": 2, "name": "Invite", "description": "x"}], ["0", "description"]),
    ("a command over 4000 characters",
     [slash(options=[option(f"o{n}", description="d" * 100, choices=[{"name": "n" * 100, "value": "v" * 100}
                                                                      for _ in range(25)]) for n in range(2)])],
     ["0"]),
]


def test_what_discord_accepts_passes() -> None:
    accepted = [slash(options=[option("new", 1, options=[option("game", required=True, autocomplete=True),
                                                          option("options", min_length=0, max_length=200)]),
                               option("admin", 2, options=[option("end", 1)])]),
                slash("hand"), slash("ünïcode-ok_1"), {"type": 2, "name": "Invite to a table", "description": ""},
                slash("rules", options=[option(choices=CHOICES[:25])])]
    assert command_errors(accepted) == ({}, [])


@pytest.mark.parametrize(("what", "body", "where"), MISTAKES, ids=[m[0] for m in MISTAKES])
async def test_discord_refuses_a_command_payload_breaking_its_rules(what: str, body: list[Any],
                                                                   where: list[str]) -> None:
    async with FakeDiscord() as fd, aiohttp.ClientSession(headers={"Authorization": f"Bot {fd.token}"}) as s:
        good = [slash("hand")]
        url = f"{fd.api_base}/applications/{fd.application_id}/guilds/{fd.guild_id}/commands"
        async with s.put(url, json=good) as r:
            assert r.status == 200
        async with s.put(url, json=copy.deepcopy(body)) as r:
            assert r.status == 400, what
            data = await r.json()
        assert data["code"] == 50035 and data["message"] == "Invalid Form Body"
        node = data["errors"]
        for part in where:
            node = node[part]
        assert node["_errors"] and all(e["code"] and e["message"] for e in node["_errors"])
        assert set(fd.commands[fd.guild_id]) == {"hand"}  # nothing of the refused payload was registered
        assert any("Invalid Form Body" in p for p in fd.problems)  # the closing check would fail the test


async def test_the_bots_real_command_tree_passes(w: World) -> None:
    # The world's bot synced its whole tree at start-up through the same check.
    synced = w.fd.commands[w.fd.guild_id]
    assert {"game", "hand", "play"} <= set(synced)
    assert command_errors(list(synced.values())) == ({}, [])
    assert not w.fd.problems
    # And as global commands (production syncs without a development server).
    tree = [c.to_dict(w.bot.tree) for c in w.bot.tree.get_commands()]
    assert tree and command_errors(tree) == ({}, [])
