"""Issue 33 part 1 through the real bot and the fake Discord, on a SQLite file as production runs:
after a whole game, ``/privacy kept`` says what is kept and how much, ``/privacy export`` hands over a
file of it (only the asker sees it), and ``/privacy forget`` — after its button — leaves no row of
the database holding their id, while the other player's results stay and the game still replays.
Every answer is ephemeral: nobody else learns that someone asked."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from pathlib import Path

from tests.e2e.conftest import make_world
from tests.fakediscord.play import is_over, open_table, play_seat, table_id_of


def rows_holding(path: Path, needle: str) -> list[str]:
    with sqlite3.connect(path) as db:
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return [f"{name}.{col}" for name in names
                for row in db.execute(f"SELECT * FROM {name}").fetchall()
                for col, value in zip([d[0] for d in db.execute(f"SELECT * FROM {name}").description], row,
                                      strict=True)
                if needle in str(value)]


async def test_kept_export_and_forget_me_after_a_whole_game(tmp_path: Path) -> None:
    path = tmp_path / "deckhand.db"
    async with make_world(config={"database_url": f"sqlite:///{path}"}) as w:
        fd = w.fd
        views: dict[int, object] = {}
        message = await open_table(w.ali, [w.bob], options="target=1", views=views)
        tid = table_id_of(message)
        await asyncio.gather(*(play_seat(p, message, rng=random.Random(i), timeout=60, view=views.get(p.id),
                                         over=lambda: is_over(fd, message))
                               for i, p in enumerate((w.ali, w.bob))))
        await w.until(lambda: tid not in w.runtime.tables, 10, "the finished table leaving memory")

        kept = await w.ali.slash("privacy kept")
        assert kept.ephemeral and not kept.failed, kept.text
        assert "What Deckhand keeps about you" in kept.text and "1 game, 1 result" in kept.text, kept.text
        assert "deleted after 365 days" in kept.text

        export = await w.ali.slash("privacy export")
        assert export.ephemeral and not export.failed, export.text
        files = fd.files[export.message.id]
        assert [name for name, _ in files] == ["deckhand-my-data.json"]
        data = json.loads(files[0][1])
        assert data["user_id"] == str(w.ali.id)
        # (two people and two AI players: a casual game, no rating)
        assert [r["table_id"] for r in data["results"]] == [tid] and data["ratings"] == []
        (game,) = data["games"]
        seat = game["your_seats"][0]
        assert game["players"][seat] == w.ali.name and game["your_moves"]
        assert {m["seat"] for m in game["your_moves"]} == {seat}
        assert str(w.bob.id) not in files[0][1].decode()  # nothing about Bob but his name at the table

        ask = await w.ali.slash("privacy forget")
        assert ask.ephemeral and "Forget me?" in ask.text
        kept_data = await w.ali.click(ask.message, "Keep my data")
        assert "Nothing was deleted." in kept_data.text and rows_holding(path, str(w.ali.id))

        ask = await w.ali.slash("privacy forget")
        w.forgotten[tid] = {seat: w.ali.id}
        done = await w.ali.click(ask.message, "Forget me")
        assert not done.failed and "Deckhand has forgotten you: 1 result, 0 ratings and 0 reviews" in done.text, \
            done.text
        assert done.message.ephemeral and not done.message.buttons()
        assert rows_holding(path, str(w.ali.id)) == []
        with sqlite3.connect(path) as db:
            assert db.execute("SELECT COUNT(*) FROM results WHERE user_id = ?", (w.bob.id,)).fetchone() == (1,)
        record = await w.runtime.history(tid, fd.guild_id)
        assert record.replay()[0].is_over and record.names.count("") == 1

        again = await w.ali.slash("privacy kept")
        assert "0 games, 0 results" in again.text, again.text
        # Nobody else saw any of it.
        assert all(m.ephemeral_to == w.ali.id for m in (kept.message, export.message, ask.message))


async def test_privacy_answers_in_a_group_dm_without_the_bot(tmp_path: Path) -> None:
    """Where the bot is not a member, the answers still come (interaction answers only, the file
    included), and only the asker sees them."""
    async with make_world(sync_to_guild=False, config={"database_url": f"sqlite:///{tmp_path / 'd.db'}"}) as w:
        fd = w.fd
        fd.install_to_account(w.bob)
        group = fd.add_group_dm("Cards", [w.ali, w.bob])
        w.bob.where = group
        kept = await w.bob.slash("privacy kept")
        assert kept.ephemeral and "0 games, 0 results" in kept.text, kept.text
        export = await w.bob.slash("privacy export")
        assert export.ephemeral and json.loads(fd.files[export.message.id][0][1])["user_id"] == str(w.bob.id)
        ask = await w.bob.slash("privacy forget")
        done = await w.bob.click(ask.message, "Forget me")
        assert "Deckhand has forgotten you: 0 results, 0 ratings and 0 reviews" in done.text, done.text
        assert fd.problems == [] and not w.ali.find(channel=group)  # Ali saw nothing of it
