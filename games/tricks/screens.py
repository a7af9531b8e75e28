"""Tricks on Discord (docs/rules.md §2): the trick on the table, tricks won this hand, scores, the target.

Public text comes only from ``public_view()`` and public events; the hand text only from the one
seat's view (sent ephemerally).
"""

from __future__ import annotations

from collections.abc import Sequence

from cogs.table.render import Rendered, code_span, face, label, labels, player_name, seat_badge, seat_name
from cogs.table.renderer import Renderer, game_winners, on_table, public_only
from cogs.table.screens import Screens, Words, register
from engine.cards import Card, card
from engine.core import Decision, Event, View
from games.tricks.rules import Tricks
from tables.live import SeatView
from tables.table import Table
from words import N_, Speaker

_, n_ = Speaker("tricks").pair()

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
        lines = [_("Hand {hand} (led by {who}) · trick {trick}/{tricks} · first to **{target}** points wins",
                   hand=hand_no + 1, who=first, trick=trick_no, tricks=TRICKS_PER_HAND, target=pv.get("target"))]
        turn = pv.get("turn")
        if turn is not None and pv.get("phase") == "play":
            lines.append("▶ " + _("**{who}** to play", who=seat_name(table, turn))
                         + self.deadline_note(table, [turn]))
        if trick := pv.get("trick"):
            lines.append(_("**On the table:** {cards}", cards=on_table(table, trick, face)))
        elif lt := pv.get("last_trick"):
            best = winning_card([c for _s, c in lt["cards"]])
            played = " ".join(face(c) for _s, c in lt["cards"])
            lines.append(_("Last trick ({cards}): {who} took it with {card}", cards=played,
                           who=seat_name(table, lt["winner"]), card=face(best)))
        return "\n".join(lines)

    def seat_lines(self, table: Table, pv: View) -> str:
        scores, won = pv.get("scores", []), pv.get("hand_tricks", [])
        left, turn = pv.get("cards_left", []), pv.get("turn")
        bad = pv.get("bad_cards", [])
        lines = []
        for i in range(len(table.seats)):
            mark = "▶" if i == turn and pv.get("phase") == "play" else "·"
            tricks = won[i] if i < len(won) else 0
            extra = " · " + n_("{n} card", "{n} cards", left[i]) if i < len(left) else ""
            if i < len(bad) and bad[i]:
                extra += " · " + n_("{n} bad card", "{n} bad cards", bad[i])
            lines.append(f"{mark} {seat_badge(table, i)} — **{scores[i] if i < len(scores) else 0}** "
                         + n_("({n} trick this hand)", "({n} tricks this hand)", tricks) + extra)
        return "\n".join(lines)

    @public_only
    def event_text(self, table: Table, event: Event) -> str | None:
        k, d, who = event.kind, event.data, seat_name(table, event.seat)
        if k == "deal":
            return _("Hand {hand} dealt — {who} leads.", hand=int(d[0]) + 1, who=seat_name(table, d[1]))
        if k == "trick_start":
            return None  # the next play says as much
        if k == "play":
            return _("{who} played {card}.", who=who, card=label(d[0]))
        if k == "trick":
            return _("{who} took trick {trick} with {card} (now {score}).", who=who, trick=int(d[0]) + 1,
                     card=label(winning_card(d[2:])), score=d[1])
        if k == "bad_card":
            said = f" ({code_span(d[0])})" if d and d[0] else ""  # a program's own words
            return "⚠️ " + _("{who} sent a bad card{said}: −100 (now {score}); the hand is abandoned.", who=who,
                             said=said, score=d[1])
        if k == "game_end":
            best, winners = game_winners(table, d)
            return n_("Game over — {winners} won with {n} point.", "Game over — {winners} won with {n} points.",
                      best, winners=winners)
        if k == "hand_end":
            n = len(table.seats)
            won, scores = d[2:2 + n], d[2 + n:2 + 2 * n]
            parts = " · ".join(seat_name(table, s) + ": " + n_("{n} trick", "{n} tricks", won[s]) + f" → {scores[s]}"
                               for s in range(n))
            return (_("Hand abandoned: {scores}.", scores=parts) if d[1]
                    else _("Hand over: {scores}.", scores=parts))
        return super().event_text(table, event)

    def own_text(self, table: Table, event: Event) -> str | None:
        if event.kind == "play":
            return _("You played {card}.", card=label(event.data[0]))
        return super().own_text(table, event)

    def summary(self, table: Table, events: Sequence[Event]) -> Rendered | None:
        return self.hand_summary(table, events, _("Game over"))

    def hand_end_lines(self, table: Table, hand_end: Event, over: bool) -> list[str]:
        n, d = len(table.seats), hand_end.data
        won, scores = d[2:2 + n], d[2 + n:2 + 2 * n]
        lines = [_("**End of hand {hand}**", hand=int(d[0]) + 1)
                 + (" " + _("(abandoned after a bad card)") if d[1] else "")]
        for s in sorted(range(n), key=lambda s: -scores[s]):
            won_s = n_("{n} trick", "{n} tricks", won[s])
            lines.append(f"{player_name(table, s)}: {won_s} → **{scores[s]}**")
        target = table.options.get("target") if table.options else None
        if target is not None and not over:
            lines.append(n_("First to {n} point wins.", "First to {n} points wins.", target))
        return lines

    # -- private -------------------------------------------------------------------------------
    def hand_extra(self, sv: SeatView) -> list[str]:
        table, view, seat = sv.table, sv.view or {}, sv.seat
        lines = []
        trick = view.get("trick") or []
        if trick:
            lines.append(_("On the table: {cards}", cards=on_table(table, trick, label)))
        elif view.get("last_trick"):
            lt = view["last_trick"]
            played = labels(c for _s, c in lt["cards"])
            if lt["winner"] == seat and view.get("turn") == seat:
                lines.append(_("🏆 You won the last trick ({cards}) and lead.", cards=played))
            else:
                lines.append(_("Last trick: {cards} — {who} took it.", cards=played,
                               who=seat_name(table, lt["winner"])))
        scores, won = view.get("scores") or [], view.get("hand_tricks") or []
        if seat < len(scores):
            mine = won[seat] if seat < len(won) else 0
            lines.append(n_("Your score: {score} ({n} trick this hand) · target {target}",
                            "Your score: {score} ({n} tricks this hand) · target {target}", mine,
                            score=scores[seat], target=view.get("target")))
        return lines

    def score_text(self, table: Table, seat: int, score: object) -> str:
        return n_("{n} point", "{n} points", int(score)) if isinstance(score, int) else str(score)

    def decision_prompt(self, sv: SeatView, decision: Decision) -> str:
        if decision.kind == "play":
            trick = (sv.view or {}).get("trick") or []
            if trick:
                led = card(trick[0][1])
                return _("follow {suit} if you can — press a card below (or /play).", suit=led.label[-1])
            return _("lead any card — press one below (or /play).")
        return super().decision_prompt(sv, decision)


# ==== Tricks: its screens, registered once (cogs/table/screens.py) ================================================
register(Screens(
    "tricks", TricksRenderer(),
    words={
        "target": Words(N_("the game ends after the hand in which someone reaches this score; highest score wins "
                           "(program contests play to 1000)"),
                        lambda v: n_("first to {n} point", "first to {n} points", v), domain="tricks"),
    },
    # A Discord table plays to 50 (about a dozen hands); the engine's 1000 is the program arena's.
    table_defaults={"target": 50},
))
