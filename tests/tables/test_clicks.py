"""tables/clicks.py: what a click names and whether its view still stands (the one place for both)."""

import pytest

from engine.core import Action
from tables import TableError, clicks

from .conftest import HOST, choose, started


async def test_a_click_names_the_engine_s_own_action_or_gives_back_its_code(rt):
    t = await started(rt)  # Hearts, classic: the host passes first
    d = t.state.decision(0)
    assert d.kind == "pass" and d.pick == 3
    codes = [c.code for c in d.cards[:3]]
    chosen = clicks.picked(t, HOST, "pass", codes)
    assert chosen == Action("pass", tuple(d.cards[:3]))
    assert all(a is b for a, b in zip(chosen.cards, d.cards[:3], strict=True))  # the decision's own cards
    # Cards of no decision here (another table's menu): out of date, in words.
    with pytest.raises(TableError, match="out of date"):
        clicks.picked(t, HOST, "pass", ["D5", "zz", "QS"])
    # A code that names no action now comes back as it is: the runtime says why.
    assert clicks.action_named(t, HOST, "play 2C") == "play 2C"
    assert clicks.action_named(t, 999, "play 2C") == "play 2C"  # not seated


async def test_the_stale_rule_and_a_double_click(rt, clock):
    t = await started(rt)
    v = t.version
    assert not clicks.stale(t, v, v) and not clicks.stale(t, v, 0)
    assert clicks.stale(t, v + 1, 0)  # a version the table never had
    assert clicks.stale(t, v - 1, v)  # drawn before what it offered changed
    assert not clicks.moved_since(t, HOST, v)
    await rt.act(t.id, HOST, choose(t.state.decision(0)), version=v)
    assert clicks.moved_since(t, HOST, v) and not clicks.moved_since(t, HOST, t.version)


async def test_a_part_menu_click_is_refused_where_the_decision_has_no_marking(rt):
    t = await started(rt)  # a Hearts pass is a small pick: no part menus, no "marked" in the view
    with pytest.raises(TableError, match="out of date"):
        clicks.chooser(t, HOST, t.version, "pass", marking=True)
    with pytest.raises(TableError, match="not seated"):
        clicks.chooser(t, 999, t.version, "pass")
    assert clicks.is_mark("bury 5H 9S mark", "bury") and not clicks.is_mark("bury 5H 9S", "bury")
