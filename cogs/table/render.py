"""Text for Discord: the words and shapes every renderer draws with — card labels and faces, names and
seat badges, medals, the lobby's options line, limits of a message, the clock's notes on events.

Pure functions over a ``Table`` and its engine state: no I/O, nothing awaited.  A public render
reads only ``state.public_view()`` and public events (``event.to is None``), so nothing hidden can
reach a channel through here; the hand text reads the one seat's ``SeatView`` and is only ever sent
as an ephemeral reply to that player.

Each game has a renderer (in ``games/<name>/screens.py``), listed in :data:`cogs.table.renderers.RENDERERS`;
it extends the generic :class:`cogs.table.renderer.Renderer`, which a game without one falls back to.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TypedDict

import discord

import words
from cogs.i18n.reading import lang, tr
from cogs.pictures.emoji import card_markup
from cogs.table import options
from engine.cards import SUIT_SYMBOLS, Card, card
from engine.core import TABLE, Action, AnyCard, Event
from engine.words import plural as plural  # the one count helper (engine/words.py)
from tables.privacy import former_name
from tables.table import Seat, Table
from words import N_, spoken
from words.cards import label as card_label

#: What every message the bot sends may ping by default: nobody.  A turn ping names its people itself.
NO_PINGS = discord.AllowedMentions.none()


class Extras(TypedDict, total=False):
    """What an ephemeral answer may carry besides its text (the cogs' ``_say``, ``_answer``)."""

    embed: discord.Embed
    view: discord.ui.View
    file: discord.File

LOBBY_COLOUR = discord.Colour.blurple()
RUNNING_COLOUR = discord.Colour.green()
FINISHED_COLOUR = discord.Colour.gold()
RECENT_LINES = 5
#: Discord's limits on a message (characters): content, embed description, field value, all of an
#: message's embeds together.
MAX_CONTENT, MAX_DESCRIPTION, MAX_FIELD, MAX_EMBEDS = 2000, 4096, 1024, 6000
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


@dataclass(frozen=True)
class Rendered:
    """A message to send or edit: text content and/or one embed."""

    content: str | None = None
    embed: discord.Embed | None = None

    def text(self) -> str:
        """Every visible character (content and embed), for checks and logs."""
        parts = [self.content or "", embed_text(self.embed) if self.embed is not None else ""]
        return "\n".join(p for p in parts if p)


def embed_text(embed: discord.Embed) -> str:
    d = embed.to_dict()
    parts = [d.get("title", ""), d.get("description", "")]
    for f in d.get("fields", []):
        parts += [f.get("name", ""), f.get("value", "")]
    parts += [d.get("footer", {}).get("text", ""), d.get("author", {}).get("name", "")]
    return "\n".join(p for p in parts if p)


# ---- small helpers ---------------------------------------------------------------------------
def label(c: AnyCard | str) -> str:
    """``Q♠`` for a card or a standard card code; a game's own card values (``D5``, a
    blank ``5X``) carry their own ``label``."""
    if isinstance(c, str):
        return card_label(card(c), spoken())
    if isinstance(c, Card):
        return card_label(c, spoken())  # (a joker in the language being drawn: words/cards.py)
    own = getattr(c, "label", None)
    return own if isinstance(own, str) else card_label(card(str(c)), spoken())


def labels(cs: Iterable[AnyCard | str]) -> str:
    return " ".join(label(c) for c in cs)


def face(c: AnyCard | str) -> str:
    """A card on the table as its emoji when Deckhand's card emoji are ready, else its label."""
    return card_markup(c, label(c))


def faces(cs: Iterable[AnyCard | str]) -> str:
    return " ".join(face(c) for c in cs)


def clip(text: str, room: int) -> str:
    """``text`` cut to ``room`` characters at a line break, "…" marking the cut: a last resort that
    keeps a message sendable (never needed by today's screens; an emoji's markup is never cut)."""
    if len(text) <= room:
        return text
    cut = text.rfind("\n", 0, room - 1)
    return (text[:cut] if cut > 0 else text[:room - 1]) + "…"


def embed_fits(embed: discord.Embed) -> bool:
    """Whether an embed is within Discord's limits for its description, fields and total."""
    d = embed.to_dict()
    return (len(d.get("description") or "") <= MAX_DESCRIPTION and len(embed) <= MAX_EMBEDS
            and all(len(f.get("value") or "") <= MAX_FIELD for f in d.get("fields") or []))


def when(epoch: float | None) -> str:
    """A Discord relative timestamp: every client shows a live countdown ("in 25 seconds")."""
    return "" if epoch is None else f"<t:{int(epoch)}:R>"


@functools.lru_cache(maxsize=4096)  # (a few names per table, read at every redraw)
def clean(name: str) -> str:
    # Display names are user-chosen: keep their markdown from restyling our message.
    return discord.utils.escape_markdown(name)


def code_span(text: str) -> str:
    """``text`` from outside (a program's answer) shown verbatim in a code span.  Inside one,
    Discord renders no markdown, links or mentions; a backtick would close it early and let the
    rest render (a masked link, say), so backticks become a look-alike that cannot.  Line breaks
    and control characters become ``?``."""
    shown = "".join(ch if ch.isprintable() else "?" for ch in str(text)).replace("`", "\u02cb")
    return f"`{shown}`" if shown.strip() else "`?`"


def _named(table: Table, s: Seat) -> str:
    # Someone Deckhand forgot (tables/privacy.py) has no name any more.
    return former_name(lang(table)) if getattr(s, "former", False) else clean(s.name)


def seat_name(table: Table, seat: int | None) -> str:
    if seat is None or not 0 <= seat < len(table.seats):
        return tr(table)(N_("nobody"))
    return _named(table, table.seats[seat])


def seat_badge(table: Table, seat: int) -> str:
    s = table.seats[seat]
    if s.is_ai:
        return f"🤖 {clean(s.name)}"
    if s.away or getattr(s, "left", False):
        return tr(table)(N_("🤖 {name} (away — AI playing)"), name=_named(table, s))
    return _named(table, s)


def player_name(table: Table, seat: int) -> str:
    """A name for results: AIs marked, but not whether a person was away at some point."""
    s = table.seats[seat]
    return f"🤖 {clean(s.name)}" if s.is_ai else _named(table, s)


def hints_mark(hints: int) -> str:
    """`` · 💡 3 hints`` for a player who asked for hints (decisions with a hint, as /stats counts
    games "with hints").  Final standings only: hint use is public once the game is over, never
    during it (a count that moved would tell the others when someone was unsure)."""
    return " · 💡 " + words.ngettext(lang(), "{n} hint", "{n} hints", hints) if hints else ""


def required_seats(table: Table) -> tuple[int, ...]:
    """The players whose move is required now, the only ones a screen may name as acting.  While the
    table itself acts (a deal, a look at the cards) nobody is: the seats with an optional move then
    are those holding certain cards (a trump-rank card, both Jesters), which others may not know."""
    state = table.state
    if state is None or TABLE in state.to_act():
        return ()
    return tuple(table.to_act())


def phase_of(table: Table) -> str:
    return str(getattr(table.phase, "value", table.phase))


def hand_hint(table: Table) -> str:
    """Where a person finds their cards (My hand is in the thread when the game has one)."""
    _ = tr(table)
    return _(N_("press My hand in the thread to see your cards")) if table.thread_id else \
        _(N_("press My hand to see your cards"))


def options_line(table: Table) -> str:
    """What the table plays differently from the defaults, in plain words ("moon: the shooter scores
    −26 · blitz timers"); "" when nothing differs."""
    return options.changes_line(table.game, table.options, table.speed, getattr(table, "ai_level", None),
                                ahead=getattr(table, "play_ahead", True))


def rating_line(table: Table) -> str:
    """Whether the game is ranked, in words: the lobby's line (docs/rules.md, "Ranked and casual")."""
    _ = tr(table)
    if not getattr(table, "ranked", False):
        return _(N_("Casual: no rating changes."))
    if any(s.is_ai for s in table.seats):
        return _(N_("Casual: an AI player is seated, and only games between people are ranked."))
    return _(N_("Ranked: the result changes ratings and this season's leaderboard (between people only: "
                "an AI player makes it casual)."))


def footer_text(table: Table) -> str:
    """A running table's footer: what differs from the defaults, then where the cards are."""
    return " · ".join(p for p in (options_line(table).replace("`", ""), hand_hint(table)) if p)


def medals(places: Sequence[int]) -> list[str]:
    """A medal per place, tied places sharing one and the next place taking the next medal
    (places 1, 1, 3, 4 → 🥇 🥇 🥈 🥉); past the third, ``4.``, ``5.``…"""
    distinct = sorted(set(places))
    return [MEDALS.get(distinct.index(p) + 1, f"{distinct.index(p) + 1}.") for p in places]


def game_title(table: Table) -> str:
    try:
        return tr(table)(str(table.spec.game.title))
    except KeyError:
        return str(table.game).capitalize()


def table_title(table: Table) -> str:
    return tr(table)(N_("{game} · table `{id}`"), game=game_title(table), id=table.id)


def in_hand_order(actions: Sequence[Action], hand: Sequence[str] | None) -> list[Action]:
    """Actions in the order the hand is fanned (the engine lists them in whatever order it found
    them, which after a pass is not sorted)."""
    pos = {code: i for i, code in enumerate(hand or ())}
    return sorted(actions, key=lambda a: min((pos.get(c.code, len(pos)) for c in a.cards), default=len(pos)))


def group_by_suit(codes: Sequence[str], show: Callable[[str], str] | None = None) -> list[tuple[str, list[str]]]:
    """The hand fanned by suit in the order the engine sorted it: ``[("♣", ["2♣", "J♣"]), ...]``;
    ``show`` says how a card reads (its label by default; :func:`face` for emoji)."""
    groups: list[tuple[str, list[str]]] = []
    for code in codes:
        c = card(code)
        sym = SUIT_SYMBOLS.get(c.suit, "🃏")
        if not groups or groups[-1][0] != sym:
            groups.append((sym, []))
        groups[-1][1].append(show(code) if show is not None else c.label)
    return groups


@functools.lru_cache(maxsize=2048)  # (a hand is drawn again at each edit of its view until a card goes)
def _fanned(hand: tuple[str, ...], drawn: tuple[int, bool]) -> tuple[str, ...]:
    """``Renderer.hand_lines`` of a hand, with the cards as :func:`cards_drawn` says."""
    return tuple(" ".join(cards) for _, cards in group_by_suit(hand, face))


def _public_events(events: Iterable[Event]) -> list[Event]:
    return [e for e in events if e.to is None]


# Lines the Discord listener adds to a table's recent events: moves the clock made for someone
# ("Ali's time ran out — played 4♣."), as (event, text, replaces the event's own line).  Set around
# one render (:func:`clock_notes`) so the renderers stay functions of what they are given.
_NOTES: ContextVar[Sequence[tuple[Event | None, str, bool]]] = ContextVar("clock_notes", default=())


@contextlib.contextmanager
def clock_notes(notes: Sequence[tuple[Event | None, str, bool]]) -> Iterator[None]:
    token = _NOTES.set(tuple(notes))
    try:
        yield
    finally:
        _NOTES.reset(token)


def noted(events: Sequence[Event], texts: Sequence[str | None]) -> list[str]:
    """The lines of ``events`` (``texts``, one per event) with the clock notes of those events in
    place (a note belongs to the newest occurrence of its event)."""
    notes = _NOTES.get()
    if not notes:
        return [t for t in texts if t]
    where: dict[int, int] = {}
    for n, e in enumerate(events):
        where[id(e)] = n  # the newest occurrence wins
    replace: dict[int, str] = {}
    after: dict[int, list[str]] = {}
    for ev, text, replaces in notes:
        at = where.get(id(ev)) if ev is not None else None
        if at is None or events[at] is not ev:
            continue
        if replaces:
            replace[at] = text
        else:
            after.setdefault(at, []).append(text)
    out: list[str] = []
    for n, t in enumerate(texts):
        t = replace.get(n, t)
        if t:
            out.append(t)
        out.extend(after.get(n, ()))
    return out
