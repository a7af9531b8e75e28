"""Siege's hand view through the real bot (issue 24): the turn's moves in a menu per pile (attacks in a
menu of their own, each fight's outcome shown before the click), End turn a button, and the cards
no pile takes greyed with the engine's reason — never offered by any control.

World seed 4 (as in test_refusals_games.py): Ali (♥) draws 5♠ 9♠ 3♣, a blank 5 and a blank jack;
Bob (♠) draws a J♠ among his cards.
"""

from __future__ import annotations

import re
from typing import Any

from games.siege.rules import BY_CODE
from tests.e2e.conftest import make_world
from tests.e2e.test_refusals_games import moved, use
from tests.fakediscord.play import open_table, table_controls
from tests.fakediscord.server import Message

SIEGE_SEED = 4
GREYED = re.compile(r"^-# 🚫 Can't place (.+?) now: (.+)\.$", re.MULTILINE)


def offered(msg: Message) -> list[str]:
    """Every move a control of the hand view takes: menu options' values and action buttons' codes."""
    codes = [o["value"] for s in msg.selects() for o in s.get("options") or []]
    codes += [str(b["custom_id"]).split(":", 4)[4].replace("_", " ") for b in msg.buttons()
              if str(b.get("custom_id", "")).startswith("dh:a:")]
    return codes


def greyed(msg: Message) -> dict[str, str]:
    """The greyed lines: the cards' labels as one string → the reason."""
    return {m.group(1): m.group(2) for m in GREYED.finditer(msg.content)}


def labels(*codes: str) -> str:
    names = [BY_CODE[c].label for c in codes]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def named(cards: str) -> list[str]:
    """The labels in a greyed line's ``9♠, blank 5 and 3♣``."""
    return re.split(r", | and ", cards)


def menu_with(msg: Message, code: str) -> dict[str, Any]:
    return next(s for s in msg.selects() if any(o["value"] == code for o in s.get("options") or []))


async def test_a_siege_hand_view_greys_the_cards_no_pile_takes_with_the_reason() -> None:
    async with make_world(seed=SIEGE_SEED) as w:
        table_message = await open_table(w.ali, [w.bob], game="siege", ai=False)
        table = w.table(table_message)
        where = w.thread_of(table_message)
        await w.until(lambda: table.to_act() == (0,), what="Ali's first turn")
        assert sorted(table.state.view(0)["hand"]) == sorted(["5S", "9S", "3C", "5X", "JX"]), "pick another seed"

        # No pile yet: only the blank jack can go anywhere (a new pile); the four number cards are greyed.
        view = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
        msg = view.message
        assert view.ephemeral and msg.ephemeral
        assert greyed(msg) == {labels("5S", "9S", "3C", "5X"): "your King pile takes only hearts; you have no house "
                                                                "pile yet (a Queen, Jack or Ace starts one)"}
        moves = offered(msg)
        assert sorted(moves) == sorted(["start JX 1", "start JX 2", "start JX 3", "end"])
        assert [s["placeholder"] for s in msg.selects()] == [
            "🏰 Empty slots ① ② ③: start a pile"]
        assert [b["label"] for b in msg.buttons()] == ["End turn (discard 5)", "Hint", "How to play"]
        assert len(msg.components) <= 5

        # The blank jack starts a pile: the blank 5 now fits it and leaves the greyed line, the rest stays
        # greyed with the jack pile's rule added.  The answer is the refreshed view itself.
        after = await use(w.ali, msg, "start JX 1")
        assert after.message.id == msg.id and after.text.startswith("✅")
        assert greyed(after.message) == {labels("5S", "9S", "3C"): "your King pile takes only hearts; the Jack pile "
                                                                   "① takes only blank cards"}
        place = menu_with(after.message, "place 5X 1")
        assert place["placeholder"] == "① Jack pile (score 0)"
        option = next(o for o in place["options"] if o["value"] == "place 5X 1")
        assert option["description"] == "Jack pile ①: score 0 → 1"
        assert not {"place 5S 1", "place 9S 1", "place 3C 1"} & set(offered(after.message))
        await use(w.ali, after.message, "place 5X 1")
        await moved(w.ali, where, "end")

        # Bob starts a Jack pile: on Ali's next turn her pile may attack his, the outcome in the option.
        await w.until(lambda: table.to_act() == (1,), what="Bob's first turn")
        await moved(w.bob, where, "JS 1")
        await moved(w.bob, where, "end")
        await w.until(lambda: table.to_act() == (0,), what="Ali's second turn")
        state = table.state
        assert state.phase == "attack" and state.houses[0][0] is not None and state.houses[1][0] is not None
        view = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
        attacks = menu_with(view.message, "attack 1 2")
        assert attacks["placeholder"] == "⚔️ Attack"
        assert all(o["value"].startswith("attack ") for o in attacks["options"])  # (never mixed with builds)
        pv = state.public_view()
        mine, theirs = pv["houses"][0][0]["score"], pv["houses"][1][0]["score"]
        verdict = "you win" if mine > theirs else "they hold, a tie goes to them" if mine == theirs else "they hold"
        option = next(o for o in attacks["options"] if o["value"] == "attack 1 2")
        assert option["description"] == f"your Jack ① (score {mine}) against their Jack ① (score {theirs}): {verdict}"
        # Every card of Ali's hand is either taken by some control or greyed, never both.
        used = {code.split()[1] for code in offered(view.message) if code.split()[0] in ("start", "place")}
        grey = [label for cards in greyed(view.message) for label in named(cards)]
        assert len(grey) == len(set(grey))
        for code in state.view(0)["hand"]:
            assert (code in used) != (BY_CODE[code].label in grey), code
