"""Buttons and menus that keep working after a restart.

Every component is a :class:`discord.ui.DynamicItem`: everything it needs is in its custom id, so
the bot rebuilds it from the id when someone clicks, however old the message or the process is.
A View here is only a box of such items — no game state lives in it; clicks go to the cog, which
asks the runtime.  Controls are built only from the seat's legal actions (its engine
``Decision``); the game's renderer says how they read and how they group.

Custom ids, the items that carry them and what they decode to: :mod:`cogs.table.custom_ids`.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import discord

import words
from cogs.i18n.reading import lang, of_seat, reading, tr
from cogs.pictures.emoji import action_emoji, card_emoji
from cogs.table import render, renderers
from cogs.table.custom_ids import (  # the names the ids' users always imported from here stay importable
    _TABLE_BUTTONS,  # noqa: F401
    ACTION_TEMPLATE,
    DONE_TEMPLATE,  # noqa: F401
    DYNAMIC_ITEMS,  # noqa: F401
    FINISHED_BUTTONS,
    LOBBY_BUTTONS,
    MAX_BUTTONS,
    MAX_MENUS,
    MAX_OPTIONS,
    MAX_ROWS,
    MENU_TEMPLATE,  # noqa: F401
    PART_TEMPLATE,  # noqa: F401
    PICK_TEMPLATE,  # noqa: F401
    ROW_BUTTONS,
    RUNNING_BUTTONS,
    TABLE_TEMPLATE,  # noqa: F401
    ActionButton,
    ActionMenu,
    AheadButton,
    PartSelect,
    PickDone,
    PickSelect,
    ReplayButton,
    TableButton,
    UIItem,
    ahead_id,
    card_values,
    decode_code,  # noqa: F401
    encode_code,
    let_go,
    value_code,  # noqa: F401
)
from cogs.table.renderer import Renderer
from engine.core import TABLE, Action, AnyCard, Decision
from tables import ahead
from tables.clicks import marking_since
from tables.live import SeatView
from tables.table import Table
from words import N_

if TYPE_CHECKING:  # discord.types is for the type checker: importing it at run time goes in a circle
    from discord.types.components import ButtonComponent

M = TypeVar("M")  # what a menu holds (_pack, _flat)
log = logging.getLogger(__name__)

# ---- views -------------------------------------------------------------------------------------
def table_view(table: Table, locale: str | None = None) -> discord.ui.View:
    """The table message's buttons, in the table's language (``locale``: a watcher's copy)."""
    with reading(locale or table.locale):
        return _table_view(table)


def _table_view(table: Table) -> discord.ui.View:
    """The buttons of the public table message for its phase (none once it has finished).

    A running game with a thread is played there: an answer to a button goes to the channel of the
    message clicked, and the table message lives in the parent channel (inside the thread Discord
    shows only a reference to it), so its My hand would answer in the parent.  It gets a link to
    the thread instead (a link needs no interaction); My hand and I'm back are on the game's first
    message in the thread (:meth:`cogs.live.listener.DiscordListener.started`).  **Watch** answers
    whoever presses it privately, wherever it is, so it stays on the table message (cogs/watch/view.py), and
    so does **How to play** (the game's quick start, cogs/table/howto.py)."""
    view = discord.ui.View(timeout=None)
    phase = render.phase_of(table)
    if phase == "running" and table.thread_id is not None:
        view.add_item(discord.ui.Button(label=tr(table)(N_("Play in the thread")), emoji="🧵", url=thread_url(table)))
        view.add_item(TableButton("watch", table.id))
        view.add_item(TableButton("howto", table.id))  # answered privately: no counted call
        return view
    acts = LOBBY_BUTTONS if phase == "lobby" else RUNNING_BUTTONS if phase == "running" else ()
    if phase == "finished" and table.seed is not None:
        acts = FINISHED_BUTTONS  # Play again
    for act in acts:
        view.add_item(TableButton(act, table.id))
    if phase == "finished" and table.seed is not None:
        view.add_item(ReplayButton(table.id, 0, "open"))  # anyone's own step-through viewer
    return view


def thread_url(table: Table) -> str:
    """A link to the table's thread (Discord's web and app links look alike)."""
    return f"https://discord.com/channels/{table.guild_id}/{table.thread_id}"


def hand_view(seat_view: SeatView) -> tuple[str, discord.ui.View]:
    """The ephemeral hand message of one seat: its text and one control per legal choice (a pick
    over more than 25 cards shows the cards marked so far, from the seat's view).  In the language
    of the seat's person (cogs/i18n/reading.py)."""
    with reading(of_seat(seat_view.table, seat_view.seat)):
        return _hand_view(seat_view)


def _hand_view(seat_view: SeatView) -> tuple[str, discord.ui.View]:
    table, decision = seat_view.table, seat_view.decision
    r = renderers.renderer_for(table.game)
    content = r.hand_text(seat_view) + _ahead_line(seat_view, r)
    view = discord.ui.View(timeout=None)
    if render.phase_of(table) != "running":
        return content, view
    items: list[UIItem] = []
    whole = _whole_hand(seat_view, r, decision)
    if whole is not None:
        items = whole
    elif decision is not None:
        if decision.pick and len(decision.cards) > MAX_OPTIONS:
            items, note = _big_pick(seat_view, r, decision)
        elif decision.pick:
            items, note = [_pick_select(seat_view, r, decision, decision.cards, decision.pick)], ""
        else:
            k = r.combo_pick(seat_view, decision)
            combo = _combo_pick(seat_view, r, decision, k) if k else None
            if combo is not None:
                items, note = [combo], ""
            else:
                items, note = _action_controls(seat_view, r, decision)
        if note:
            content += "\n" + note
    # Nothing to do yet, or a live step the table drives (a deal): a way to look again in place.
    table_step = table.state is not None and TABLE in table.state.to_act()
    if (decision is None or table_step) and _room(items):
        items.append(TableButton("refresh", table.id))
    elif decision is not None and _room(items):
        items.append(TableButton("hint", table.id))  # what the strong AI would do, privately
    if _room(items):
        items.append(TableButton("howto", table.id))  # the game's quick start, privately
    for item in items:
        view.add_item(item)
    return content, view


def _whole_hand(sv: SeatView, r: Renderer, decision: Decision | None) -> list[UIItem] | None:
    """Every card of the hand as a button, in hand order, the ones that may not be played now
    disabled (the view says why): for games played a card at a time (``Renderer.whole_hand``),
    while cards are being played — on your turn, and while you wait (the same buttons light up
    when your turn comes).  ``None`` when it does not apply (a pass, or a card not playable alone)."""
    cards = _whole_hand_cards(sv, r, decision)
    if cards is None:
        return None
    table = sv.table
    if _choosing_ahead(sv):
        chosen: list[UIItem] = [
            AheadButton(table.id, a.code, r.action_label(a, sv), _ahead_style(sv, r, a), action_emoji(a))
            for a, _ in cards]
        return chosen + ([AheadButton(table.id, None)] if sv.ahead else [])
    return [ActionButton(table.id, table.version, a.code, r.action_label(a, sv), r.action_style(a), action_emoji(a),
                         disabled=not playable) for a, playable in cards]


def _whole_hand_cards(sv: SeatView, r: Renderer, decision: Decision | None) -> list[tuple[Action, bool]] | None:
    """The buttons of :func:`_whole_hand`: each card's action and whether it may be played now."""
    view = sv.view or {}
    hand = view.get("hand") or []
    if not r.whole_hand or view.get("phase") != "play" or not hand or len(hand) > MAX_BUTTONS:
        return None
    table = sv.table
    legal: dict[str, Action] = {}
    if decision is not None:
        if decision.pick or any(len(a.cards) != 1 or a.args or a.kind != "play" for a in decision.actions):
            return None
        legal = {a.cards[0].code: a for a in decision.actions}
    out: list[tuple[Action, bool]] = []
    for code in dict.fromkeys(hand):
        a = legal.get(code)
        if a is not None and _fits_id(table, a.code):
            out.append((a, True))
            continue
        try:
            out.append((Action("play", (render.card(code),)), False))
        except Exception:
            return None
    return out


def _choosing_ahead(sv: SeatView) -> bool:
    """Whether the hand's cards are play-ahead buttons now (tables/ahead.py): the others play."""
    return sv.decision is None and ahead.may_choose(sv.table, sv.seat, sv.view)


def _ahead_style(sv: SeatView, r: Renderer, a: Action) -> discord.ButtonStyle:
    return discord.ButtonStyle.success if a.code == sv.ahead else r.action_style(a)


def _ahead_line(sv: SeatView, r: Renderer) -> str:
    """The person's own card chosen ahead ("Will play Q♠"), or the word that it could not be played
    when the turn came; "" when neither.  Only ever on this seat's own hand view."""
    code = sv.ahead if _choosing_ahead(sv) else sv.dropped if sv.decision is not None else None
    state = sv.table.state
    if not code or not ahead.offered(sv.table) or state is None:
        return ""
    try:
        card = r.action_label(state.action_from_code(code), sv)
    except Exception:
        return ""
    if code == sv.ahead:
        return "\n⏩ " + tr(sv.table)(N_("Will play {card} when your turn comes — **Cancel** to choose again."),
                                      card=card)
    return "\n⚠️ " + tr(sv.table)(N_("{card}, chosen ahead, cannot be played now: choose a card."), card=card)


def _room(items: Sequence[UIItem]) -> bool:
    menus = sum(1 for i in items if isinstance(getattr(i, "item", i), discord.ui.Select))
    buttons = len(items) - menus
    return menus + -(-(buttons + 1) // ROW_BUTTONS) <= MAX_ROWS


def _pick_select(sv: SeatView, r: Renderer, decision: Decision, cards: Sequence[AnyCard],
                 pick: int) -> PickSelect:
    table = sv.table
    total = Counter(c.code for c in cards)
    seen: Counter[str] = Counter()
    options = []
    for c, value in zip(cards, card_values(cards), strict=True):
        seen[c.code] += 1
        text, description = r.pick_option(sv, c, seen[c.code], total[c.code])
        options.append(discord.SelectOption(label=text[:100], value=value, emoji=card_emoji(c),
                                            description=(description or None) and description[:100]))
    placeholder = words.ngettext(lang(table), "Choose {n} card", "Choose {n} cards", pick)
    return PickSelect(table.id, table.version, decision.kind, pick=pick, placeholder=placeholder, options=options)


def _combo_pick(sv: SeatView, r: Renderer, decision: Decision, k: int) -> PickSelect | None:
    """The cards of the legal combinations in one "choose k" menu (each card as many times as one
    combination can use it), when every action is ``k`` cards of one kind and no more."""
    actions = decision.actions
    if not actions or any(a.args or len(a.cards) != k or a.kind != decision.kind for a in actions):
        return None
    most: dict[str, int] = {}
    objs: dict[str, AnyCard] = {}
    for a in actions:
        for code, n in Counter(c.code for c in a.cards).items():
            most[code] = max(most.get(code, 0), n)
        for c in a.cards:
            objs.setdefault(c.code, c)
    hand = (sv.view or {}).get("hand") or []
    order = {code: i for i, code in enumerate(hand)}
    codes = sorted(most, key=lambda code: order.get(code, len(order)))
    cards = [objs[code] for code in codes for _ in range(most[code])]
    if len(cards) > MAX_OPTIONS:
        return None
    return _pick_select(sv, r, decision, cards, k)


def pick_parts(
    sv: SeatView, r: Renderer, decision: Decision
) -> list[tuple[list[str], list[tuple[str, AnyCard, int]]]] | None:
    """The part menus of a pick over more than 25 cards: (group names, [(menu value, card, copy
    number)]) each — the cards grouped by the renderer, adjacent groups sharing a menu — or ``None``
    when they do not fit in four menus."""
    cards = list(decision.cards)
    seen: Counter[str] = Counter()
    groups: dict[str, list[tuple[str, AnyCard, int]]] = {}
    for c, value in zip(cards, card_values(cards), strict=True):
        seen[c.code] += 1
        groups.setdefault(r.pick_group(sv, c), []).append((value, c, seen[c.code]))
    return _pack(list(groups.items()), MAX_OPTIONS, MAX_MENUS)


def marked_values(cards: Sequence[AnyCard], marked: Sequence[str]) -> set[str]:
    """The menu values of the marked card codes among ``cards`` (a code marked once is its first copy)."""
    want = Counter(marked)
    seen: Counter[str] = Counter()
    out = set()
    for c, value in zip(cards, card_values(cards), strict=True):
        seen[c.code] += 1
        if seen[c.code] <= want[c.code]:
            out.add(value)
    return out


def _big_pick(sv: SeatView, r: Renderer, decision: Decision) -> tuple[list[UIItem], str]:
    """Up to four part menus, then OK / Clear.  The cards the seat marked so far (kept by the
    engine) are the menus' defaults; a menu lets at most as many cards be chosen as the pick leaves
    room for."""
    table = sv.table
    marked = (sv.view or {}).get("marked")
    parts = pick_parts(sv, r, decision)
    if marked is None or parts is None:
        return [], "*" + tr(table)(N_("Too many cards for the menus: use `/play` to name them.")) + "*"
    cards = list(decision.cards)
    total = Counter(c.code for c in cards)
    picked = marked_values(cards, marked)
    count = len(picked)
    room = max(0, decision.pick - count)
    since = marking_since(table, sv.seat, decision.kind)
    items: list[UIItem] = []
    for n, (names, members) in enumerate(parts):
        options = []
        for value, c, copy in members:
            text, description = r.pick_option(sv, c, copy, total[c.code])
            options.append(discord.SelectOption(label=text[:100], value=value, default=value in picked,
                                                emoji=card_emoji(c),
                                                description=(description or None) and description[:100]))
        here = sum(1 for value, _, _ in members if value in picked)
        full = here + room == 0  # nothing marked here and the pick is full: unmark elsewhere first
        placeholder = " · ".join(names) + (" " + tr(table)(N_("(all {n} chosen)"), n=decision.pick) if full else "")
        items.append(PartSelect(table.id, since, decision.kind, n, options, here + room, placeholder=placeholder,
                                disabled=full))
    verb = tr(table)(decision.kind.replace("_", " ").capitalize())
    items.append(PickDone(table.id, table.version, decision.kind, "ok", f"{verb} {count}/{decision.pick}",
                          disabled=count != decision.pick))
    items.append(PickDone(table.id, since, decision.kind, "clear", disabled=count == 0))
    values = card_values(cards)
    by_value = dict(zip(values, cards, strict=True))
    shown = " ".join(render.label(by_value[v]) for v in values if v in picked)
    note = tr(table)(N_("Chosen ({count}/{pick}): {cards}"), count=count, pick=decision.pick, cards=shown) if count \
        else ""
    return items, note


def _pack(
    groups: list[tuple[str, list[M]]], size: int, most: int
) -> list[tuple[list[str], list[M]]] | None:
    """Groups into at most ``most`` menus of at most ``size`` options, in order: a group too big for
    one menu is split ("♠ 1/2", "♠ 2/2"), then adjacent menus are merged, smallest pair first."""
    menus: list[tuple[list[str], list[M]]] = []
    for name, members in groups:
        chunks = [members[i:i + size] for i in range(0, len(members), size)] or [[]]
        for i, chunk in enumerate(chunks):
            menus.append(([name if len(chunks) == 1 else f"{name} {i + 1}/{len(chunks)}"], list(chunk)))
    while len(menus) > most:
        fits = [(len(menus[i][1]) + len(menus[i + 1][1]), i) for i in range(len(menus) - 1)
                if len(menus[i][1]) + len(menus[i + 1][1]) <= size]
        if not fits:
            return _flat(groups, size, most)
        _, i = min(fits)
        menus[i:i + 2] = [(menus[i][0] + menus[i + 1][0], menus[i][1] + menus[i + 1][1])]
    return menus


def _flat(groups: list[tuple[str, list[M]]], size: int, most: int) -> list[tuple[list[str], list[M]]] | None:
    """Full menus in order, a group running on into the next menu when it must."""
    items = [(name, m) for name, members in groups for m in members]
    if len(items) > size * most:
        return None
    chunks = [items[i:i + size] for i in range(0, len(items), size)]
    return [(list(dict.fromkeys(name for name, _ in chunk)), [m for _, m in chunk]) for chunk in chunks]


def _action_controls(sv: SeatView, r: Renderer, decision: Decision) -> tuple[list[UIItem], str]:
    """Buttons when the legal actions fit (25) and the renderer does not want menus anyway
    (``menus_always``), else menus grouped by the renderer with the
    ungrouped actions (pass, end turn) as buttons below; else the combination menu; else as many
    buttons as fit and a pointer to /play."""
    table = sv.table
    ordered = list(dict.fromkeys(a for a in r.order_actions(sv, decision.actions)
                                 if _fits_id(table, a.code)))
    skipped = len(dict.fromkeys(decision.actions)) - len(ordered)
    no_button = "*" + tr(table)(N_("Some choices have no button: use `/play` for them.")) + "*"
    more = "\n" + no_button if skipped else ""
    if len(ordered) <= MAX_BUTTONS and not r.menus_always:
        return [_button(sv, r, a) for a in ordered], more.strip()
    loose = [a for a in ordered if r.action_group(sv, a) is None]
    groups: dict[str, list[Action]] = {}
    for a in ordered:
        g = r.action_group(sv, a)
        if g is not None:
            groups.setdefault(g, []).append(a)
    if len(loose) > ROW_BUTTONS:
        groups.setdefault(tr(table)(N_("More")), []).extend(loose[ROW_BUTTONS:])
        loose = loose[:ROW_BUTTONS]
    menus = _pack(list(groups.items()), MAX_OPTIONS, MAX_MENUS)
    if menus is not None:
        items: list[UIItem] = []
        for n, (names, members) in enumerate(menus):
            options = [discord.SelectOption(label=r.action_label(a, sv)[:100], value=a.code, emoji=action_emoji(a),
                                            description=(r.action_description(sv, a) or "")[:100] or None)
                       for a in members]
            items.append(ActionMenu(table.id, table.version, n, options, placeholder=r.menu_placeholder(sv, names)))
        items += [_button(sv, r, a) for a in loose]
        return items, more.strip()
    k = {len(a.cards) for a in decision.actions}
    combo = _combo_pick(sv, r, decision, k.pop()) if len(k) == 1 else None
    if combo is not None:
        return [combo], ""
    return [_button(sv, r, a) for a in ordered[:MAX_BUTTONS]], no_button


def _fits_id(table: Table, code: str) -> bool:
    custom_id = f"dh:a:{table.id}:{table.version}:{encode_code(code)}"
    return len(custom_id) <= 100 and re.fullmatch(ACTION_TEMPLATE, custom_id) is not None and len(code) <= 100


def _button(sv: SeatView, r: Renderer, action: Action) -> ActionButton:
    table = sv.table
    return ActionButton(table.id, table.version, action.code, r.action_label(action, sv), r.action_style(action),
                        action_emoji(action))


# ---- a hand view as a message payload ---------------------------------------------------------
# A hand view is sent some eighty times a hand (the answer to each click, the live view's edits):
# building discord.py View objects for it and turning them back into dicts showed at the top of
# the bench's profile of the bot.  Discord only ever sees the dicts, so for the common layout (the
# whole hand as buttons) they are built here directly, each card's button once per look (its
# label, style and emoji) and only its custom id per table version; anything else goes through
# :func:`hand_view`.  The result is the same JSON either way (tests/cogs/test_hand_payload.py).
class HandMessage:
    """A hand view ready to send: its text and its components as Discord's JSON (``to_components``
    of :func:`hand_view`'s View).  :meth:`view` draws the View itself, for what needs objects."""

    __slots__ = ("content", "components", "sv")

    def __init__(self, content: str, components: list[dict[str, Any]], sv: SeatView) -> None:
        self.content = content
        self.components = components
        self.sv = sv

    def view(self) -> discord.ui.View:
        return hand_view(self.sv)[1]


_BUTTONS: dict[tuple[object, ...], ButtonComponent] = {}  # one card's button dict, without its custom id
_BUTTONS_MAX = 4096  # (cards × played or not × emoji sets × games: far below; a bound all the same)


def hand_payload(sv: SeatView, head: str | None = None) -> HandMessage:
    """:func:`hand_view` as Discord's JSON, ``head`` (a line such as "✅ You played Q♠.") above
    the text."""
    with reading(of_seat(sv.table, sv.seat)):
        return _hand_payload(sv, head)


def _hand_payload(sv: SeatView, head: str | None = None) -> HandMessage:
    table, decision = sv.table, sv.decision
    r = renderers.renderer_for(table.game)
    cards = _whole_hand_cards(sv, r, decision) if render.phase_of(table) == "running" else None
    if cards is None or not _plain_labels(r):
        content, view = hand_view(sv)
        components = view.to_components()
        let_go(view)
    else:
        content = r.hand_text(sv) + _ahead_line(sv, r)
        if _choosing_ahead(sv):
            buttons = [_card_button(table, r, a, playable, a.code == sv.ahead) for a, playable in cards]
            if sv.ahead:
                buttons.append(_ahead_cancel(table.id))
        else:
            buttons = [_card_button(table, r, a, playable) for a, playable in cards]
        table_step = table.state is not None and TABLE in table.state.to_act()
        if -(-(len(buttons) + 1) // ROW_BUTTONS) <= MAX_ROWS:  # (``_room``)
            if decision is None or table_step:
                buttons.append(_table_button("refresh", table.id))
            elif decision is not None:
                buttons.append(_table_button("hint", table.id))
        if -(-(len(buttons) + 1) // ROW_BUTTONS) <= MAX_ROWS:  # (as in hand_view)
            buttons.append(_table_button("howto", table.id))
        components = [{"type": 1, "components": buttons[i:i + ROW_BUTTONS]}
                      for i in range(0, len(buttons), ROW_BUTTONS)]
    return HandMessage(content if head is None else f"{head}\n{content}", components, sv)


def _plain_labels(r: Renderer) -> bool:
    """Whether the renderer words a card's button as every renderer does (by the card alone, not
    the seat's view): then one card's button is the same at every table and can be kept."""
    cls = type(r)
    return cls.action_label is Renderer.action_label and cls.action_style is Renderer.action_style


def _card_button(table: Table, r: Renderer, a: Action, playable: bool,
                 chosen: bool | None = None) -> ButtonComponent:
    """One card's button: to play it (``chosen`` None), or to choose it ahead (``chosen``: whether
    it is the card chosen now)."""
    emoji = action_emoji(a)
    key = (type(r), a.code, playable, chosen, None if emoji is None else (emoji.id, emoji.name, emoji.animated))
    made = _BUTTONS.get(key)
    if made is None:
        if len(_BUTTONS) >= _BUTTONS_MAX:
            _BUTTONS.clear()
        if chosen is None:
            made = ActionButton(table.id, table.version, a.code, r.action_label(a), r.action_style(a), emoji,
                                disabled=not playable).item.to_component_dict()
        else:
            style = discord.ButtonStyle.success if chosen else r.action_style(a)
            made = AheadButton(table.id, a.code, r.action_label(a), style, emoji).item.to_component_dict()
        _BUTTONS[key] = made
    d = made.copy()  # (the same keys in the same order, only the custom id differs)
    d["custom_id"] = (f"dh:a:{table.id}:{table.version}:{encode_code(a.code)}" if chosen is None
                      else ahead_id(table.id, a.code))
    return d


def _ahead_cancel(table_id: str) -> ButtonComponent:
    key = ("ahead", "cancel", lang())
    made = _BUTTONS.get(key)
    if made is None:
        made = _BUTTONS[key] = AheadButton(table_id, None).item.to_component_dict()
    d = made.copy()
    d["custom_id"] = ahead_id(table_id, None)
    return d


def _table_button(act: str, table_id: str) -> ButtonComponent:
    key = ("table", act, lang())
    made = _BUTTONS.get(key)
    if made is None:
        made = _BUTTONS[key] = TableButton(act, table_id).item.to_component_dict()
    d = made.copy()
    d["custom_id"] = f"dh:t:{act}:{table_id}"
    return d
