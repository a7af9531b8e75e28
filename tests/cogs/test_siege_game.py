"""A whole game of Siege through the cog (two rounds): two people and two AIs, every attack, pile,
card, swap and end of turn chosen from the hand views' components, which refresh after each action,
until the final standings with the replay line — no card in a hand ever shown in public."""

from __future__ import annotations

import random
from typing import Any

from engine.core import Action
from tests.cogs.conftest import Harness
from tests.cogs.playthrough import open_table, play_game
from tests.cogs.test_refusals import refused, snapshot

_rng = random.Random(11)


def _prefer(state: Any, actions: list[Action]) -> Action:
    """Mostly build and attack, sometimes swap; end the turn once little is left to do."""
    useful = [a for a in actions if a.kind in ("attack", "start", "place")]
    if useful and _rng.random() < 0.8:
        return _rng.choice(useful)
    swaps = [a for a in actions if a.kind == "swap"]
    if swaps and _rng.random() < 0.3:
        return _rng.choice(swaps)
    return next(a for a in actions if a.kind == "end")


async def test_whole_siege_game(h: Harness) -> None:
    table, lobby = await open_table(h, "siege", "max_rounds=3")
    tally = await play_game(h, table, lobby, seed=2, prefer=_prefer)
    await h.settle(2)
    assert table.state.is_over
    assert tally.kinds["build"] + tally.kinds["attack"] >= 6
    assert tally.moves["button"] >= 6
    final = h.table_message(table).text
    assert "Final standings" in final
    assert f"Replay: `/game replay id:{table.id}`" in final and str(table.seed) not in final and "King pile" in final
    texts = [t for _, t in h.world.public]
    assert any("♥ King" in t and "① " in t and "stock" in t for t in texts)
    assert h.world.violations == []


async def test_siege_refusals_stay_ephemeral(h: Harness) -> None:
    table, lobby = await open_table(h, "siege", "max_rounds=3")
    assert table.state.public_view()["turn"] == 0  # Alice (seat 1, ♥) begins
    before = snapshot(h)
    i = h.inter(h.bob)
    await h.cog.play.callback(h.cog, i, cards="end")
    refused(i, "not your turn")
    i = h.inter(h.alice)
    await h.cog.play.callback(h.cog, i, cards="attack 1 2")
    refused(i)
    i = h.inter(h.alice)
    await h.cog.play.callback(h.cog, i, cards="KH king")
    refused(i, "no kings")
    assert snapshot(h) == before
