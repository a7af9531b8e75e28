"""A server's own settings, kept across restarts: the language its tables read (issue 31), and what
``/settings`` sets (issue 33) — the channels tables may be opened in, the default speed, house rules
per game, and whether its games count for the leaderboard (:class:`Settings`).

``/game language`` (a server manager) sets it; a table opened without ``language:`` reads it, and
without one the server's Discord language (``guild_locale``).  Stored through the storage (migration
0013, ``servers``); read once per server and cached, so opening a table costs no query after the
first.  Without a storage the choice lives as long as the process.  A failed read or write is
logged and the table is opened in the server's Discord language: this is a preference, never a
reason to refuse a table.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TypedDict, Unpack

import words
from tables.nights.seasons import PERIODS, Period
from tables.storage.base import Record, Storage

log = logging.getLogger(__name__)


class _Unread(Exception):
    """The storage could not be read (logged): the caller keeps Deckhand's default."""


@dataclass(frozen=True)
class Settings:
    """What a server manager chose with ``/settings`` (every default: Deckhand's own)."""

    #: Where tables may be opened (their threads included); empty: anywhere.
    channels: tuple[int, ...] = ()
    #: The speed of a new table that names none (``None``: the game's default).
    speed: str | None = None
    #: Per game, the options a new table starts from (as typed: ``{"target": "50", "ai": "strong"}``).
    house: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Whether finished games change the ratings the leaderboard ranks by (a table may be ranked).
    leaderboard: bool = True
    #: How long a season of the leaderboard lasts: "month", "quarter", or "none" (one board forever).
    season: Period = "month"

    def to_json(self) -> str:
        return json.dumps({"channels": list(self.channels), "speed": self.speed, "house": self.house,
                           "leaderboard": self.leaderboard, "season": self.season},
                          sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | None) -> Settings:
        """Read what :meth:`to_json` wrote; what cannot be read counts as not chosen."""
        try:
            d = json.loads(text or "{}")
        except ValueError:
            d = {}
        d = d if isinstance(d, dict) else {}
        channels = tuple(int(c) for c in d.get("channels") or () if isinstance(c, int) and not isinstance(c, bool))
        speed = d.get("speed") if isinstance(d.get("speed"), str) else None
        house = {str(g): {str(k): str(v) for k, v in o.items()} for g, o in (d.get("house") or {}).items()
                 if isinstance(o, dict)} if isinstance(d.get("house"), dict) else {}
        season: Period = next((p for p in PERIODS if p == d.get("season")), "month")
        return cls(channels, speed, house, d.get("leaderboard") is not False, season)

    def allows(self, *channel_ids: int | None) -> bool:
        """Whether a table may be opened in a channel (or a thread of one: give both ids)."""
        return not self.channels or any(c in self.channels for c in channel_ids if c is not None)


class Changes(TypedDict, total=False):
    """Some of :class:`Settings`' fields, changed at once (``/settings``)."""

    channels: tuple[int, ...]
    speed: str | None
    house: dict[str, dict[str, str]]
    leaderboard: bool
    season: Period


class Servers:
    """The runtime's keeper of server settings (``Runtime.servers``)."""

    def __init__(self, storage: Storage | None) -> None:
        self.storage = storage
        self._locale: dict[int, str | None] = {}
        self._settings: dict[int, Settings] = {}

    async def _read(self, guild_id: int, what: str, read: Callable[[Storage], Awaitable[str | None]]) -> str | None:
        """What ``read`` finds of ``guild_id`` in the storage (``None`` without one); a failure is logged
        and raises :class:`_Unread` (the caller falls back to Deckhand's default)."""
        if self.storage is None:
            return None
        try:
            return await read(self.storage)
        except Exception as e:
            log.warning("Could not read the %s of server %s (%s).", what, guild_id, e)
            raise _Unread from None

    async def locale(self, guild_id: int) -> str | None:
        """The language a server manager chose for ``guild_id`` (a catalog of words/), or ``None``."""
        if guild_id in self._locale:
            return self._locale[guild_id]
        try:
            found = await self._read(guild_id, "language", lambda s: s.server_locale(guild_id))
        except _Unread:
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

    async def settings(self, guild_id: int) -> Settings:
        """What ``guild_id``'s managers chose with /settings (Deckhand's defaults if nothing, or if the
        storage cannot be read: a preference is never a reason to refuse a table)."""
        got = self._settings.get(guild_id)
        if got is not None:
            return got
        try:
            text = await self._read(guild_id, "settings", lambda s: s.server_settings(guild_id))
        except _Unread:
            return Settings()
        got = self._settings[guild_id] = Settings.from_json(text)
        return got

    async def change(self, guild_id: int, user_id: int, at: float, **changes: Unpack[Changes]) -> Settings:
        """Change some of ``guild_id``'s settings (the fields of :class:`Settings`), kept with who
        changed what.  Raises what the storage raised: the person is told it did not work."""
        new = replace(await self.settings(guild_id), **changes)
        if self.storage is not None:
            logged = json.dumps({k: (list(v) if isinstance(v, tuple) else v) for k, v in changes.items()},
                                sort_keys=True, separators=(",", ":"))
            await self.storage.save_server_settings(guild_id, new.to_json(), at, user_id, logged)
        self._settings[guild_id] = new
        return new

    async def history(self, guild_id: int, limit: int = 5) -> list[Record]:
        """The last changes (who, when, what), newest first; none without a storage."""
        if self.storage is None:
            return []
        return await self.storage.settings_log(guild_id, limit)

    def forget(self, guild_id: int) -> None:
        """Read ``guild_id`` from the storage again next time (a shard taken over from another process)."""
        self._locale.pop(guild_id, None)
        self._settings.pop(guild_id, None)
