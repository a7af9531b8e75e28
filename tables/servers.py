"""A server's own settings, kept across restarts: so far the language its tables read (issue 31).

``/game language`` (a server manager) sets it; a table opened without ``language:`` reads it, and
without one the server's Discord language (``guild_locale``).  Stored through the storage (migration
0013, ``servers``); read once per server and cached, so opening a table costs no query after the
first.  Without a storage the choice lives as long as the process.  A failed read or write is
logged and the table is opened in the server's Discord language: this is a preference, never a
reason to refuse a table.
"""

from __future__ import annotations

import logging
from typing import Any

import words

log = logging.getLogger(__name__)


class Servers:
    """The runtime's keeper of server settings (``Runtime.servers``)."""

    def __init__(self, storage: Any | None) -> None:
        self.storage = storage
        self._locale: dict[int, str | None] = {}

    async def locale(self, guild_id: int) -> str | None:
        """The language a server manager chose for ``guild_id`` (a catalog of words/), or ``None``."""
        if guild_id in self._locale:
            return self._locale[guild_id]
        found: str | None = None
        if self.storage is not None:
            try:
                found = await self.storage.server_locale(guild_id)
            except Exception as e:
                log.warning("Could not read the language of server %s (%s).", guild_id, e)
                return None
        found = found if found in words.LOCALES else None
        self._locale[guild_id] = found
        return found

    async def table_locale(self, guild_id: int, discord_locale: object) -> str:
        """What a new table of ``guild_id`` reads: the chosen language, else the server's Discord one."""
        chosen = await self.locale(guild_id)
        return chosen if chosen is not None else words.resolve(discord_locale)

    async def set_locale(self, guild_id: int, locale: str | None, at: float = 0.0) -> None:
        """Choose ``locale`` (a catalog of words/) for the server's tables; ``None`` goes back to
        the server's Discord language."""
        if locale is not None and locale not in words.LOCALES:
            raise ValueError(locale)
        self._locale[guild_id] = locale
        if self.storage is None:
            return
        try:
            await self.storage.save_server_locale(guild_id, locale, at)
        except Exception as e:
            log.warning("Could not store the language of server %s (%s).", guild_id, e)

    def forget(self, guild_id: int) -> None:
        """Read ``guild_id`` from the storage again next time (a shard taken over from another process)."""
        self._locale.pop(guild_id, None)
