"""A whole King of the Hill game through the real bot, with a person as the King: Ali declares
trumps from her hand view during the live deal, buries 8 cards through the suit menus, calls a card,
and with Bob plays the round out to the final standings — and every KotH refusal on the way (not
the KotH, a ninth mark, a card she does not hold, OK with fewer than 8, a joker or a trump-rank
call, not following suit, a stale hand view) is one ephemeral sentence that changes nothing.

Made certain by the world's seed: :data:`SEED` gives the table seed :data:`TABLE_SEED`, whose deal
(with :data:`OPTIONS`, dealing from AI 3) gives Ali a 2♥ as her very first card and never makes an
AI declare (nor override Ali's 2♥ with a pair), whenever Ali's declaration lands; so Ali becomes
the KotH with hearts as trumps.  After the deal Ali holds, besides trumps,
♠ K Q 9 9 8 8 4 3, ♣ J 8 5 3 and ♦ K 9 7 5 3 (the dead hand 9♦ 7♦ 9♠ 2♠ 3♠ 2♣ 7♥ 2♥ included).

The table's own timers (the live deal) run 20 times faster here (``table_pace``); people's
clocks do not.  The world's closing checks (privacy, answers within 3 s, no 429, no errors, edit
pacing) run at the end."""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections import Counter
from typing import Any

from engine.cards import card
from games.koth.trump import Trump
from tests.e2e.conftest import World, make_world
from tests.e2e.test_refusals_games import Refusals, assert_stale, control_for, moved, settle, use
from tests.fakediscord import Reply
from tests.fakediscord import payloads as P
from tests.fakediscord.play import play_seat, running_buttons_shown, table_controls
from tests.fakediscord.privacy import cards_in
from tests.fakediscord.server import Message

SEED = 21
TABLE_SEED = 7777872195256472589
OPTIONS = "rounds=1 deal_rate=0.5 ready_round=0"
TABLE_PACE = 0.05  # a card every 25 ms: the deal takes 2.5 s
DECLARE = "declare 2H"
# Ali buries in three suit menus: clubs, diamonds, spades (no trumps, no points).
BURY = {"♣": ["3C", "8C", "JC"], "♦": ["3D", "7D", "9D"], "♠": ["3S", "4S"]}
CALL = "AC"


# ---- what Ali sees and does ---------------------------------------------------------------------
def buttons(msg: Message, prefix: str) -> list[dict[str, Any]]:
    return [b for b in msg.buttons() if str(b.get("custom_id", "")).startswith(prefix)]


def part_menus(msg: Message) -> list[dict[str, Any]]:
    return [s for s in msg.selects() if s["custom_id"].startswith("dh:p:")]


def ok_button(msg: Message) -> dict[str, Any]:
    (ok,) = [b for b in msg.buttons() if b["custom_id"].startswith("dh:k:") and b["custom_id"].endswith(":ok")]
    return ok


def menu_with(msg: Message, codes: list[str]) -> dict[str, Any]:
    """The part menu offering all of ``codes``."""
    for menu in part_menus(msg):
        values = {o["value"].split("#")[0] for o in menu.get("options") or []}
        if set(codes) <= values:
            return menu
    raise AssertionError(f"no part menu offers {codes}: {[s.get('placeholder') for s in part_menus(msg)]}")


def value_for(menu: dict[str, Any], code: str) -> str:
    """The menu value of the first copy of ``code``."""
    return next(o["value"] for o in menu["options"] if o["value"].split("#")[0] == code)


async def declare_when_possible(w: World, table_message: Message) -> tuple[Reply, Reply]:
    """Ali opens her hand and presses Refresh until a declare button shows, then keeps that view
    aside (a second view, opened with /hand, is the one she declares from).  Returns (the view she
    declared from, the older view)."""
    view = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
    end = time.perf_counter() + 10
    while not buttons(view.message, "dh:a:"):
        assert time.perf_counter() < end, "Ali was never offered a declaration"
        assert "Your hand" in view.text, view.text
        view = await w.ali.click(view.message, "Refresh")
        assert view.interaction.callback_type == P.UPDATE_MESSAGE, "Refresh must redraw the view in place"
    assert w.table(table_message).state.public_view()["declaration"] is None, "someone declared before Ali"
    older = view  # kept: its declare button goes stale once the bury is done
    fresh = await w.ali.slash("hand", where=w.thread_of(table_message))
    declared = await use(w.ali, fresh.message, DECLARE)
    assert declared.text.startswith("✅") and "You declared 2♥" in declared.text, declared.text
    return declared, older


# ---- the test -----------------------------------------------------------------------------------
async def test_ali_is_the_koth_from_the_deal_to_the_final_standings() -> None:
    async with make_world(seed=SEED, runtime_options={"table_pace": TABLE_PACE}) as w:
        await _koth_game(w)


async def open_koth(w: Any) -> Message:
    """Ali opens a King table, Bob joins, three AIs, started (a World or a RestartWorld)."""
    new = await w.ali.slash("game new", game="koth", options=OPTIONS)
    table_message = new.message
    assert table_message is not None and not new.ephemeral
    tid = re.search(r"table `([A-Z0-9]{6})`", table_message.text).group(1)
    joined = await w.bob.slash("game join", id=tid)
    assert "You joined table" in joined.text, joined.text
    assert "Added 3 AI players" in (await w.ali.slash("game ai")).text
    started = await w.ali.slash("game start")
    assert "game is on" in started.text.lower(), started.text
    await w.until(lambda: running_buttons_shown(w.fd, table_message), what="the running table message")
    return table_message


async def _koth_game(w: World) -> None:
    table_message = await open_koth(w)
    table = w.table(table_message)
    assert table.seed == TABLE_SEED, "the world's seed no longer gives the table seed this test was made for"
    assert [s.user_id for s in table.seats[:2]] == [w.ali.id, w.bob.id]
    where = w.thread_of(table_message)

    # 1. The live deal: Ali declares 2♥ from her hand view as soon as she holds it.
    _, deal_view = await declare_when_possible(w, table_message)
    await w.until(lambda: table.state.phase == "bury", what="the end of the deal")
    pv = table.state.public_view()
    assert pv["koth"] == 0 and pv["trump_suit"] == "H" and pv["trump_how"] == "declared"
    assert pv["declarations"] == [{"seat": 0, "cards": ["2H"]}], pv["declarations"]
    dealing = [re.search(r"Dealing \S+ (\d+)/100 cards", v.text) for v in table_message.versions]
    assert any(m and int(m.group(1)) < 100 for m in dealing), "the table never showed the deal's progress"
    assert any("📢 **Ali** declared 2♥" in v.text for v in table_message.versions), \
        "the table never showed Ali's declaration during the deal"
    await w.until(lambda: "👑 King: **Ali**" in table_message.text and "is burying 8" in table_message.text,
                  what="the table showing Ali burying")
    assert "Trumps are ♥ hearts (rank 2); Ali is the King." in table_message.text

    # 2. The bury, step by step through the suit menus.
    r = Refusals(w, table_message)
    deadline = table.deadlines[0]
    assert 55 < deadline - time.time() <= 60, "Ali's bury clock is not 60 s"
    view = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
    assert "You took the dead hand" in view.text and len(part_menus(view.message)) >= 2, view.text
    assert ok_button(view.message).get("disabled"), "OK before anything is marked"
    await r.play(w.bob, "bury 6S mark", "not your turn", "Ali")  # Bob is not the King
    await r.play(w.bob, "bury", "not your turn", "Ali")

    marked: list[str] = []
    posted = len(w.fd.public())
    for n, (suit, codes) in enumerate(BURY.items()):
        menu = menu_with(view.message, codes)
        assert suit in menu.get("placeholder", ""), (suit, menu.get("placeholder"))
        chosen = [value_for(menu, c) for c in codes]
        view = await w.ali.choose(view.message, chosen, custom_id=menu["custom_id"])
        assert view.interaction.callback_type == P.UPDATE_MESSAGE and not view.text.startswith("✅"), view.text
        marked += codes
        assert f"Chosen ({len(marked)}/8)" in view.text, view.text
        assert Counter(c.code for c in table.state.marked) == Counter(marked)
        assert table.deadlines[0] == deadline, "marking cards restarted Ali's bury clock"
        assert table.state.phase == "bury"
        if n == 0:
            # OK is disabled with 3 marked; typed, the bury is refused.
            assert ok_button(view.message).get("disabled")
            await r.play(w.ali, "bury", "Mark 8 cards", "3 marked")
            await r.play(w.ali, "bury QH mark", "don't hold")  # Bob's card
            await r.play(w.ali, "bury 3C 8C JC 3D 7D 9D 3S QH", "don't hold")
    assert ok_button(view.message).get("label") == "Bury 8/8" and not ok_button(view.message).get("disabled")
    await r.play(w.ali, "bury " + " ".join(marked) + " KS mark", "at most 8")  # a ninth mark
    await r.play(w.ali, "bury " + " ".join(marked[:7]) + " QH mark", "don't hold")

    # A second view shows the 8 with OK enabled; the choice changes in the first view (7 marked,
    # then another 8): the second view's OK no longer buries what it showed.
    before_ok = await w.ali.slash("hand", where=where)  # its OK and menus go stale after the bury
    assert "Chosen (8/8)" in before_ok.text and not ok_button(before_ok.message).get("disabled")
    spades = menu_with(view.message, BURY["♠"])
    for codes, shown in ((["3S"], "Chosen (7/8)"), (["3S", "9S"], "Chosen (8/8)")):
        view = await w.ali.choose(view.message, [value_for(spades, c) for c in codes], custom_id=spades["custom_id"])
        assert shown in view.text, view.text
        assert table.deadlines[0] == deadline, "marking cards restarted Ali's bury clock"
        assert_stale(await r.attempt(lambda: w.ali.click(before_ok.message,
                                                         custom_id=ok_button(before_ok.message)["custom_id"])))
    assert table.state.phase == "bury" and "9S" in [c.code for c in table.state.marked]
    view = await w.ali.choose(view.message, [value_for(spades, c) for c in BURY["♠"]], custom_id=spades["custom_id"])
    assert "Chosen (8/8)" in view.text and Counter(c.code for c in table.state.marked) == Counter(marked)
    assert table.deadlines[0] == deadline, "marking cards restarted Ali's bury clock"
    assert_marks_logged(table, marked, steps=len(BURY) + 3)
    assert len(w.fd.public()) == posted, "marking cards posted something public (a turn notice?)"

    buried = await w.ali.click(view.message, custom_id=ok_button(view.message)["custom_id"])
    assert buried.text.startswith("✅ You buried 8 cards."), buried.text
    assert Counter(c.code for c in table.state.buried) == Counter(marked), "the engine buried other cards"
    assert table.log[-1].code == "bury" and table.log[-1].seat == 0 and not table.log[-1].auto
    assert "You buried: " in buried.text
    assert table.state.phase == "call"

    # 3. The call: refusals first, then the call menu.
    await r.play(w.bob, f"call {CALL}", "not your turn", "Ali")
    await r.play(w.ali, "call ~B", "joker")
    await r.play(w.ali, "call ~R", "joker")
    await r.play(w.ali, "call 2S", "trump-rank")
    await r.play(w.ali, "call 2H", "trump-rank")
    # Hand views from before the bury: stale.
    assert_stale(await r.attempt(lambda: w.ali.click(before_ok.message,
                                                     custom_id=ok_button(before_ok.message)["custom_id"])))
    old_menu = menu_with(before_ok.message, ["KS"])
    assert_stale(await r.attempt(lambda: w.ali.choose(before_ok.message, [value_for(old_menu, "KS")],
                                                      custom_id=old_menu["custom_id"])))
    assert_stale(await r.attempt(lambda: use(w.ali, deal_view.message, DECLARE)))
    cid, value = control_for(buried.message, f"call {CALL}")
    called = await w.ali.choose(buried.message, [value], custom_id=cid)
    assert called.text.startswith("✅ You called A♣."), called.text
    assert table.state.called.code == CALL
    await w.until(lambda: "📣 Called: A♣" in table_message.text, what="the table showing the called card")

    # Nothing anyone but Ali could see named a buried card before the play.
    assert_buried_unseen(w, table, until=time.time())

    # 4. The play: Ali and Bob play by text until Ali must follow a lead with a choice; she tries
    # another suit first.
    await not_following_suit(w, r, table)
    r.check()

    # 5. play_seat takes over from a game under way, to the end.
    logs = await asyncio.gather(
        play_seat(w.ali, table_message, rng=random.Random(3), open_with="mix", timeout=60),
        play_seat(w.bob, table_message, rng=random.Random(4), use="play", timeout=60),
    )
    assert all(log.moves > 0 for log in logs), [log.moves for log in logs]
    await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    assert table.state.is_over
    scored_at = next(e.time for e in reversed(table.log) if e.code.startswith("play"))
    assert_buried_unseen(w, table, until=scored_at)

    # What everyone sees at the end.  The table message: the final standings (every player's rank)
    # and how to replay it.  The thread: the round's summary with the score, the buried cards (face up now)
    # and the ranks.
    await settle(w)
    final = table_message.text
    last = table.state.public_view()["last_round"]
    ranks = ["10" if rank == "T" else rank for rank in last["ranks_after"]]
    assert "— finished" in final and "Final standings" in final, final
    assert f"Replay: `/game replay id:{table.id}`" in final and str(table.seed) not in final, final
    for seat, rank in zip(table.seats, ranks, strict=True):
        assert f"{seat.name} — rank {rank}" in final, (seat.name, final)
    summary = next((m for m in reversed(w.fd.public(where.id)) if "End of round 1" in m.text), None)
    assert summary is not None, "no end-of-round summary in the thread"
    text = summary.text
    assert f"Challengers took {last['challenger_points']} points" in text, text
    assert f"**{last['challenge_score']}**" in text, text
    assert ("The hill held" if last["challenge_score"] < 80 else "The hill fell") in text, text
    assert "🪦 Buried: " + " ".join(label_of(c) for c in last["dead_hand"]) in text, text
    assert Counter(last["dead_hand"]) == Counter(marked)
    for seat, rank in zip(table.seats, ranks, strict=True):
        assert re.search(rf"{re.escape(seat.name)}: rank (\S+ → )?\*\*{rank}\*\*", text), (seat.name, text)
    assert "Game over" in text and "Final standings" in text


# ---- checks ------------------------------------------------------------------------------------
def label_of(code: str) -> str:
    return card(code).label


def assert_marks_logged(table: Any, marked: list[str], steps: int) -> None:
    """Each menu change was one ``bury … mark`` action of Ali's, ending with ``marked``."""
    marks = [e.code for e in table.log if e.code.startswith("bury") and e.code.endswith(" mark")]
    assert len(marks) == steps, marks
    assert all(e.seat == 0 and not e.auto for e in table.log if e.code.endswith(" mark"))
    assert Counter(marks[-1].split()[1:-1]) == Counter(marked), marks[-1]


def assert_buried_unseen(w: World, table: Any, *, until: float) -> None:
    """No message anyone but Ali could see, before ``until``, named a buried card — unless a copy of
    that code had been played (or declared, or called) by then."""
    buried = {c.code for c in table.state.buried}
    named_publicly = {"2H", CALL}
    assert not buried & named_publicly
    # Ali's own views name them (so the search below would find them).
    assert any(cards_in(v.text) & buried for m in w.fd.messages.values() if m.ephemeral_to == w.ali.id
               for v in m.versions)
    plays = [(e.time, set(e.code.split()[1:])) for e in table.log if e.code.startswith("play ")]
    leaks = []
    for m in w.fd.messages.values():
        if m.ephemeral_to == w.ali.id:
            continue
        for v in m.versions:
            if v.at >= until:
                continue
            shown = {c for t, cs in plays if t <= v.at for c in cs}
            named = (cards_in(v.text) & buried) - shown
            if named:
                leaks.append(f"{m!r} at {v.at:.3f}: {sorted(named)}")
    assert not leaks, "buried cards were named where others could see:\n" + "\n".join(leaks[:5])


async def not_following_suit(w: World, r: Refusals, table: Any) -> None:
    """Play by ``/play`` (the first legal play) until Ali must follow a lead while holding the led
    suit and another; then ``/play`` a card of the other suit is refused, and she follows."""
    where = r.where
    end = time.perf_counter() + 20
    while time.perf_counter() < end:
        state = table.state
        acting = table.to_act()
        view = state.view(0)
        if acting == (0,) and view["trick"]:
            suit = Trump(view["trump_suit"], view["trump_rank"]).effective_suit
            lead = [card(c) for c in view["trick"][0][1]]
            hand = [card(c) for c in view["hand"]]
            others = [c for c in hand if suit(c) != suit(lead[0])]
            if len(lead) == 1 and others and len(others) < len(hand):
                await r.play(w.ali, others[0].code, "follow suit")
                await r.play(w.ali, f"play {others[-1].code}", "follow suit")
                await moved(w.ali, where, state.decision(0).actions[0].code)
                return
        if acting in ((0,), (1,)):
            person = w.ali if acting == (0,) else w.bob
            await moved(person, where, state.decision(acting[0]).actions[0].code)
            continue
        await w.fd.changed(0.25)
    raise AssertionError("Ali never had to follow suit with a choice")
