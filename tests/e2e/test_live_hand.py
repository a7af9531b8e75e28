"""The table follows the player (issue 15): a hand view, once open, is kept current by the bot
through the interaction's token, so a person plays every card with one click; when the token runs
out (or the message is gone) the next turn ping carries a **My hand** button; and nothing happens
silently — a move the clock made says so on the table, a second missed turn warns, a third hands
the seat to the AI with a ping that says how to come back, and **I'm back** does.

All through the real bot and the fake Discord; the world's closing checks (privacy, answers in
3 s, no 429, at most 5 edits of a message in 5 s, no error logged) run after each test.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from typing import Any

from tests.e2e.conftest import World, make_world
from tests.e2e.test_koth_game import SEED as KOTH_SEED
from tests.e2e.test_koth_game import TABLE_PACE, open_koth
from tests.fakediscord import payloads as P
from tests.fakediscord.play import open_table, play_seat, table_controls
from tests.fakediscord.server import Message
from tests.fakediscord.users import Person, Reply


def people_interactions(w: World, person: Person) -> list[Any]:
    return [i for i in w.fd.interactions.values() if i.user_id == person.id]


def hand_views_opened(w: World, person: Person) -> list[Any]:
    """Interactions by which the person opened a hand view (My hand, /hand, Refresh)."""
    out = []
    for i in people_interactions(w, person):
        cid = str(i.data.get("custom_id") or "")
        if cid.startswith(("dh:t:hand:", "dh:t:refresh:")) or i.data.get("name") == "hand":
            out.append(i)
    return out


def start_notice(w: World, table_message: Message) -> Message | None:
    """The game's first message in its thread (My hand, I'm back), once it is there."""
    try:
        return table_controls(w.fd, table_message)
    except AssertionError:
        return None


def ping_buttons(w: World, person: Person) -> list[Message]:
    return [m for m in person.pings() if any(b.get("label") == "My hand" for b in m.buttons())]


async def test_one_hand_view_plays_a_whole_hearts_hand(w: World) -> None:
    """Ali opens her hand once, in the thread, with My hand on the game's first message there; Bob
    keeps the answer to his /game join, which becomes his hand when the game starts.  Neither
    presses My hand or Refresh again for the whole hand: the bot edits their views when their turn
    comes, a pass arrives or a trick ends."""
    views: dict[int, Reply] = {}
    table_message = await open_table(w.ali, [w.bob], options="target=1", views=views)
    thread = w.thread_of(table_message)
    table = w.table(table_message)
    assert "Your hand will show up here" in views[w.bob.id].message.versions[0].text
    await w.until(lambda: "Your hand" in views[w.bob.id].message.text, what="Bob's join answer showing his hand")
    start = await w.until(lambda: start_notice(w, table_message), what="the thread's start notice")
    assert start.channel_id == thread.id and start.id == thread.messages[0]
    mine = await w.ali.click(start, "My hand")
    assert mine.ephemeral and "Your hand" in mine.text and mine.message.channel_id == thread.id

    logs = await asyncio.gather(
        play_seat(w.ali, table_message, rng=random.Random(1), view=mine),
        play_seat(w.bob, table_message, rng=random.Random(2), view=views[w.bob.id]),
    )
    assert table.state.is_over
    for log in logs:
        assert log.opened == 0, (log.person.name, log.why_opened)
        assert log.moves == 14 and not log.refusals  # a pass and 13 cards, each one click
    assert len(hand_views_opened(w, w.ali)) == 1 and hand_views_opened(w, w.bob) == []
    # Every click after the lobby was a move: 14 each, plus Ali's one My hand.
    assert len(people_interactions(w, w.bob)) == 1 + 14  # /game join, then moves
    # The views were edited through the interactions' tokens, never more than once a second each.
    edits = w.fd.token_edits()
    assert len(edits) >= 10
    for view in (mine.message, views[w.bob.id].message):
        times = [v.sent for v in view.versions if v.source == "edit"]  # as the bot sent them
        assert times and all(b - a >= 0.95 for a, b in zip(times, times[1:], strict=False)), times
    # Pings after the start notice carried no My hand button: the views were live.
    assert ping_buttons_after(w.ali, start.id) == [] and ping_buttons_after(w.bob, start.id) == []
    assert all(m.channel_id == thread.id for m in w.ali.pings() + w.bob.pings())
    # The live view said why cards could not be played and who leads.
    seen = "\n".join(v.text for view in (mine.message, views[w.bob.id].message) for v in view.versions)
    assert "🚫" in seen and ("You won the last trick" in seen or "Last trick:" in seen)
    disabled = [b for view in (mine.message, views[w.bob.id].message) for v in view.versions
                for b in P.walk_components(v.components) if b.get("disabled")]
    assert disabled, "unplayable cards are shown as disabled buttons"


async def test_one_hand_view_plays_a_king_of_the_hill_deal() -> None:
    """Bob keeps his join answer as his hand for a whole King of the Hill round — the live deal
    (cards arrive in the view as they are dealt, no Refresh), the bury or the call if they fall to
    him, and every trick — and Ali opens hers once, in the thread, from the game's first message
    there (no turn is due during the deal: that message is posted anyway)."""
    async with make_world(seed=KOTH_SEED, runtime_options={"table_pace": TABLE_PACE}) as w:
        table_message = await open_koth(w)
        table = w.table(table_message)
        thread = w.thread_of(table_message)
        # The answer to Bob's /game join: his hand once the game runs.
        views = {i.user_id: Reply(w.bob, i) for i in w.fd.interactions.values()
                 if i.label == "/game join" and i.user_id == w.bob.id}
        start = await w.until(lambda: start_notice(w, table_message), what="the thread's start notice")
        views[w.ali.id] = await w.ali.click(start, "My hand")
        assert views[w.ali.id].message.channel_id == thread.id and "Your hand" in views[w.ali.id].text
        bob_view = views[w.bob.id]
        # Bob's view fills up during the deal without him doing anything.
        await w.until(lambda: "cards dealt" in bob_view.message.text, 10.0, "the deal in Bob's view")
        counts = {int(m.group(1)) for v in bob_view.message.versions
                  for m in [re.search(r"(\d+)/100 cards dealt", v.text)] if m}
        logs = await asyncio.gather(
            play_seat(w.ali, table_message, rng=random.Random(3), view=views[w.ali.id], timeout=120),
            play_seat(w.bob, table_message, rng=random.Random(4), view=bob_view, timeout=120),
        )
        assert table.state.is_over
        # (the deal runs 20 times faster here: the view, edited once a second, catches part of it)
        assert counts, "the deal never showed up in Bob's view"
        sizes = {int(m.group(1)) for v in bob_view.message.versions
                 for m in [re.search(r"(\d+) cards, trumps first", v.text)] if m}
        assert len(sizes) >= 2, f"Bob's cards never changed in his view: {sizes}"
        assert not any("Refresh" in v.content for v in bob_view.message.versions), "no one is asked to Refresh"
        for log in logs:
            assert log.opened == 0, (log.person.name, log.why_opened)
            assert log.moves >= 1
        assert len(hand_views_opened(w, w.ali)) == 1 and hand_views_opened(w, w.bob) == []


async def test_after_the_token_runs_out_the_ping_brings_a_working_button() -> None:
    """Tokens live 2 s in this Discord: Ali's view from /game start can no longer be edited when her
    turn comes after a 3 s AI pause, so the ping carries My hand, which opens a fresh live view."""
    async with make_world(token_lifetime=2.0, runtime_options={"ai_delay": 3.0}) as w:
        w.allow(r"token used after 2 s")  # the bot learns that the token ran out by trying it
        views: dict[int, Reply] = {}
        table_message = await open_table(w.ali, [], options="target=1", views=views)
        start = views[w.ali.id]
        assert start.message.selects(), "the start answer is Ali's hand with the pass menu"
        menu = start.message.selects()[0]
        passed = await w.ali.choose(start.message, [o["value"] for o in menu["options"][:3]],
                                    custom_id=menu["custom_id"])
        assert passed.text.startswith("✅")
        mark = w.fd.ids.last
        # The AIs pass 3 s later, then Ali's turn comes (she leads, or the AIs play up to her).
        ping = await w.until(lambda: [m for m in w.ali.pings(mark)
                                      if any(b.get("label") == "My hand" for b in m.buttons())],
                             15.0, "a ping with a My hand button")
        assert "press **My hand** below" in ping[-1].content
        fresh = await w.ali.click(ping[-1], "My hand")
        assert fresh.ephemeral and "Your hand" in fresh.text
        assert fresh.message.channel_id == ping[-1].channel_id  # in the thread, where the game is
        playable = [b for b in fresh.message.buttons() if b["custom_id"].startswith("dh:a:") and not b.get("disabled")]
        assert playable, fresh.text
        played = await w.ali.click(fresh.message, custom_id=playable[0]["custom_id"])
        assert played.text.startswith("✅"), played.text
        assert w.table(table_message).seats[0].missed == 0


async def test_a_dismissed_view_is_replaced_by_a_button_on_the_next_ping(w: World) -> None:
    """Bob passes from his join answer, then dismisses it: his next turn's ping carries My hand
    (the bot found the message gone when it tried to show him his turn)."""
    views: dict[int, Reply] = {}
    table_message = await open_table(w.ali, [w.bob], options="target=1", views=views)
    bob_view = views[w.bob.id]
    await w.until(lambda: bob_view.message.selects(), what="Bob's join answer showing his pass menu")
    menu = bob_view.message.selects()[0]
    passed = await w.bob.choose(bob_view.message, [o["value"] for o in menu["options"][:3]],
                                custom_id=menu["custom_id"])
    assert passed.text.startswith("✅") and passed.message is bob_view.message
    w.bob.dismiss(bob_view.message)
    mark = w.fd.ids.last
    ali = asyncio.create_task(play_seat(w.ali, table_message, rng=random.Random(5), view=views[w.ali.id]))
    try:
        ping = await w.until(lambda: ping_buttons_after(w.bob, mark), 20.0, "a ping to Bob with My hand")
        fresh = await w.bob.click(ping[-1], "My hand")
        assert fresh.ephemeral and fresh.message.channel_id == w.thread_of(table_message).id
        log = await play_seat(w.bob, table_message, rng=random.Random(6), view=fresh)
        assert log.opened == 0 and log.moves == 13, log.why_opened
    finally:
        await ali


def ping_buttons_after(person: Person, mark: int) -> list[Message]:
    return [m for m in person.pings(mark) if any(b.get("label") == "My hand" for b in m.buttons())]


class FastClock:
    """The runtime's clock, ``factor`` times faster than real time: a 15 s blitz deadline runs out
    in under a second (Discord's own timings, the 3 s answer included, are real)."""

    def __init__(self, factor: float) -> None:
        self.factor = factor
        self.origin = time.time()

    def now(self) -> float:
        return self.origin + (time.time() - self.origin) * self.factor

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds) / self.factor)

    def real(self, at: float) -> float:
        """A time of this clock on the wall clock (what the fake Discord stamps messages with)."""
        return self.origin + (at - self.origin) / self.factor


async def test_missed_turns_are_said_warned_and_handed_to_the_ai_until_im_back() -> None:
    factor = 40.0
    clock = FastClock(factor)
    options = {"clock": clock, "redraw_interval": factor, "ai_delay": 0.3 * factor}
    async with make_world(runtime_options=options) as w:
        w.runtime.listener.live.interval = factor  # a live view is still edited at most once a second
        views: dict[int, Reply] = {}
        table_message = await open_table(w.ali, [], options="target=100", views=views, speed="blitz")
        table = w.table(table_message)
        start = views[w.ali.id]
        # Ali does nothing: the pass, then two plays, are made by the clock.
        await w.until(lambda: table.seats[0].away, 30.0, "the AI taking over Ali's seat")
        thread = w.thread_of(table_message)
        # The table said so each time ("Ali's time ran out — ...").
        # (the table message is redrawn at most once a second: the line of the last miss may come later)
        def lines() -> set[str]:
            return {line for v in table_message.versions for line in v.text.splitlines() if "time ran out" in line}

        await w.until(lambda: any(re.search(r"Ali's time ran out — played \S+", line) for line in lines()), 5.0,
                      "a clock line for a card the clock played")
        assert any("chose 3 cards to pass" in line for line in lines()), lines()
        # Her live view warned her after the second miss, then said the AI plays for her.
        await w.until(lambda: "AI is playing your seat" in start.message.text, 5.0, "the view saying so")
        seen = "\n".join(v.text for v in start.message.versions)
        assert "If it runs out once more" in seen and "Your time ran out" in seen
        # One ping says the AI plays her seat and how to come back, with I'm back on it.
        away = await w.until(lambda: [m for m in w.ali.pings() if "AI is playing your" in m.content], 5.0,
                             "the away ping")
        assert len(away) == 1 and away[0].channel_id == thread.id
        assert "I'm back" in away[0].content and [b["label"] for b in away[0].buttons()] == ["I'm back"]
        back = await w.ali.click(away[0], "I'm back")
        assert back.ephemeral and "Welcome back" in back.text and "Your hand" in back.text
        assert not table.seats[0].away and table.seats[0].missed == 0
        again = await w.ali.click(table_controls(w.ali.fd, table_message), "I'm back")
        assert again.ephemeral and "not away" in again.text
        await w.runtime.end(table.id, w.ali.id)
        # The closing privacy check compares the log's times with the fake's wall-clock stamps
        # (the table may have left memory by then: its log is read from the database).
        w.real_time = clock.real
