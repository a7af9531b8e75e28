"""The generic renderer: :class:`Renderer`, which every game's own renderer extends (``games/<name>/screens.py``).

It works for any game from what every engine provides — seats, scores, whose turn it is and raw public
events — and a game's renderer overrides the parts it can say better.  It also says how the hand view's
controls read and group (:meth:`Renderer.action_label`, :meth:`Renderer.action_group`…);
:mod:`cogs.table.components` builds them from the legal actions alone.  Like the words and shapes it
draws with (:mod:`cogs.table.render`), it is pure: no I/O, nothing awaited; a public render reads only
``state.public_view()`` and public events, the hand text only the one seat's ``SeatView``.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterable, Sequence, Sized
from typing import TypeVar

import discord

import words
from cogs.i18n.reading import lang, tr
from cogs.pictures.emoji import cards_drawn, text_only
from cogs.table.render import (
    FINISHED_COLOUR,
    LOBBY_COLOUR,
    RECENT_LINES,
    RUNNING_COLOUR,
    Rendered,
    _fanned,
    _public_events,
    clip,
    footer_text,
    hints_mark,
    in_hand_order,
    label,
    labels,
    medals,
    noted,
    options_line,
    phase_of,
    player_name,
    rating_line,
    required_seats,
    seat_badge,
    seat_name,
    table_title,
    when,
)
from cogs.table.unplayable import restriction
from engine.cards import SUIT_SYMBOLS, Card
from engine.core import Action, AnyCard, Decision, Event, Outcome, View
from engine.words import plural
from tables.live import SeatView
from tables.table import Table
from words import N_, spoken
from words.cards import name as card_name

#: The hand view's own text: the rest of a message's 2,000 is for the line a caller puts above it
#: ("✅ You played Q♠.", "⚠️ That changed just before your click…") and a menu note below it.
HAND_ROOM = 1700


@functools.lru_cache(maxsize=4096)
def joined(locale: str, items: tuple[str, ...]) -> str:
    """:func:`words.join`, remembered: the same few names are joined for every redraw and hand
    view ("Ali to act", "Waiting for Bea and Cy."), and Babel's list patterns took some 50 µs a call."""
    return words.join(locale, items)


class Renderer:
    """Works for any game from what every engine provides (seats, scores, turn, public events);
    a game's own renderer overrides the parts it can say better."""

    #: Show every card of the hand as a button while cards are played one at a time, the ones that
    #: may not be played now disabled (trick-taking games); else only the legal actions.
    whole_hand = False
    #: Put the legal actions into the renderer's menus (:meth:`action_group`) even when they would
    #: fit as buttons (a turn that mixes attacks, builds and swaps: a wall of buttons otherwise).
    menus_always = False
    #: Public events that start a new deal: recent lines never reach back past the last one.
    new_round_events: frozenset[str] = frozenset({"deal"})
    #: ``/game new`` options autocomplete: the values to suggest for an option, best first (the
    #: engine's default and round numbers otherwise).
    lobby_values: dict[str, tuple[int, ...]] = {}
    #: What a final score counts, spelled out in the standings ("12 points").
    unit = "point"

    # -- public: the table message --
    def table_message(self, table: Table) -> Rendered:
        phase = phase_of(table)
        if phase == "lobby":
            return self.lobby(table)
        if phase == "finished":
            return self.finished(table)
        return self.running(table)

    def lobby(self, table: Table) -> Rendered:
        entry_game = table.spec.game
        loc = lang(table)
        _ = words.make_(loc)
        e = discord.Embed(title=table_title(table), colour=LOBBY_COLOUR)
        changed = options_line(table)
        summary = _(entry_game.summary) if entry_game.summary else ""
        if getattr(table, "house", False):  # the server's house rules (/settings)
            played = _(N_("House rules: {changes}"), changes=changed) if changed else _(N_("House rules: standard."))
        else:
            played = _(N_("Played with: {changes}"), changes=changed) if changed else _(N_("Standard rules."))
        e.description = f"{summary}\n{played}\n{rating_line(table)}"
        lines = []
        for i, s in enumerate(table.seats):
            host = _(N_(" (host)")) if s.user_id is not None and s.user_id == table.host_id else ""
            lines.append(f"`{i + 1}` {seat_badge(table, i)}{host}")
        free = _count(table.free_seats())
        lines += ["`·` *" + _(N_("free seat")) + "*"] * free
        lo, hi = table.min_seats, table.max_seats
        players = (words.ngettext(loc, "{n} player", "{n} players", lo) if lo == hi
                   else _(N_("{low}–{high} players"), low=lo, high=hi))
        e.add_field(name=_(N_("Seats ({taken}/{most})"), taken=len(table.seats), most=table.max_seats),
                    value="\n".join(lines) or "—", inline=False)
        e.set_footer(text=_(N_("{players}. Join, or let the host add AIs and press Start (empty seats become "
                               "AIs). /game rules {game}: the rules and what the host can change."),
                            players=players, game=table.game))
        return Rendered(embed=e)

    def running(self, table: Table) -> Rendered:
        pv = table.state.public_view() if table.state is not None else {}
        e = discord.Embed(title=table_title(table), colour=RUNNING_COLOUR)
        e.description = self.status_line(table, pv)
        if table.paused:
            e.description = f"{table.paused}\n{e.description}"
        _ = tr(table)
        e.add_field(name=_(N_("Players")), value=self.seat_lines(table, pv), inline=False)
        recent = self.recent_lines(table)
        if recent:
            e.add_field(name=_(N_("Recent")), value="\n".join(recent), inline=False)
        e.set_footer(text=footer_text(table))
        return Rendered(embed=e)

    def finished(self, table: Table) -> Rendered:
        e = discord.Embed(title=tr(table)(N_("{title} — finished"), title=table_title(table)), colour=FINISHED_COLOUR)
        e.description = self.standings_text(table)
        return Rendered(embed=e)

    def status_line(self, table: Table, pv: View) -> str:
        return self.turn_line(table)

    def turn_line(self, table: Table) -> str:
        seats = list(required_seats(table))
        if not seats:
            return ""
        who = joined(lang(table), tuple(f"**{seat_name(table, s)}**" for s in seats))
        deadline = self.deadline_of(table, seats)
        return "▶ " + tr(table)(N_("{who} to act"), who=who) + (f" · ⏰ {when(deadline)}" if deadline else "")

    def deadline_of(self, table: Table, seats: Sequence[int]) -> float | None:
        times = [table.deadlines[s] for s in seats if table.deadlines.get(s) is not None]
        return min(times) if times else None

    def deadline_note(self, table: Table, seats: Sequence[int]) -> str:
        """`` · ⏰ in 25 seconds`` after a line about ``seats``' decision, when it has a deadline (:func:`clock`)."""
        return clock(self.deadline_of(table, seats))

    def seat_lines(self, table: Table, pv: View) -> str:
        scores = pv.get("scores") or [None] * len(table.seats)
        acting = set(required_seats(table))
        lines = []
        for i in range(len(table.seats)):
            mark = "▶" if i in acting else "·"
            score = "" if i >= len(scores) or scores[i] is None else f" — **{scores[i]}**"
            lines.append(f"{mark} `{i + 1}` {seat_badge(table, i)}{score}")
        return "\n".join(lines)

    def recent_lines(self, table: Table) -> list[str]:
        events = self.current_events(table)
        # Only the newest events' sentences are drawn: enough of them for the last lines (a round's
        # events are a whole hand of plays, each redraw drew them all for five lines).  A tail's
        # lines are the whole list's last ones: an event's clock notes follow its own line.
        start = len(events)
        while True:
            start = max(0, start - 2 * RECENT_LINES)
            tail = events[start:]
            out = noted(tail, [self.event_text(table, e) for e in tail])
            if len(out) >= RECENT_LINES or start == 0:
                return out[-RECENT_LINES:]

    def current_events(self, table: Table) -> list[Event]:
        """Recent public events of the current round only: cards named in earlier rounds may be back
        in someone's hand after a new deal, and the message should be about the game as it is now."""
        events = _public_events(table.recent)
        for i in range(len(events) - 1, -1, -1):
            if events[i].kind in self.new_round_events:
                return events[i:]
        return events

    def event_text(self, table: Table, event: Event) -> str | None:
        """A sentence for one public event, or ``None`` for events not worth a line."""
        if event.to is not None:
            return None
        who = seat_name(table, event.seat) if event.seat is not None else ""
        words = [label(x) if isinstance(x, Card) else str(x) for x in event.data]
        return " ".join(p for p in (who, event.kind.replace("_", " "), *words) if p) + "."

    def standings(self, table: Table) -> list[tuple[int, int, int | None]]:
        """``(place, seat, score)`` best first.  The engine's outcome when the game finished; from
        the public scores when the table was ended early."""
        state = table.state
        if state is None:
            return []
        outcome = state.outcome() if state.is_over else None
        if outcome is not None:
            rows = [(outcome.places[s], s, outcome.scores[s]) for s in range(len(outcome.scores))]
            return sorted(rows)
        scores = state.public_view().get("scores")
        if not scores:
            return [(1, s, None) for s in range(len(table.seats))]
        ranked = Outcome.ranked(scores, lowest_wins=table.spec.lowest_wins)
        return sorted((ranked.places[s], s, sc) for s, sc in enumerate(scores))

    def standings_text(self, table: Table) -> str:
        """The final standings, the same shape in every game: one line per player, best first, a
        medal per place (tied players share one, and the next place takes the next medal:
        🥇 🥇 🥈), the score in the game's own unit, who asked for hints, then how to replay the game."""
        rows = self.standings(table)
        _ = tr(table)
        if not rows:
            return _(N_("The table was closed before the game started."))
        lines = ["**" + _(N_("Final standings")) + "**" +
                 (_(N_(" (ended early)")) if getattr(table, "ended_early", False) else "")]
        for medal, (_place, seat, score) in zip(medals([place for place, _s, _c in rows]), rows, strict=True):
            pts = "" if score is None else f" — {self.score_text(table, seat, score)}"
            lines.append(f"{medal} {player_name(table, seat)}{pts}{hints_mark(getattr(table.seats[seat], 'hints', 0))}")
        lines.append(_(N_("Replay: `/game replay id:{id}`"), id=table.id))
        return "\n".join(lines)

    def score_text(self, table: Table, seat: int, score: object) -> str:
        """A final score as the standings show it, its unit spelled out (``12 points``, ``rank Q``)."""
        if self.unit == "point" and isinstance(score, int):
            return words.ngettext(lang(table), "{n} point", "{n} points", score)
        return plural(score, self.unit)

    # -- public: end of hand / game --
    def summary(self, table: Table, events: Sequence[Event]) -> Rendered | None:
        events = _public_events(events)
        ends = [e for e in events if e.kind.endswith("_end")]
        over = phase_of(table) == "finished" or any(e.kind == "game_end" for e in events)
        if not ends and not over:
            return None
        e = discord.Embed(title=table_title(table), colour=FINISHED_COLOUR if over else RUNNING_COLOUR)
        lines = [s for s in (self.event_text(table, ev) for ev in ends if ev.kind != "game_end") if s]
        if over:
            lines.append(self.standings_text(table))
        e.description = "\n".join(lines)
        return Rendered(embed=e)

    def hand_summary(self, table: Table, events: Sequence[Event], game_over: str) -> Rendered | None:
        """A game's summary after a move that ended a hand (its :meth:`hand_end_lines`) or the game (the
        standings, under ``game_over``: the game's own words for it); ``None`` when neither happened."""
        start = summary_start(table, events)
        if start is None:
            return None
        e, end, over = start
        if end is not None:
            e.description = "\n".join(self.hand_end_lines(table, end, over))
        if over:
            e.add_field(name=game_over, value=self.standings_text(table), inline=False)
        return Rendered(embed=e)

    def hand_end_lines(self, table: Table, end: Event, over: bool) -> list[str]:
        """The lines of :meth:`hand_summary` for a hand's ``end`` event (``over``: the game ended with it)."""
        return []

    # -- private: what the player just did, to head their refreshed hand view --
    def ack(self, table: Table, seat: int, events: Sequence[Event]) -> str:
        for e in events:
            if e.seat == seat and e.to is None:
                text = self.own_text(table, e)
                if text:
                    return text
        return tr(table)(N_("Done."))

    def own_text(self, table: Table, event: Event) -> str | None:
        return self.event_text(table, event)

    def ack_line(self, table: Table, seat: int, events: Sequence[Event]) -> str:
        """The line heading the refreshed hand view after a move: ✅ and what was done (a game
        overrides it where ✅ would be wrong, as on a fight the player lost)."""
        return f"✅ {self.ack(table, seat, events)}"

    # -- public: turn notice --
    def turn_notice(self, table: Table, seats: Sequence[int], live: bool = False) -> str:
        """The ping: ``live`` when everyone pinged has a hand view that is kept current (it shows the
        turn already); otherwise the ping carries a **My hand** button."""
        mentions = " ".join(f"<@{table.seats[s].user_id}>" for s in seats if table.seats[s].user_id is not None)
        deadline = self.deadline_of(table, seats)
        tail = f" ({when(deadline)})" if deadline else ""
        return f"{mentions}, {self.turn_what(table, seats, live)}{tail}"

    def turn_what(self, table: Table, seats: Sequence[int], live: bool) -> str:
        _ = tr(table)
        return _(N_("your turn — your hand view is up to date")) if live else \
            _(N_("your turn — press **My hand** below"))

    # -- private: the hand view --
    def hand_text(self, sv: SeatView) -> str:
        """The hand view's text, within :data:`HAND_ROOM`: the cards as emoji when they are ready
        and fit; when they do not, the other lines' cards (piles) go text first, then the
        hand's own (the text alone has always fitted)."""
        for plain in (0, 1, 2):
            text = self.hand_body(sv, plain)
            if len(text) <= HAND_ROOM:
                return text
        return clip(text, HAND_ROOM)

    def hand_body(self, sv: SeatView, plain: int = 0) -> str:
        """The hand view's lines; ``plain``: 1, the cards after the hand lines as text; 2, every card."""
        table, view = sv.table, sv.view or {}
        _ = tr(table)
        lines = ["**" + _(N_("Your hand")) + f"** · {table_title(table)}"]
        hand = view.get("hand")
        with text_only() if plain >= 2 else contextlib.nullcontext():
            if hand is not None:
                lines += self.hand_lines(sv, hand) if hand else ["*" + _(N_("(no cards)")) + "*"]
        with text_only() if plain >= 1 else contextlib.nullcontext():
            lines += self.hand_extra(sv)
            lines += self.seat_notes(sv)
            lines.append(self.decision_line(sv))
            if sv.decision is not None:
                lines.append(self.restriction_line(sv))
        return "\n".join(line for line in lines if line)

    def seat_notes(self, sv: SeatView) -> list[str]:
        """Missed turns, said to the person: what the clock played for them, the warning before the
        AI takes over, and how to come back once it has."""
        table, seat = sv.table, sv.seat
        if not 0 <= seat < len(table.seats) or phase_of(table) != "running":
            return []
        s = table.seats[seat]
        loc = lang(table)
        _ = words.make_(loc)
        if s.away and not getattr(s, "left", False):
            return ["🤖 " + _(N_("You missed 3 turns in a row, so the AI is playing your seat. Press **I'm back** "
                                 "to play again."))]
        if not s.missed:
            return []
        moved = next((e for e in reversed(getattr(table, "log", None) or ()) if e.seat == seat), None)
        what = _(N_("a safe move was made for you"))
        if moved is not None and getattr(moved, "auto", False):
            try:
                what = _(N_("**{move}** was played for you"), move=self.action_label(Action.parse(moved.code), sv))
            except Exception:  # a game's own card codes: no need for the details
                pass
        if s.missed == 1:
            lines = ["⏰ " + _(N_("Your time ran out — {what}."), what=what)]
        else:
            lines = ["⏰ " + words.ngettext(loc, "Your time ran out ({n} turn in a row) — {what}.",
                                            "Your time ran out ({n} turns in a row) — {what}.", s.missed, what=what)]
        if s.missed >= 2:
            lines.append("⚠️ " + _(N_("If it runs out once more, the AI plays your seat until you press **I'm back**.")))
        return lines

    def restriction_line(self, sv: SeatView) -> str:
        """Why some of the person's cards cannot be played now, in the engine's own words (asked on
        a copy of the state, so nothing changes): "You must follow suit (5♣ was led)."."""
        why = restriction(sv)
        return f"🚫 {words.say(lang(sv.table), why, sv.table.game)}" if why else ""

    def hand_lines(self, sv: SeatView, hand: Sequence[str]) -> list[str]:
        """The hand fanned for reading: one line per suit by default, the cards as emoji when ready."""
        return list(_fanned(tuple(hand), cards_drawn()))

    def hand_extra(self, sv: SeatView) -> list[str]:
        return []

    def decision_line(self, sv: SeatView) -> str:
        table, decision = sv.table, sv.decision
        _ = tr(table)
        if phase_of(table) == "finished" or (table.state is not None and table.state.is_over):
            return _(N_("The game is over."))
        if decision is None:
            waiting = [seat_name(table, s) for s in required_seats(table)]
            return (_(N_("Waiting for {who}."), who=joined(lang(table), tuple(waiting))) if waiting
                    else _(N_("Nothing to decide right now.")))
        closes = self.decision_deadline(sv)
        deadline = f" ⏰ {when(closes)}" if closes else ""
        return "**" + _(N_("Your move:")) + f"** {self.decision_prompt(sv, decision)}{deadline}"

    def decision_deadline(self, sv: SeatView) -> float | None:
        """When the person's decision closes: their own deadline.  A game whose optional decisions
        close with a step of the table itself (the end of a look at the cards before play) says so: while the table
        acts the runtime gives the seats no deadline of their own (tables/turns.py)."""
        return sv.deadline

    def decision_prompt(self, sv: SeatView, decision: Decision) -> str:
        _ = tr(sv.table)
        # (the rules' words: the game's domain, else the shared one)
        prompt = words.say(lang(sv.table), decision.prompt, sv.table.game) if decision.prompt else ""
        if decision.pick:
            return prompt + " " + _(N_("Pick {n} in the menu (or use /play)."), n=decision.pick)
        return prompt + " " + _(N_("Use the buttons (or /play)."))

    # -- private: how the hand view's controls read (cogs.table.components builds them from the legal
    # actions only; these hooks say the words and the grouping) --
    def action_label(self, action: Action, sv: SeatView | None = None) -> str:
        """A legal action on a button, as a menu option or an autocomplete name; ``sv`` (the seat's
        view, when there is one) lets it name players and piles."""
        if action.kind == "play" and action.cards and not action.args:
            return labels(action.cards)
        return " ".join([action.kind.replace("_", " "), *(label(c) for c in action.cards), *action.args])

    def action_description(self, sv: SeatView, action: Action) -> str | None:
        """The small second line under a menu option."""
        if len(action.cards) == 1 and not action.args:
            return card_name(action.cards[0], spoken())
        return None

    def action_style(self, action: Action) -> discord.ButtonStyle:
        red = any(getattr(c, "suit", "") in ("H", "D") or getattr(c, "code", "") == "~R" for c in action.cards)
        return discord.ButtonStyle.danger if red else discord.ButtonStyle.secondary

    def order_actions(self, sv: SeatView, actions: Sequence[Action]) -> list[Action]:
        """The order controls appear in: as the hand is fanned."""
        return in_hand_order(actions, (sv.view or {}).get("hand"))

    def action_group(self, sv: SeatView, action: Action) -> str | None:
        """When the actions are too many for buttons they go into menus: the name of the menu this
        one belongs in (adjacent small groups share a menu), or ``None`` to keep it a button of its
        own (pass, end turn).  Default: by the suit of its first card."""
        if not action.cards:
            return None
        return SUIT_SYMBOLS.get(getattr(action.cards[0], "suit", ""), tr(sv.table)(N_("Other")))

    def menu_placeholder(self, sv: SeatView, groups: Sequence[str]) -> str:
        """The placeholder of a menu holding these groups of actions."""
        return " · ".join(groups)

    def combo_pick(self, sv: SeatView, decision: Decision) -> int:
        """How many cards to pick from one menu instead of listing every combination as its own
        choice (two cards on a pair lead): a number, or 0 for a list."""
        return 0

    def pick_option(self, sv: SeatView, c: AnyCard, copy: int, copies: int) -> tuple[str, str | None]:
        """``(label, description)`` of one card in a "choose N cards" menu; ``copy`` counts from 1
        when the same card is there ``copies`` times."""
        name = card_name(c, spoken())
        if copies > 1:
            of = tr(sv.table)(N_("{copy} of {copies}"), copy=copy, copies=copies)
            name = f"{name} ({of})" if name else of
        return label(c), name

    def pick_group(self, sv: SeatView, c: AnyCard) -> str:
        """The menu a card goes in when a pick has more cards than one menu holds."""
        return SUIT_SYMBOLS.get(getattr(c, "suit", ""), tr(sv.table)(N_("Other")))


# ---- what every game's screens say alike (games/<name>/screens.py) ---------------------------------
R = TypeVar("R", bound="Renderer")
C = TypeVar("C")


def public_only(event_text: Callable[[R, Table, Event], str | None]) -> Callable[[R, Table, Event], str | None]:
    """A game renderer's ``event_text`` that speaks of public events alone: an event sent to one seat
    (``event.to``) has no public line."""
    @functools.wraps(event_text)
    def said(self: R, table: Table, event: Event) -> str | None:
        return None if event.to is not None else event_text(self, table, event)
    return said


def on_table(table: Table, trick: Iterable[tuple[int, C]], show: Callable[[C], str]) -> str:
    """A trick's cards, each after the seat that played it (``Ali Q♠ · Bo 3♠``; ``show``: a card or a
    pair in words)."""
    return " · ".join(f"{seat_name(table, s)} {show(c)}" for s, c in trick)


def clock(deadline: float | None) -> str:
    """`` · ⏰ in 25 seconds`` after a line whose decision has a deadline, else nothing."""
    return f" · ⏰ {when(deadline)}" if deadline else ""


def game_winners(table: Table, totals: Sequence[int], *, lowest: bool = False) -> tuple[int, str]:
    """A game's best final total (the lowest, where the lowest wins) and the seats that reached it,
    named as one list ("Ali and Bo"): what a game's "Game over" line says."""
    best = min(totals) if lowest else max(totals)
    return best, words.join(spoken(), [seat_name(table, s) for s in range(len(totals)) if totals[s] == best])


def summary_start(table: Table, events: Sequence[Event],
                  end_kind: str = "hand_end") -> tuple[discord.Embed, Event | None, bool] | None:
    """The start of a game's summary after a move: its embed (gold once the game is over), the public
    event of kind ``end_kind`` among ``events`` (a hand's end) and whether the game is over; ``None``
    when neither happened."""
    public = _public_events(events)
    end = next((e for e in public if e.kind == end_kind), None)
    over = phase_of(table) == "finished" or any(e.kind == "game_end" for e in public)
    if end is None and not over:
        return None
    return discord.Embed(title=table_title(table), colour=FINISHED_COLOUR if over else RUNNING_COLOUR), end, over


def _count(free: int | Sized) -> int:
    return free if isinstance(free, int) else len(free)


GENERIC = Renderer()
