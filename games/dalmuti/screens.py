"""The Great Dalmuti on Discord (docs/rules.md §3): the play to beat, who passed, who is out with their
new title, cards left per player and the ranking with titles; a hand grouped by number; plays
offered as single choices ("three 5s", "two 9s + Jester", "pass").

Copies of a number are alike, so a public text names numbers only when they are on the table
(played this hand) — never the taxes, which are private to the two players concerned.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import discord

from cogs.pictures.emoji import card_markup
from cogs.table.options import plural
from cogs.table.render import (
    FINISHED_COLOUR,
    RUNNING_COLOUR,
    Rendered,
    Renderer,
    phase_of,
    player_name,
    required_seats,
    seat_badge,
    seat_name,
    table_title,
    when,
)
from cogs.table.screens import Screens, Words, choice, register
from engine.core import TABLE, Action, Decision, Event, View
from games.dalmuti.faces import dalmuti_faces
from games.dalmuti.rules import JESTER_NUMBER, DCard, dcard, is_peon, set_name, title_of
from tables.live import SeatView
from tables.table import Table

TITLE_MARKS = {"Greater Dalmuti": "👑", "Lesser Dalmuti": "🎩", "Merchant": "💼", "Lesser Peon": "🧹",
               "Greater Peon": "🪣"}
PLACES = {1: "1st", 2: "2nd", 3: "3rd"}


def place_word(n: int) -> str:
    return PLACES.get(n, f"{n}th")


def spec_of(cards: Sequence[DCard | str]) -> tuple[int, int, int]:
    """``(number, count, jesters)`` of a set of Dalmuti cards (or codes)."""
    cs = [dcard(c) if isinstance(c, str) else c for c in cards]
    jesters = sum(1 for c in cs if c.number == JESTER_NUMBER)
    numbers = [c.number for c in cs if c.number != JESTER_NUMBER]
    return (numbers[0] if numbers else JESTER_NUMBER), len(cs), (jesters if numbers else 0)


def set_words(cards: Sequence[DCard | str]) -> str:
    """``three 5s``, ``two 9s + Jester``, ``a Jester``."""
    number, count, jesters = spec_of(cards)
    words = set_name(number, count, jesters)
    return "an " + words[2:] if words.startswith(("a 8", "a 11")) else words


def counts_line(codes: Sequence[str]) -> str:
    """``1 ×1 · 5 ×3 · 9 ×2 · Jester ×1``; each number as its card's emoji when they are ready."""
    cards = {dcard(c).number: dcard(c) for c in codes}
    counts = Counter(dcard(c).number for c in codes)
    return " · ".join(f"{card_markup(cards[n], 'Jester' if n == JESTER_NUMBER else str(n))} ×{counts[n]}"
                      for n in sorted(counts))


def draw_text(table: Table, draw: Sequence[Sequence[Any]], ranking: Sequence[int]) -> str:
    """The opening draw in the ranking's order, each player's draws in words: "Bea drew a 1 ·
    AI 2 drew a 12, then a 5 (tie broken)" — a tie shows as a tie, and how it was broken."""
    drawn: dict[int, list[str]] = {}
    for rnd in draw:
        for s, c in rnd:
            drawn.setdefault(s, []).append(set_words([c]))
    return " · ".join(f"{seat_name(table, s)} drew {', then '.join(drawn[s])}"
                      + (" (tie broken)" if len(drawn[s]) > 1 else "") for s in ranking if s in drawn)


def last_hand(table: Table, events: Sequence[Event] = ()) -> bool:
    """Whether the hand being played — or the one that just ended in ``events`` — is the game's
    last, so that nobody has a "next hand" to be told about."""
    if any(e.kind == "game_end" for e in events):
        return True
    if any(e.kind in ("hand_end", "hand_start") for e in events):
        return False  # the hand ended and the game goes on
    state = table.state
    if state is None:
        return False
    if state.is_over:
        return True
    pv = state.public_view()
    return int(pv.get("hand_no", 0)) + 1 >= int(pv.get("hands", 1))


class DalmutiRenderer(Renderer):
    new_round_events = frozenset({"hand_start"})
    lobby_values = {"hands": (5, 1, 3, 10)}

    # -- public --------------------------------------------------------------------------------
    def status_line(self, table: Table, pv: View) -> str:
        hand_no, hands = pv.get("hand_no", 0), pv.get("hands", 1)
        passing = "a passer sits out the round" if pv.get("pass") == "locked" else "open passing"
        lines = [f"Hand {hand_no + 1} of {hands} · lower numbers are better · {passing}"]
        rev, holder = pv.get("revolution"), pv.get("revolution_holder")
        phase = pv.get("phase")
        if rev == "greater" and holder is not None:
            lines.append(f"✊ **{seat_name(table, holder)}** led a greater revolution: the ranking is reversed "
                         "and no taxes this hand.")
        elif rev == "revolution" and holder is not None:
            lines.append(f"✊ **{seat_name(table, holder)}** called a revolution: no taxes this hand.")
        if phase == "look":
            # The same words and clock for every hand, whoever holds what (RULES §3.3).
            deadline = self.deadline_of(table, [TABLE])
            lines.append("👀 Everyone is looking at their cards; taxes follow"
                         + (f" · ⏰ {when(deadline)}" if deadline else ""))
        elif phase == "tax" and pv.get("tax"):
            tax = pv["tax"]
            giver, peon, k = tax["giver"], tax["receiver"], tax["count"]
            titles = pv.get("titles") or []
            deadline = self.deadline_of(table, [giver])
            cards = "card" if k == 1 else "cards"
            lines.append(f"💰 Taxes: **{seat_name(table, peon)}** ({titles[peon] if peon < len(titles) else ''}) "
                         f"paid their {k} best {cards}; **{seat_name(table, giver)}** is choosing {k} {cards} "
                         f"to give back" + (f" · ⏰ {when(deadline)}" if deadline else ""))
        elif phase == "play":
            cur = pv.get("current")
            turn = pv.get("turn")
            if cur:
                what = set_words(cur["cards"])
                # The cards as emoji before the words, when the emoji are ready (the words say it all).
                shown = " ".join(card_markup(c, "") for c in cur["cards"]).strip()
                what = f"{shown} {what}" if shown else what
                lines.append(f"**To beat:** {what} (played by {seat_name(table, cur['by'])}) — "
                             f"{plural(cur['count'], 'card')} of a lower number, or pass")
            elif turn is not None:
                lines.append(f"**{seat_name(table, turn)}** leads a new round")
            if turn is not None:
                deadline = self.deadline_of(table, [turn])
                clock = f" · ⏰ {when(deadline)}" if deadline else ""
                lines.append(f"▶ **{seat_name(table, turn)}** to play{clock}")
            passed = [s for s, p in enumerate(pv.get("passed") or []) if p]
            if passed and cur:
                lines.append("Passed: " + ", ".join(seat_name(table, s) for s in passed))
        out = pv.get("finish_order") or []
        if out and phase != "over":
            n = pv.get("players", len(table.seats))
            last = last_hand(table)
            lines.append("🏁 Out: " + " · ".join(
                f"{place_word(i + 1)} {seat_name(table, s)}" + ("" if last else f" (next: {title_of(i, n)})")
                for i, s in enumerate(out)))
        return "\n".join(lines)

    def seat_lines(self, table: Table, pv: View) -> str:
        ranking = pv.get("ranking") or list(range(len(table.seats)))
        titles, left = pv.get("titles") or [], pv.get("cards_left") or []
        scores, passed, out = pv.get("scores") or [], pv.get("passed") or [], pv.get("out") or []
        phase, turn, cur = pv.get("phase"), pv.get("turn"), pv.get("current")
        acting = set(required_seats(table))  # never the optional revolution during the look
        lines = []
        for s in ranking:
            title = titles[s] if s < len(titles) else ""
            if s < len(out) and out[s]:
                mark = "🏁"
                state = f"out {place_word(out[s])}"
            elif (phase == "play" and s == turn) or (phase != "play" and s in acting):
                mark, state = "▶", plural(left[s], "card") if s < len(left) else ""
            elif phase == "play" and cur and s < len(passed) and passed[s]:
                mark, state = "✋", f"passed · {plural(left[s], 'card')}" if s < len(left) else "passed"
            else:
                mark, state = "·", plural(left[s], "card") if s < len(left) else ""
            pts = scores[s] if s < len(scores) else 0
            lines.append(f"{mark} {TITLE_MARKS.get(title, '')} {title} — {seat_badge(table, s)} · {state} · "
                         f"{plural(pts, 'point')}")
        return "\n".join(lines)

    def running(self, table: Table) -> Rendered:
        rendered = super().running(table)
        pv = table.state.public_view() if table.state is not None else {}
        draw = pv.get("opening_draw")
        if draw and rendered.embed is not None and pv.get("phase") != "play":
            rendered.embed.add_field(name="Opening draw (lowest is Greater Dalmuti)",
                                     value=draw_text(table, draw, pv.get("ranking", []))[:1024], inline=False)
        return rendered

    def event_text(self, table: Table, event: Event) -> str | None:
        if event.to is not None:
            return None
        k, d = event.kind, event.data
        who = seat_name(table, event.seat)
        n = len(table.seats)
        if k == "draw":
            return f"{who} drew {d[0].label}."
        if k == "ranking":
            return "Ranking: " + " › ".join(seat_name(table, s) for s in d) + "."
        if k == "hand_start":
            return f"Hand {int(d[0]) + 1} dealt by {seat_name(table, d[1])}, the Greater Dalmuti."
        if k == "revolution":
            if d and d[0] == "greater":
                return f"✊ {who}, the Greater Peon, called a greater revolution: the ranking is reversed, no taxes!"
            return f"✊ {who} called a revolution: no taxes this hand."
        if k == "taxes_skipped":
            return None
        if k == "tax":
            cards = "card" if d[1] == 1 else "cards"
            return f"💰 {who} paid {d[1]} best {cards} in tax to {seat_name(table, d[0])}."
        if k == "tax_return":
            cards = "card" if d[1] == 1 else "cards"
            return f"{who} gave {d[1]} {cards} back to {seat_name(table, d[0])}."
        if k == "play":
            return f"{who} played {set_words(d)}."
        if k == "pass":
            return f"{who} passed."
        if k == "auto_pass":
            return f"{who} cannot beat it and passes."
        if k == "out":
            place = int(d[0])
            if last_hand(table):
                return f"🏁 {who} is out {place_word(place)}."
            return f"🏁 {who} is out {place_word(place)} — next hand: {title_of(place - 1, n)}."
        if k == "round_end":
            lead = d[0] if d else event.seat
            tail = "" if lead == event.seat else f"; {seat_name(table, lead)} leads"
            return f"Everyone passed: {who} won the round{tail}."
        if k == "hand_end":
            order = d[1:1 + n]
            return "Hand over: " + " · ".join(f"{place_word(i + 1)} {seat_name(table, s)}"
                                              for i, s in enumerate(order)) + "."
        if k == "game_end":
            best = max(d)
            winners = " and ".join(seat_name(table, s) for s in range(len(d)) if d[s] == best)
            return f"Game over — {winners} won with {plural(best, 'point')}."
        return super().event_text(table, event)

    def own_text(self, table: Table, event: Event) -> str | None:
        k, d = event.kind, event.data
        if k == "play":
            return f"You played {set_words(d)}."
        if k == "pass":
            return "You passed."
        if k == "tax_return":
            return f"You gave {plural(d[1], 'card')} back to {seat_name(table, d[0])}."
        if k == "revolution":
            return "You called a revolution!"
        return super().own_text(table, event)

    def ack(self, table: Table, seat: int, events: Sequence[Event]) -> str:
        text = super().ack(table, seat, events)
        out = next((e for e in events if e.kind == "out" and e.seat == seat and e.to is None), None)
        if out is not None:
            place = int(out.data[0])
            if last_hand(table, events):
                text += f" 🏁 You are out {place_word(place)}."
            else:
                text += (f" 🏁 You are out {place_word(place)}: next hand you are "
                         f"{title_of(place - 1, len(table.seats))}.")
        return text

    def summary(self, table: Table, events: Sequence[Event]) -> Rendered | None:
        events = [e for e in events if e.to is None]
        hand_end = next((e for e in events if e.kind == "hand_end"), None)
        over = phase_of(table) == "finished" or any(e.kind == "game_end" for e in events)
        if hand_end is None and not over:
            return None
        e = discord.Embed(title=table_title(table), colour=FINISHED_COLOUR if over else RUNNING_COLOUR)
        if hand_end is not None:
            n = len(table.seats)
            d = hand_end.data
            order, scores = d[1:1 + n], d[1 + n:1 + 2 * n]
            lines = [f"**End of hand {int(d[0]) + 1}** — finishing order" + ("" if over else " and new titles")]
            for i, s in enumerate(order):
                title = title_of(i, n)
                lines.append(f"{place_word(i + 1)} {TITLE_MARKS.get(title, '')} {player_name(table, s)} → "
                             f"**{title}** (+{n - 1 - i}, total {scores[s]})")
            e.description = "\n".join(lines)
        if over:
            e.add_field(name="Game over", value=self.standings_text(table), inline=False)
        return Rendered(embed=e)

    def score_text(self, table: Table, seat: int, score: object) -> str:
        return plural(score, "point")

    # -- private -------------------------------------------------------------------------------
    def hand_lines(self, sv: SeatView, hand: Sequence[str]) -> list[str]:
        return [counts_line(hand)]

    def hand_extra(self, sv: SeatView) -> list[str]:
        table, view, seat = sv.table, sv.view or {}, sv.seat
        lines = []
        titles = view.get("titles") or []
        if seat < len(titles):
            lines.append(f"You are the **{titles[seat]}** {TITLE_MARKS.get(titles[seat], '')}")
        given, received = view.get("tax_given") or [], view.get("tax_received") or []
        ranking = view.get("ranking") or []
        if received or given:
            n = len(ranking)
            pos = ranking.index(seat) if seat in ranking else -1
            peon_side = is_peon(pos, n) if n and pos >= 0 else False
            words = lambda codes: ", ".join(dcard(c).label for c in codes)  # noqa: E731
            if peon_side and given:
                lines.append(f"Taxes: you paid {words(given)}" + (f"; you got back {words(received)}." if received
                                                                   else "."))
            elif received:
                lines.append(f"Taxes: you received {words(received)}" + (f"; you gave back {words(given)}." if given
                                                                         else "."))
        cur = view.get("current")
        if cur and view.get("phase") == "play":
            lines.append(f"To beat: {set_words(cur['cards'])} (by {seat_name(table, cur['by'])})")
        return lines

    def decision_deadline(self, sv: SeatView) -> float | None:
        # A revolution is called before the look ends: the table's clock is the chooser's deadline.
        if sv.decision is not None and sv.decision.kind == "revolution":
            return self.deadline_of(sv.table, [TABLE])
        return super().decision_deadline(sv)

    def decision_prompt(self, sv: SeatView, decision: Decision) -> str:
        view = sv.view or {}
        if decision.kind == "play":
            cur = view.get("current")
            if cur:
                return (f"beat **{set_words(cur['cards'])}** with {cur['count']} card"
                        f"{'s' if cur['count'] != 1 else ''} of a lower number, or pass.")
            return "lead any set of one number (Jesters are wild beside a number)."
        if decision.kind == "give":
            tax = view.get("tax") or {}
            to = seat_name(sv.table, tax.get("receiver"))
            cards = "card" if decision.pick == 1 else "cards"
            return f"choose {decision.pick} {cards} to give back to **{to}** (any you like)."
        if decision.kind == "revolution":
            ranking = view.get("ranking") or []
            greater = bool(ranking) and ranking[-1] == sv.seat
            what = "a greater revolution (the ranking reverses, no taxes)" if greater else \
                "a revolution (no taxes this hand)"
            return (f"you hold both Jesters: call {what} before the look ends, or keep quiet and pay taxes as "
                    "usual — nobody learns you could have.")
        return super().decision_prompt(sv, decision)

    # -- controls ------------------------------------------------------------------------------
    def action_label(self, action: Action, sv: SeatView | None = None) -> str:
        if action.kind == "play" and action.cards:
            return set_words(action.cards)
        if action.kind == "pass":
            return "Pass"
        if action.kind == "revolution":
            return "✊ Call the revolution"
        if action.kind == "give":
            return "give " + " ".join(c.label for c in action.cards)
        return super().action_label(action)

    def action_description(self, sv: SeatView, action: Action) -> str | None:
        if action.kind == "play" and action.cards:
            number, count, jesters = spec_of(action.cards)
            cards = plural(count, "card")
            if jesters:
                return f"{cards}, with {'a Jester' if jesters == 1 else 'both Jesters'}"
            return cards
        return None

    def action_style(self, action: Action) -> discord.ButtonStyle:
        if action.kind == "play":
            return discord.ButtonStyle.primary
        if action.kind == "revolution":
            return discord.ButtonStyle.success
        return discord.ButtonStyle.secondary

    def order_actions(self, sv: SeatView, actions: Sequence[Action]) -> list[Action]:
        # The engine lists plays by number, then size: keep that, with pass last.
        return [a for a in actions if a.kind != "pass"] + [a for a in actions if a.kind == "pass"]

    def action_group(self, sv: SeatView, action: Action) -> str | None:
        if action.kind != "play" or not action.cards:
            return None
        number = spec_of(action.cards)[0]
        return "Jesters" if number == JESTER_NUMBER else f"{number}s"

    def menu_placeholder(self, sv: SeatView, groups: Sequence[str]) -> str:
        return "Play " + " · ".join(groups)

    def pick_option(self, sv: SeatView, c: Any, copy: int, copies: int) -> tuple[str, str | None]:
        name = "Jester" if c.number == JESTER_NUMBER else set_words([c])
        return c.label, (f"{name} — you hold {copies}" if copies > 1 else name)

    def pick_group(self, sv: SeatView, c: Any) -> str:
        return "Jesters" if c.number == JESTER_NUMBER else f"{c.number}s"


# ==== The Great Dalmuti: its screens, registered once (cogs/table/screens.py) =====================================
_PASS = {"locked": "a passer sits out the round", "open": "a passer may play again"}
register(Screens(
    "dalmuti", DalmutiRenderer(),
    words={
        "hands": Words("how many hands the game lasts", lambda v: plural(v, "hand")),
        "pass": Words("what passing means", choice(_PASS),
                      {"locked": "a player who passes sits out the rest of the round",
                       "open": "a player who passes may play again when play comes back round"}),
    },
    faces=dalmuti_faces(),
))
