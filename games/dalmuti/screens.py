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

import words
from cogs.pictures.emoji import card_markup
from cogs.table.render import Rendered, player_name, required_seats, seat_badge, seat_name
from cogs.table.renderer import Renderer, game_winners, public_only
from cogs.table.screens import Screens, Words, register
from engine.core import TABLE, Action, Decision, Event, View
from games.dalmuti.faces import dalmuti_faces
from games.dalmuti.rules import JESTER_NUMBER, DCard, dcard, is_peon, set_name, title_of
from tables.live import SeatView
from tables.table import Table
from words import N_, Speaker

_, n_ = Speaker("dalmuti").pair()

#: The titles as the engine names them, each a msgid of this game's domain (the published games' own
#: words: Großer Dalmuti, Grand Péon, 大平民…).
TITLES = {"Greater Dalmuti": N_("Greater Dalmuti"), "Lesser Dalmuti": N_("Lesser Dalmuti"),
          "Merchant": N_("Merchant"), "Lesser Peon": N_("Lesser Peon"), "Greater Peon": N_("Greater Peon")}


def title_words(title: str) -> str:
    """A title in the language being drawn."""
    return _(TITLES[title]) if title in TITLES else title


TITLE_MARKS = {"Greater Dalmuti": "👑", "Lesser Dalmuti": "🎩", "Merchant": "💼", "Lesser Peon": "🧹",
               "Greater Peon": "🪣"}
PLACES = {1: "1st", 2: "2nd", 3: "3rd"}


def place_word(n: int) -> str:
    if words.spoken() == words.ENGLISH:
        return PLACES.get(n, f"{n}th")
    return n_("place {n}", "place {n}", n)  # (1., 1er, 1.º, 第1, 1位: each language's ordinal)


def spec_of(cards: Sequence[DCard | str]) -> tuple[int, int, int]:
    """``(number, count, jesters)`` of a set of Dalmuti cards (or codes)."""
    cs = [dcard(c) if isinstance(c, str) else c for c in cards]
    jesters = sum(1 for c in cs if c.number == JESTER_NUMBER)
    numbers = [c.number for c in cs if c.number != JESTER_NUMBER]
    return (numbers[0] if numbers else JESTER_NUMBER), len(cs), (jesters if numbers else 0)


def set_words(cards: Sequence[DCard | str]) -> str:
    """``three 5s``, ``two 9s + Jester``, ``a Jester``."""
    number, count, jesters = spec_of(cards)
    if words.spoken() != words.ENGLISH:
        return _said_set(number, count, jesters)
    said = set_name(number, count, jesters)
    return "an " + said[2:] if said.startswith(("a 8", "a 11")) else said


def _said_set(number: int, count: int, jesters: int) -> str:
    """A set in another language than English (English: the rules' own ``set_name``)."""
    if number == JESTER_NUMBER:
        return _("a Jester") if count == 1 else _("two Jesters")
    if number in (8, 11):  # "an eight", "an eleven" (the catalogs' English)
        said = n_("an {number}", "{n} {number}s", count - jesters, number=number)
    else:
        said = n_("a {number}", "{n} {number}s", count - jesters, number=number)
    if jesters:
        said = _("{set} + Jester", set=said) if jesters == 1 else _("{set} + two Jesters", set=said)
    return said


def _jester() -> str:
    return _("Jester")


def counts_line(codes: Sequence[str]) -> str:
    """``1 ×1 · 5 ×3 · 9 ×2 · Jester ×1``; each number as its card's emoji when they are ready."""
    cards = {dcard(c).number: dcard(c) for c in codes}
    counts = Counter(dcard(c).number for c in codes)
    return " · ".join(f"{card_markup(cards[n], _jester() if n == JESTER_NUMBER else str(n))} ×{counts[n]}"
                      for n in sorted(counts))


def draw_text(table: Table, draw: Sequence[Sequence[Any]], ranking: Sequence[int]) -> str:
    """The opening draw in the ranking's order, each player's draws in words: "Bea drew a 1 ·
    AI 2 drew a 12, then a 5 (tie broken)" — a tie shows as a tie, and how it was broken."""
    drawn: dict[int, list[str]] = {}
    for rnd in draw:
        for s, c in rnd:
            drawn.setdefault(s, []).append(set_words([c]))
    return " · ".join(_("{who} drew {cards}", who=seat_name(table, s), cards=_(", then ").join(drawn[s]))
                      + (" " + _("(tie broken)") if len(drawn[s]) > 1 else "") for s in ranking if s in drawn)


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
        passing = _("a passer sits out the round") if pv.get("pass") == "locked" else _("open passing")
        lines = [_("Hand {hand} of {hands} · lower numbers are better · {passing}", hand=hand_no + 1, hands=hands,
                   passing=passing)]
        rev, holder = pv.get("revolution"), pv.get("revolution_holder")
        phase = pv.get("phase")
        if rev == "greater" and holder is not None:
            lines.append("✊ " + _("**{who}** led a greater revolution: the ranking is reversed and no taxes this "
                                   "hand.", who=seat_name(table, holder)))
        elif rev == "revolution" and holder is not None:
            lines.append("✊ " + _("**{who}** called a revolution: no taxes this hand.", who=seat_name(table, holder)))
        if phase == "look":
            # The same words and clock for every hand, whoever holds what (RULES §3.3).
            lines.append("👀 " + _("Everyone is looking at their cards; taxes follow")
                         + self.deadline_note(table, [TABLE]))
        elif phase == "tax" and pv.get("tax"):
            tax = pv["tax"]
            giver, peon, k = tax["giver"], tax["receiver"], tax["count"]
            titles = pv.get("titles") or []
            lines.append("💰 " + n_("Taxes: **{peon}** ({title}) paid their {n} best card; **{giver}** is choosing "
                                    "{n} card to give back",
                                    "Taxes: **{peon}** ({title}) paid their {n} best cards; **{giver}** is choosing "
                                    "{n} cards to give back", k, peon=seat_name(table, peon),
                                    title=title_words(titles[peon]) if peon < len(titles) else "",
                                    giver=seat_name(table, giver))
                         + self.deadline_note(table, [giver]))
        elif phase == "play":
            cur = pv.get("current")
            turn = pv.get("turn")
            if cur:
                what = set_words(cur["cards"])
                # The cards as emoji before the words, when the emoji are ready (the words say it all).
                shown = " ".join(card_markup(c, "") for c in cur["cards"]).strip()
                what = f"{shown} {what}" if shown else what
                lines.append(n_("**To beat:** {what} (played by {who}) — {n} card of a lower number, or pass",
                                "**To beat:** {what} (played by {who}) — {n} cards of a lower number, or pass",
                                cur["count"], what=what, who=seat_name(table, cur["by"])))
            elif turn is not None:
                lines.append(_("**{who}** leads a new round", who=seat_name(table, turn)))
            if turn is not None:
                lines.append("▶ " + _("**{who}** to play", who=seat_name(table, turn))
                             + self.deadline_note(table, [turn]))
            passed = [s for s, p in enumerate(pv.get("passed") or []) if p]
            if passed and cur:
                lines.append(_("Passed: {who}", who=", ".join(seat_name(table, s) for s in passed)))
        out = pv.get("finish_order") or []
        if out and phase != "over":
            n = pv.get("players", len(table.seats))
            last = last_hand(table)
            lines.append("🏁 " + _("Out: {players}", players=" · ".join(
                f"{place_word(i + 1)} {seat_name(table, s)}"
                + ("" if last else " " + _("(next: {title})", title=title_words(title_of(i, n))))
                for i, s in enumerate(out))))
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
                state = _("out {place}", place=place_word(out[s]))
            elif (phase == "play" and s == turn) or (phase != "play" and s in acting):
                mark, state = "▶", n_("{n} card", "{n} cards", left[s]) if s < len(left) else ""
            elif phase == "play" and cur and s < len(passed) and passed[s]:
                mark, state = "✋", (_("passed") + " · " + n_("{n} card", "{n} cards", left[s]) if s < len(left)
                                    else _("passed"))
            else:
                mark, state = "·", n_("{n} card", "{n} cards", left[s]) if s < len(left) else ""
            pts = scores[s] if s < len(scores) else 0
            lines.append(f"{mark} {TITLE_MARKS.get(title, '')} {title_words(title)} — {seat_badge(table, s)} · "
                         f"{state} · " + n_("{n} point", "{n} points", pts))
        return "\n".join(lines)

    def running(self, table: Table) -> Rendered:
        rendered = super().running(table)
        pv = table.state.public_view() if table.state is not None else {}
        draw = pv.get("opening_draw")
        if draw and rendered.embed is not None and pv.get("phase") != "play":
            rendered.embed.add_field(name=_("Opening draw (lowest is Greater Dalmuti)"),
                                     value=draw_text(table, draw, pv.get("ranking", []))[:1024], inline=False)
        return rendered

    @public_only
    def event_text(self, table: Table, event: Event) -> str | None:
        k, d, who = event.kind, event.data, seat_name(table, event.seat)
        n = len(table.seats)
        if k == "game_end":
            best, winners = game_winners(table, d)
            return n_("Game over — {winners} won with {n} point.", "Game over — {winners} won with {n} points.",
                      best, winners=winners)
        if k == "draw":
            return _("{who} drew {card}.", who=who, card=d[0].label)
        if k == "ranking":
            return _("Ranking: {players}.", players=" › ".join(seat_name(table, s) for s in d))
        if k == "hand_start":
            return _("Hand {hand} dealt by {who}, the Greater Dalmuti.", hand=int(d[0]) + 1, who=seat_name(table, d[1]))
        if k == "revolution":
            if d and d[0] == "greater":
                return "✊ " + _("{who}, the Greater Peon, called a greater revolution: the ranking is reversed, "
                                "no taxes!", who=who)
            return "✊ " + _("{who} called a revolution: no taxes this hand.", who=who)
        if k == "taxes_skipped":
            return None
        if k == "tax":
            return "💰 " + n_("{who} paid {n} best card in tax to {to}.", "{who} paid {n} best cards in tax to {to}.",
                              d[1], who=who, to=seat_name(table, d[0]))
        if k == "tax_return":
            return n_("{who} gave {n} card back to {to}.", "{who} gave {n} cards back to {to}.", d[1], who=who,
                      to=seat_name(table, d[0]))
        if k == "play":
            return _("{who} played {set}.", who=who, set=set_words(d))
        if k == "pass":
            return _("{who} passed.", who=who)
        if k == "auto_pass":
            return _("{who} cannot beat it and passes.", who=who)
        if k == "out":
            place = int(d[0])
            if last_hand(table):
                return "🏁 " + _("{who} is out {place}.", who=who, place=place_word(place))
            return "🏁 " + _("{who} is out {place} — next hand: {title}.", who=who, place=place_word(place),
                            title=title_words(title_of(place - 1, n)))
        if k == "round_end":
            lead = d[0] if d else event.seat
            if lead == event.seat:
                return _("Everyone passed: {who} won the round.", who=who)
            return _("Everyone passed: {who} won the round; {leader} leads.", who=who, leader=seat_name(table, lead))
        if k == "hand_end":
            order = d[1:1 + n]
            return _("Hand over: {players}.", players=" · ".join(f"{place_word(i + 1)} {seat_name(table, s)}"
                                                                 for i, s in enumerate(order)))
        return super().event_text(table, event)

    def own_text(self, table: Table, event: Event) -> str | None:
        k, d = event.kind, event.data
        if k == "pass":
            return _("You passed.")
        if k == "play":
            return _("You played {set}.", set=set_words(d))
        if k == "tax_return":
            return n_("You gave {n} card back to {who}.", "You gave {n} cards back to {who}.", d[1],
                      who=seat_name(table, d[0]))
        if k == "revolution":
            return _("You called a revolution!")
        return super().own_text(table, event)

    def ack(self, table: Table, seat: int, events: Sequence[Event]) -> str:
        text = super().ack(table, seat, events)
        out = next((e for e in events if e.kind == "out" and e.seat == seat and e.to is None), None)
        if out is not None:
            place = int(out.data[0])
            if last_hand(table, events):
                text += " 🏁 " + _("You are out {place}.", place=place_word(place))
            else:
                text += " 🏁 " + _("You are out {place}: next hand you are {title}.", place=place_word(place),
                                  title=title_words(title_of(place - 1, len(table.seats))))
        return text

    def summary(self, table: Table, events: Sequence[Event]) -> Rendered | None:
        return self.hand_summary(table, events, _("Game over"))

    def hand_end_lines(self, table: Table, hand_end: Event, over: bool) -> list[str]:
        n, d = len(table.seats), hand_end.data
        order, scores = d[1:1 + n], d[1 + n:1 + 2 * n]
        lines = [_("**End of hand {hand}** — finishing order", hand=int(d[0]) + 1) if over
                 else _("**End of hand {hand}** — finishing order and new titles", hand=int(d[0]) + 1)]
        for i, s in enumerate(order):
            title = title_of(i, n)
            lines.append(f"{place_word(i + 1)} {TITLE_MARKS.get(title, '')} {player_name(table, s)} → "
                         f"**{title_words(title)}** " + _("(+{points}, total {total})", points=n - 1 - i,
                                                          total=scores[s]))
        return lines

    def score_text(self, table: Table, seat: int, score: object) -> str:
        return n_("{n} point", "{n} points", int(score)) if isinstance(score, int) else str(score)

    # -- private -------------------------------------------------------------------------------
    def hand_lines(self, sv: SeatView, hand: Sequence[str]) -> list[str]:
        return [counts_line(hand)]

    def hand_extra(self, sv: SeatView) -> list[str]:
        table, view, seat = sv.table, sv.view or {}, sv.seat
        lines = []
        titles = view.get("titles") or []
        if seat < len(titles):
            lines.append(_("You are the **{title}**", title=title_words(titles[seat]))
                         + f" {TITLE_MARKS.get(titles[seat], '')}")
        given, received = view.get("tax_given") or [], view.get("tax_received") or []
        ranking = view.get("ranking") or []
        if received or given:
            n = len(ranking)
            pos = ranking.index(seat) if seat in ranking else -1
            peon_side = is_peon(pos, n) if n and pos >= 0 else False
            said = lambda codes: ", ".join(dcard(c).label for c in codes)  # noqa: E731
            if peon_side and given:
                lines.append(_("Taxes: you paid {paid}; you got back {back}.", paid=said(given), back=said(received))
                             if received else _("Taxes: you paid {paid}.", paid=said(given)))
            elif received:
                lines.append(_("Taxes: you received {got}; you gave back {back}.", got=said(received), back=said(given))
                             if given else _("Taxes: you received {got}.", got=said(received)))
        cur = view.get("current")
        if cur and view.get("phase") == "play":
            lines.append(_("To beat: {set} (by {who})", set=set_words(cur["cards"]), who=seat_name(table, cur["by"])))
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
                return n_("beat **{set}** with {n} card of a lower number, or pass.",
                          "beat **{set}** with {n} cards of a lower number, or pass.", cur["count"],
                          set=set_words(cur["cards"]))
            return _("lead any set of one number (Jesters are wild beside a number).")
        if decision.kind == "give":
            tax = view.get("tax") or {}
            to = seat_name(sv.table, tax.get("receiver"))
            return n_("choose {n} card to give back to **{who}** (any you like).",
                      "choose {n} cards to give back to **{who}** (any you like).", decision.pick, who=to)
        if decision.kind == "revolution":
            ranking = view.get("ranking") or []
            greater = bool(ranking) and ranking[-1] == sv.seat
            what = _("a greater revolution (the ranking reverses, no taxes)") if greater else \
                _("a revolution (no taxes this hand)")
            return _("you hold both Jesters: call {what} before the look ends, or keep quiet and pay taxes as "
                     "usual — nobody learns you could have.", what=what)
        return super().decision_prompt(sv, decision)

    # -- controls ------------------------------------------------------------------------------
    def action_label(self, action: Action, sv: SeatView | None = None) -> str:
        if action.kind == "play" and action.cards:
            return set_words(action.cards)
        if action.kind == "pass":
            return _("Pass")
        if action.kind == "revolution":
            return "✊ " + _("Call the revolution")
        if action.kind == "give":
            return _("give {cards}", cards=" ".join(c.label for c in action.cards))
        return super().action_label(action)

    def action_description(self, sv: SeatView, action: Action) -> str | None:
        if action.kind == "play" and action.cards:
            number, count, jesters = spec_of(action.cards)
            cards = n_("{n} card", "{n} cards", count)
            if jesters:
                return _("{cards}, with a Jester", cards=cards) if jesters == 1 else \
                    _("{cards}, with both Jesters", cards=cards)
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
        return _("Jesters") if number == JESTER_NUMBER else _("{number}s", number=number)

    def menu_placeholder(self, sv: SeatView, groups: Sequence[str]) -> str:
        return _("Play {groups}", groups=" · ".join(groups))

    def pick_option(self, sv: SeatView, c: Any, copy: int, copies: int) -> tuple[str, str | None]:
        name = _jester() if c.number == JESTER_NUMBER else set_words([c])
        return c.label, (_("{name} — you hold {n}", name=name, n=copies) if copies > 1 else name)

    def pick_group(self, sv: SeatView, c: Any) -> str:
        return _("Jesters") if c.number == JESTER_NUMBER else _("{number}s", number=c.number)


# ==== The Great Dalmuti: its screens, registered once (cogs/table/screens.py) =====================================
_PASS = {"locked": N_("a passer sits out the round"), "open": N_("a passer may play again")}
register(Screens(
    "dalmuti", DalmutiRenderer(),
    words={
        "hands": Words(N_("how many hands the game lasts"), lambda v: n_("{n} hand", "{n} hands", v),
                       domain="dalmuti"),
        "pass": Words(N_("what passing means"), lambda v: _(_PASS[v]) if v in _PASS else str(v),
                      {"locked": N_("a player who passes sits out the rest of the round"),
                       "open": N_("a player who passes may play again when play comes back round")},
                      domain="dalmuti"),
    },
    faces=dalmuti_faces(),
))
