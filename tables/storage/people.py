"""The SQL of what is kept about a person and about a server (tables/privacy.py; migration 0014):
everything about one person read at once (their export), their "forget me" in one transaction, and
the deletion of what a server that removed Deckhand left behind.

The storage does not read seats: a table's ``seats`` column is JSON the runtime writes
(tables/history/records.py), so the runtime hands in how to find a person in it and how to turn
them into a former player.  A table is a candidate when its seats mention the person's id as text
(``LIKE``) or they host it; the runtime's function then decides, so a number that merely contains
theirs is never touched.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tables.storage.base import RESULT_COLUMNS, UNFINISHED, Forgotten, Param, Record
from tables.storage.sql import RATING_PLACE, REVIEW_COLUMNS, Job, Rows, Run, RunMany, SQLStorage, Steps, floats

#: The stored columns of a table that an export shows (its seats are read by the runtime).
TABLE_FACTS = ("id", "game", "place", "guild_id", "channel_id", "host_id", "seats", "options", "speed", "phase",
               "seed", "created_at", "finished_at", "ended_early", "broken")
FORMER_COLUMNS = ("table_id", "seat", "guild_id", "game", "place", "finished_at")
#: Rows a server's tables leave in other relations, by table id (deleted with the tables).
BY_TABLE = (("actions", "table_id"), ("pings", "table_id"), ("review_progress", "table_id"),
            ("rated_tables", "table_id"), ("ai_results", "table_id"), ("former_results", "table_id"),
            ("rematches", "old_id"), ("rematches", "new_id"))
#: Rows kept per server (deleted with a server that left).
BY_GUILD = ("results", "ratings", "season_boards", "reviews", "ai_results", "former_results", "servers",
            "server_settings_log", "tournaments", "departures")
SETTINGS_LOG = ("guild_id", "user_id", "at", "change")
TOURNAMENT_COLUMNS = ("id", "guild_id", "channel_id", "message_id", "data", "finished")
CHUNK = 500  # ids per IN list (SQLite allows 32,766 parameters; a smaller list keeps a statement short)


def _chunks(ids: Sequence[str]) -> list[Sequence[str]]:
    return [ids[i:i + CHUNK] for i in range(0, len(ids), CHUNK)]


class PeopleStorage(SQLStorage):
    """The SQL methods about one person or one server, over :class:`SQLStorage`'s ``_run``/``_read``."""

    def _candidates(self) -> str:
        return f"SELECT {', '.join(TABLE_FACTS)}, shown FROM tables WHERE host_id = ? OR seats LIKE ?"

    # ---- a person ------------------------------------------------------------------------------
    async def person_tables(self, user_id: int) -> list[Record]:
        """Every stored table whose seats or host may be ``user_id`` (the runtime picks the real ones)."""
        return await self._read(self._candidates(), (int(user_id), f"%{int(user_id)}%"))

    async def person_rows(self, user_id: int) -> dict[str, list[Record]]:
        """Their results, ratings and reviews, in every server and conversation."""
        uid = int(user_id)
        return {
            "results": await self._read(
                f"SELECT {', '.join(RESULT_COLUMNS)} FROM results WHERE user_id = ? ORDER BY finished_at", (uid,)),
            "ratings": await self._read(
                "SELECT guild_id, game, mu, sigma, games, season, season_games FROM ratings WHERE user_id = ? "
                "ORDER BY guild_id, game", (uid,)),
            "season_boards": await self._read(
                "SELECT guild_id, game, season, mu, sigma, games FROM season_boards WHERE user_id = ? "
                "ORDER BY guild_id, game, season", (uid,)),
            "reviews": await self._read(
                f"SELECT {', '.join(REVIEW_COLUMNS)} FROM reviews WHERE user_id = ? ORDER BY created_at", (uid,)),
            "settings_changes": await self._read(
                f"SELECT {', '.join(SETTINGS_LOG)} FROM server_settings_log WHERE user_id = ? ORDER BY at", (uid,)),
        }

    async def seat_logs(self, seats: Sequence[tuple[str, int]]) -> list[Record]:
        """The logged moves of the given ``(table id, seat)`` pairs, in order."""
        out: list[Record] = []
        by_table: dict[str, set[int]] = {}
        for tid, seat in seats:
            by_table.setdefault(tid, set()).add(seat)
        for part in _chunks(sorted(by_table)):
            which, ids = self.dialect.in_list("table_id", list(part), "text")
            rows = await self._read(f"SELECT table_id, seq, seat, code, time, auto FROM actions WHERE {which} "
                                    "ORDER BY table_id, seq", ids)
            out.extend(r for r in rows if int(r["seat"]) in by_table[str(r["table_id"])])
        return out

    async def forget_person(self, user_id: int, rewrite: Callable[[str], tuple[str, list[int]] | None]
                            ) -> Forgotten:
        """In one transaction: every stored table ``user_id`` sat at gets them as a former player
        (``rewrite(seats)``: the new seats and the seats that were theirs, or ``None`` where they did
        not sit), and a table they host gets no host; their results go, leaving their places
        without an id (``former_results``), and their ratings, reviews and reviews in progress go.
        Nothing is changed while any of those tables is still open, being played, or its end not yet
        shown everywhere (``busy`` says which)."""
        d = self.dialect
        uid = int(user_id)
        find = d.sql(self._candidates() + d.for_update)
        unfinished = d.sql(f"SELECT t.id FROM tables t WHERE t.id = ? AND {UNFINISHED}")
        seat_update = d.sql("UPDATE tables SET seats = ?, host_id = CASE WHEN host_id = ? THEN 0 ELSE host_id END "
                            "WHERE id = ?")
        host_update = d.sql("UPDATE tables SET host_id = 0 WHERE id = ? AND host_id = ?")
        # Only ranked games count in the ratings; an absent person's place is after everyone's.
        places = d.sql(f"SELECT table_id, seat, guild_id, game, {RATING_PLACE} AS place, finished_at FROM results "
                       "WHERE user_id = ? AND ranked = 1")
        keep_place = d.sql(f"INSERT INTO former_results ({', '.join(FORMER_COLUMNS)}) "
                           f"VALUES ({', '.join('?' * len(FORMER_COLUMNS))}) ON CONFLICT DO NOTHING")
        progress = d.sql("DELETE FROM review_progress WHERE table_id = ? AND seat = ?")

        def steps() -> Steps:
            found: list[Record] = yield Rows(find, (uid, f"%{uid}%"))
            mine: list[tuple[Record, tuple[str, list[int]] | None]] = []
            for row in found:
                changed = rewrite(str(row["seats"]))
                if changed is not None or row["host_id"] == uid:
                    mine.append((row, changed))
            busy = []
            for row, _ in mine:
                if (yield Rows(unfinished, (row["id"],))):
                    busy.append(str(row["id"]))
            if busy:
                return Forgotten(busy=busy)
            seats: list[tuple[Param, ...]] = []
            for row, changed in mine:
                if changed is None:
                    yield Run(host_update, (row["id"], uid))
                else:
                    yield Run(seat_update, (changed[0], uid, row["id"]))
                    seats.extend((row["id"], s) for s in changed[1])
            kept = yield Rows(places, (uid,))
            yield RunMany(keep_place, [floats(FORMER_COLUMNS, [r[c] for c in FORMER_COLUMNS]) for r in kept])
            results = yield Run(d.sql("DELETE FROM results WHERE user_id = ?"), (uid,))
            ratings = yield Run(d.sql("DELETE FROM ratings WHERE user_id = ?"), (uid,))
            yield Run(d.sql("DELETE FROM season_boards WHERE user_id = ?"), (uid,))
            reviews = yield Run(d.sql("DELETE FROM reviews WHERE user_id = ?"), (uid,))
            # A server's settings they changed stay changed; who changed them is forgotten.
            yield Run(d.sql("UPDATE server_settings_log SET user_id = 0 WHERE user_id = ?"), (uid,))
            yield RunMany(progress, seats)
            return Forgotten(tables=[str(r["id"]) for r, _ in mine], results=int(results), ratings=int(ratings),
                             reviews=int(reviews))

        done: Forgotten = await self._run(Job(steps, f"person:{uid}"))
        return done

    # ---- tournaments (tables/tournaments.py; migration 0018) ----------------------------------
    async def save_tournament(self, record: Record) -> None:
        d = self.dialect
        upsert = d.sql(d.upsert("tournaments", TOURNAMENT_COLUMNS, ("id",)))
        row = [record[c] for c in TOURNAMENT_COLUMNS]

        def steps() -> Steps:
            yield Run(upsert, row)

        await self._run(Job(steps, f"tournament:{record['id']}", single=True))

    async def person_tournaments(self, user_id: int) -> list[Record]:
        """Every stored tournament whose data may name ``user_id`` (the runtime picks the real ones)."""
        return await self._read(f"SELECT {', '.join(TOURNAMENT_COLUMNS)} FROM tournaments WHERE data LIKE ?",
                                (f"%{int(user_id)}%",))

    async def unfinished_tournaments(self) -> list[Record]:
        return await self._read(f"SELECT {', '.join(TOURNAMENT_COLUMNS)} FROM tournaments WHERE finished = 0")

    # ---- a server's own settings (tables/servers.py; migration 0015) ---------------------------
    async def server_settings(self, guild_id: int) -> str | None:
        """A server's settings as stored (JSON), or ``None`` when it never chose any."""
        rows = await self._read("SELECT settings FROM servers WHERE guild_id = ?", (int(guild_id),))
        return str(rows[0]["settings"]) if rows else None

    async def save_server_settings(self, guild_id: int, settings: str, at: float, user_id: int, change: str) -> None:
        """Store a server's settings and, in the same transaction, who changed what."""
        d = self.dialect
        upsert = d.sql(d.upsert("servers", ("guild_id", "settings", "updated_at"), ("guild_id",)))
        logged = d.sql(f"INSERT INTO server_settings_log ({', '.join(SETTINGS_LOG)}) VALUES (?, ?, ?, ?)")

        def steps() -> Steps:
            yield Run(upsert, (int(guild_id), settings, float(at)))
            yield Run(logged, (int(guild_id), int(user_id), float(at), change))

        await self._run(Job(steps, f"server:{guild_id}"))

    async def settings_log(self, guild_id: int, limit: int = 5) -> list[Record]:
        """The server's last settings changes, newest first."""
        return await self._read(f"SELECT {', '.join(SETTINGS_LOG)} FROM server_settings_log WHERE guild_id = ? "
                                "ORDER BY at DESC LIMIT ?", (int(guild_id), int(limit)))

    # ---- a server that removed Deckhand --------------------------------------------------------
    async def note_departure(self, guild_id: int, at: float) -> None:
        """``guild_id`` removed Deckhand at ``at`` (a second notice keeps the first time)."""
        sql = self.dialect.sql("INSERT INTO departures (guild_id, left_at) VALUES (?, ?) ON CONFLICT DO NOTHING")

        def steps() -> Steps:
            yield Run(sql, (int(guild_id), float(at)))

        await self._run(Job(steps, f"server:{guild_id}", single=True))

    async def cancel_departure(self, guild_id: int) -> bool:
        """Deckhand is back in ``guild_id``: nothing of it will be deleted.  Whether it had left."""
        sql = self.dialect.sql("DELETE FROM departures WHERE guild_id = ?")

        def steps() -> Steps:
            return (yield Run(sql, (int(guild_id),)))

        return bool(await self._run(Job(steps, f"server:{guild_id}", single=True)))

    async def purge_departed(self, before: float) -> list[int]:
        """Delete everything kept for the servers that removed Deckhand before ``before`` — their
        tables and logs, results, ratings, reviews and settings — but tables still being played
        there (they go at a later sweep, once ended).  Returns the servers whose data all went."""
        due = await self._read("SELECT guild_id FROM departures WHERE left_at < ?", (float(before),))
        gone: list[int] = []
        for row in due:
            gid = int(row["guild_id"])
            if await self._purge_guild(gid):
                gone.append(gid)
        return gone

    async def _purge_guild(self, guild_id: int) -> bool:
        d = self.dialect
        theirs = "FROM tables t WHERE t.guild_id = ? AND t.place = 'server' AND"
        ended = d.sql(f"SELECT t.id {theirs} NOT ({UNFINISHED}){d.for_update}")
        still = d.sql(f"SELECT COUNT(*) AS n {theirs} {UNFINISHED}")

        def steps() -> Steps:
            ids = [str(r["id"]) for r in (yield Rows(ended, (guild_id,)))]
            for part in _chunks(ids):
                for relation, column in BY_TABLE:
                    which, params = d.in_list(column, list(part), "text")
                    yield Run(d.sql(f"DELETE FROM {relation} WHERE {which}"), params)
                which, params = d.in_list("id", list(part), "text")
                yield Run(d.sql(f"DELETE FROM tables WHERE {which}"), params)
            left = (yield Rows(still, (guild_id,)))[0]["n"]
            if left:
                return False  # its running tables end first; the departure stays for the next sweep
            for relation in BY_GUILD:
                yield Run(d.sql(f"DELETE FROM {relation} WHERE guild_id = ?"), (guild_id,))
            return True

        return bool(await self._run(Job(steps, f"server:{guild_id}")))
