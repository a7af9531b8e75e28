"""Hearts on Discord: the pass, the trick on the table, the last trick, hand points and scores.

Public text comes only from ``public_view()`` and public events; the hand text only from the one
seat's view (sent ephemerally).
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from cogs.table.render import (
    FINISHED_COLOUR,
    RUNNING_COLOUR,
    Rendered,
    Renderer,
    _public_events,
    face,
    label,
    labels,
    phase_of,
    player_name,
    plural,
    seat_badge,
    seat_name,
    table_title,
    when,
)
from cogs.table.screens import Chart, Screens, Words, choice, register
from engine.cards import Card, card
from engine.core import Decision, Event, View
from games.hearts.rules import Hearts
from tables.live import SeatView
from tables.table import Table


def _winning_card(cards: Sequence[Card | str]) -> Card:
    """The card that took a trick (the engine's rule), from an event's cards or a view's codes."""
    return Hearts.trick_taken([c if isinstance(c, Card) else card(str(c)) for c in cards]).card


class HeartsRenderer(Renderer):
    whole_hand = True  # every card a button, the ones you may not play disabled

    def status_line(self, table: Table, pv: View) -> str:
        hand_no = pv.get("hand_no", 0) + 1
        phase = pv.get("phase")
        if phase == "pass":
            head = f"Hand {hand_no} · passing 3 cards **{pv['pass_dir']}**"
        else:
            # Hearts broken is a classic rule only: a mcgill table has no such limit to show.
            broken = ""
            if pv.get("rules", "classic") == "classic":
                broken = " · " + ("♥ broken" if pv.get("hearts_broken") else "♥ not broken yet")
            dir_ = "no passing" if pv.get("pass_dir") == "hold" else f"passed {pv.get('pass_dir')}"
            head = f"Hand {hand_no} ({dir_}) · trick {min(pv.get('trick_no', 0) + 1, 13)}/13{broken}"
        lines = [head]
        if phase == "pass":
            waiting = [s for s in range(len(pv.get("passed", []))) if not pv["passed"][s]]
            if waiting:
                who = ", ".join(f"**{seat_name(table, s)}**" for s in waiting)
                deadline = self.deadline_of(table, waiting)
                lines.append(f"Waiting for {who} to choose" + (f" · ⏰ {when(deadline)}" if deadline else ""))
        elif pv.get("turn") is not None:
            turn = pv["turn"]
            deadline = self.deadline_of(table, [turn])
            lines.append(f"▶ **{seat_name(table, turn)}** to play" + (f" · ⏰ {when(deadline)}" if deadline else ""))
        trick = pv.get("trick") or []
        if trick:
            lines.append("**On the table:** " + " · ".join(f"{seat_name(table, s)} {face(c)}" for s, c in trick))
        elif pv.get("last_trick"):
            lt = pv["last_trick"]
            best = _winning_card([c for _, c in lt["cards"]])
            lines.append(f"Last trick: {seat_name(table, lt['winner'])} took it with {face(best)} (+{lt['points']})")
        return "\n".join(lines)

    def seat_lines(self, table: Table, pv: View) -> str:
        scores, points = pv.get("scores", []), pv.get("hand_points", [])
        left, passed = pv.get("cards_left", []), pv.get("passed", [])
        phase, turn = pv.get("phase"), pv.get("turn")
        lines = []
        for i in range(len(table.seats)):
            if phase == "play" and i == turn:
                mark = "▶"
            elif phase == "pass":
                mark = "✅" if i < len(passed) and passed[i] else "⏳"
            else:
                mark = "·"
            hand_pts = points[i] if i < len(points) else 0
            cards = f" · {plural(left[i], 'card')}" if i < len(left) else ""
            lines.append(f"{mark} {seat_badge(table, i)} — **{scores[i] if i < len(scores) else 0}** "
                         f"(+{hand_pts} this hand){cards}")
        return "\n".join(lines)

    def event_text(self, table: Table, event: Event) -> str | None:
        if event.to is not None:
            return None
        k, d = event.kind, event.data
        who = seat_name(table, event.seat)
        if k == "deal":
            hand_no, direction = d[0], d[1]
            tail = "no passing this hand" if direction == "hold" else f"pass 3 cards {direction}"
            return f"Hand {int(hand_no) + 1} dealt — {tail}."
        if k == "pass_chosen":
            return f"{who} chose 3 cards to pass."
        if k == "exchange":
            return f"Cards passed {d[0]}." if d else "Cards passed."
        if k == "play":
            return f"{who} played {label(d[0])}."
        if k == "hearts_broken":
            return "Hearts are broken! 💔"
        if k == "trick":
            pts, cards = d[1], d[2:]
            return f"{who} took the trick with {_winning_card(cards).label} (+{pts})."
        if k == "hand_end":
            n = len(table.seats)
            pts, moon, scores = d[:n], d[n], d[n + 1: 2 * n + 1]
            parts = " · ".join(f"{seat_name(table, s)} +{pts[s]} → {scores[s]}" for s in range(n))
            moon_text = f" 🌙 {seat_name(table, moon)} shot the moon!" if moon is not None and moon >= 0 else ""
            return f"Hand over: {parts}.{moon_text}"
        if k == "game_end":
            best = min(d)
            winners = " and ".join(seat_name(table, s) for s in range(len(d)) if d[s] == best)
            return f"Game over — {winners} won with {plural(best, 'point')}."
        return super().event_text(table, event)

    def own_text(self, table: Table, event: Event) -> str | None:
        if event.kind == "play":
            return f"You played {label(event.data[0])}."
        if event.kind == "pass_chosen":
            return "You chose your 3 cards to pass."
        return super().own_text(table, event)

    def summary(self, table: Table, events: Sequence[Event]) -> Rendered | None:
        events = _public_events(events)
        hand_end = next((e for e in events if e.kind == "hand_end"), None)
        over = phase_of(table) == "finished" or any(e.kind == "game_end" for e in events)
        if hand_end is None and not over:
            return None
        e = discord.Embed(title=table_title(table), colour=FINISHED_COLOUR if over else RUNNING_COLOUR)
        if hand_end is not None:
            n = len(table.seats)
            d = hand_end.data
            pts, moon, scores = d[:n], d[n], d[n + 1: 2 * n + 1]
            pv = table.state.public_view() if table.state is not None else {}
            hand_no = pv.get("hand_no", 0) + (1 if pv.get("phase") == "over" else 0)
            lines = [f"**End of hand {hand_no}**"]
            if moon is not None and moon >= 0:
                lines.append(f"🌙 **{seat_name(table, moon)} shot the moon!**")
            for s in range(n):
                lines.append(f"{player_name(table, s)}: +{pts[s]} → **{scores[s]}**")
            e.description = "\n".join(lines)
        if over:
            e.add_field(name="Game over", value=self.standings_text(table), inline=False)
        return Rendered(embed=e)

    def hand_extra(self, sv: SeatView) -> list[str]:
        table, view, seat = sv.table, sv.view or {}, sv.seat
        lines = []
        direction = view.get("pass_dir")
        n = len(table.seats)
        passing, received = view.get("passing") or [], view.get("received") or []
        if direction and direction != "hold" and passing:
            to = seat_name(table, Hearts.pass_target(seat, direction))
            verb = "You pass" if view.get("phase") == "pass" else "You passed"
            lines.append(f"{verb} {labels(passing)} {direction} to {to}.")
        if direction and direction != "hold" and received:
            frm = seat_name(table, Hearts.pass_source(seat, direction))
            lines.append(f"You received {labels(received)} from {frm}.")
        trick = view.get("trick") or []
        if trick:
            lines.append("On the table: " + " · ".join(f"{seat_name(table, s)} {label(c)}" for s, c in trick))
        elif view.get("last_trick") and view.get("phase") == "play":
            lt = view["last_trick"]
            best = _winning_card([c for _, c in lt["cards"]])
            if lt["winner"] == seat and view.get("turn") == seat:
                lines.append(f"🏆 You won the last trick with {best.label} (+{lt['points']}) and lead.")
            else:
                lines.append(f"Last trick: {seat_name(table, lt['winner'])} took it with {best.label} "
                             f"(+{lt['points']}).")
        scores = view.get("scores")
        if scores and seat < len(scores):
            lines.append(f"Your score: {scores[seat]} (+{view.get('hand_points', [0] * n)[seat]} this hand)")
        return lines

    def decision_prompt(self, sv: SeatView, decision: Decision) -> str:
        if decision.kind == "pass" and decision.pick:
            direction = (sv.view or {}).get("pass_dir", "")
            to = seat_name(sv.table, Hearts.pass_target(sv.seat, direction))
            return f"choose {plural(decision.pick, 'card')} to pass {direction} to {to} in the menu below (or /play)."
        if decision.kind == "play":
            return "play a card — press one of the buttons below (or /play)."
        return super().decision_prompt(sv, decision)


# ==== Hearts: its screens, registered once (cogs/table/screens.py) ================================================
_HEARTS_RULES = {"classic": "classic rules (pass 3, hearts must break)",
                 "mcgill": "McGill rules (no passing, any first lead)"}
_MOON = {"others_plus_26": "moon: the others get 26", "shooter_minus_26": "moon: the shooter loses 26"}
register(Screens(
    "hearts", HeartsRenderer(),
    words={
        "rules": Words(
            "which rules the table plays", choice(_HEARTS_RULES),
            {"classic": "pass 3 cards before each hand (left, right, across, hold); 2♣ leads the first trick; "
                        "no heart or Q♠ on the first trick; hearts cannot be led until broken",
             "mcgill": "no passing; the 2♣ holder leads any card; no first-trick or hearts-broken rule"}),
        "target": Words("the game ends after the hand in which someone reaches this score; lowest score wins",
                        lambda v: f"game to {v}"),
        "moon": Words("shooting the moon (all 13 hearts and Q♠)", choice(_MOON),
                      {"others_plus_26": "the shooter scores 0, everyone else +26",
                       "shooter_minus_26": "the shooter scores −26, the others nothing"}),
    },
    chart=Chart("points (fewest wins)"),
))
