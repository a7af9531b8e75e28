"""King of the Hill's bury survives a ``kill -9``: the real bot, in its own process on a SQLite file
(:class:`~tests.e2e.conftest.RestartWorld`), is killed while Ali, the KotH, is half way through
marking the 8 cards she buries, and a new process on the same database carries on.

The bury is built up step by step (games/koth/rules.py, ``KingOfTheHill._bury``): each change of a suit
menu of Ali's hand view is one ``bury C1 … Cn mark`` action, kept in the engine state and the stored
log, and OK sends ``bury`` alone.  After the restart her marks are still there — in a hand view she
opens again (its text and the menus' defaults) and in the engine state rebuilt from the database —
her bury clock is the one she had (the stored absolute deadline unchanged), the suit menus of the
hand view she opened before the kill still mark cards, and OK buries exactly the 8 marked.  Then
the round is played to the final standings.

Made certain by the seed, as in tests/e2e/test_koth_game.py: the RestartWorld's seed seeds the
bot process's runtime generator like the World's does, so :data:`SEED` gives the same table seed
:data:`TABLE_SEED`, whose deal makes Ali (declaring 2♥ at once) the KotH with hearts as trumps.
The RestartWorld's closing checks (privacy, answers within 3 s, no 429, no error logged by either
bot process, edit pacing) run at the end."""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from typing import Any

from tests.e2e.conftest import RestartWorld, make_restart_world
from tests.e2e.test_koth_game import (
    BURY,
    DECLARE,
    SEED,
    TABLE_PACE,
    TABLE_SEED,
    buttons,
    menu_with,
    ok_button,
    open_koth,
    part_menus,
    value_for,
)
from tests.e2e.test_refusals_games import use
from tests.fakediscord import Reply
from tests.fakediscord import payloads as P
from tests.fakediscord.play import is_over, play_seat, table_controls, table_id_of
from tests.fakediscord.server import Message

RUNTIME = {"ai_delay": 0.05, "table_pace": TABLE_PACE}
# Marked before the kill: two suit menus, 5 cards.  After the restart: 3 more in a third menu.
BEFORE = {"♣": BURY["♣"], "♦": BURY["♦"][:2]}
AFTER = {"♠": ["3S", "4S", "QS"]}


# ---- what the database says ---------------------------------------------------------------------
def stored_table(w: RestartWorld, tid: str) -> Any:
    """The table as a new bot would rebuild it from the database (its state, log, deadlines)."""
    (t,) = [t for t in w.stored() if t.id == tid]
    return t


def stored_deadlines(w: RestartWorld, tid: str) -> dict[int, float]:
    return {int(s): d for s, d in json.loads(w.row(tid)["deadlines"] or "{}").items()}


def marked(t: Any) -> Counter[str]:
    return Counter(c.code for c in t.state.marked)


def defaults(msg: Message) -> Counter[str]:
    """The cards the part menus of a hand view show as chosen."""
    return Counter(o["value"].split("#")[0] for menu in part_menus(msg) for o in menu.get("options") or []
                   if o.get("default"))


# ---- the table ----------------------------------------------------------------------------------
async def declare(w: RestartWorld, table_message: Message) -> Reply:
    """Ali opens her hand and presses Refresh until she may declare, then declares 2♥."""
    view = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
    end = time.perf_counter() + 10
    while not buttons(view.message, "dh:a:"):
        assert time.perf_counter() < end, "Ali was never offered a declaration"
        assert "Your hand" in view.text, view.text
        view = await w.ali.click(view.message, "Refresh")
    declared = await use(w.ali, view.message, DECLARE)
    assert declared.text.startswith("✅") and "You declared 2♥" in declared.text, declared.text
    return declared


async def mark(w: RestartWorld, view: Reply, codes: list[str], count: int) -> Reply:
    """Ali chooses ``codes`` in the suit menu offering them; the view shows ``count`` chosen."""
    menu = menu_with(view.message, codes)
    chosen = await w.ali.choose(view.message, [value_for(menu, c) for c in codes], custom_id=menu["custom_id"])
    assert chosen.interaction.callback_type == P.UPDATE_MESSAGE and not chosen.text.startswith("✅"), chosen.text
    assert f"Chosen ({count}/8)" in chosen.text, chosen.text
    return chosen


# ---- the test -----------------------------------------------------------------------------------
async def test_a_koth_bury_marked_half_way_survives_a_sigkill(tmp_path) -> None:
    async with make_restart_world(tmp_path / "deckhand.db", seed=SEED, runtime_options=RUNTIME) as w:
        table_message = await open_koth(w)
        tid = table_id_of(table_message)
        assert w.row(tid)["seed"] == TABLE_SEED, "the seed no longer gives the deal this test was made for"

        # 1. Ali declares 2♥ during the deal and becomes the KotH.
        await declare(w, table_message)
        await w.until(lambda: "👑 King: **Ali**" in table_message.text and "is burying 8" in table_message.text,
                      timeout=10, what="the table showing Ali burying")
        t = stored_table(w, tid)
        pv = t.state.public_view()
        assert t.state.phase == "bury" and pv["koth"] == 0 and pv["trump_suit"] == "H", pv
        deadline = stored_deadlines(w, tid)
        assert set(deadline) == {0} and 55 < deadline[0] - time.time() <= 60, deadline

        # 2. She marks 5 cards in two suit menus of her hand view.
        view = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
        assert "You took the dead hand" in view.text and len(part_menus(view.message)) >= 2, view.text
        chosen: list[str] = []
        for codes in BEFORE.values():
            chosen += codes
            view = await mark(w, view, codes, len(chosen))
        t = stored_table(w, tid)
        assert marked(t) == Counter(chosen) and t.state.phase == "bury"
        assert stored_deadlines(w, tid) == deadline, "marking cards restarted Ali's bury clock"
        before_kill = w.version(tid)
        seq, seat, code, auto = w.actions(tid)[-1]
        assert (seq, seat, auto) == (before_kill, 0, False) and code.endswith(" mark"), w.actions(tid)[-1]
        assert Counter(code.split()[1:-1]) == Counter(chosen), code

        # 3. kill -9, and a new bot on the same database.
        assert not await w.kill_bot()  # nothing in flight
        await w.start_bot()

        # Her marks are still hers: a hand view opened now shows them chosen ...
        again = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
        assert again.ephemeral and f"Chosen ({len(chosen)}/8)" in again.text, again.text
        assert defaults(again.message) == Counter(chosen), defaults(again.message)
        assert ok_button(again.message).get("disabled") and ok_button(again.message)["label"] == "Bury 5/8"
        # ... the engine state rebuilt from the database holds exactly them, and the clock is the
        # one she had before the kill.
        t = stored_table(w, tid)
        assert marked(t) == Counter(chosen) and t.state.phase == "bury"
        assert w.version(tid) == before_kill
        assert stored_deadlines(w, tid) == deadline, "the restart restarted Ali's bury clock"
        clock = f"<t:{int(deadline[0])}:R>"  # the countdown her views show
        assert clock in view.text and clock in again.text, (view.text, again.text)
        assert clock in table_message.text, table_message.text

        # 4. She marks 3 more in the suit menu of the view she opened before the kill (its part
        # menus still stand: their version is the one since which she has only marked cards).
        assert f"Chosen ({len(chosen)}/8)" in view.text and defaults(view.message) == Counter(chosen)
        assert [m["custom_id"] for m in part_menus(view.message)] == [m["custom_id"] for m in part_menus(again.message)]
        for codes in AFTER.values():
            chosen += codes
            view = await mark(w, view, codes, len(chosen))
        assert ok_button(view.message)["label"] == "Bury 8/8" and not ok_button(view.message).get("disabled")
        t = stored_table(w, tid)
        assert marked(t) == Counter(chosen)
        assert stored_deadlines(w, tid) == deadline, "marking cards restarted Ali's bury clock"

        buried = await w.ali.click(view.message, custom_id=ok_button(view.message)["custom_id"])
        assert buried.text.startswith("✅ You buried 8 cards."), buried.text
        t = stored_table(w, tid)
        assert t.state.phase == "call"
        assert Counter(c.code for c in t.state.buried) == Counter(chosen), "the engine buried other cards"
        marks = [e for e in t.log if e.code.endswith(" mark")]
        assert [(e.seat, e.auto) for e in marks] == [(0, False)] * (len(BEFORE) + len(AFTER)), marks
        assert (t.log[-1].seat, t.log[-1].code, t.log[-1].auto) == (0, "bury", False)

        # 5. The round is played to the final standings.
        logs = await asyncio.gather(
            play_seat(w.ali, table_message, rng=random.Random(3), open_with="mix", timeout=60,
                      ready=w.ready, tolerate=w.tolerate),
            play_seat(w.bob, table_message, rng=random.Random(4), use="play", timeout=60,
                      ready=w.ready, tolerate=w.tolerate),
        )
        assert all(log.moves > 0 for log in logs), [log.moves for log in logs]
        await w.until(lambda: is_over(w.fd, table_message) and "— finished" in table_message.text,
                      what="the finished table")
        t = stored_table(w, tid)
        assert t.state.is_over and w.row(tid)["phase"] == "finished"
        assert Counter(t.state.public_view()["last_round"]["dead_hand"]) == Counter(chosen)
        assert "Final standings" in table_message.text and f"Replay: `/game replay id:{tid}`" in table_message.text
        assert w.fd.identifies == 2 and not w.lost

