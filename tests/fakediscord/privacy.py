"""The privacy check: nothing anyone could see shows a card hidden from them.

For every message version (deleted ones too) and every autocomplete answer the fake recorded, the
cards named in it — as labels (``Q♠``), codes (``QS``) or names (``queen of spades``) — are
compared with what the engine says is hidden from that viewer (``state.hidden_from(seat)``;
``None`` for anything public) at the moment it was sent.  The state at any moment is rebuilt by
replaying the table's log from its seed (the engine is deterministic), so the check needs no hook
in the bot.

A message is rendered a moment before it reaches Discord, and a new deal hides cards that were on
the table a moment ago, so a card counts as leaked only if it was hidden throughout the
``window`` seconds before the message arrived.  Text that names cards without saying where they
are is left out: a game's summary, rules and option help ("Q♠ scores 13"), the few fixed sentences
in :data:`STATIC_PHRASES`, the cards the engine offers a seat to choose from (its ``Decision``:
King of the Hill's "call a card" menu names cards others hold), and — in the answer to someone's
own command — the cards they typed themselves ("Q♠ is not in your hand").  A card's emoji in a
message (``<:dk_qs_1a2b3c:…>``) names it like its label.  Public component custom ids and emoji
must never carry a card, nor may those of an ephemeral message to someone who plays at none of the
channel's tables (a watcher: their every message is checked as the public's, seat ``None``).
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

import engine
import words
from engine.core import Action
from games.hearts.hints import FIXED_PHRASES, FIXED_SENTENCES

from . import payloads as P
from .server import FakeDiscord

_RANK_WORDS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
               "nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K", "ace": "A"}
_SUIT_SYMBOLS = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
_SUIT_WORDS = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
LABEL = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♣♦♥♠])")
CODE = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA])([CDHS])(?![A-Za-z0-9])")
NAME = re.compile(r"\b(two|three|four|five|six|seven|eight|nine|ten|jack|queen|king|ace) of "
                  r"(clubs|diamonds|hearts|spades)\b", re.IGNORECASE)
# A card's emoji (cogs.pictures.faces.emoji_name: ``dk_qs_1a2b3c``), in message markup or a component: its
# name says the card as plainly as a label does.
EMOJI = re.compile(r"(?<![A-Za-z0-9])dk_([2-9tjqka])([cdhs])_[0-9a-f]{6}(?![A-Za-z0-9])")


# Fixed sentences that name cards by rule or as an example, whatever the deal.
STATIC_PHRASES = (
    "(try QS, 10h or queen of spades)",  # engine.cards: a word that is no card
    "e.g. `QS` or `10h`",  # cogs.table.game: an empty /play
    "No hearts or Q♠ on the first trick",  # games.hearts.rules: a refused first-trick card
    *FIXED_PHRASES,  # games.hearts.hints: a hint's reason naming Q♠ by the rules, not by where it is
)


#: The whole sentences (catalog msgids) the phrases above are part of: their translations are fixed too.
STATIC_SENTENCES = (
    "I can't read {text} as a card (try QS, 10h or queen of spades).",
    "No hearts or Q♠ on the first trick while you hold anything else.",
    *FIXED_SENTENCES,
)


def cards_in(text: str) -> set[str]:
    """Card codes named anywhere in ``text``."""
    found = {("T" if r == "10" else r) + _SUIT_SYMBOLS[s] for r, s in LABEL.findall(text)}
    found |= {r + s for r, s in CODE.findall(text)}
    found |= {_RANK_WORDS[r.lower()] + _SUIT_WORDS[s.lower()] for r, s in NAME.findall(text)}
    found |= {(r + s).upper() for r, s in EMOJI.findall(text)}
    return found


def static_texts() -> list[str]:
    """Text every game shows whatever the deal: summaries, rules, How to play, option help (longest
    first)."""
    out: set[str] = set()
    for entry in engine.games().values():
        g = entry.game
        for s in (getattr(g, "summary", ""), getattr(g, "rules_text", ""), *entry.quick_start):
            if s:
                out.add(s)
        for o in getattr(g, "options_spec", ()):
            if getattr(o, "help", ""):
                out.add(o.help)
    out.update(STATIC_PHRASES)
    # The same sentences in every language (issue 31): each translation's literal pieces, in the
    # shared catalog or any game's (a refusal's example, a summary naming Q♠).
    for text in [*out, *STATIC_SENTENCES]:
        for lang in words.LOCALES:
            for domain in words.domains():
                said = words.translate(lang, text, domain=domain)
                if said != text:
                    out.update(p.strip() for p in re.split(r"\{[^{}]*\}", said) if len(p.strip()) > 3)
    return sorted(out, key=len, reverse=True)


class Timeline:
    """What each seat (and the public) could not see, version by version, from a table's log."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self.times: list[float] = []
        self.hidden: list[dict[int | None, frozenset[str]]] = []
        if table.state is None or table.seed is None:
            return
        game = table.spec.game
        read = getattr(game, "action_from_code", Action.parse)  # codes are read through the game
        state = game.create(len(table.seats), table.options, table.seed)
        # From the table's creation on: an earlier message in the same channel (the game before a
        # Play again) was about another table.
        self._snap(getattr(table, "created_at", None) or -math.inf, state)
        for entry in table.log:
            state.apply(entry.seat, read(entry.code))
            self._snap(entry.time, state)

    def _snap(self, at: float, state: Any) -> None:
        seats: list[int | None] = [None, *range(len(self.table.seats))]
        self.times.append(at)
        self.hidden.append({s: frozenset(state.hidden_from(s)) - _offered(state, s) for s in seats})

    def hidden_throughout(self, seat: int | None, start: float, end: float) -> frozenset[str]:
        """Cards hidden from ``seat`` at every moment between ``start`` and ``end``."""
        if not self.times or end < self.times[0]:
            return frozenset()
        first = max(0, bisect.bisect_right(self.times, start) - 1)
        last = max(0, bisect.bisect_right(self.times, end) - 1)
        out: frozenset[str] | None = None
        for i in range(first, last + 1):
            h = self.hidden[i][seat]
            out = h if out is None else out & h
        return out or frozenset()


def _offered(state: Any, seat: int | None) -> frozenset[str]:
    """Cards the engine offers ``seat`` to choose from now (King of the Hill's "call a card" lists
    cards others hold): naming them tells where none of them is."""
    if seat is None or state.is_over or seat not in state.to_act():
        return frozenset()
    d = state.decision(seat)
    if d is None:
        return frozenset()
    codes = {c.code for c in d.cards or ()}
    codes |= {c.code for a in d.actions or () for c in a.cards}
    return frozenset(codes)


def check_privacy(fd: FakeDiscord, tables: Iterable[Any], *, window: float = 2.0) -> list[str]:
    """Every leak found, as sentences (empty: nothing leaked)."""
    timelines = [Timeline(t) for t in tables]
    by_channel: dict[int, list[Timeline]] = {}
    for tl in timelines:
        for cid in {tl.table.channel_id, tl.table.thread_id}:
            if cid is not None:
                by_channel.setdefault(cid, []).append(tl)
    statics = static_texts()
    violations: list[str] = []
    for s in fd.seen():
        tls = by_channel.get(s.channel_id)
        if not tls:
            continue
        if len(tls) > 1:
            # Several tables post in one channel (a tournament's round): each deals its own deck, so a
            # message naming its table is checked against that table's hidden cards only.
            named_table = [tl for tl in tls if f"table `{tl.table.id}`" in s.text]
            tls = named_table or tls
        text = s.text
        for st in statics:
            text = text.replace(st, "")
        named = cards_in(text)
        if named and s.by is not None and s.viewer is not None:
            i = fd.interactions.get(s.by)
            if i is not None and i.user_id == s.viewer:
                named -= cards_in(i.typed())
        if not named:
            continue
        for tl in tls:
            seat = None if s.viewer is None else tl.table.seat_of(s.viewer)
            leaked = named & tl.hidden_throughout(seat, s.at - window, s.at)
            if leaked:
                who = "everyone" if s.viewer is None else f"user {s.viewer} (seat {seat})"
                violations.append(f"table {tl.table.id}: {who} could see {sorted(leaked)} in a {s.what} "
                                  f"(message {s.message_id}): {s.text[:300]!r}")
    violations += _same_deals(fd, timelines, statics, window)
    for m in fd.messages.values():
        if m.ephemeral and not _watcher(m, by_channel.get(m.channel_id, ())):
            continue
        for v in m.versions:
            for c in P.walk_components(v.components):
                cid = str(c.get("custom_id") or "")
                if cards_in(cid.replace(":", " ").replace("_", " ")):
                    violations.append(f"{_kind(m)} {m.id} carries a card in component id {cid!r}")
                face = str((c.get("emoji") or {}).get("name") or "")
                if cards_in(face):  # no button of the table message is a card (its emoji would name it)
                    violations.append(f"{_kind(m)} {m.id} carries a card in a component emoji {face!r}")
    return sorted(set(violations))


def _same_deals(fd: FakeDiscord, timelines: Sequence[Timeline], statics: Sequence[str], window: float) -> list[str]:
    """Tables dealt from one seed hold the same cards seat by seat (a duplicate tournament's round):
    what anyone could see of one — where it is played, or in a message to them — must not name a card
    hidden from them at the other, where they play."""
    by_seed: dict[Any, list[Timeline]] = {}
    for tl in timelines:
        if tl.table.seed is not None and tl.times:
            by_seed.setdefault(tl.table.seed, []).append(tl)
    out: list[str] = []
    for group in (g for g in by_seed.values() if len(g) > 1):
        places = {cid: tl for tl in group for cid in (tl.table.channel_id, tl.table.thread_id) if cid is not None}
        players = {u: tl for tl in group for u in (s.user_id for s in tl.table.seats) if u is not None}
        for s in fd.seen():
            shown = places.get(s.channel_id)
            if shown is None:
                continue
            text = s.text
            for st in statics:
                text = text.replace(st, "")
            named = cards_in(text)
            if not named:
                continue
            viewers = [s.viewer] if s.viewer is not None else [u for u in players if fd.can_see(u, s.channel_id)]
            for u in viewers:
                at = players.get(u)
                if at is None or at is shown:
                    continue
                leaked = named & at.hidden_throughout(at.table.seat_of(u), s.at - window, s.at)
                if leaked:
                    out.append(f"table {shown.table.id} (same deals as {at.table.id}): user {u} could see "
                               f"{sorted(leaked)} in a {s.what} (message {s.message_id}): {s.text[:200]!r}")
    return out


def _watcher(m: Any, tls: Sequence[Timeline]) -> bool:
    """An ephemeral message to someone who plays at none of the channel's tables (a watcher's view,
    a refusal): like a public one, none of its components may name a card."""
    return bool(tls) and m.ephemeral_to is not None and all(tl.table.seat_of(m.ephemeral_to) is None for tl in tls)


def _kind(m: Any) -> str:
    return "a watcher's message" if m.ephemeral else "public message"
