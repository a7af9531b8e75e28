"""Whole games through the real cog handlers with the light fakes, for any game: open the table
with the lobby buttons, then let two people play every decision from their hand views' components
(buttons, action menus, card menus, the part menus of a big pick) until the final standings.

The privacy check is the game's own: codes repeat in Dalmuti, Siege and King of the Hill, so what
may not be shown is exactly ``state.hidden_from(None)`` at the moment of each public send or edit,
looked for as codes and as the words the game's renderer uses for them.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from cogs.table.components import (
    ACTION_TEMPLATE,
    DONE_TEMPLATE,
    MENU_TEMPLATE,
    PART_TEMPLATE,
    PICK_TEMPLATE,
    TABLE_TEMPLATE,
    card_values,
    decode_code,
    value_code,
)
from cogs.table.custom_ids import REPLAY_TEMPLATE
from cogs.table.render import embed_text
from engine.core import Action
from tests.cogs.conftest import Harness
from tests.cogs.fakes import FakeMessage, FakeUser, custom_ids, is_disabled
from tests.fakediscord.payloads import message_problems

_NUMBER_WORDS = ("a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                 "twelve")


def spoken_forms(game: str, code: str) -> list[re.Pattern[str]]:
    """How a card code could show in a message of ``game``."""
    forms = [re.compile(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])")]
    if game == "dalmuti":
        if code == "JJ":
            forms.append(re.compile(r"Jester"))
        else:
            n = code[1:]
            words = "|".join(_NUMBER_WORDS)
            forms.append(re.compile(rf"\b(?:{words}) {n}s?\b"))
            forms.append(re.compile(rf"(?<![0-9]){n} ×"))
        return forms
    if game == "siege":
        from games.siege.rules import BY_CODE

        lab = BY_CODE[code].label
    else:
        from engine.cards import card

        lab = card(code).label
    forms.append(re.compile(rf"(?<![A-Za-z0-9]){re.escape(lab)}"))
    return forms


def discord_problems(content: str | None, embed: discord.Embed | None, view: Any) -> list[str]:
    """What Discord would refuse in this message (lengths, rows, menus, duplicate ids...)."""
    body = {"content": content, "embeds": [embed.to_dict()] if embed is not None else [],
            "components": view.to_components() if isinstance(view, discord.ui.View) else []}
    return message_problems(body)


def install_privacy(h: Harness, game: str) -> None:
    """Replace the fakes' Hearts-minded check of public output with one for ``game`` (and check
    every public message against Discord's limits too)."""
    world = h.world

    def check_public(where: str, content: str | None, embed: discord.Embed | None, view: Any) -> None:
        text = "\n".join(p for p in (content or "", embed_text(embed) if embed is not None else "") if p)
        world.public.append((where, text))
        world.violations.extend(f"{where}: {p}" for p in discord_problems(content, embed, view))
        for code in sorted(world.hidden_now()):
            for form in spoken_forms(game, code):
                m = form.search(text)
                if m:
                    world.violations.append(f"{where}: hidden {code} shown as {m.group(0)!r} in {text!r}")
        for cid in custom_ids(view if isinstance(view, discord.ui.View) else None):
            if not (re.fullmatch(TABLE_TEMPLATE, cid) or re.fullmatch(REPLAY_TEMPLATE, cid)):
                world.violations.append(f"{where}: public component id {cid!r}")

    world.check_public = check_public  # type: ignore[method-assign]


async def open_table(h: Harness, game: str, options: str | None, ais: int | None = None,
                     speed: str = "normal") -> tuple[Any, FakeMessage]:
    """Alice opens the table, Bob joins by button, AIs by button (or ``/game ai count``), Start."""
    install_privacy(h, game)
    i = h.inter(h.alice)
    await h.cog.game_new.callback(h.cog, i, game=game, options=options, speed=speed)
    assert not i.errors and i.original is not None and not i.original.ephemeral, i.last.content
    lobby = i.original
    table = h.runtime.find(1, channel_id=h.channel.id)
    assert table is not None and table.game == game
    await h.settle()
    join = await h.click(h.bob, lobby, f"dh:t:join:{table.id}")
    assert join.last.ephemeral and "You joined table" in join.last.content
    if ais is None:
        await h.click(h.alice, lobby, f"dh:t:ai:{table.id}")
    else:
        i = h.inter(h.alice)
        await h.cog.game_ai.callback(h.cog, i, count=ais)
        assert i.last.ephemeral and f"Added {ais} AI" in i.last.content
    await h.settle()
    start = await h.click(h.alice, lobby, f"dh:t:start:{table.id}")
    assert start.response.deferred is not None
    await h.settle()
    assert table.phase == "running"
    return table, lobby


@dataclass
class Tally:
    moves: Counter[str] = field(default_factory=Counter)  # by kind of control used
    kinds: Counter[str] = field(default_factory=Counter)  # by decision kind
    hand_views: int = 0


def controls(msg: FakeMessage) -> list[Any]:
    """The dynamic items' inner components of a message, in order."""
    return [getattr(i, "item", i) for i in (msg.view.children if msg.view is not None else [])]


def _matches(template: str, item: Any) -> bool:
    return re.fullmatch(template, getattr(item, "custom_id", "") or "") is not None


async def open_hand(h: Harness, user: FakeUser, table: Any, lobby: FakeMessage, by_button: bool) -> FakeMessage:
    if by_button:
        i = await h.click(user, h.controls(table), f"dh:t:hand:{table.id}")
    else:
        i = h.inter(user)
        await h.cog.hand.callback(h.cog, i)
    msg = i.last
    assert msg.ephemeral, "a hand is only ever shown ephemerally"
    assert "Your hand" in msg.content, msg.content
    assert not discord_problems(msg.content, msg.embed, msg.view), discord_problems(msg.content, msg.embed, msg.view)
    return msg


def offered_actions(msg: FakeMessage) -> dict[str, tuple[str, str | None]]:
    """Action code -> (custom id, menu value or None) for every action control on a hand view."""
    out: dict[str, tuple[str, str | None]] = {}
    for item in controls(msg):
        if _matches(ACTION_TEMPLATE, item) and not is_disabled(item):
            out[decode_code(item.custom_id.rsplit(":", 1)[1])] = (item.custom_id, None)
        elif _matches(MENU_TEMPLATE, item):
            assert len(item.options) in range(1, 26)
            for o in item.options:
                out[o.value] = (item.custom_id, o.value)
    return out


def values_for(cards: Any, chosen_codes: list[str]) -> list[str]:
    """The menu values (``D5#2`` style) for ``chosen_codes`` among a menu built from ``cards``."""
    vals = card_values(cards)
    out: list[str] = []
    for code in chosen_codes:
        v = next(v for v in vals if value_code(v) == code and v not in out)
        out.append(v)
    return out


async def play_decision(
    h: Harness, user: FakeUser, table: Any, hand: FakeMessage, seat: int, rng: random.Random,
    prefer: Callable[[Any, list[Action]], Action] | None, tally: Tally,
) -> bool:
    """Make this seat's decision from the hand view's components.  False if nothing was offered."""
    state = table.state
    decision = state.decision(seat)
    assert decision is not None
    items = controls(hand)
    assert len(items) <= 25 and all(len(getattr(i, "options", ())) <= 25 for i in items)
    assert all(len(getattr(i, "custom_id", "") or "") <= 100 for i in items)
    picks = [i for i in items if _matches(PICK_TEMPLATE, i)]
    parts = [i for i in items if _matches(PART_TEMPLATE, i)]
    tally.kinds[decision.kind] += 1
    if parts:
        # A big pick: spread the choice over the part menus (remembered between clicks), then OK.
        assert decision.pick and len(decision.cards) > 25
        chosen = rng.sample(list(decision.cards), decision.pick)
        codes = [c.code for c in chosen]
        all_vals = values_for(decision.cards, codes)
        by_part: dict[str, list[str]] = {}
        for v in all_vals:
            part = next(p for p in parts if v in [o.value for o in p.options])
            by_part.setdefault(part.custom_id, []).append(v)
        for cid, vals in by_part.items():
            i = await h.click(user, hand, cid, values=vals)
            assert i.edited == [hand] and not i.replies, i.last.content
        assert "Chosen (" in hand.content
        ok = next(i for i in controls(hand) if _matches(DONE_TEMPLATE, i) and i.custom_id.endswith(":ok"))
        assert not ok.disabled
        i = await h.click(user, hand, ok.custom_id)
        tally.moves["part menus"] += 1
    elif picks:
        (select,) = picks
        if decision.pick:
            chosen_codes = [c.code for c in rng.sample(list(decision.cards), decision.pick)]
            cards = decision.cards
        else:  # a combination chosen card by card
            action = prefer(state, list(decision.actions)) if prefer else rng.choice(decision.actions)
            chosen_codes = [c.code for c in action.cards]
            objs = {}
            for a in decision.actions:
                objs.update((c.code, c) for c in a.cards)
            option_codes = [value_code(o.value) for o in select.options]
            cards = [objs[c] for c in option_codes]
        assert select.min_values == select.max_values == len(chosen_codes)
        values = values_for(cards, chosen_codes)
        assert len({o.value for o in select.options}) == len(select.options), "menu values must be unique"
        i = await h.click(user, hand, select.custom_id, values=values)
        tally.moves["card menu"] += 1
    else:
        offered = offered_actions(hand)
        if not offered:
            return False
        legal = {a.code for a in decision.actions}
        assert set(offered) <= legal, set(offered) - legal
        actions = [a for a in decision.actions if a.code in offered]
        action = prefer(state, actions) if prefer else rng.choice(actions)
        cid, value = offered[action.code]
        i = await h.click(user, hand, cid, values=[value] if value is not None else None)
        tally.moves["action menu" if value is not None else "button"] += 1
    assert not i.errors, i.errors
    assert i.last.ephemeral
    # ✅ and what was done; a fight (Siege) says who won instead.
    assert i.edited == [hand] and hand.content.startswith(("✅", "⚔️")), i.last.content
    assert not discord_problems(hand.content, hand.embed, hand.view)
    return True


async def play_game(
    h: Harness, table: Any, lobby: FakeMessage, *, max_steps: int = 3000, seed: int = 1,
    prefer: Callable[[Any, list[Action]], Action] | None = None,
    optional: Callable[[Any, int], bool] | None = None,
) -> Tally:
    """Both people play every decision of theirs until the game ends.  ``optional(state, seat)``
    says whether to take a decision that is optional right now (a declaration during a deal)."""
    users = {table.seat_of(h.alice.id): h.alice, table.seat_of(h.bob.id): h.bob}
    rng = random.Random(seed)
    tally = Tally()
    for step in range(max_steps):
        if table.phase == "finished":
            return tally
        state = table.state
        table_step = any(s < 0 for s in state.to_act())
        due = [s for s in table.to_act() if s in users
               and (not table_step or (optional is not None and optional(state, s)))]
        if not due:
            await h.settle()
            continue
        seat = due[0]
        user = users[seat]
        hand = await open_hand(h, user, table, lobby, by_button=bool(step % 2))
        tally.hand_views += 1
        if not await play_decision(h, user, table, hand, seat, rng, prefer, tally):
            await h.settle()
        await h.settle(0.1)
    raise AssertionError("the game did not finish")
