"""Every refusal is one ephemeral sentence to the person who tried, and changes nothing: not your
turn, not seated, a stale button or menu, an unknown id, a double click, the wrong phase, not the
host.  Each is checked through the wire against a snapshot of the table taken just before."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from engine.cards import card
from tests.e2e.conftest import World
from tests.fakediscord import Person, Reply
from tests.fakediscord.play import open_table, running_buttons_shown, table_controls, table_id_of
from tests.fakediscord.server import Message

EDIT = "PATCH /channels/{channel_id}/messages/{message_id}"
TOKEN_EDIT = "PATCH /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"


def assert_refused(reply: Reply, *words: str) -> None:
    assert not reply.failed, f"{reply.interaction.label}: the person saw 'This interaction failed'"
    assert reply.ephemeral, f"{reply.interaction.label}: a refusal must be ephemeral, got {reply!r}"
    assert all(m.ephemeral for m in reply.messages), "a refusal posted something public"
    text = reply.text
    assert re.match(r"^\S.*[.!)]$", text, re.S), f"not a sentence: {text!r}"
    assert "Your hand" not in text
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"


async def refused(w: World, table: Message | str, attempt: Any, *words: str) -> Reply:
    """Run ``attempt`` (an awaitable interaction) and check it was refused with nothing changed."""
    before = w.snapshot(table)
    reply = await attempt
    assert_refused(reply, *words)
    assert w.snapshot(table) == before, f"{reply.interaction.label} changed the table"
    return reply


async def _to_the_play(w: World, table_message: Message) -> tuple[Person, Person, Any]:
    """Both people pass; then wait until a person must play.  Returns (to play, waiting, table)."""
    table = w.table(table_message)
    for p in (w.ali, w.bob):
        hand = await p.click(table_controls(p.fd, table_message), "My hand")
        menu = hand.message.selects()[0]
        r = await p.choose(hand.message, [o["value"] for o in menu["options"][:3]])
        assert r.text.startswith("✅"), r.text
    await w.until(lambda: table.state.public_view()["phase"] == "play"
                  and set(table.to_act()) & {0, 1}, what="a person to play")
    seat = table.to_act()[0]
    people = (w.ali, w.bob)
    return people[seat], people[1 - seat], table


async def test_refusals_in_the_lobby(w: World) -> None:
    ali, bob, stranger = w.ali, w.bob, w.stranger
    new = await ali.slash("game new", game="hearts")
    table_message = new.message
    tid = table_id_of(table_message)

    await refused(w, tid, stranger.slash("hand"), "not seated")
    await refused(w, tid, stranger.slash("play", cards="QS"), "not seated")
    await refused(w, tid, stranger.click(table_message, "Start"), "Only the host", "Ali")
    await refused(w, tid, stranger.click(table_message, "Leave"), "not seated")
    await refused(w, tid, ali.slash("play", cards="QS"), "not started")
    await refused(w, tid, ali.slash("hand"), "not started")
    await refused(w, tid, ali.click(table_message, "Join"), "already have a seat")
    await refused(w, tid, ali.slash("game join", id="ZZZZZZ"), "no table with id `ZZZZZZ`")
    await refused(w, tid, ali.slash("game new", game="hearts"), "already seated", tid)
    await refused(w, tid, stranger.slash("game end", id="ZZZZZZ"), "no table with id")
    await refused(w, tid, stranger.slash("game new", game="hearts", options="target=lots"), "target")
    assert len(w.runtime.tables) == 1  # the refused /game new opened nothing

    await bob.slash("game join")  # the open table in this channel
    await refused(w, tid, bob.slash("game start"), "Only the host")
    await refused(w, tid, bob.slash("game ai"), "Only the host")
    await refused(w, tid, bob.slash("game end"), "Only the host")
    await refused(w, tid, bob.slash("game join", id=tid), "already have a seat")


async def test_a_lobby_button_pressed_after_the_start(w: World) -> None:
    """The table message can still show Join after Start (redraws are coalesced, and Discord may be
    slow to deliver the edit): Discord holds the redraw until the old buttons were pressed, so the
    order is certain rather than a bet on the redraw's pace."""
    new = await w.ali.slash("game new", game="hearts", options="target=1")
    lobby = new.message
    redraws = asyncio.Event()
    w.fd.hold(TOKEN_EDIT, until=redraws, times=100)
    w.fd.hold(EDIT, until=redraws, times=100)
    try:
        await w.ali.slash("game start")
        assert "Join" in [b["label"] for b in lobby.buttons()]  # not redrawn yet
        await refused(w, lobby, w.stranger.click(lobby, "Join"), "already started")
        await refused(w, lobby, w.ali.click(lobby, "Start"), "already started")
    finally:
        redraws.set()
    await w.until(lambda: running_buttons_shown(w.fd, lobby), what="the redraw")


async def test_refusals_during_the_game(w: World) -> None:
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    tid = table_id_of(table_message)
    host = w.ali

    # Wrong phase: the lobby's commands once the game runs.
    await refused(w, tid, host.slash("game start"), "already started")
    await refused(w, tid, host.slash("game ai"), "before the game starts")
    await refused(w, tid, w.stranger.slash("game join", id=tid), "already started")
    await refused(w, tid, w.stranger.click(table_controls(w.stranger.fd, table_message), "My hand"), "not seated")
    await refused(w, tid, w.bob.slash("game join", id=tid), "already playing")

    # A stale menu: Ali opens her hand twice, passes from the second view, then uses the first.
    first = await w.ali.click(table_controls(w.ali.fd, table_message), "My hand")
    second = await w.ali.slash("hand", where=w.thread_of(table_message))
    values = [o["value"] for o in second.message.selects()[0]["options"][:3]]
    passed = await w.ali.choose(second.message, values)
    assert passed.text.startswith("✅") and "You pass" in passed.text
    await refused(w, tid, w.ali.choose(first.message, values), "earlier turn")

    # Not your turn, and words that are no card.
    to_play, waiting, table = await _bob_passes_then_play(w, table_message)
    theirs = table.state.view(table.seat_of(waiting.id))["hand"][0]
    await refused(w, tid, waiting.slash("play", cards=theirs), "not your turn", to_play.name)
    await refused(w, tid, to_play.slash("play", cards="banana"))

    # A stale button: a hand view from before a move, used after it.
    old = await to_play.slash("hand", where=w.thread_of(table_message))
    fresh = await to_play.click(table_controls(to_play.fd, table_message), "My hand")
    button = next(b for b in fresh.message.buttons() if b["custom_id"].startswith("dh:a:"))
    moved = await to_play.click(fresh.message, custom_id=button["custom_id"])
    assert moved.text.startswith("✅"), moved.text
    old_button = next(b for b in old.message.buttons() if b["custom_id"].startswith("dh:a:")
                      and b["custom_id"] != button["custom_id"])
    await refused(w, tid, to_play.click(old.message, custom_id=old_button["custom_id"]), "earlier turn")


async def _bob_passes_then_play(w: World, table_message: Message) -> tuple[Person, Person, Any]:
    table = w.table(table_message)
    hand = await w.bob.click(table_controls(w.bob.fd, table_message), "My hand")
    menu = hand.message.selects()[0]
    r = await w.bob.choose(hand.message, [o["value"] for o in menu["options"][:3]])
    assert r.text.startswith("✅"), r.text
    await w.until(lambda: table.state.public_view()["phase"] == "play" and set(table.to_act()) & {0, 1},
                  what="a person to play")
    seat = table.to_act()[0]
    people = (w.ali, w.bob)
    return people[seat], people[1 - seat], table


async def test_a_double_click_plays_once(w: World) -> None:
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    to_play, _, table = await _to_the_play(w, table_message)
    hand = await to_play.click(table_controls(to_play.fd, table_message), "My hand")
    button = next(b for b in hand.message.buttons() if b["custom_id"].startswith("dh:a:"))
    before = len(table.log)
    # Two clicks leave before the first answer arrives, both from the same view of the message.
    first, second = await asyncio.gather(to_play.click(hand.message, custom_id=button["custom_id"]),
                                         to_play.click(hand.message, custom_id=button["custom_id"]))
    outcomes = sorted([first, second], key=lambda r: not r.text.startswith("✅"))
    assert outcomes[0].text.startswith("✅")
    assert_refused(outcomes[1], "earlier turn")
    mine = [e for e in table.log[before:] if not e.auto]
    assert [e.code for e in mine] == [f"play {button['custom_id'].rsplit('_', 1)[1]}"]


async def test_a_card_you_do_not_hold_or_may_not_play(w: World) -> None:
    table_message = await open_table(w.ali, [w.bob], options="target=1")
    to_play, waiting, table = await _to_the_play(w, table_message)
    seat = table.seat_of(to_play.id)
    decision = table.state.decision(seat)
    legal = {a.cards[0].code for a in decision.actions}
    held = table.state.view(seat)["hand"]
    illegal = [c for c in held if c not in legal]
    elsewhere = table.state.view(table.seat_of(waiting.id))["hand"][0]
    tid = table.id
    await refused(w, tid, to_play.slash("play", cards=elsewhere))
    if illegal:
        await refused(w, tid, to_play.slash("play", cards=card(illegal[0]).label))
    # And /play's suggestions are exactly the legal cards.
    suggested = await to_play.autocomplete("play", "cards", "", where=w.thread_of(table_message))
    assert {s["value"].split()[-1] for s in suggested} == legal
    assert await waiting.autocomplete("play", "cards", "", where=w.thread_of(table_message)) == []
