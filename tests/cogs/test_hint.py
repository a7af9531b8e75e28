"""``/hint`` and the **Hint** button: the engine's hint for the asker's own decision, privately, and
the ``ai=`` table option in ``/game new``."""

from __future__ import annotations

import random

import engine.hints
from tables.ai.hints import NOT_YOUR_DECISION
from tests import wargame
from tests.cogs.conftest import Harness
from tests.cogs.test_refusals import human_on_turn, pass_all, refused


def expected_hint(table, seat):
    """What the runtime asks the engine for (no AI pool here: the normal AI's choice)."""
    rng = random.Random(f"{table.seed}/hint/{table.version}/{seat}")
    return engine.hints.hint(table.state, seat, rng, level="normal")


async def test_the_hint_button_answers_privately_with_the_move_and_its_reason(h: Harness) -> None:
    table, msg = await h.running_table()
    hand = await h.click(h.alice, h.controls(table), f"dh:t:hand:{table.id}")
    view = hand.last
    assert f"dh:t:hint:{table.id}" in [getattr(i, "custom_id", "") for i in view.view.walk_children()]
    want = expected_hint(table, 0)
    assert want.action.kind == "pass"
    public_before = len(h.where(table).messages)
    i = await h.click(h.alice, view, f"dh:t:hint:{table.id}")
    answer = i.last
    assert answer.ephemeral and not i.errors
    assert answer.content.startswith("💡 **Hint:**")
    assert "shown in the final standings" in answer.content  # the person knows it is public at the end
    assert all(c.label in answer.content for c in want.action.cards) and want.reason in answer.content
    assert "Hearts has no strong AI" not in answer.content and "strong AI was busy" in answer.content
    assert table.seats[0].hints == 1 and table.seats[1].hints == 0
    assert len(h.where(table).messages) == public_before  # nothing public about it
    # Bob's hint is his own: his cards, his count.
    i = h.inter(h.bob)
    await h.cog.hint.callback(h.cog, i)
    assert i.last.ephemeral and table.seats[1].hints == 1


async def test_hint_on_someone_elses_turn_or_without_a_table(h: Harness) -> None:
    i = h.inter(h.stranger)
    await h.cog.hint.callback(h.cog, i)
    refused(i, "not seated at a table")
    table, _ = await h.running_table()
    await pass_all(h, table)
    on_turn, waiting = await human_on_turn(h, table)
    i = h.inter(waiting)
    await h.cog.hint.callback(h.cog, i)
    assert i.last.ephemeral and i.last.content == NOT_YOUR_DECISION
    assert table.seats[table.seat_of(waiting.id)].hints == 0
    seat = table.seat_of(on_turn.id)
    want = expected_hint(table, seat)
    i = h.inter(on_turn)
    await h.cog.hint.callback(h.cog, i)
    assert i.last.ephemeral and want.reason in i.last.content and want.action.cards[0].label in i.last.content


async def test_the_table_option_ai_strong(h: Harness) -> None:
    table, msg = await h.new_table(options="ai=strong")
    assert table.ai_level == "strong" and table.options == {"rules": "classic", "target": 100,
                                                            "moon": "others_plus_26"}
    assert "strong AI players (they think ahead)" in msg.text
    i = await h.click(h.alice, msg, f"dh:t:ai:{table.id}")
    assert i.last.content == f"Added 3 strong AI players to table `{table.id}`."
    assert [s.name for s in table.seats[1:]] == ["AI 1 (strong)", "AI 2 (strong)", "AI 3 (strong)"]


async def test_a_game_without_a_strong_ai_refuses_the_option(h: Harness) -> None:
    with wargame.registered():  # (every real game has a strong AI)
        i = h.inter(h.alice)
        await h.cog.game_new.callback(h.cog, i, game="war", options="ai=strong", speed=None)
        refused(i, "War has only the normal AI", "no `ai` option")
        assert not h.runtime.tables
    i = h.inter(h.alice)
    await h.cog.game_new.callback(h.cog, i, game="hearts", options="ai=genius", speed=None)
    refused(i, "ai must be one of: normal, strong")
    assert not h.runtime.tables


async def test_the_final_standings_say_who_asked_for_hints_and_nothing_public_says_it_before(h: Harness) -> None:
    table, msg = await h.running_table()
    hand = await h.click(h.alice, h.controls(table), f"dh:t:hand:{table.id}")
    i = await h.click(h.alice, hand.last, f"dh:t:hint:{table.id}")
    assert i.last.ephemeral and table.seats[0].hints == 1
    await h.settle(2)

    def public() -> list[str]:
        channels = {h.channel.id: h.channel, table.thread_id: h.where(table)}
        return [m.text for c in channels.values() for m in c.messages.values()]

    assert public() and not any("💡" in text for text in public())
    i = h.inter(h.alice)
    await h.cog.game_end.callback(h.cog, i, id=table.id)
    await h.settle(2)
    assert table.phase == "finished"
    final = [m.text for m in h.where(table).sent if "Final standings" in m.text]
    assert len(final) == 1
    for text in (final[0], h.table_message(table).text):
        lines = text.splitlines()
        assert any(line.startswith("🥇") or line[:1] in "🥈🥉" for line in lines)
        (marked,) = [line for line in lines if "💡" in line]
        assert "Alice" in marked and marked.endswith(" · 💡 1 hint")


async def test_a_hints_reason_reads_in_the_askers_language(h: Harness) -> None:
    """The reason is the rules' sentence said in the language of whoever asked (issue 31), the rest of
    the answer too; the English stays the engine's own."""
    import discord

    import words

    table, msg = await h.running_table()
    want = expected_hint(table, 1)
    i = h.inter(h.bob, locale=discord.Locale.japanese)
    await h.cog.hint.callback(h.cog, i)
    answer = i.last.content
    japanese = words.say("ja", want.reason, "hearts")
    assert i.last.ephemeral and japanese != want.reason and japanese in answer, (want.reason, answer)
    assert want.reason not in answer and "shown in the final standings" not in answer
    assert words.translate("ja", "**Hint:** **{move}** — {reason}.", move="", reason="").split("**")[1] in answer
