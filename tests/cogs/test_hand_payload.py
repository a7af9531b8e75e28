"""The hand view as Discord's JSON (``components.hand_payload``, what the answers to clicks and the
live views' edits send) is what the layout the module documents gives — built here independently,
from the seat's decision and view, the renderer's words and discord.py's own plain buttons and
selects turned into JSON by its View — in every game and every phase along random playouts, with
and without card emoji; and ``hand_view`` draws the same.  Its kept buttons follow the table's
version, the hand and the decision."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import Any

import discord
import pytest

import engine
from cogs.pictures import emoji, faces
from cogs.pictures.emoji import action_emoji, card_emoji
from cogs.table import components, render, renderers
from cogs.table.components import hand_payload, hand_view
from engine.core import TABLE, Action
from tables.runtime import SeatView
from tables.table import Phase, Seat, Table

STEPS = 160  # moves per playout: a whole Hearts hand with its pass, the openings of the others
NO_BUTTON = "*Some choices have no button: use `/play` for them.*"
TOO_MANY = "*Too many cards for the menus: use `/play` to name them.*"
GREY, GREEN = discord.ButtonStyle.secondary, discord.ButtonStyle.success


def _table(name: str, g: Any) -> Table:
    seats = [Seat(10 + i, f"P*{i}_") if i % 2 == 0 else Seat(None, f"AI {i}", is_ai=True) for i in range(g.players)]
    t = Table(id="ABC234", game=name, options=dict(g.options), speed="normal", guild_id=1, channel_id=2,
              host_id=10, seats=seats, phase=Phase.RUNNING, seed=1)
    t.state = g
    return t


def _seat_views(t: Table, deadline: float | None) -> Iterator[SeatView]:
    g = t.state
    for seat in range(g.players):
        yield SeatView(t, seat, g.view(seat), g.decision(seat), deadline if seat in g.to_act() else None)


# ---- the expected layout, from the module's documentation -----------------------------------------
# One control per legal choice: the whole hand as card buttons (unplayable ones disabled) while
# cards are played one at a time; a "choose N cards" menu for a pick (part menus and OK / Clear
# past 25 cards); a "choose k" menu over the cards of the legal combinations when the renderer
# asks; else a button per action (up to 25, unless the renderer wants menus anyway: Siege), or
# menus of the renderer's groups (up to four, 25 options each, adjacent small groups sharing one)
# with the ungrouped actions as buttons; then
# Hint on a turn, Refresh otherwise, then How to play, each when a row has room.
# Custom ids: see cogs/table/components.py.
def _action_id(t: Table, code: str, version: int | None = None) -> str:
    return f"dh:a:{t.id}:{t.version if version is None else version}:{code.replace(' ', '_')}"


def _has_id(t: Table, code: str) -> bool:
    custom_id = _action_id(t, code)
    return len(custom_id) <= 100 and re.fullmatch(r"dh:a:[A-Z0-9]{6}:[0-9]{1,9}:[A-Za-z0-9~_]{1,80}",
                                                  custom_id) is not None


def _button(t: Table, r: Any, sv: SeatView, a: Action, *, disabled: bool = False) -> discord.ui.Button:
    return discord.ui.Button(label=r.action_label(a, sv)[:80], style=r.action_style(a), emoji=action_emoji(a),
                             custom_id=_action_id(t, a.code), disabled=disabled)


def _values(cards: Sequence[Any]) -> list[str]:
    """A card's menu value: its code, ``#n`` after it when the code is there more than once."""
    total, seen, out = Counter(c.code for c in cards), Counter(), []
    for c in cards:
        seen[c.code] += 1
        out.append(c.code if total[c.code] == 1 else f"{c.code}#{seen[c.code]}")
    return out


def _card_options(r: Any, sv: SeatView, cards: Sequence[Any], chosen: set[str] = frozenset()) -> list[Any]:
    total, seen, options = Counter(c.code for c in cards), Counter(), []
    for c, value in zip(cards, _values(cards), strict=True):
        seen[c.code] += 1
        text, description = r.pick_option(sv, c, seen[c.code], total[c.code])
        options.append(discord.SelectOption(label=text[:100], value=value, emoji=card_emoji(c),
                                            description=description[:100] if description else None,
                                            default=value in chosen))
    return options


def _choose(t: Table, r: Any, sv: SeatView, kind: str, cards: Sequence[Any], n: int) -> discord.ui.Select:
    options = _card_options(r, sv, cards)
    return discord.ui.Select(custom_id=f"dh:s:{t.id}:{t.version}:{kind}", options=options,
                             placeholder=f"Choose {n} card{'s' * (n != 1)}", min_values=min(n, len(options)),
                             max_values=min(n, len(options)))


def _menus(groups: list[tuple[str, list[Any]]]) -> list[tuple[list[str], list[Any]]] | None:
    """Groups in at most four menus of at most 25: a group too big is cut ("♠ 1/2"), then the
    smallest adjacent pair that fits one menu shares it, until four are left; else full menus in
    order, groups running on; else ``None``."""
    menus: list[tuple[list[str], list[Any]]] = []
    for name, members in groups:
        cuts = [members[i:i + 25] for i in range(0, len(members), 25)] or [[]]
        menus += [([name if len(cuts) == 1 else f"{name} {i + 1}/{len(cuts)}"], cut) for i, cut in enumerate(cuts)]
    while len(menus) > 4:
        pairs = [(len(menus[i][1]) + len(menus[i + 1][1]), i) for i in range(len(menus) - 1)]
        size, i = min(pairs)
        if size > 25:
            named = [(name, m) for name, members in groups for m in members]
            if len(named) > 100:
                return None
            return [(list(dict.fromkeys(n for n, _ in named[i:i + 25])), [m for _, m in named[i:i + 25]])
                    for i in range(0, len(named), 25)]
        menus[i:i + 2] = [(menus[i][0] + menus[i + 1][0], menus[i][1] + menus[i + 1][1])]
    return menus


def _whole_hand(t: Table, r: Any, sv: SeatView) -> list[discord.ui.Item[Any]] | None:
    d, hand = sv.decision, (sv.view or {}).get("hand") or []
    if not r.whole_hand or (sv.view or {}).get("phase") != "play" or not 0 < len(hand) <= 25:
        return None
    if d is not None and (d.pick or any(a.kind != "play" or len(a.cards) != 1 or a.args for a in d.actions)):
        return None
    legal = {a.cards[0].code: a for a in (d.actions if d else ()) if _has_id(t, a.code)}
    g = t.state
    if d is None and t.spec.play_ahead and t.play_ahead and not t.seats[sv.seat].auto \
            and sv.seat not in g.to_act() and not g.is_over:
        # Play ahead (tables/ahead.py): every card chooses itself for when the turn comes.
        cards = [Action("play", (render.card(code),)) for code in dict.fromkeys(hand)]
        return [discord.ui.Button(label=r.action_label(a, sv)[:80], emoji=action_emoji(a),
                                  style=GREEN if a.code == sv.ahead else r.action_style(a),
                                  custom_id=f"dh:h:{t.id}:{a.code.replace(' ', '_')}") for a in cards] + (
            [discord.ui.Button(label="Cancel", style=GREY, custom_id=f"dh:h:{t.id}:-")] if sv.ahead else [])
    return [_button(t, r, sv, legal[code]) if code in legal else
            _button(t, r, sv, Action("play", (render.card(code),)), disabled=True) for code in dict.fromkeys(hand)]


def _combo(t: Table, r: Any, sv: SeatView, k: int) -> discord.ui.Select | None:
    d = sv.decision
    if not d.actions or any(len(a.cards) != k or a.args or a.kind != d.kind for a in d.actions):
        return None
    most: dict[str, int] = {}
    card: dict[str, Any] = {}
    for a in d.actions:
        for c in a.cards:
            most[c.code] = max(most.get(c.code, 0), sum(x.code == c.code for x in a.cards))
            card.setdefault(c.code, c)
    hand = list((sv.view or {}).get("hand") or [])
    codes = sorted(most, key=lambda code: hand.index(code) if code in hand else len(hand))
    cards = [card[code] for code in codes for _ in range(most[code])]
    return _choose(t, r, sv, d.kind, cards, k) if len(cards) <= 25 else None


def _big_pick(t: Table, r: Any, sv: SeatView) -> tuple[list[Any], str]:
    d = sv.decision
    marked = (sv.view or {}).get("marked")
    cards = list(d.cards)
    values = _values(cards)
    groups: dict[str, list[tuple[str, Any]]] = {}
    for c, value in zip(cards, values, strict=True):
        groups.setdefault(r.pick_group(sv, c), []).append((value, c))
    parts = _menus(list(groups.items()))
    if marked is None or parts is None:
        return [], TOO_MANY
    assert not t.log  # (so the part menus' version is 0: nobody has moved since marking began)
    want, seen, chosen = Counter(marked), Counter(), set()
    for c, value in zip(cards, values, strict=True):
        seen[c.code] += 1
        if seen[c.code] <= want[c.code]:
            chosen.add(value)
    room = max(0, d.pick - len(chosen))
    by_value = dict(zip(values, cards, strict=True))
    option = {o.value: o for o in _card_options(r, sv, cards, chosen)}  # (copies counted in the whole pick)
    items: list[Any] = []
    for n, (names, members) in enumerate(parts):
        options = [option[value] for value, _ in members]
        here = sum(value in chosen for value, _ in members)
        full = here + room == 0
        items.append(discord.ui.Select(
            custom_id=f"dh:p:{t.id}:0:{d.kind}:{n}", min_values=0, max_values=max(1, min(here + room, len(options))),
            placeholder=" · ".join(names) + (f" (all {d.pick} chosen)" if full else ""), options=options,
            disabled=full))
    verb = d.kind.replace("_", " ").capitalize()
    items.append(discord.ui.Button(label=f"{verb} {len(chosen)}/{d.pick}", style=GREEN, disabled=len(chosen) != d.pick,
                                   custom_id=f"dh:k:{t.id}:{t.version}:{d.kind}:ok"))
    items.append(discord.ui.Button(label="Clear", style=GREY, disabled=not chosen,
                                   custom_id=f"dh:k:{t.id}:0:{d.kind}:clear"))
    shown = " ".join(render.label(by_value[v]) for v in values if v in chosen)
    return items, f"Chosen ({len(chosen)}/{d.pick}): {shown}" if chosen else ""


def _actions(t: Table, r: Any, sv: SeatView) -> tuple[list[Any], str]:
    d = sv.decision
    ordered = [a for a in dict.fromkeys(r.order_actions(sv, d.actions)) if _has_id(t, a.code)]
    note = NO_BUTTON if len(ordered) < len(dict.fromkeys(d.actions)) else ""
    if len(ordered) <= 25 and not r.menus_always:  # (Siege: menus whatever their number)
        return [_button(t, r, sv, a) for a in ordered], note
    loose = [a for a in ordered if r.action_group(sv, a) is None]
    groups: dict[str, list[Action]] = {}
    for a in ordered:
        if r.action_group(sv, a) is not None:
            groups.setdefault(r.action_group(sv, a), []).append(a)
    if len(loose) > 5:
        groups.setdefault("More", []).extend(loose[5:])
        loose = loose[:5]
    menus = _menus(list(groups.items()))
    if menus is not None:
        items: list[Any] = [discord.ui.Select(
            custom_id=f"dh:m:{t.id}:{t.version}:{n}", placeholder=r.menu_placeholder(sv, names)[:150], min_values=1,
            max_values=1, options=[discord.SelectOption(
                label=r.action_label(a, sv)[:100], value=a.code, emoji=action_emoji(a),
                description=(r.action_description(sv, a) or "")[:100] or None) for a in members])
            for n, (names, members) in enumerate(menus)]
        return items + [_button(t, r, sv, a) for a in loose], note
    sizes = {len(a.cards) for a in d.actions}
    combo = _combo(t, r, sv, sizes.pop()) if len(sizes) == 1 else None
    if combo is not None:
        return [combo], ""
    return [_button(t, r, sv, a) for a in ordered[:25]], NO_BUTTON


def expected(sv: SeatView) -> tuple[dict[str, Any], str]:
    """(the payload the documented layout gives, which layout it is)."""
    t, d = sv.table, sv.decision
    r = renderers.renderer_for(t.game)
    content, note, layout = r.hand_text(sv), "", "none"
    view = discord.ui.View(timeout=None)
    if t.phase is not Phase.RUNNING:
        layout = "finished"
    else:
        items = _whole_hand(t, r, sv)
        if items is not None:
            layout = "whole hand"
        elif d is not None and d.pick and len(d.cards) > 25:
            (items, note), layout = _big_pick(t, r, sv), "part menus"
        elif d is not None and d.pick:
            items, layout = [_choose(t, r, sv, d.kind, d.cards, d.pick)], "pick"
        elif d is not None:
            k = r.combo_pick(sv, d)
            combo = _combo(t, r, sv, k) if k else None
            if combo is not None:
                items, layout = [combo], "combination"
            else:
                items, note = _actions(t, r, sv)
                layout = "menus" if any(isinstance(i, discord.ui.Select) for i in items) else "buttons"
        for item in items or ():
            view.add_item(item)
        look = "refresh" if d is None or TABLE in t.state.to_act() else "hint"
        button = discord.ui.Button(label=look.capitalize(), style=GREY, emoji="🔄" if look == "refresh" else "💡",
                                   custom_id=f"dh:t:{look}:{t.id}")
        howto = discord.ui.Button(label="How to play", style=GREY, emoji="❔", custom_id=f"dh:t:howto:{t.id}")
        for control in (button, howto):
            try:
                view.add_item(control)
            except ValueError:  # no row has room for it
                pass
    got = {"content": content + ("\n" + note if note else ""), "components": view.to_components()}
    view.stop()
    return got, layout


def _same(sv: SeatView) -> str:
    want, layout = expected(sv)
    msg = hand_payload(sv)
    got = {"content": msg.content, "components": msg.components}
    assert got == want, layout
    # Byte for byte as discord.py serialises it (the same keys in the same order).
    assert json.dumps(got, separators=(",", ":")) == json.dumps(want, separators=(",", ":")), layout
    content, view = hand_view(sv)
    assert {"content": content, "components": view.to_components()} == want, layout
    view.stop()
    return layout


@pytest.fixture(params=["text", "emoji"])
def faces_as(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "emoji":
        emoji.REGISTRY.use({code: discord.PartialEmoji(name=faces.emoji_name(code, code.encode()), id=10**18 + i)
                            for i, code in enumerate(faces.face_codes())})
    else:
        emoji.REGISTRY.clear()
    try:
        yield request.param
    finally:
        emoji.REGISTRY.clear()


def _play(name: str) -> set[tuple[str, str]]:
    """Seeded random playouts of ``name``, every seat's hand message checked at every step: the
    (phase, layout) pairs met."""
    cls = engine.get(name).game
    met = set()
    for seed in (1, 2):
        g = cls.create(cls.max_players, cls.read_options({}), seed)
        t = _table(name, g)
        rng = random.Random(seed)
        for step in range(STEPS):
            if g.is_over:
                break
            t.version = step + 1
            for sv in _seat_views(t, 1_900_000_000.0 if step % 2 else None):
                met.add((sv.view.get("phase", "?"), _same(sv)))
            seat = rng.choice(g.to_act())
            g.apply(seat, g.random_action(seat, rng))
        t.phase = Phase.FINISHED
        for sv in _seat_views(t, None):
            met.add(("finished", _same(sv)))
    return met


@pytest.mark.parametrize("name", sorted(engine.games()))
def test_the_payload_is_the_documented_layout_along_a_playout(name: str, faces_as: str) -> None:
    met = _play(name)
    assert ("finished", "finished") in met and {layout for _, layout in met} - {"none", "finished"}


def test_the_playouts_meet_every_layout() -> None:
    """(else the expectation above would be checked against nothing for some layouts)"""
    emoji.REGISTRY.clear()
    every = {"whole hand", "pick", "part menus", "combination", "buttons", "menus", "none", "finished"}
    met: set[str] = set()
    for name in sorted(engine.games()):
        if met >= every:
            break  # (the games left could only add to what is met: their playouts are the same ones)
        met |= {layout for _, layout in _play(name)}
    assert met >= every


def test_a_kept_button_follows_the_version_the_hand_and_the_decision() -> None:
    emoji.REGISTRY.clear()
    cls = engine.get("hearts").game
    g = cls.create(4, cls.read_options({}), 3)
    t = _table("hearts", g)
    t.play_ahead = False  # (the play-ahead buttons while waiting: tests/e2e/test_play_ahead.py)
    rng = random.Random(3)
    while g.public_view().get("phase") != "play":
        seat = rng.choice(g.to_act())
        g.apply(seat, g.random_action(seat, rng))
    t.version = 40
    leader = g.to_act()[0]
    before = hand_payload(SeatView(t, leader, g.view(leader), g.decision(leader), None))
    ids = [b["custom_id"] for row in before.components for b in row["components"]]
    assert ids[0].startswith("dh:a:ABC234:40:play_") and ids[-2:] == ["dh:t:hint:ABC234", "dh:t:howto:ABC234"]
    lit = [b for row in before.components for b in row["components"] if not b.get("disabled")]
    assert len(lit) >= 2  # the hint and at least one card
    card = g.decision(leader).actions[0]
    g.apply(leader, card)
    t.version = 41
    after = hand_payload(SeatView(t, leader, g.view(leader), g.decision(leader), None))
    buttons = [b for row in after.components for b in row["components"]]
    # One card fewer, every card now waiting (disabled), the new version in every id, Refresh for Hint.
    assert len(buttons) == len(ids) - 1
    assert card.code.split()[-1] not in " ".join(b["custom_id"] for b in buttons)
    assert all(b["custom_id"].startswith("dh:a:ABC234:41:") and b["disabled"] for b in buttons[:-2])
    assert [b["custom_id"] for b in buttons[-2:]] == ["dh:t:refresh:ABC234", "dh:t:howto:ABC234"]
    # A kept button is copied, never shared: changing one message's dict leaves the next as drawn.
    buttons[0]["label"] = "changed"
    again = hand_payload(SeatView(t, leader, g.view(leader), g.decision(leader), None))
    assert again.components[0]["components"][0]["label"] != "changed"
    assert components._BUTTONS  # (the kept buttons are what this test is about)


def test_a_kept_hand_line_follows_the_card_emoji() -> None:
    """The fanned hand is kept per hand: it still turns into emoji when they become ready, back into
    text when they go, and into text inside ``text_only`` (a message too long with emoji)."""
    cls = engine.get("hearts").game
    g = cls.create(4, cls.read_options({}), 5)
    t = _table("hearts", g)
    sv = SeatView(t, 0, g.view(0), g.decision(0), None)
    first = g.view(0)["hand"][0]
    emoji.REGISTRY.clear()
    as_text = hand_payload(sv).content
    assert "<:dk_" not in as_text
    emoji.REGISTRY.use({code: discord.PartialEmoji(name=f"dk_{code.lower()}_abcdef", id=10**18 + i)
                        for i, code in enumerate(faces.face_codes())})
    try:
        drawn = hand_payload(sv).content
        assert f"<:dk_{first.lower()}_abcdef:" in drawn
        with emoji.text_only():
            assert "<:dk_" not in hand_payload(sv).content
        assert hand_payload(sv).content == drawn
    finally:
        emoji.REGISTRY.clear()
    assert hand_payload(sv).content == as_text


def test_the_part_menus_show_the_marked_cards_as_the_documented_layout() -> None:
    """King of the Hill's bury (8 of 28 cards): the cards marked so far are the menus' defaults,
    a full choice disables the menus with nothing marked, OK lights up, Clear undoes it."""
    emoji.REGISTRY.clear()
    cls = engine.get("koth").game
    for seed in (1, 2, 3):
        g = cls.create(cls.max_players, cls.read_options({}), seed)
        t = _table("koth", g)
        rng = random.Random(seed)
        while not any((g.decision(s) or Action("x")).kind == "bury" for s in range(g.players)):
            seat = rng.choice(g.to_act())
            g.apply(seat, g.random_action(seat, rng))
        koth = next(s for s in range(g.players) if g.decision(s) is not None and g.decision(s).kind == "bury")
        cards = list(g.decision(koth).cards)
        dealt = [c.code for c in cards]
        for n in (1, 3, 8, 0):
            chosen = rng.sample(dealt, n)
            g.apply(koth, cls.action_from_code(" ".join(["bury", *chosen, "mark"])))
            t.version += 1
            sv = SeatView(t, koth, g.view(koth), g.decision(koth), None)
            assert sorted(sv.view["marked"]) == sorted(chosen)
            assert _same(sv) == "part menus"
            menus = hand_payload(sv).components
            defaults = [o["value"].split("#")[0] for row in menus for item in row["components"]
                        for o in item.get("options", ()) if o.get("default")]
            assert sorted(defaults) == sorted(chosen)


def test_a_siege_turn_is_menus_never_a_wall_of_buttons() -> None:
    """Siege's renderer asks for menus whatever their number: a turn with any attack, build or swap
    is menus (only building and ending the turn, alone, are buttons)."""
    emoji.REGISTRY.clear()
    cls = engine.get("siege").game
    g = cls.create(4, cls.read_options({}), 3)
    t = _table("siege", g)
    rng = random.Random(3)
    kinds = Counter()
    for step in range(STEPS):
        if g.is_over:
            break
        t.version = step + 1
        seat = g.to_act()[0]
        d = g.decision(seat)
        layout = _same(SeatView(t, seat, g.view(seat), d, None))
        grouped = any(a.kind not in ("build", "end") for a in d.actions)
        kinds[grouped, layout] += 1
        assert layout == ("menus" if grouped else "buttons"), [a.code for a in d.actions]
        g.apply(seat, g.random_action(seat, rng))
    assert kinds[True, "menus"] > 20


def test_a_card_chosen_ahead_shows_on_its_holders_view_in_words() -> None:
    """While the others play, the holder's cards choose themselves ahead (``dh:h:``); the card
    chosen is named in words, green, with Cancel — the same JSON from both ways of drawing."""
    cls = engine.get("hearts").game
    g = cls.create(4, cls.read_options({}), 3)
    t = _table("hearts", g)
    rng = random.Random(3)
    while not (g.public_view().get("phase") == "play" and 0 not in g.to_act()):
        seat = rng.choice(g.to_act())
        g.apply(seat, g.random_action(seat, rng))
    hand = g.view(0)["hand"]
    code = f"play {hand[0]}"
    sv = SeatView(t, 0, g.view(0), g.decision(0), None, code)
    msg = hand_payload(sv)
    content, view = hand_view(sv)
    assert (msg.content, msg.components) == (content, view.to_components())
    card = renderers.renderer_for("hearts").action_label(Action.parse(code), sv)
    assert f"Will play {card} when your turn comes" in msg.content and hand[0] not in msg.content
    buttons = [b for row in msg.components for b in row["components"]]
    assert buttons[0]["custom_id"] == f"dh:h:ABC234:play_{hand[0]}" and buttons[0]["style"] == GREEN.value
    assert [b["label"] for b in buttons if b["custom_id"] == "dh:h:ABC234:-"] == ["Cancel"]
    assert not any(b.get("disabled") for b in buttons)
