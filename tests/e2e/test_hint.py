"""``/hint`` and the **Hint** button through the real bot, its AI pool (one worker process) and the
fake Discord: the answer is ephemeral, comes within Discord's 3 s, names the move and a reason, is
counted on the seat — and the world's closing checks (privacy, pace, no error) hold."""

from __future__ import annotations

from tests.e2e.conftest import make_world
from tests.fakediscord.play import open_table


async def test_a_hint_through_the_bot_and_its_ai_pool() -> None:
    async with make_world(config={"ai_workers": 1}) as w:
        assert w.bot.ai_pool is not None
        table_message = await open_table(w.ali, [], options="rules=mcgill target=1 ai=strong")
        thread = w.thread_of(table_message)
        table = w.table(table_message)
        assert [s.level for s in table.seats] == [None, "strong", "strong", "strong"]
        assert "strong AI players" in table_message.text
        # Ali's turn comes (the AIs before her play at once: no AI pause in these worlds).
        await w.until(lambda: table.state.to_act() == (0,), what="Ali's turn")
        hand = await w.ali.slash("hand", where=thread)
        assert any(b.get("label") == "Hint" for b in hand.message.buttons())
        answer = await w.ali.click(hand.message, "Hint")
        assert not answer.failed and answer.ephemeral
        assert answer.text.startswith("💡 **Hint:**"), answer.text
        assert "strong AI" in answer.text and "Only you see this" in answer.text
        assert table.seats[0].hints == 1
        # Searched in the pool (a slow machine may make it late: then the standard AI's, said so).
        counts = w.bot.ai_pool.counts
        assert counts["searched"] + counts["late"] + counts["busy"] == 1 and not counts["failed"]
        assert ("The strong AI's choice" in answer.text) == (counts["searched"] == 1)
        # Someone without a seat gets a sentence, and nothing changes.
        stranger = await w.stranger.slash("hint", where=thread)
        assert stranger.ephemeral and "not seated" in stranger.text
        await w.ali.slash("game end", where=thread)
