"""Issue 33 part 2 through the real bot and the fake Discord, on a SQLite file: a server manager sets
house rules, a default speed, the channels tables may open in and whether games count for the
leaderboard; the lobby says "House rules" and the table plays with them; options the host types
still win; a member without Manage Server is refused and nothing changes; who changed what is
shown.  (That the settings survive a restart, on both databases: tests/tables/test_servers.py.)"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from pathlib import Path

from tests.e2e.conftest import make_restart_world, make_world
from tests.fakediscord.play import is_over, open_table, play_seat, table_id_of


async def test_house_rules_channels_and_speed_from_settings(tmp_path: Path) -> None:
    path = tmp_path / "deckhand.db"
    async with make_world(config={"database_url": f"sqlite:///{path}"}) as w:
        fd = w.fd
        fd.members[w.bob.id].manage_guild = True

        refused = await w.ali.slash("settings house-rules", game="hearts", options="target=50")
        assert refused.ephemeral and "Only a member with Manage Server" in refused.text, refused.text
        assert "House rules for" not in (await w.ali.slash("settings show")).text

        bad = await w.bob.slash("settings house-rules", game="hearts", options="target=banana")
        assert bad.ephemeral and "Saved" not in bad.text
        saved = await w.bob.slash("settings house-rules", game="hearts", options="target=50 rules=mcgill")
        assert "Saved." in saved.text and "House rules for Hearts: " in saved.text, saved.text
        await w.bob.slash("settings speed", speed="blitz")

        lobby = await w.ali.slash("game new", game="hearts")
        assert not lobby.ephemeral and "House rules:" in lobby.text, lobby.text
        t = w.table(lobby.message)
        assert (t.options["target"], t.options["rules"], t.speed, t.house) == (50, "mcgill", "blitz", True)
        await w.ali.slash("game end", id=table_id_of(lobby.message))
        # What the host types wins over the house rules and the server's speed.
        mine = await w.ali.slash("game new", game="hearts", options="target=20", speed="relaxed")
        t = w.table(mine.message)
        assert (t.options["target"], t.options["rules"], t.speed) == (20, "mcgill", "relaxed")
        await w.ali.slash("game end", id=table_id_of(mine.message))

        # Tables only in one channel: elsewhere /game new is refused with where to go.
        games = fd.add_channel("games")
        await w.bob.slash("settings channels", add=games.id)
        here = await w.ali.slash("game new", game="hearts")
        assert here.ephemeral and f"<#{games.id}>" in here.text and not w.runtime.list(fd.guild_id), here.text
        there = await w.ali.slash("game new", game="hearts", where=games)
        assert not there.ephemeral, there.text
        await w.ali.slash("game end", id=table_id_of(there.message), where=games)
        await w.bob.slash("settings channels", anywhere=True)

        shown = await w.ali.slash("settings show")
        assert "House rules for Hearts: " in shown.text and "any channel" in shown.text, shown.text
        assert f"<@{w.bob.id}>" in shown.text  # who changed them
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT COUNT(*) FROM server_settings_log WHERE user_id = ?",
                              (w.bob.id,)).fetchone() == (4,)


async def test_games_that_do_not_count_change_no_rating(tmp_path: Path) -> None:
    path = tmp_path / "deckhand.db"
    async with make_world(config={"database_url": f"sqlite:///{path}"}) as w:
        w.fd.members[w.bob.id].manage_guild = True
        await w.bob.slash("settings leaderboard", count=False)
        refused = await w.ali.slash("game new", game="hearts", options="rating=ranked")
        assert refused.ephemeral and "This server's games do not count for the leaderboard" in refused.text
        views: dict[int, object] = {}
        message = await open_table(w.ali, [w.bob], options="target=1", views=views)
        tid = table_id_of(message)
        await asyncio.gather(*(play_seat(p, message, rng=random.Random(i), timeout=60, view=views.get(p.id),
                                         over=lambda: is_over(w.fd, message))
                               for i, p in enumerate((w.ali, w.bob))))
        await w.until(lambda: tid not in w.runtime.tables, 10, "the finished table leaving memory")
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT COUNT(*) FROM results").fetchone() == (2,)  # /stats still counts it
            assert db.execute("SELECT ranked FROM tables WHERE id = ?", (tid,)).fetchone() == (0,)
            assert db.execute("SELECT COUNT(*) FROM ratings").fetchone() == (0,)


async def test_house_rules_survive_a_restart_and_the_table_plays_with_them(tmp_path: Path) -> None:
    async with make_restart_world(tmp_path / "deckhand.db") as w:
        w.fd.members[w.bob.id].manage_guild = True
        saved = await w.bob.slash("settings house-rules", game="hearts", options="target=1")
        assert "Saved." in saved.text, saved.text
        await w.restart_bot(kill=False)  # a new process on the same database
        await w.ready()
        assert "House rules for Hearts: " in (await w.ali.slash("settings show")).text
        lobby = await w.ali.slash("game new", game="hearts")
        assert not lobby.ephemeral and "House rules:" in lobby.text, lobby.text
        await w.ali.slash("game end", id=table_id_of(lobby.message))
        views: dict[int, object] = {}
        message = await open_table(w.ali, [w.bob], views=views)
        tid = table_id_of(message)
        assert json.loads(w.row(tid)["options"])["target"] == 1
        await asyncio.gather(*(play_seat(p, message, rng=random.Random(i), timeout=60, view=views.get(p.id),
                                         over=lambda: is_over(w.fd, message))
                               for i, p in enumerate((w.ali, w.bob))))
        with sqlite3.connect(w.path) as db:
            assert db.execute("SELECT COUNT(*) FROM results").fetchone() == (2,)
