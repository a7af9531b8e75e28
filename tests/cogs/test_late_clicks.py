"""A click that reaches the bot after its answer window (Discord showed the person "This
interaction failed") changes nothing and gets no answer — it cannot have one — while the same click
in time works (cogs/table/plumbing.py ``_safely``, the runtime's ``refuse_late``)."""

from __future__ import annotations

from tables.live import ANSWER_WITHIN

from .conftest import Harness


async def test_a_join_click_too_old_to_answer_changes_nothing(h: Harness) -> None:
    table, msg = await h.new_table()
    late = await h.click(h.bob, msg, f"dh:t:join:{table.id}", age=ANSWER_WITHIN + 0.5)
    assert late.replies == [] and late.edited == [] and not late.response.is_done() and not late.errors
    assert table.seat_of(h.bob.id) is None

    on_time = await h.click(h.bob, msg, f"dh:t:join:{table.id}", age=1.0)
    assert on_time.response.is_done() and not on_time.errors
    assert table.seat_of(h.bob.id) is not None


async def test_a_pass_chosen_too_late_to_answer_is_not_made(h: Harness) -> None:
    table, msg = await h.running_table()
    hand = await h.click(h.alice, h.controls(table), f"dh:t:hand:{table.id}")
    view = hand.replies[-1]
    [menu] = [c.custom_id for c in view.view.walk_children() if str(getattr(c, "custom_id", "")).startswith("dh:s:")]
    decision = h.runtime.seat_view(table.id, h.alice.id).decision
    chosen = [c.code for c in decision.cards[: decision.pick]]
    late = await h.click(h.alice, view, menu, chosen, age=ANSWER_WITHIN + 0.5)
    assert late.replies == [] and late.edited == [] and not late.response.is_done() and not late.errors
    assert [e for e in table.log if e.seat == 0] == []

    on_time = await h.click(h.alice, view, menu, chosen, age=1.0)
    assert on_time.response.is_done() and not on_time.errors
    assert [e.code.split()[0] for e in table.log if e.seat == 0] == ["pass"]
