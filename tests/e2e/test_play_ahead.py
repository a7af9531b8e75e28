"""Play ahead (issue 34, docs/rules.md "Play ahead") through the real bot and the fake Discord: while
the others play, Ali chooses her card in her own hand view ("Will play …" with Cancel); it is played
the moment her turn comes if it still may be, else dropped with a word in her view alone and she
chooses as usual; Cancel forgets it; a table opened with ``ahead=off`` offers none of it.  Nobody
else sees anything of it: Bob's view and the public messages are the same, byte for byte, with and
without a card chosen ahead (and the world's closing privacy check runs after each test).  Each
test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from cogs.table import renderers
from engine.core import Action
from tables.live import TableError
from tests.e2e.conftest import World, in_flight, make_world, runtime_idle
from tests.fakediscord.play import open_table, said
from tests.fakediscord.server import Message
from tests.fakediscord.users import Person, Reply
from tests.tables.stores import Store

WILL_PLAY = "Will play {card} when your turn comes — **Cancel** to choose again."
DROPPED = "{card}, chosen ahead, cannot be played now: choose a card."
OFF = "Choosing a card before your turn is off at this table."


@pytest.fixture
async def w(database: Store) -> AsyncIterator[World]:
    """The world on a database of each backend."""
    async with make_world(config={"database_url": database.url}) as world:
        yield world


def card_words(code: str) -> str:
    """A card as the hand view names it (its button's label)."""
    return renderers.renderer_for("tricks").action_label(Action.parse(code))


def ids(m: Message, prefix: str, *, enabled: bool = True) -> list[str]:
    return [b["custom_id"] for b in m.buttons()
            if b.get("custom_id", "").startswith(prefix) and (not enabled or not b.get("disabled"))]


def ahead_id(tid: str, code: str) -> str:
    return f"dh:h:{tid}:{code.replace(' ', '_')}"


async def settle(w: World) -> None:
    """Every click answered, nothing on its way, no redraw wanted, no hand view's edit wanted or
    under way: what everyone sees is final."""
    live = w.bot.get_cog("GameCog").live

    def quiet() -> bool:
        return (not w.fd.unanswered() and not in_flight(w.fd) and runtime_idle(w.runtime, redraws=True)
                and not any(live.editing(tid) for tid in w.runtime.tables))

    await w.fd.settle_clicks()
    await w.until(quiet, 10.0, "nothing on its way")
    await w.until(quiet, 10.0, "nothing on its way")  # (an edit may have asked for the next one)


SNOWFLAKE = re.compile(r"[0-9]{17,20}")


def same_world(text: str) -> str:
    """Ids of Discord's making (messages, channels, people, the card emoji uploaded) as one mark: two
    worlds have their own, and everything else must read the same."""
    return SNOWFLAKE.sub("#", text)


def others_see(w: World, ali: Person) -> list[str]:
    """Every message but Ali's own ephemeral ones, as it reads now (content, embeds, components)."""
    out = []
    for m in sorted(w.fd.messages.values(), key=lambda m: m.id):
        if m.ephemeral and m.ephemeral_to == ali.id:
            continue
        out.append(same_world(repr((m.channel_id, m.ephemeral_to, m.content, m.embeds, m.components, m.deleted))))
    return out


async def open_tricks(w: World, options: str = "target=1") -> tuple[Message, dict[int, Reply]]:
    views: dict[int, Reply] = {}
    table_message = await open_table(w.ali, [w.bob], game="tricks", options=options, speed="untimed", views=views)
    return table_message, views


async def bob_plays(w: World, t: Any, bob: Reply) -> None:
    """Bob's turn: his live view lights his cards; he plays the first he may."""
    await w.until(lambda: ids(bob.message, "dh:a:") and 1 in t.to_act(), 10.0, "Bob's turn in his view")
    r = await w.bob.click(bob.message, custom_id=ids(bob.message, "dh:a:")[0])
    assert not r.failed


async def ali_plays(w: World, t: Any, ali: Reply) -> str:
    await w.until(lambda: ids(ali.message, "dh:a:") and 0 in t.to_act(), 10.0, "Ali's turn in her view")
    custom_id = ids(ali.message, "dh:a:")[0]
    await w.ali.click(ali.message, custom_id=custom_id)
    return custom_id.split(":", 4)[4].replace("_", " ")


async def test_a_card_chosen_ahead_is_played_when_the_turn_comes_or_dropped_with_a_word_to_its_holder(
        w: World) -> None:
    table_message, views = await open_tricks(w)
    t = w.table(table_message)
    ali, bob = views[w.ali.id], views[w.bob.id]
    played = dropped = cancelled = 0
    for trick in range(13):
        if t.state.is_over or (played and dropped and cancelled):
            break
        # Whoever leads, Ali chooses ahead when her view offers it (the others play).
        await w.until(lambda: t.state.is_over or set(t.to_act()) & {0, 1}, 10.0, "a person's turn")
        if 0 in t.to_act():
            await ali_plays(w, t, ali)
            await w.until(lambda: t.state.is_over or 1 in t.to_act() or 0 in t.to_act(), 10.0, "Bob's turn")
            continue
        await w.until(lambda: ids(ali.message, "dh:h:"), 10.0, "Ali's cards chosen ahead in her view")
        await settle(w)
        hand = t.state.view(0)["hand"]
        before = others_see(w, w.ali)
        bob_before = (bob.message.content, repr(bob.message.components), len(bob.message.versions))
        # Her longest suit and her shortest, in turn: some choices stay legal, some not.
        by_suit: dict[str, list[str]] = {}
        for c in hand:
            by_suit.setdefault(c[-1], []).append(c)
        suits = sorted(by_suit.values(), key=len)
        card = (suits[-1] if trick % 2 else suits[0])[0]
        code = f"play {card}"
        r = await w.ali.click(ali.message, custom_id=ahead_id(t.id, code))
        assert r.message is ali.message and said(w.ali, WILL_PLAY, card=card_words(code)) in ali.message.content
        assert card not in ali.message.content.replace(card_words(code), "")  # named in words, never its code
        assert ids(ali.message, f"dh:h:{t.id}:-"), "Cancel"
        if trick == 1 and not cancelled:
            r = await w.ali.click(ali.message, custom_id=f"dh:h:{t.id}:-")
            assert "Will play" not in ali.message.content and not ids(ali.message, f"dh:h:{t.id}:-")
            assert w.runtime.seat_view(t.id, w.ali.id).ahead is None
            cancelled += 1
            await w.ali.click(ali.message, custom_id=ahead_id(t.id, code))  # and chosen again
        await settle(w)
        # Nobody else saw anything of it.
        assert others_see(w, w.ali) == before
        assert (bob.message.content, repr(bob.message.components), len(bob.message.versions)) == bob_before
        entries = len(t.log)
        await bob_plays(w, t, bob)
        await w.until(lambda n=entries: t.state.is_over or 0 in t.to_act() or any(e.seat == 0 for e in t.log[n:]),
                      10.0, "Ali's turn")
        mine = [e for e in t.log[entries:] if e.seat == 0]
        if mine:
            assert [(e.code, e.auto) for e in mine] == [(code, False)]  # her own move, the moment it came
            await w.until(lambda: "Will play" not in ali.message.content, 10.0, "her view after the card")
            played += 1
        else:
            word = said(w.ali, DROPPED, card=card_words(code))
            await w.until(lambda w_=word: w_ in ali.message.content, 10.0, "the word that it was dropped")
            assert all(word not in m.text for m in w.fd.messages.values() if m.ephemeral_to != w.ali.id)
            await ali_plays(w, t, ali)
            dropped += 1
    assert played and dropped and cancelled, (played, dropped, cancelled)
    # Only Ali's own views ever said anything of it.
    for m in w.fd.messages.values():
        if m.ephemeral_to != w.ali.id:
            assert all("Will play" not in v.text and "chosen ahead" not in v.text for v in m.versions), m
            # (Bob's own view has his own cards to choose ahead; nothing public has any)
            assert m.ephemeral or not any("dh:h:" in repr(v.components) for v in m.versions), m


async def _two_tricks(w: World, ahead: str | None) -> tuple[str, list[str], tuple[str, str]]:
    """Ali leads, Bob follows; Ali's next card either clicked when her turn comes (``ahead`` None:
    the first she may) or chosen ahead (``ahead``: that card) while Bob plays.  Returns the card,
    what everyone but Ali sees once all is settled, and Bob's view."""
    # The card emoji first (uploaded as the bot starts): the two worlds must draw cards alike.
    assert await asyncio.wait_for(w.bot.emoji_task, 30.0) == "ready"
    table_message, views = await open_tricks(w)
    t = w.table(table_message)
    ali, bob = views[w.ali.id], views[w.bob.id]
    await ali_plays(w, t, ali)
    chosen = None
    while True:
        await w.until(lambda: set(t.to_act()) & {0, 1}, 10.0, "a person's turn")
        if any(e.seat == 0 for e in t.log[1:]):
            break  # (Ali's second card is down and it is a person's turn again: Bob's)
        if 1 in t.to_act():
            if ahead is not None and chosen is None:
                await w.until(lambda: ids(ali.message, "dh:h:"), 10.0, "Ali's cards chosen ahead")
                await settle(w)
                before = others_see(w, w.ali), bob.message.content, repr(bob.message.components)
                await w.ali.click(ali.message, custom_id=ahead_id(t.id, ahead))
                await settle(w)
                # With and without a card chosen ahead: the same, byte for byte.
                assert (others_see(w, w.ali), bob.message.content, repr(bob.message.components)) == before
                chosen = ahead
            await bob_plays(w, t, bob)
        else:
            assert ahead is None, "the card chosen ahead was played"
            chosen = await ali_plays(w, t, ali)
    await settle(w)
    assert chosen is not None
    return chosen, others_see(w, w.ali), (same_world(bob.message.content), same_world(repr(bob.message.components)))


async def test_what_the_others_see_is_the_same_with_and_without_a_card_chosen_ahead(
        databases: Callable[[], Awaitable[Store]]) -> None:
    """The same seeded game twice (each on an empty database of its own): Ali clicks her second card
    when her turn comes, then chooses that card ahead instead.  The table message, Bob's view and
    every message but Ali's own read the same, byte for byte."""
    async with make_world(seed=5, config={"database_url": (await databases()).url}) as w:
        code, clicked, bob_clicked = await _two_tricks(w, None)
    async with make_world(seed=5, config={"database_url": (await databases()).url}) as w:
        _, ahead, bob_ahead = await _two_tricks(w, code)
        t = next(iter(w.runtime.tables.values()))
        assert [e.auto for e in t.log if e.seat == 0] == [False, False]
    assert bob_ahead == bob_clicked
    assert ahead == clicked


async def test_a_table_opened_with_ahead_off_offers_none_of_it(w: World) -> None:
    table_message, views = await open_tricks(w, "target=1 ahead=off")
    assert "no choosing ahead" in table_message.versions[0].text  # the lobby says so, in words
    t = w.table(table_message)
    assert t.play_ahead is False
    ali = views[w.ali.id]
    await ali_plays(w, t, ali)
    await w.until(lambda: 1 in t.to_act() and not ids(ali.message, "dh:a:"), 10.0, "Ali waiting")
    assert not ids(ali.message, "dh:h:", enabled=False)
    assert ids(ali.message, "dh:a:", enabled=False)  # her cards, waiting (disabled)
    # (A click made up with such an id never reaches the bot: discord.py answers only ids the message
    # carries.)  The runtime refuses it all the same, and nothing changes.
    before = w.snapshot(table_message)
    with pytest.raises(TableError) as refused:
        await w.runtime.play_ahead(t.id, w.ali.id, f"play {t.state.view(0)['hand'][0]}")
    assert refused.value.code == "ahead_off" and refused.value.say("en") == OFF
    assert w.snapshot(table_message) == before and w.runtime.seat_view(t.id, w.ali.id).ahead is None
