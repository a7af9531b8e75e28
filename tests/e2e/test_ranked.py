"""Ranked and casual games and the leaderboard's seasons through the real bot, on SQLite and on
PostgreSQL (docs/rules.md, "Ranked and casual" and "Seasons"): a whole ranked game between four
people changes their ratings and its summary says by how much; a casual game of the same four
changes none; /stats counts the ranked games each played to the end; when the month turns (the
bot's clock driven forward), /leaderboard shows the new, empty season and ``season:`` the last one."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime
from typing import Any

from tests.e2e.conftest import make_world
from tests.e2e.test_group_dm import JumpClock
from tests.fakediscord.play import is_over, open_table, play_seat


async def play_game(w: Any, people: list[Any], options: str) -> Any:
    """A whole game of Hearts between ``people``; its game-over summary."""
    host, *guests = people
    before = sum("Game over" in m.text for m in w.fd.public())
    message = await open_table(host, guests, options=options)
    await asyncio.gather(*(play_seat(p, message, rng=random.Random(i), timeout=60,
                                     over=lambda: is_over(w.fd, message))
                           for i, p in enumerate(people)))
    await w.fd.wait_for(lambda: sum("Game over" in m.text for m in w.fd.public()) > before, 20,
                        "the game-over summary")
    return [m for m in w.fd.public() if "Game over" in m.text][-1]


def ratings(db: Any) -> list[tuple[Any, ...]]:
    return db.rows("SELECT user_id, mu, sigma, games FROM ratings ORDER BY user_id")


async def test_only_the_ranked_game_changes_ratings_and_a_new_month_starts_a_new_board(database: Any) -> None:
    clock = JumpClock()
    async with make_world(config={"database_url": database.url}, runtime_options={"clock": clock}) as w:
        w.real_time = clock.real
        cat, dan = w.fd.add_member("Cat"), w.fd.add_member("Dan")
        cat.where = dan.where = w.ali.where
        people = [w.ali, w.bob, cat, dan]

        lobby = await w.ali.slash("game new", game="hearts", options="target=1")
        assert "Ranked: the result changes ratings" in lobby.text  # the default, said in words
        await w.ali.click(lobby.message, "Leave")  # (closes the empty lobby: the games below are their own)

        ranked = await play_game(w, people, "target=1")
        # Every person's change, from the 25.0 start; nobody else's.
        for p in people:
            assert f"{p.name} 25.0 → " in ranked.text, ranked.text
        after_ranked = ratings(database)
        assert [r[0] for r in after_ranked] == sorted(p.id for p in people) and all(r[3] == 1 for r in after_ranked)

        casual = await play_game(w, people, "target=1 rating=casual")
        assert " 25.0 → " not in casual.text and "→" not in casual.text.split("Final standings")[-1]
        assert ratings(database) == after_ranked  # a casual game changes nobody's rating
        assert database.rows("SELECT ranked, COUNT(*) FROM results GROUP BY ranked ORDER BY ranked") == [(0, 4),
                                                                                                        (1, 4)]
        stats = await w.bob.slash("stats")
        assert "**2** games" in stats.text and "of 1 ranked game" in stats.text, stats.text

        this_month = datetime.fromtimestamp(clock.now(), UTC).strftime("%B %Y")
        board = await w.ali.slash("leaderboard", game="hearts")
        assert f"Hearts leaderboard — {this_month}" in board.text
        assert all(f"<@{p.id}>" in board.text for p in people) and not board.message.pinged  # named, not notified

        # A month later: a new season, nobody has played in it yet; the last one's board is kept.
        clock.jump(32 * 86400.0)
        next_month = datetime.fromtimestamp(clock.now(), UTC).strftime("%B %Y")
        fresh = await w.ali.slash("leaderboard", game="hearts")
        assert f"Hearts leaderboard — {next_month}" in fresh.text and "Nobody has played a ranked game" in fresh.text
        offered = await w.ali.autocomplete("leaderboard", "season", "", game="hearts")
        assert [c["name"] for c in offered] == [this_month]
        last = await w.ali.slash("leaderboard", game="hearts", season=offered[0]["value"])
        assert f"Hearts leaderboard — {this_month}" in last.text and all(f"<@{p.id}>" in last.text for p in people)
