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
