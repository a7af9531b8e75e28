"""Tricks on Discord (docs/rules.md §2): the trick on the table, tricks won this hand, scores, the target.

Public text comes only from ``public_view()`` and public events; the hand text only from the one
seat's view (sent ephemerally).
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from cogs.table.options import plural
from cogs.table.render import (
    FINISHED_COLOUR,
    RUNNING_COLOUR,
    Rendered,
    Renderer,
    code_span,
    face,
    label,
    labels,
    phase_of,
    player_name,
    seat_badge,
    seat_name,
    table_title,
    when,
)
from cogs.table.screens import Screens, Words, register
from engine.cards import Card, card
from engine.core import Decision, Event, View
from games.tricks.rules import Tricks
from tables.live import SeatView
from tables.table import Table

TRICKS_PER_HAND = 13


def winning_card(cards: Sequence[Card | str]) -> Card:
    """The card that took a trick (the engine's rule), from an event's cards or a view's codes."""
    return Tricks.trick_taken([c if not isinstance(c, str) else card(c) for c in cards]).card


class TricksRenderer(Renderer):
    whole_hand = True  # every card a button, the ones you may not play disabled
    # For people the lobby suggests short games; 1000 (the default, as in the seed) is for programs.
    lobby_values = {"target": (25, 50, 100, 1000)}

    # -- public --------------------------------------------------------------------------------
    def status_line(self, table: Table, pv: View) -> str:
        hand_no = pv.get("hand_no", 0)
        trick_no = min(pv.get("trick_no", 0) + 1, TRICKS_PER_HAND)
        order = pv.get("order") or []
        first = seat_name(table, order[0]) if order else "?"
        lines = [f"Hand {hand_no + 1} (led by {first}) · trick {trick_no}/{TRICKS_PER_HAND} · "
                 f"first to **{pv.get('target')}** points wins"]
        turn = pv.get("turn")
        if turn is not None and pv.get("phase") == "play":
            deadline = self.deadline_of(table, [turn])
            lines.append(f"▶ **{seat_name(table, turn)}** to play" + (f" · ⏰ {when(deadline)}" if deadline else ""))
        trick = pv.get("trick") or []
        if trick:
            lines.append("**On the table:** " + " · ".join(f"{seat_name(table, s)} {face(c)}" for s, c in trick))
        elif pv.get("last_trick"):
            lt = pv["last_trick"]
            best = winning_card([c for _, c in lt["cards"]])
            played = " ".join(face(c) for _, c in lt["cards"])
            lines.append(f"Last trick ({played}): {seat_name(table, lt['winner'])} took it with {face(best)}")
        return "\n".join(lines)

    def seat_lines(self, table: Table, pv: View) -> str:
        scores, won = pv.get("scores", []), pv.get("hand_tricks", [])
        left, turn = pv.get("cards_left", []), pv.get("turn")
        bad = pv.get("bad_cards", [])
        lines = []
        for i in range(len(table.seats)):
            mark = "▶" if i == turn and pv.get("phase") == "play" else "·"
            tricks = won[i] if i < len(won) else 0
            extra = f" · {plural(left[i], 'card')}" if i < len(left) else ""
            if i < len(bad) and bad[i]:
                extra += f" · {bad[i]} bad card{'s' if bad[i] != 1 else ''}"
            lines.append(f"{mark} {seat_badge(table, i)} — **{scores[i] if i < len(scores) else 0}** "
                         f"({plural(tricks, 'trick')} this hand){extra}")
        return "\n".join(lines)

    def event_text(self, table: Table, event: Event) -> str | None:
        if event.to is not None:
            return None
        k, d = event.kind, event.data
        who = seat_name(table, event.seat)
        if k == "deal":
            return f"Hand {int(d[0]) + 1} dealt — {seat_name(table, d[1])} leads."
        if k == "trick_start":
            return None  # the next play says as much
        if k == "play":
            return f"{who} played {label(d[0])}."
        if k == "trick":
            return f"{who} took trick {int(d[0]) + 1} with {winning_card(d[2:]).label} (now {d[1]})."
        if k == "bad_card":
            said = f" ({code_span(d[0])})" if d and d[0] else ""  # a program's own words
            return f"⚠️ {who} sent a bad card{said}: −100 (now {d[1]}); the hand is abandoned."
        if k == "hand_end":
            n = len(table.seats)
            won, scores = d[2:2 + n], d[2 + n:2 + 2 * n]
            parts = " · ".join(f"{seat_name(table, s)}: {plural(won[s], 'trick')} → {scores[s]}" for s in range(n))
            head = "Hand abandoned" if d[1] else "Hand over"
            return f"{head}: {parts}."
        if k == "game_end":
            best = max(d)
            winners = " and ".join(seat_name(table, s) for s in range(len(d)) if d[s] == best)
            return f"Game over — {winners} won with {plural(best, 'point')}."
        return super().event_text(table, event)

    def own_text(self, table: Table, event: Event) -> str | None:
        if event.kind == "play":
            return f"You played {label(event.data[0])}."
        return super().own_text(table, event)

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
            won, scores = d[2:2 + n], d[2 + n:2 + 2 * n]
            lines = [f"**End of hand {int(d[0]) + 1}**" + (" (abandoned after a bad card)" if d[1] else "")]
            for s in sorted(range(n), key=lambda s: -scores[s]):
                lines.append(f"{player_name(table, s)}: {plural(won[s], 'trick')} → **{scores[s]}**")
            target = table.options.get("target") if table.options else None
            if target is not None and not over:
                lines.append(f"First to {plural(target, 'point')} wins.")
            e.description = "\n".join(lines)
        if over:
            e.add_field(name="Game over", value=self.standings_text(table), inline=False)
        return Rendered(embed=e)

    # -- private -------------------------------------------------------------------------------
    def hand_extra(self, sv: SeatView) -> list[str]:
        table, view, seat = sv.table, sv.view or {}, sv.seat
        lines = []
        trick = view.get("trick") or []
        if trick:
            lines.append("On the table: " + " · ".join(f"{seat_name(table, s)} {label(c)}" for s, c in trick))
        elif view.get("last_trick"):
            lt = view["last_trick"]
            if lt["winner"] == seat and view.get("turn") == seat:
                lines.append(f"🏆 You won the last trick ({labels(c for _, c in lt['cards'])}) and lead.")
            else:
                lines.append(f"Last trick: {labels(c for _, c in lt['cards'])} — "
                             f"{seat_name(table, lt['winner'])} took it.")
        scores, won = view.get("scores") or [], view.get("hand_tricks") or []
        if seat < len(scores):
            mine = won[seat] if seat < len(won) else 0
            lines.append(f"Your score: {scores[seat]} ({plural(mine, 'trick')} this hand) · "
                         f"target {view.get('target')}")
        return lines

    def decision_prompt(self, sv: SeatView, decision: Decision) -> str:
        if decision.kind == "play":
            trick = (sv.view or {}).get("trick") or []
            if trick:
                led = card(trick[0][1])
                return f"follow {led.label[-1]} if you can — press a card below (or /play)."
            return "lead any card — press one below (or /play)."
        return super().decision_prompt(sv, decision)


# ==== Tricks: its screens, registered once (cogs/table/screens.py) ================================================
register(Screens(
    "tricks", TricksRenderer(),
    words={
        "target": Words("the game ends after the hand in which someone reaches this score; highest score wins "
                        "(program contests play to 1000)", lambda v: f"first to {plural(v, 'point')}"),
    },
    # A Discord table plays to 50 (about a dozen hands); the engine's 1000 is the program arena's.
    table_defaults={"target": 50},
))
