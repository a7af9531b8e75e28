"""Siege moves typed with `/play`, answered by the real runtime (docs/rules.md §5, issue 13 item 7): a
swap reads the same either way round, a Queen aimed at the King pile says where a Queen goes, and
`end turn please` ends the turn."""

from __future__ import annotations

import random

import pytest

from tables.clock import FakeClock
from tables.runtime import Runtime, TableError
from tests.engine.test_siege_rules import crafted

HOST = 100


@pytest.fixture
async def seated():
    """A running Siege table: the host at seat 0 (to act, building, QS and 5H in hand, piles in
    slots 1 and 3) and three AIs."""
    rt = Runtime(clock=FakeClock(), rng=random.Random(3), ai_delay=1.0)
    t = await rt.create(host_id=HOST, host_name="Ann", game="siege", guild_id=1, channel_id=2)
    await rt.add_ai(t.id, HOST, 3)
    await rt.start(t.id, HOST)
    t.state = crafted(turn=0, phase="build", hands=("QS 5H 9C", "", "", ""),
                      houses={0: ["JH 2H", None, "AX 3X"]})
    t.seats[0].away = True  # coming back plans the crafted state afresh
    await rt.back(t.id, HOST)
    yield rt, t
    await rt.close()


async def test_swap_in_either_order(seated) -> None:
    rt, t = seated
    await rt.act(t.id, HOST, "swap 3 1")
    assert [p[0].code if p else None for p in t.state.houses[0]] == ["AX", None, "JH"]
    await rt.act(t.id, HOST, "swap 1 3")
    assert [p[0].code if p else None for p in t.state.houses[0]] == ["JH", None, "AX"]


async def test_a_queen_aimed_at_the_king_pile_is_told_where_a_queen_goes(seated) -> None:
    rt, t = seated
    before = t.state.to_dict()
    with pytest.raises(TableError) as e:
        await rt.act(t.id, HOST, "QS king")
    assert "starts a house pile" in e.value.message and "slot" in e.value.message
    assert "There is no slot" not in e.value.message
    assert t.state.to_dict() == before


@pytest.mark.parametrize("text", ["end turn please", "end my turn", "done"])
async def test_end_turn_please_ends_the_turn(seated, text: str) -> None:
    rt, t = seated
    await rt.act(t.id, HOST, text)
    assert t.state.turn == 1 and t.log[-1].code == "end"


async def test_end_with_other_words_says_what_to_type(seated) -> None:
    rt, t = seated
    with pytest.raises(TableError) as e:
        await rt.act(t.id, HOST, "end the game now and 5h")
    assert "`end`" in e.value.message and t.state.turn == 0
