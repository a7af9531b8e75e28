"""Every decision a person must make shows its deadline in their own hand view (issue 29 item 3): a
whole sample game of every registered game, through the real runtime on its clock and the cog,
looking at the hand view of each seated person whenever they have a decision — their own turns,
and the optional ones that close with a step of the table (The Great Dalmuti's revolution, called
before the look ends; King of the Hill's declarations in the window after the last card)."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

import engine
from cogs.table import components
from engine.core import TABLE
from tests.cogs.conftest import Harness
from tests.cogs.playthrough import open_table

MAX_STEPS = 3000
CLOCK = re.compile(r"<t:\d+:R>")
# The seeds (of the harness's runtime) whose deals give Alice or Bob the rarer decisions.
SEEDS = {"dalmuti": 17, "koth": 8}


def _decision_line(content: str) -> str:
    return next((line for line in content.splitlines() if line.startswith("**Your move:**")), "")


def _exempt(game: str, view: dict) -> bool:
    """King of the Hill's declarations while the cards are still being dealt: their window is the
    deal itself, which everyone watches card by card on the table (its end is shown once the last
    card is out: the late window)."""
    return game == "koth" and view.get("phase") == "deal"


@pytest.mark.parametrize("game", sorted(engine.games()))
async def test_every_decision_in_a_hand_view_shows_its_deadline(h: Harness, game: str) -> None:
    h.runtime.rng = random.Random(SEEDS.get(game, 7))
    spec = engine.get(game)
    players, opts = spec.sample or (spec.game.min_players, {})
    table, _ = await open_table(h, game, " ".join(f"{k}={v}" for k, v in opts.items()) or None, ais=players - 2)
    users = {table.seat_of(u.id): u for u in (h.alice, h.bob)}
    rng = random.Random(1)
    ai = spec.ai()
    shown: Counter[str] = Counter()
    for _ in range(MAX_STEPS):
        if table.phase == "finished":
            break
        due = []
        for seat, user in users.items():
            sv = h.runtime.seat_view(table.id, user.id)
            if sv.decision is None:
                continue
            content, view = components.hand_view(sv)
            view.stop()
            line = _decision_line(content)
            assert line, content
            if not _exempt(game, sv.view or {}):
                assert CLOCK.search(line), f"{game} {sv.decision.kind}: no deadline in {line!r}"
                shown[sv.decision.kind] += 1
            due.append((seat, user, sv.decision))
        # Someone decides (the normal AI's choice for them), or the table's clock moves on.
        mine = [(s, u, d) for s, u, d in due if s in table.state.to_act() and TABLE not in table.state.to_act()]
        if mine:
            seat, user, _ = mine[0]
            action = ai.choose(table.state, seat, rng)
            await h.runtime.act(table.id, user.id, action)
        else:
            await h.settle()
    assert table.phase == "finished", f"{game}: the sample game did not end"
    # The decisions of the game were all seen (the rarer ones included).
    expected = {"dalmuti": {"revolution", "play"}, "koth": {"declare", "play"}}.get(game, set())
    assert expected <= set(shown), (game, shown)
