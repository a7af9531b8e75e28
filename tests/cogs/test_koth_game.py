"""A whole round of King of the Hill through the cog: two people and three AIs, a fast live deal
during which Alice declares from her hand view, then (as KotH, unless an AI overrode her) the bury
from the part menus and the call from the action menus, and every trick from the hand views,
until the final standings with the replay line — nothing hidden ever shown in public."""

from __future__ import annotations

import random
from typing import Any

import discord

from cogs.table.components import PickDone
from engine.core import Action
from tests.cogs.conftest import Harness
from tests.cogs.fakes import FakeMessage
from tests.cogs.playthrough import open_table, play_game
from tests.cogs.test_refusals import refused, snapshot


def _prefer(state: Any, actions: list[Action]) -> Action:
    # Declare a pair when there is one (a pair is final): Alice is then surely the KotH.
    return max(actions, key=lambda a: (a.kind == "declare" and len(a.cards) == 2, a.kind == "declare"))


async def test_whole_koth_round(h: Harness) -> None:
    h.runtime.rng = random.Random(10)  # a deal where Alice can declare and becomes the KotH
    table, lobby = await open_table(h, "koth", "rounds=1 deal_rate=0.5 ready_round=1", speed="blitz")
    alice = table.seat_of(h.alice.id)

    def optional(state: Any, seat: int) -> bool:
        d = state.decision(seat)
        return seat == alice and d is not None and d.kind == "declare"

    tally = await play_game(h, table, lobby, seed=3, prefer=_prefer, optional=optional)
    await h.settle(2)
    assert table.state.is_over
    assert tally.kinds["play"] >= 20  # both people played every trick of the round
    final = h.table_message(table).text
    assert "Final standings" in final
    assert f"Replay: `/game replay id:{table.id}`" in final and str(table.seed) not in final and "rank" in final
    thread = h.where(table)
    assert any("End of round 1" in m.text for m in thread.sent)
    texts = [t for _, t in h.world.public]
    assert any("Dealing" in t and "/100 cards" in t for t in texts)  # the deal's progress was shown
    assert any("Challengers' points so far" in t for t in texts)
    # Alice declared from her hand view during the deal, became KotH, buried 8 of her 28 cards from
    # the part menus and called a card from the menus by suit.
    assert tally.kinds["declare"] == 1 and any("📢 Alice declared" in t for t in texts)
    assert table.state.public_view()["last_round"]["koth"] == alice, "the deal changed: pick another rng seed"
    assert tally.moves["part menus"] == 1 and tally.kinds["bury"] == 1
    assert tally.kinds["call"] == 1 and tally.moves["action menu"] >= 1
    assert h.world.violations == []


async def test_koth_refusals_stay_ephemeral(h: Harness) -> None:
    table, lobby = await open_table(h, "koth", "rounds=1 deal_rate=0.5 ready_round=0")
    assert table.state.public_view()["phase"] == "deal"
    before = snapshot(h)
    i = h.inter(h.bob)
    await h.cog.play.callback(h.cog, i, cards="bury 2H 3H 4H 5H 6H 7H 8H 9H")
    refused(i)
    # An OK of a bury view that is not (or no longer) Alice's to press.
    old = FakeMessage(h.world, lobby.channel, "old", None, discord.ui.View(timeout=None), ephemeral=True)
    old.view.add_item(PickDone(table.id, table.version, "bury", "ok"))
    i = await h.click(h.alice, old, f"dh:k:{table.id}:{table.version}:bury:ok")
    refused(i, "out of date")
    i = await h.click(h.stranger, old, f"dh:k:{table.id}:{table.version}:bury:ok")
    refused(i, "not seated")
    assert snapshot(h) == before
