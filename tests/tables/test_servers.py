"""A server's own settings (tables/servers.py, migration 0013_server_language): the language its
tables read, chosen with /game language, kept across a restart in both backends; a read once per
server (cached); nothing chosen reads the server's Discord language."""

from __future__ import annotations

import pytest

from tables.servers import Servers

GUILD, OTHER = 1 << 40, 7


async def test_a_servers_language_is_kept_across_a_restart(store) -> None:
    first = Servers(await store.open())
    assert await first.locale(GUILD) is None
    assert await first.table_locale(GUILD, "fr") == "fr"  # nothing chosen: the server's Discord language
    await first.set_locale(GUILD, "pt_BR", 10.0)
    assert await first.table_locale(GUILD, "fr") == "pt_BR"
    await first.storage.close()

    again = Servers(await store.open())
    assert await again.locale(GUILD) == "pt_BR" and await again.locale(OTHER) is None
    await again.set_locale(GUILD, None, 11.0)  # back to the server's Discord language
    await again.storage.close()
    assert await Servers(await store.open()).table_locale(GUILD, "es-419") == "es"


async def test_a_servers_language_is_read_once_and_a_bad_one_is_refused() -> None:
    reads: list[int] = []

    class Counting:
        async def server_locale(self, guild_id: int) -> str | None:
            reads.append(guild_id)
            return "de"

        async def save_server_locale(self, guild_id: int, locale: str | None, at: float) -> None:
            pass

    servers = Servers(Counting())
    assert [await servers.locale(GUILD) for _ in range(5)] == ["de"] * 5
    assert reads == [GUILD]
    with pytest.raises(ValueError):
        await servers.set_locale(GUILD, "tlh")
    assert await servers.locale(GUILD) == "de"


async def test_a_servers_settings_are_kept_with_who_changed_them(store) -> None:
    from tables.servers import Settings

    first = Servers(await store.open())
    assert await first.settings(GUILD) == Settings()
    await first.set_locale(GUILD, "de", 1.0)
    await first.change(GUILD, 501, 2.0, house={"hearts": {"target": "50"}}, speed="blitz")
    await first.change(GUILD, 502, 3.0, channels=(11, 12), leaderboard=False)
    await first.storage.close()

    again = Servers(await store.open())
    got = await again.settings(GUILD)
    assert got == Settings((11, 12), "blitz", {"hearts": {"target": "50"}}, False)
    assert await again.locale(GUILD) == "de"  # the language is kept beside them
    assert got.allows(12) and got.allows(99, 11) and not got.allows(99, None)
    assert await again.settings(OTHER) == Settings()
    changes = await again.history(GUILD)
    assert [(c["user_id"], c["at"]) for c in changes] == [(502, 3.0), (501, 2.0)]
    assert '"leaderboard":false' in changes[0]["change"]
    await again.storage.close()


def test_settings_that_cannot_be_read_count_as_not_chosen() -> None:
    from tables.servers import Settings

    assert Settings.from_json("not json") == Settings() == Settings.from_json('{"channels": "x", "house": 3}')
    s = Settings((1,), None, {"koth": {"ai": "strong"}}, True)
    assert Settings.from_json(s.to_json()) == s
