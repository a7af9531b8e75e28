"""What a restart must not forget besides the tables themselves: which lobby a finished table's
**Play again** opened (one rematch per finished table, tables/rematch.py), and the turn pings and
nudges still standing in a table's thread (the Discord layer deletes each once its people moved,
cogs/live/listener.py; a successor must find them to keep one standing ping per person).

Stored through the storage (migration 0009, both dialects in tables/storage/sql.py).  Without a
storage nothing is kept and every read is empty.  This is bookkeeping for what people see, not
game state: a failed write or read is logged and the table plays on (a ping not stored is only
left standing after a restart; a rematch link not stored lets a second Play again open another
lobby after a restart).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass

from tables.storage.base import Storage

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StoredPing:
    """A standing turn ping or nudge: where it is, and per seat the deadline it was sent for."""

    message_id: int
    channel_id: int
    due: dict[int, float | None]


def due_text(due: Mapping[int, float | None]) -> str:
    return json.dumps({str(s): d for s, d in due.items()}, sort_keys=True)


def read_due(text: str) -> dict[int, float | None]:
    raw = json.loads(text or "{}")
    return {int(s): (None if d is None else float(d)) for s, d in raw.items()}


class Kept:
    """The runtime's keeper of rematch links and standing pings (``Runtime.kept``)."""

    def __init__(self, storage: Storage | None) -> None:
        self.storage = storage

    # ---- Play again --------------------------------------------------------------------------
    async def rematch_of(self, old_id: str) -> str | None:
        """The lobby a stored Play again of ``old_id`` opened, if any."""
        if self.storage is None:
            return None
        try:
            found = await self.storage.rematch_of(old_id)
        except Exception as e:
            log.warning("Could not read the rematch of table %s (%s).", old_id, e)
            return None
        return None if found is None else str(found)

    async def save_rematch(self, old_id: str, new_id: str, at: float) -> None:
        if self.storage is None:
            return
        try:
            await self.storage.save_rematch(old_id, new_id, at)
        except Exception as e:
            log.warning("Could not store that table %s is the rematch of %s (%s).", new_id, old_id, e)

    # ---- standing pings ----------------------------------------------------------------------
    async def pings(self, table_id: str) -> list[StoredPing]:
        """The table's standing pings, as stored (an unreadable row is dropped from the answer)."""
        if self.storage is None:
            return []
        try:
            rows = await self.storage.pings_of(table_id)
        except Exception as e:
            log.warning("Could not read the standing pings of table %s (%s).", table_id, e)
            return []
        out = []
        for r in rows:
            try:
                out.append(StoredPing(int(r["message_id"]), int(r["channel_id"]), read_due(r["due"])))
            except (KeyError, TypeError, ValueError):
                log.warning("Table %s: a stored ping could not be read: %r", table_id, r)
        return out

    async def save_ping(self, table_id: str, ping: StoredPing) -> None:
        if self.storage is None:
            return
        try:
            await self.storage.save_ping(table_id, ping.message_id, ping.channel_id, due_text(ping.due))
        except Exception as e:
            log.warning("Could not store the ping %s of table %s (%s).", ping.message_id, table_id, e)

    async def drop_ping(self, table_id: str, message_id: int) -> None:
        if self.storage is None:
            return
        try:
            await self.storage.drop_ping(table_id, message_id)
        except Exception as e:
            log.warning("Could not forget the ping %s of table %s (%s).", message_id, table_id, e)
