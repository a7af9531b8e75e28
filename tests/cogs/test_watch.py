"""Watchers' views (cogs/watch/view.py) on the real runtime and a fake clock: the public table drawn once
per change for all of a table's watchers, at most one edit a second, one last edit before a token
runs out and never one after, a dismissed view dropped, and the count folded into the table
message."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord

from cogs.table.render import Rendered
from cogs.watch.view import LIFETIME, MARGIN, Watchers, with_count
from tests.cogs.conftest import Harness
from tests.cogs.test_refusals import human_on_turn, pass_all


class Token:
    """A watcher's interaction whose @original can be edited, keeping each payload (or failing)."""

    def __init__(self, user_id: int, fail: int | None = None) -> None:
        self.user = SimpleNamespace(id=user_id)
        self.edits: list[dict[str, Any]] = []
        self.fail = fail

    async def edit_original_response(self, **payload: Any) -> None:
        if self.fail is not None:
            raise (discord.NotFound if self.fail == 404 else discord.HTTPException)(
                SimpleNamespace(status=self.fail, reason="x"), {"code": 50027 if self.fail == 401 else 10008,
                                                                "message": "x"})
        self.edits.append(payload)


def watchers_of(h: Harness) -> Watchers:
    return h.listener.watchers


async def test_one_drawing_per_change_for_all_watchers_at_most_once_a_second(h: Harness) -> None:
    table, _ = await h.running_table()
    watchers = watchers_of(h)
    tokens = [Token(1000 + n) for n in range(6)]
    for t in tokens:
        watchers.watch(t, table)
    assert watchers.count(table.id) == 6
    start = h.clock.now()
    await pass_all(h, table)
    for _ in range(3):  # people play: every move is public
        player, _ = await human_on_turn(h, table)
        seat = table.seat_of(player.id)
        await h.runtime.act(table.id, player.id, table.state.decision(seat).actions[0])
    await h.settle(1.1)
    elapsed = h.clock.now() - start
    made = [len(t.edits) for t in tokens]
    assert made[0] >= 2 and len(set(made)) == 1, made  # every watcher got the same edits
    assert watchers.draws == made[0]  # drawn once per edit, whatever the number of watchers
    assert made[0] <= elapsed + 1, (made, elapsed)
    shown = tokens[0].edits[-1]
    assert "You are watching" in shown["content"] and shown["embeds"], shown
    assert shown["components"][0]["components"][0]["custom_id"] == f"dh:t:watch:{table.id}"
    # Nothing moved: no edit.
    before = len(tokens[0].edits)
    watchers.changed(table, h.listener.notes(table))
    await h.settle(1.1)
    assert len(tokens[0].edits) == before


async def test_a_last_edit_before_the_token_runs_out_and_none_after(h: Harness) -> None:
    table, _ = await h.running_table(speed="untimed")  # (still running after 15 minutes)
    watchers = watchers_of(h)
    token = Token(1000)
    watchers.watch(token, table)
    await h.settle(LIFETIME - MARGIN + 1)  # (the game goes on meanwhile, the AIs moving)
    assert watchers.count(table.id) == 0
    last = token.edits[-1]
    assert "stopped following" in last["content"] and "press **watch**" in last["content"].lower(), last
    made = len(token.edits)
    for _ in range(5):
        table.version += 1  # (as a move would: the table moved)
        watchers.changed(table)
        await h.settle(1)
    assert len(token.edits) == made


async def test_a_dismissed_view_is_dropped(h: Harness) -> None:
    table, _ = await h.running_table()
    watchers = watchers_of(h)
    gone, kept = Token(1000, fail=404), Token(1001)
    watchers.watch(gone, table)
    watchers.watch(kept, table)
    table.version += 1
    watchers.changed(table)
    await h.settle(1.1)
    assert watchers.count(table.id) == 1 and len(kept.edits) == 1 and watchers.failures == 1


async def test_a_full_table_takes_no_more_watchers_but_a_watcher_may_press_again(h: Harness) -> None:
    table, _ = await h.running_table()
    watchers = watchers_of(h)
    watchers.most = 2
    watchers.watch(Token(1000), table)
    watchers.watch(Token(1001), table)
    assert watchers.full(table.id, 1002) and not watchers.full(table.id, 1000)
    watchers.watch(Token(1000), table)  # a fresh token for the same watcher replaces the old one
    assert watchers.count(table.id) == 2


def test_the_count_rides_on_the_table_messages_footer() -> None:
    e = discord.Embed(title="t")
    e.set_footer(text="target 100")
    assert with_count(Rendered(embed=e), 3).embed.footer.text == "target 100 · 👀 3 watching"
    e2 = discord.Embed(title="t")
    e2.set_footer(text="target 100")
    assert with_count(Rendered(embed=e2), 0).embed.footer.text == "target 100"


async def test_someone_who_starts_watching_later_sees_the_last_hands_summary(h: Harness) -> None:
    table, _ = await h.running_table()
    watchers = watchers_of(h)
    assert len(watchers.view(table)["embeds"]) == 1  # the table only: no hand has ended yet
    ended = discord.Embed(description="**End of hand 1**")
    watchers.summary(table, Rendered(embed=ended))  # as the listener does with the summary it posts
    shown = watchers.view(table)
    assert len(shown["embeds"]) == 2 and shown["embeds"][1]["description"] == "**End of hand 1**"
    token = Token(1000)
    watchers.watch(token, table)
    table.version += 1
    watchers.changed(table)
    await h.settle(1.1)
    assert token.edits[-1]["embeds"][1]["description"] == "**End of hand 1**"
    # The game's end: one last edit, then the table's watchers and its kept summary are gone.
    await h.runtime.end(table.id, h.alice.id)
    await h.settle(1.1)
    assert "is over" in token.edits[-1]["content"] and watchers.count(table.id) == 0
    assert len(watchers.view(table)["embeds"]) == 1
