"""Hearts on Discord: the pass, the trick on the table, the last trick, hand points and scores.

Public text comes only from ``public_view()`` and public events; the hand text only from the one
seat's view (sent ephemerally).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cogs.table.render import Rendered, face, label, labels, player_name, seat_badge, seat_name
from cogs.table.renderer import Renderer, game_winners, on_table, public_only
from cogs.table.screens import Chart, Screens, Words, register
from engine.cards import Card, card
from engine.core import Decision, Event, View
from games.hearts.rules import Hearts
from tables.live import SeatView
from tables.table import Table
from words import N_, Speaker

_, n_ = Speaker("hearts").pair()

#: The way cards are passed this hand, as the sentences below say it.
_DIRECTION = {"left": N_("left"), "right": N_("right"), "across": N_("across")}


def _direction(direction: object) -> str:
    text = _DIRECTION.get(str(direction))
    return _(text) if text else str(direction)


def _winning_card(cards: Sequence[Card | str]) -> Card:
    """The card that took a trick (the engine's rule), from an event's cards or a view's codes."""
    return Hearts.trick_taken([c if isinstance(c, Card) else card(str(c)) for c in cards]).card


class HeartsRenderer(Renderer):
    whole_hand = True  # every card a button, the ones you may not play disabled

    def status_line(self, table: Table, pv: View) -> str:
        hand_no = pv.get("hand_no", 0) + 1
        phase = pv.get("phase")
        if phase == "pass":
            head = _("Hand {hand} · passing 3 cards **{direction}**", hand=hand_no,
                     direction=_direction(pv["pass_dir"]))
        else:
            # Hearts broken is a classic rule only: a mcgill table has no such limit to show.
            broken = ""
            if pv.get("rules", "classic") == "classic":
                broken = " · " + (_("♥ broken") if pv.get("hearts_broken") else _("♥ not broken yet"))
            dir_ = (_("no passing") if pv.get("pass_dir") == "hold"
                    else _("passed {direction}", direction=_direction(pv.get("pass_dir"))))
            head = _("Hand {hand} ({passing}) · trick {trick}/13", hand=hand_no, passing=dir_,
                     trick=min(pv.get("trick_no", 0) + 1, 13)) + broken
        lines = [head]
        if phase == "pass":
            waiting = [s for s in range(len(pv.get("passed", []))) if not pv["passed"][s]]
            if waiting:
                who = ", ".join(f"**{seat_name(table, s)}**" for s in waiting)
                lines.append(_("Waiting for {who} to choose", who=who)
                             + self.deadline_note(table, waiting))
        elif pv.get("turn") is not None:
            turn = pv["turn"]
            lines.append("▶ " + _("**{who}** to play", who=seat_name(table, turn))
                         + self.deadline_note(table, [turn]))
        trick = pv.get("trick") or []
        if trick:
            lines.append(_("**On the table:** {cards}", cards=on_table(table, trick, face)))
        elif pv.get("last_trick"):
            lt = pv["last_trick"]
            best = _winning_card([c for _s, c in lt["cards"]])
            lines.append(_("Last trick: {who} took it with {card} (+{points})", who=seat_name(table, lt["winner"]),
                           card=face(best), points=lt["points"]))
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
            cards = " · " + n_("{n} card", "{n} cards", left[i]) if i < len(left) else ""
            lines.append(f"{mark} {seat_badge(table, i)} — **{scores[i] if i < len(scores) else 0}** "
                         + _("(+{points} this hand)", points=hand_pts) + cards)
        return "\n".join(lines)

    @public_only
    def event_text(self, table: Table, event: Event) -> str | None:
        k, d, who = event.kind, event.data, seat_name(table, event.seat)
        if k == "deal":
            hand_no, direction = d[0], d[1]
            if direction == "hold":
                return _("Hand {hand} dealt — no passing this hand.", hand=int(hand_no) + 1)
            return _("Hand {hand} dealt — pass 3 cards {direction}.", hand=int(hand_no) + 1,
                     direction=_direction(direction))
        if k == "pass_chosen":
            return _("{who} chose 3 cards to pass.", who=who)
        if k == "exchange":
            return _("Cards passed {direction}.", direction=_direction(d[0])) if d else _("Cards passed.")
        if k == "play":
            return _("{who} played {card}.", who=who, card=label(d[0]))
        if k == "hearts_broken":
            return _("Hearts are broken! 💔")
        if k == "trick":
            pts, cards = d[1], d[2:]
            return _("{who} took the trick with {card} (+{points}).", who=who, card=label(_winning_card(cards)),
                     points=pts)
        if k == "hand_end":
            n = len(table.seats)
            pts, moon, scores = d[:n], d[n], d[n + 1: 2 * n + 1]
            parts = " · ".join(f"{seat_name(table, s)} +{pts[s]} → {scores[s]}" for s in range(n))
            moon_text = (" 🌙 " + _("{who} shot the moon!", who=seat_name(table, moon))
                         if moon is not None and moon >= 0 else "")
            return _("Hand over: {scores}.", scores=parts) + moon_text
        if k == "game_end":
            best, winners = game_winners(table, d, lowest=True)
            return n_("Game over — {winners} won with {n} point.", "Game over — {winners} won with {n} points.",
                      best, winners=winners)
        return super().event_text(table, event)

    def own_text(self, table: Table, event: Event) -> str | None:
        if event.kind == "play":
            return _("You played {card}.", card=label(event.data[0]))
        if event.kind == "pass_chosen":
            return _("You chose your 3 cards to pass.")
        return super().own_text(table, event)

    def summary(self, table: Table, events: Sequence[Event]) -> Rendered | None:
        return self.hand_summary(table, events, _("Game over"))

    def hand_end_lines(self, table: Table, hand_end: Event, over: bool) -> list[str]:
        n, d = len(table.seats), hand_end.data
        pts, moon, scores = d[:n], d[n], d[n + 1: 2 * n + 1]
        pv = table.state.public_view() if table.state is not None else {}
        hand_no = pv.get("hand_no", 0) + (1 if pv.get("phase") == "over" else 0)
        lines = [_("**End of hand {hand}**", hand=hand_no)]
        if moon is not None and moon >= 0:
            lines.append("🌙 **" + _("{who} shot the moon!", who=seat_name(table, moon)) + "**")
        for s in range(n):
            lines.append(f"{player_name(table, s)}: +{pts[s]} → **{scores[s]}**")
        return lines

    def score_text(self, table: Table, seat: int, score: object) -> str:
        return n_("{n} point", "{n} points", int(score)) if isinstance(score, int) else str(score)

    def hand_extra(self, sv: SeatView) -> list[str]:
        table, view, seat = sv.table, sv.view or {}, sv.seat
        lines = []
        direction = view.get("pass_dir")
        n = len(table.seats)
        passing, received = view.get("passing") or [], view.get("received") or []
        if direction and direction != "hold" and passing:
            to = seat_name(table, Hearts.pass_target(seat, direction))
            said = (_("You pass {cards} {direction} to {who}.") if view.get("phase") == "pass"
                    else _("You passed {cards} {direction} to {who}."))
            lines.append(said.format(cards=labels(passing), direction=_direction(direction), who=to))
        if direction and direction != "hold" and received:
            frm = seat_name(table, Hearts.pass_source(seat, direction))
            lines.append(_("You received {cards} from {who}.", cards=labels(received), who=frm))
        trick = view.get("trick") or []
        if trick:
            lines.append(_("On the table: {cards}", cards=on_table(table, trick, label)))
        elif view.get("last_trick") and view.get("phase") == "play":
            lt = view["last_trick"]
            best = _winning_card([c for _s, c in lt["cards"]])
            if lt["winner"] == seat and view.get("turn") == seat:
                lines.append(_("🏆 You won the last trick with {card} (+{points}) and lead.", card=label(best),
                               points=lt["points"]))
            else:
                lines.append(_("Last trick: {who} took it with {card} (+{points}).",
                               who=seat_name(table, lt["winner"]), card=label(best), points=lt["points"]))
        scores = view.get("scores")
        if scores and seat < len(scores):
            lines.append(_("Your score: {score} (+{points} this hand)", score=scores[seat],
                           points=view.get("hand_points", [0] * n)[seat]))
        return lines

    def decision_prompt(self, sv: SeatView, decision: Decision) -> str:
        if decision.kind == "pass" and decision.pick:
            direction = (sv.view or {}).get("pass_dir", "")
            to = seat_name(sv.table, Hearts.pass_target(sv.seat, direction))
            return n_("choose {n} card to pass {direction} to {who} in the menu below (or /play).",
                      "choose {n} cards to pass {direction} to {who} in the menu below (or /play).",
                      decision.pick, direction=_direction(direction), who=to)
        if decision.kind == "play":
            return _("play a card — press one of the buttons below (or /play).")
        return super().decision_prompt(sv, decision)


# ==== Hearts: its screens, registered once (cogs/table/screens.py) ================================================
# (Option words are this game's msgids: ``say`` speaks them when called; cogs/table/options.py translates
# ``about`` and ``values`` in the game's domain, ``Words.domain``.)
_HEARTS_RULES = {"classic": N_("classic rules (pass 3, hearts must break)"),
                 "mcgill": N_("McGill rules (no passing, any first lead)")}
_MOON = {"others_plus_26": N_("moon: the others get 26"), "shooter_minus_26": N_("moon: the shooter loses 26")}


def _say(table: dict[str, str]) -> Callable[[object], str]:
    return lambda v: _(table[str(v)]) if str(v) in table else str(v)


register(Screens(
    "hearts", HeartsRenderer(),
    words={
        "rules": Words(
            N_("which rules the table plays"), _say(_HEARTS_RULES),
            {"classic": N_("pass 3 cards before each hand (left, right, across, hold); 2♣ leads the first trick; "
                           "no heart or Q♠ on the first trick; hearts cannot be led until broken"),
             "mcgill": N_("no passing; the 2♣ holder leads any card; no first-trick or hearts-broken rule")},
            domain="hearts"),
        "target": Words(N_("the game ends after the hand in which someone reaches this score; lowest score wins"),
                        lambda v: _("game to {n}", n=v), domain="hearts"),
        "moon": Words(N_("shooting the moon (all 13 hearts and Q♠)"), _say(_MOON),
                      {"others_plus_26": N_("the shooter scores 0, everyone else +26"),
                       "shooter_minus_26": N_("the shooter scores −26, the others nothing")}, domain="hearts"),
    },
    chart=Chart(N_("points (fewest wins)")),
))
