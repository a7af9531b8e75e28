"""A tournament through the real bot (a child process on SQLite and on PostgreSQL, killed and
restarted in round 2):
ten people sign up with Join, the organiser starts it, every round seats everyone once at tables of
four and three (an AI in each short seat) and each table plays in its own thread; every table's
result is scored by the rule of docs/rules.md ("Tournaments and duplicate scoring"), checked here
against the places each table's game stored, and the final standings on the tournament's message
against a table computed by hand from them."""

from __future__ import annotations

import asyncio
import json
import random
import re
from itertools import combinations
from typing import Any

from tests.e2e.conftest import make_restart_world
from tests.fakediscord.play import is_over, play_seat

ROUNDS = 3


def stored(w: Any, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Plain SQL on the world's database, of either backend."""
    return w.rows(sql, params)


def tournament(w: Any) -> dict[str, Any]:
    [(data,)] = stored(w, "SELECT data FROM tournaments")
    return json.loads(data)["tournament"]


def hand_standings(data: dict[str, Any]) -> list[tuple[int, float, float, int]]:
    """(person, points, opposition, tables won) by the rule, highest first, from the stored results."""
    points: dict[int, float] = {p: 0.0 for p in data["players"]}
    met: dict[int, list[int]] = {p: [] for p in data["players"]}
    wins: dict[int, int] = {p: 0 for p in data["players"]}
    for r in data["played"]:
        for res in r["results"]:
            for i, (person, place, present) in enumerate(res):
                if person is None:
                    continue
                others = [o for j, o in enumerate(res) if j != i]
                if present:
                    points[person] += sum(1.0 if place < o[1] else 0.5 if place == o[1] else 0.0 for o in others)
                    wins[person] += int(place == 1)
                met[person] += [o[0] for o in others if o[0] is not None]
    opposition = {p: sum(points[o] for o in met[p]) for p in points}
    return sorted(((p, points[p], opposition[p], wins[p]) for p in points), key=lambda x: (-x[1], -x[2], -x[3], x[0]))


async def play_round(w: Any, people: list[Any], table_ids: list[str], seed: int, *, until: Any = None) -> None:
    """Everyone plays their seat at this round's tables (until ``until()``, else the game's end)."""
    async def one(p: Any, n: int) -> None:
        tid = next(t for t in table_ids if p.id in seated(w, t))
        # Each table is played in a thread of its own (its message is there, not in the channel).
        message = await w.until(lambda: p.find(f"table `{tid}`", ephemeral=False,
                                               where=lambda m: m.channel_id != w.fd.channel.id), 20,
                                f"table {tid}'s message")
        await play_seat(p, message, rng=random.Random(seed + n), timeout=120, ready=w.ready, tolerate=w.tolerate,
                        over=until or (lambda: is_over(w.fd, message)))

    await asyncio.gather(*(one(p, n) for n, p in enumerate(people)))


def seated(w: Any, tid: str) -> list[int]:
    [(seats,)] = stored(w, "SELECT seats FROM tables WHERE id = ?", (tid,))
    return [s["user_id"] for s in json.loads(seats) if not s.get("is_ai")]


async def test_ten_people_play_three_rounds_with_a_restart_in_the_second(database: Any) -> None:
    async with make_restart_world(database, seed=5) as w:
        people = [w.ali, w.bob, w.stranger, *(w.fd.add_member(n) for n in ("Cid", "Dee", "Eve", "Fay", "Gus", "Hal",
                                                                            "Ivy"))]
        for p in people:
            p.where = w.ali.where
        opened = await w.ali.slash("tournament new", game="hearts", rounds=ROUNDS, options="target=1")
        assert not opened.ephemeral and "Hearts tournament" in opened.text, opened.text
        message = opened.message
        for p in people[1:]:
            joined = await p.click(message, "Join")
            assert not joined.failed, joined.text
        assert "Signed up (10)" in message.text
        refused = await w.bob.click(message, "Start")
        assert refused.ephemeral and "Only the organiser can start the tournament." in refused.text
        await w.ali.click(message, "Start")

        seen: list[list[list[int | None]]] = []
        for rnd in range(1, ROUNDS + 1):
            await w.until(lambda: tournament(w)["state"] == "finished" or (  # noqa: B023
                len(tournament(w)["played"]) == rnd and all(tournament(w)["played"][-1]["table_ids"])), 30,  # noqa: B023
                f"round {rnd}'s tables")
            r = tournament(w)["played"][rnd - 1]
            tables, ids = r["tables"], r["table_ids"]
            seen.append(tables)
            # Everyone once, at tables of four and three: an AI in each short seat.
            assert sorted(p for t in tables for p in t if p is not None) == sorted(p.id for p in people)
            assert sorted(sum(p is not None for p in t) for t in tables) == [3, 3, 4]
            assert all(len(t) == 4 for t in tables)
            for t, tid in zip(tables, ids, strict=True):
                assert sorted(seated(w, tid)) == sorted(p for p in t if p is not None)
            if rnd == 2:
                # A few moves, then the bot is killed; the next one resumes the round.
                await play_round(w, people, ids, 20, until=lambda: sum(  # noqa: B023
                    row[0] for row in stored(w, "SELECT version FROM tables WHERE id IN (?, ?, ?)", tuple(ids))) > 30)  # noqa: B023
                await w.restart_bot(kill=True)
            await play_round(w, people, ids, 10 * rnd)
        await w.until(lambda: tournament(w)["state"] == "finished", 30, "the tournament's end")

        data = tournament(w)
        # Each table's places are those its game stored for its people.
        for r in data["played"]:
            for tid, res in zip(r["table_ids"], r["results"], strict=True):
                places = dict(stored(w, "SELECT user_id, place FROM results WHERE table_id = ?", (tid,)))
                assert {p: place for p, place, _ in res if p is not None} == places
        # No two people sat together in round 2 who sat together in round 1 more often than needed:
        # the round-1 table of four sends its four people to three tables (one pair must meet again).
        first = {frozenset(pair) for t in seen[0] for pair in combinations([p for p in t if p is not None], 2)}
        again = [pair for t in seen[1] for pair in combinations([p for p in t if p is not None], 2)
                 if frozenset(pair) in first]
        assert len(again) <= 1, again
        # The final standings, as the tournament's message shows them, are the hand-computed ones.
        await w.until(lambda: "Final standings." in message.text, 20, "the final standings")
        expected = hand_standings(data)
        shown = re.findall(r"`(\d+)\.` <@(\d+)> — \*\*([\d.]+)\*\* points? · opposition ([\d.]+) · (\d+) tables? won",
                           message.text)
        assert [(int(p), float(pts), float(opp), int(won)) for _, p, pts, opp, won in shown] == [
            (p, pts, opp, won) for p, pts, opp, won in expected]


def hand_points(w: Any, tid: str) -> tuple[list[list[int]], int]:
    """Each finished hand's points by seat at a stored table, read off its log, and its seed."""
    import engine
    [(seed, options, seats)] = stored(w, "SELECT seed, options, seats FROM tables WHERE id = ?", (tid,))
    log = [(seat, code) for seat, code in stored(w, "SELECT seat, code FROM actions WHERE table_id = ? ORDER BY seq",
                                                   (tid,))]
    _, events = engine.replay("hearts", len(json.loads(seats)), json.loads(options), int(seed), log)
    return [list(e.data[:4]) for e in events if e.kind == "hand_end" and e.to is None], int(seed)


async def test_duplicate_rounds_deal_both_tables_the_same_cards_out_of_each_others_sight(database: Any) -> None:
    async with make_restart_world(database, seed=9) as w:
        people = [w.ali, w.bob, w.stranger, *(w.fd.add_member(n) for n in ("Cid", "Dee", "Eve", "Fay", "Gus"))]
        for p in people:
            p.where = w.ali.where
        # Rounds of one hand each: a deal a round, played at both tables of its round.  Two on SQLite
        # (a second round re-seats everyone on a deal of its own); one on PostgreSQL, where everything
        # checked below is checked the same (one deal at two tables out of each other's sight, the
        # watch refused, each person's score against the field and the final standings, read back
        # from PostgreSQL), and the round after a round is the ten-person tournament's to prove there.
        rounds = 2 if database.kind == "sqlite" else 1
        opened = await w.ali.slash("tournament new", game="hearts", rounds=rounds, options="target=1", duplicate=True)
        assert not opened.ephemeral and "duplicate deals" in opened.text, opened.text
        message = opened.message
        for p in people[1:]:
            assert not (await p.click(message, "Join")).failed
        assert not (await w.ali.click(message, "Start")).failed  # answered before the tables open
        want: dict[int, float] = {p.id: 0.0 for p in people}
        for rnd in range(1, rounds + 1):
            await w.until(lambda: len(tournament(w)["played"]) == rnd  # noqa: B023
                          and all(tournament(w)["played"][-1]["table_ids"]), 30, f"round {rnd}'s tables")
            r = tournament(w)["played"][rnd - 1]
            ids = r["table_ids"]
            # Each table plays in a private thread that only its own four players (and the bot) are in.
            for people_at, tid in zip(r["tables"], ids, strict=True):
                [(thread_id,)] = stored(w, "SELECT channel_id FROM tables WHERE id = ?", (tid,))
                thread = w.fd.channels[int(thread_id)]
                assert thread.type == 12 and thread.members == {w.fd.bot.id, *people_at}, (thread.members, people_at)
            if rnd == 1:
                # Someone at the first table may not watch the second (once it plays): it holds their cards.
                second = ids[1]
                await w.until(lambda: stored(w, "SELECT phase FROM tables WHERE id = ?",
                                             (second,)) == [("running",)], 30, "the second table's start")  # noqa: B023
                at_a = next(p for p in people if p.id in r["tables"][0])
                refused = await at_a.slash("game watch", table=ids[1])
                assert refused.ephemeral and "dealt the same cards as yours" in refused.text, refused.text
            await play_round(w, people, ids, 31 + rnd)
            (hands_a, seed_a), (hands_b, seed_b) = (hand_points(w, tid) for tid in ids)
            assert seed_a == seed_b and len(hands_a) == len(hands_b) == 1  # the same deal, one hand
            # Against the field, by hand: a seat's points at the other table less its own there
            # (fewer points is better in Hearts).
            for n, tid in enumerate(ids):
                mine, theirs = (hands_a, hands_b) if n == 0 else (hands_b, hands_a)
                [(seats,)] = stored(w, "SELECT seats FROM tables WHERE id = ?", (tid,))
                for seat, s in enumerate(json.loads(seats)):
                    want[s["user_id"]] += float(theirs[0][seat] - mine[0][seat])
        await w.until(lambda: tournament(w)["state"] == "finished", 30, "the tournament's end")
        await w.until(lambda: "Final standings." in message.text, 20, "the final standings")
        shown = re.findall(r"<@(\d+)> — \*\*([+-][\d.]+)\*\* against the field on the same cards", message.text)
        assert {int(p): float(v) for p, v in shown} == want, (shown, want)
        assert any(v != 0 for v in want.values())
