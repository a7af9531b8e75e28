"""Each game's own illegal moves, refused through the wire: Tricks, The Great Dalmuti and Siege (King
of the Hill's live deal is too slow in real time here).  Hearts is in ``test_refusals.py``.

A refusal is one friendly ephemeral sentence to the person who tried, and changes nothing: the
table's version, log, seats and the state's ``to_dict`` are as before, and nothing public was
posted.  Every game also gets a stale button (a hand view drawn before the state moved on, used
when it is that person's turn again) and a double click (the same control twice before the first
answer: exactly one move).

The situations are made deterministic by the world's seed (which fixes the table's seed) and by
reading the state to pick the moves that lead there.  The words each refusal should give are
collected and checked at the end of a test, so that one imprecise sentence does not hide the
checks after it.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from tests.e2e.conftest import World, make_world
from tests.fakediscord import Person, Reply
from tests.fakediscord import payloads as P
from tests.fakediscord.play import open_table, table_controls
from tests.fakediscord.server import Message

OOPS = "something went wrong"
STALE_WORDS = ("earlier turn", "out of date")


# ---- checking refusals ---------------------------------------------------------------------------
class Refusals:
    """Runs attempts that must be refused, against one table.  Ephemeral, a sentence, nothing
    changed, nothing public: checked at once.  The expected words: collected, see :meth:`check`."""

    def __init__(self, w: World, table_message: Message) -> None:
        self.w = w
        self.table_message = table_message
        self.wrong_words: list[str] = []

    @property
    def where(self) -> Any:
        return self.w.thread_of(self.table_message)

    async def play(self, person: Person, text: str, *words: str) -> Reply:
        """``/play cards:text`` typed by ``person`` in the table's thread, refused."""
        return await self.attempt(lambda: person.slash("play", cards=text, where=self.where), *words)

    async def attempt(self, make: Any, *words: str) -> Reply:
        await settle(self.w)
        before = self.w.snapshot(self.table_message)
        mark = self.w.fd.ids.last
        reply = await make()
        assert_refusal(reply)
        assert self.w.snapshot(self.table_message) == before, f"{reply.interaction.label} changed the table"
        posted = [m for m in self.w.fd.messages.values() if m.id > mark and not m.ephemeral]
        assert not posted, f"{reply.interaction.label}: something public was posted: {posted}"
        missing = [word for word in words if word.lower() not in reply.text.lower()]
        if missing:
            self.wrong_words.append(f"{reply.interaction.label} {reply.interaction.options_text()}: "
                                    f"{reply.text!r} does not say {missing}")
        return reply

    def check(self) -> None:
        assert not self.wrong_words, "refusals that do not say why:\n" + "\n".join(self.wrong_words)


def assert_refusal(reply: Reply) -> None:
    label = f"{reply.interaction.label} {reply.interaction.options_text()}"
    assert not reply.failed, f"{label}: the person saw 'This interaction failed'"
    assert reply.ephemeral, f"{label}: a refusal must be ephemeral, got {reply!r}"
    assert all(m.ephemeral for m in reply.messages), f"{label}: a refusal posted something public"
    assert reply.interaction.callback_type != P.UPDATE_MESSAGE, f"{label}: the hand view was redrawn as for a move"
    text = reply.text
    assert not text.startswith("✅"), f"{label}: accepted: {text[:120]!r}"
    assert OOPS not in text.lower(), f"{label}: an apology instead of a refusal: {text!r}"
    assert "Traceback" not in text and "Error" not in text, f"{label}: {text!r}"
    assert re.match(r"^\S.*[.!)]$", text, re.S), f"{label}: not a sentence: {text!r}"
    assert "Your hand" not in text, f"{label}: a refusal shows the hand: {text!r}"


def assert_stale(reply: Reply) -> None:
    assert_refusal(reply)
    assert any(word in reply.text for word in STALE_WORDS), f"not a stale refusal: {reply.text!r}"


async def settle(w: World, limit: float = 10.0) -> None:
    """Until nothing is under way (:meth:`World.idle`): the turn notice of the last move is in."""
    await w.until(w.idle, limit, "nothing under way")


# ---- moving on -----------------------------------------------------------------------------------
async def moved(person: Person, where: Any, text: str) -> Reply:
    """``/play`` that must be accepted."""
    reply = await person.slash("play", cards=text, where=where)
    assert reply.ephemeral and reply.text.startswith("✅"), f"{person.name} /play {text}: {reply.text!r}"
    return reply


def control_for(msg: Message, code: str) -> tuple[str, str | None]:
    """The control of a hand view that takes action ``code``: (custom id, menu value or None)."""
    encoded = code.replace(" ", "_")
    for c in P.walk_components(msg.components):
        cid = str(c.get("custom_id") or "")
        if c.get("type") == P.BUTTON and cid.startswith("dh:a:") and cid.split(":", 4)[4] == encoded:
            return cid, None
        if c.get("type") == P.STRING_SELECT and cid.startswith("dh:m:"):
            for o in c.get("options") or []:
                if o["value"] == code:
                    return cid, o["value"]
    raise AssertionError(f"no control for {code!r} on {msg!r}: {msg.custom_ids()}")


async def use(person: Person, msg: Message, code: str) -> Reply:
    cid, value = control_for(msg, code)
    if value is None:
        return await person.click(msg, custom_id=cid)
    return await person.choose(msg, [value], custom_id=cid)


def people_moves(table: Any, seat: int, since: int) -> list[str]:
    return [e.code for e in table.log[since:] if e.seat == seat and not e.auto]


async def double_click(person: Person, msg: Message, code: str) -> tuple[Reply, Reply]:
    """The same control used twice before the first answer arrives: (the move, the refusal)."""
    cid, value = control_for(msg, code)
    if value is None:
        clicks = [person.click(msg, custom_id=cid), person.click(msg, custom_id=cid)]
    else:
        clicks = [person.choose(msg, [value], custom_id=cid), person.choose(msg, [value], custom_id=cid)]
    first, second = await asyncio.gather(*clicks)
    done, refused = sorted([first, second], key=lambda r: not r.text.startswith("✅"))
    assert done.text.startswith("✅"), f"neither click was taken: {first.text!r} / {second.text!r}"
    assert_stale(refused)
    return done, refused


# ---- Tricks --------------------------------------------------------------------------------------
def _tricks_lead(table: Any) -> tuple[str, str]:
    """A card for Ali (seat 0, who leads hand 0) to lead so that Bob (next) must follow suit while
    holding another suit too; and one such other card of Bob's."""
    state = table.state
    ali, bob = state.view(0)["hand"], state.view(1)["hand"]
    for lead in ali:
        follows = [c for c in bob if c[1] == lead[1]]
        others = [c for c in bob if c[1] != lead[1]]
        if follows and others:
            return lead, others[0]
    raise AssertionError(f"no lead makes Bob follow suit: {ali} / {bob}")


async def test_tricks_illegal_cards(w: World) -> None:
    table_message = await open_table(w.ali, [w.bob], game="tricks", options="target=25", ai=False)
    table = w.table(table_message)
    r = Refusals(w, table_message)
    await w.until(lambda: table.to_act() == (0,), what="Ali to lead")
    ali_hand, bob_hand = table.state.view(0)["hand"], table.state.view(1)["hand"]

    await r.play(w.bob, bob_hand[0], "not your turn", "Ali")  # out of turn
    await r.play(w.ali, bob_hand[0], "not in your hand")  # a card Bob holds
    await r.play(w.ali, "banana", "can't read")
    await r.play(w.ali, "K", "can't read")  # not a whole card

    lead, off_suit = _tricks_lead(table)
    await moved(w.ali, r.where, lead)
    await w.until(lambda: table.to_act() == (1,), what="Bob to follow")
    await r.play(w.bob, off_suit, "follow suit")  # holds the led suit: must follow
    await r.play(w.bob, ali_hand[-1] if ali_hand[-1] != lead else ali_hand[0], "not in your hand")
    await r.play(w.bob, lead, "not in your hand")  # the card on the table
    await r.play(w.ali, ali_hand[1] if ali_hand[1] != lead else ali_hand[2], "not your turn", "Bob")
    r.check()


async def test_tricks_stale_button_and_double_click(w: World) -> None:
    table_message = await open_table(w.ali, [w.bob], game="tricks", options="target=25", ai=False)
    table = w.table(table_message)
    where = w.thread_of(table_message)
    await w.until(lambda: table.to_act() == (0,), what="Ali to lead")
    older = await w.ali.slash("hand", where=where)  # kept, and used once the table has moved on
    view = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
    lead, _ = _tricks_lead(table)

    mark = len(table.log)
    await double_click(w.ali, view.message, f"play {lead}")
    assert people_moves(table, 0, mark) == [f"play {lead}"]

    # Bob plays legal cards until it is Ali's turn again.
    async def ali_to_act() -> None:
        while table.to_act() != (0,):
            if table.to_act() == (1,):
                legal = table.state.decision(1).actions
                await moved(w.bob, where, legal[0].cards[0].code)
            else:
                await w.fd.changed(0.25)

    await ali_to_act()
    legal = {a.cards[0].code for a in table.state.decision(0).actions}
    usable = [b for b in older.message.buttons() if b["custom_id"].startswith("dh:a:")
              and b["custom_id"].rsplit("_", 1)[1] in legal]
    assert usable, "Ali's old view offers none of her legal cards now"
    r = Refusals(w, table_message)
    reply = await r.attempt(lambda: w.ali.click(older.message, custom_id=usable[0]["custom_id"]))
    assert_stale(reply)
    r.check()


# ---- The Great Dalmuti ---------------------------------------------------------------------------
# World seed 0, four seats: Ali is the Greater Dalmuti, an AI the Lesser Dalmuti, Bob the Lesser
# Peon; no revolution.  After the look at the cards (quick: the table's pace), Ali gives 2 cards back
# first, then the AI gives 1 to Bob, then Ali leads.
DALMUTI_SEED = 0
QUICK_LOOK = {"table_pace": 0.05}
# World seed 3: Ali was dealt both Jesters and is asked about a revolution.
DALMUTI_REVOLUTION_SEED = 3


def _numbers(hand: list[str]) -> dict[int, int]:
    out: dict[int, int] = {}
    for code in hand:
        n = 13 if code == "JJ" else int(code[1:])
        out[n] = out.get(n, 0) + 1
    return out


async def test_dalmuti_illegal_taxes_and_plays() -> None:
    async with make_world(seed=DALMUTI_SEED, runtime_options=QUICK_LOOK) as w:
        table_message = await open_table(w.ali, [w.bob], game="dalmuti", options="hands=1", ai=False)
        table = w.table(table_message)
        where = w.thread_of(table_message)
        r = Refusals(w, table_message)
        await w.until(lambda: table.to_act() == (0,), what="Ali to give back")
        assert table.state.public_view()["tax"] == {"giver": 0, "receiver": 3, "count": 2}
        ali = _numbers(table.state.view(0)["hand"])
        lacking = next(n for n in range(1, 13) if n not in ali)
        most = max(n for n in ali if n < 13)

        # Taxes: Ali gives back exactly 2 cards she holds; Bob waits.
        await r.play(w.bob, str(most), "not your turn", "Ali")
        await r.play(w.ali, str(most), "exactly 2")
        await r.play(w.ali, f"{most} {most} {most}" if ali[most] >= 3 else f"{most} x3", "exactly 2")
        await r.play(w.ali, f"{lacking} {lacking}", "from your hand")
        await r.play(w.ali, "pass", "Taxes come first", "give back 2")  # play-phase words while taxes are paid
        await r.play(w.ali, "yes")  # and a revolution's answer
        await r.play(w.ali, "banana", "can't read")
        await moved(w.ali, where, f"{most} {most}")

        # Ali leads the first round: she may not pass, and only plays sets she holds.
        await w.until(lambda: table.state.public_view()["phase"] == "play" and table.to_act() == (0,),
                      what="Ali to lead")
        ali = _numbers(table.state.view(0)["hand"])
        lacking = next(n for n in range(1, 13) if n not in ali)
        await r.play(w.ali, "pass", "lead")
        await r.play(w.ali, str(lacking), "do not hold")
        worst = max(n for n in ali if n < 13)
        await r.play(w.ali, " ".join([str(worst)] * (ali[worst] + 1)), "do not hold")
        await r.play(w.bob, "pass", "not your turn", "Ali")

        # Ali leads her worst single; Bob must answer with one card of a lower number, or pass.
        await moved(w.ali, where, str(worst))
        await w.until(lambda: table.to_act() in ((1,), (0,)), what="Bob to answer")
        assert table.to_act() == (1,), "Bob had no answer to Ali's lead"
        current = table.state.public_view()["current"]
        assert current["count"] == 1
        bob = _numbers(table.state.view(1)["hand"])
        pair = next(n for n in sorted(bob) if n < current["number"] and bob[n] >= 2)
        weak = max(n for n in bob if n < 13)
        assert weak >= current["number"]
        await r.play(w.bob, f"{pair} {pair}", "exactly 1")
        await r.play(w.bob, str(weak), "lower number")
        await r.play(w.ali, "pass", "not your turn", "Bob")
        r.check()


async def test_dalmuti_answers_in_the_wrong_phase() -> None:
    """Ali was dealt both Jesters: during the look she may call a revolution, nothing else; Bob's
    refusal names nobody (who may call is nobody's business)."""
    async with make_world(seed=DALMUTI_REVOLUTION_SEED) as w:
        table_message = await open_table(w.ali, [w.bob], game="dalmuti", options="hands=1", ai=False)
        table = w.table(table_message)
        r = Refusals(w, table_message)
        assert table.state.public_view()["phase"] == "look" and table.state.decision(0).kind == "revolution"
        ali = _numbers(table.state.view(0)["hand"])
        some = min(n for n in ali if n < 13)
        await r.play(w.ali, str(some), "revolution")
        await r.play(w.ali, f"give {some}", "revolution")
        await r.play(w.ali, "jester jester", "revolution")
        await r.play(w.ali, "no", "keep quiet")
        reply = await r.play(w.bob, "yes", "not your turn")
        assert "Ali" not in reply.text, reply.text
        r.check()


async def test_dalmuti_stale_menu_and_double_click() -> None:
    async with make_world(seed=DALMUTI_SEED, runtime_options=QUICK_LOOK) as w:
        table_message = await open_table(w.ali, [w.bob], game="dalmuti", options="hands=1", ai=False)
        table = w.table(table_message)
        where = w.thread_of(table_message)
        await w.until(lambda: table.to_act() == (0,), what="Ali to give back")
        older = await w.ali.slash("hand", where=where)
        view = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")

        # Two picks of the same 2 cards in the tax menu, before the first answer: one tax return.
        menu = next(s for s in view.message.selects() if s["custom_id"].startswith("dh:s:"))
        values = [o["value"] for o in menu["options"]][-2:]
        mark = len(table.log)
        first, second = await asyncio.gather(
            w.ali.choose(view.message, values, custom_id=menu["custom_id"]),
            w.ali.choose(view.message, values, custom_id=menu["custom_id"]))
        done, refused = sorted([first, second], key=lambda r: not r.text.startswith("✅"))
        assert done.text.startswith("✅"), (first.text, second.text)
        assert_stale(refused)
        assert [c.split()[0] for c in people_moves(table, 0, mark)] == ["give"]

        # Ali leads; her older view still shows the tax menu.
        await w.until(lambda: table.state.public_view()["phase"] == "play" and table.to_act() == (0,),
                      what="Ali to lead")
        r = Refusals(w, table_message)
        old_menu = next(s for s in older.message.selects() if s["custom_id"].startswith("dh:s:"))
        old_values = [o["value"] for o in old_menu["options"]][:2]
        assert_stale(await r.attempt(lambda: w.ali.choose(older.message, old_values,
                                                          custom_id=old_menu["custom_id"])))

        # A lead chosen twice at once from a fresh view: played once.
        fresh = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
        lead = table.state.decision(0).actions[0]
        mark = len(table.log)
        await double_click(w.ali, fresh.message, lead.code)
        assert people_moves(table, 0, mark) == [lead.code]
        r.check()


# ---- Siege ---------------------------------------------------------------------------------------
# World seed 4: Ali (♥) draws 5♠ 9♠ 3♣ 5▫ J▫; Bob (♠) will draw 9♥ 8▫ J♠ J♣ Q♥.
SIEGE_SEED = 4


async def test_siege_illegal_builds_and_attacks() -> None:
    async with make_world(seed=SIEGE_SEED) as w:
        table_message = await open_table(w.ali, [w.bob], game="siege", ai=False)
        table = w.table(table_message)
        where = w.thread_of(table_message)
        r = Refusals(w, table_message)
        await w.until(lambda: table.to_act() == (0,), what="Ali's first turn")
        assert sorted(table.state.view(0)["hand"]) == sorted(["5S", "9S", "3C", "5X", "JX"])
        assert table.state.phase == "build"  # nobody has a house pile: no attack step

        await r.play(w.bob, "end", "not your turn", "Ali")  # ending a turn that is not yours
        await r.play(w.bob, "JS 1", "not your turn", "Ali")
        await r.play(w.ali, "5S king", "King pile takes only hearts")
        await r.play(w.ali, "place 5S 1", "Slot 1 is empty")
        await r.play(w.ali, "start 5S 2", "Queen, Jack or Ace")
        await r.play(w.ali, "start QH 1", "not in your hand")
        await r.play(w.ali, "KH king", "no kings")
        await r.play(w.ali, "swap 2 3", "Both slots are empty")
        await r.play(w.ali, "swap 1 1", "two different slots")
        await r.play(w.ali, "attack 1 2", "No attack is possible now")  # the build step: no attacks
        await r.play(w.ali, "build", "already building")
        await moved(w.ali, where, "start JX 1")
        await r.play(w.ali, "place 5S 1", "takes only blank")  # a blank Jack pile
        await r.play(w.ali, "start JX 2", "not in your hand")  # the jack is on the table now
        await r.play(w.ali, "place 5X 4", "no slot")
        await moved(w.ali, where, "place 5X 1")
        await moved(w.ali, where, "end")

        await w.until(lambda: table.to_act() == (1,), what="Bob's first turn")
        await r.play(w.ali, "end", "not your turn", "Bob")
        await moved(w.bob, where, "JS 1")
        await moved(w.bob, where, "end")

        # Ali's second turn: her Jack pile and Bob's make an attack step.
        await w.until(lambda: table.to_act() == (0,), what="Ali's second turn")
        state = table.state
        assert state.phase == "attack" and state.houses[0][0] is not None and state.houses[1][0] is not None
        await r.play(w.ali, "attack 1 1", "cannot attack yourself")
        await r.play(w.ali, "attack 2 2", "Slot 2 is empty")
        await r.play(w.ali, "attack 1 5", "no seat")
        await moved(w.ali, where, "build")
        await r.play(w.ali, "attack 1 2", "No attack is possible now")  # an attack in the build step
        await r.play(w.bob, "end", "not your turn", "Ali")
        r.check()


async def test_siege_stale_button_and_double_click() -> None:
    async with make_world(seed=SIEGE_SEED) as w:
        table_message = await open_table(w.ali, [w.bob], game="siege", ai=False)
        table = w.table(table_message)
        where = w.thread_of(table_message)
        await w.until(lambda: table.to_act() == (0,), what="Ali's first turn")
        older = await w.ali.slash("hand", where=where)
        view = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
        mark = len(table.log)

        # Start a pile twice at once from one view: started once, and the turn goes on.
        done, _ = await double_click(w.ali, view.message, "start JX 1")
        assert people_moves(table, 0, mark) == ["start JX 1"] and table.to_act() == (0,)

        # The view from before the pile was started: its buttons are stale (it is still Ali's turn).
        r = Refusals(w, table_message)
        assert_stale(await r.attempt(lambda: use(w.ali, older.message, "end")))
        assert_stale(await r.attempt(lambda: use(w.ali, older.message, "start JX 2")))

        # End the turn twice at once from the fresh view: one end, Bob's turn.
        await double_click(w.ali, done.message, "end")
        assert people_moves(table, 0, mark) == ["start JX 1", "end"]
        await w.until(lambda: table.to_act() == (1,), what="Bob's turn")
        r.check()
