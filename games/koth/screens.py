"""King of the Hill on Discord (docs/rules.md §4): the live deal and its declarations, the bury, the
called card, tricks of singles and pairs, the challenge score and every player's rank.

The public table shows the deal's progress and the current declaration, the trump rank and suit,
the KotH, the called card, the known defenders, the challengers' points so far and each rank; the
hand view (ephemeral) fans 20–28 cards by effective suit with trumps first and offers declaring
while the deal runs (the view is kept current as cards arrive; Refresh stays as a fallback).
Ordering always comes from a :class:`~games.koth.trump.Trump` value made from the view, never
from a card alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import discord

import words
import words.cards
from cogs.table.render import Rendered, face, faces, label, labels, phase_of, player_name, seat_badge, seat_name
from cogs.table.renderer import Renderer, on_table, public_only
from cogs.table.screens import Chart, Screens, Words, register
from engine.cards import SUIT_SYMBOLS, Card, card
from engine.core import TABLE, Action, Decision, Event, View
from games.koth.naming import (
    SUIT_WORDS,
    card_name,
    progress_bar,
    rank_text,
    suit_title,
    suit_word,
    trump_of,
    trumps_word,
)
from tables.live import SeatView
from tables.table import Table
from words import N_, Speaker

_, n_ = Speaker("koth").pair()

DEFEND_BELOW = 80
TRICKS = 20
RANKS = "23456789TJQKA"


def play_words(cards: Sequence[Card | str]) -> str:
    cs = [card(c) if isinstance(c, str) else c for c in cards]
    if len(cs) == 2 and cs[0] is cs[1]:
        return _("a pair of {card}", card=label(cs[0]))
    return " + ".join(label(c) for c in cs)


class KothRenderer(Renderer):
    new_round_events = frozenset({"round"})
    lobby_values = {"rounds": (0, 1, 3, 5), "ready_round": (5, 0, 10), "ready_trick": (0, 2, 5),
                    "dead_hand_multiplier": (2, 1, 3)}

    # -- public --------------------------------------------------------------------------------
    def status_line(self, table: Table, pv: View) -> str:
        phase = pv.get("phase")
        rounds = pv.get("rounds") or 0
        koth = pv.get("koth")
        head = (_("Round {round} of {rounds}", round=pv.get("round", 1), rounds=rounds) if rounds
                else _("Round {round}", round=pv.get("round", 1)))
        head += " · " + _("trump rank **{rank}**", rank=rank_text(pv.get("trump_rank")))
        suit = pv.get("trump_suit")
        if suit:
            how = {"declared": N_("declared"), "random": N_("drawn at random"),
                   "chosen": N_("chosen by the King")}.get(pv.get("trump_how") or "", "")
            head += " · " + _("trumps **{suit}**", suit=trumps_word(suit)) + (f" ({_(how)})" if how else "")
        lines = [head]
        if koth is not None:
            ranks = pv.get("ranks") or []
            lines.append("👑 " + (_("King: **{who}** (rank {rank})", who=seat_name(table, koth),
                                    rank=rank_text(ranks[koth]))
                                  if koth < len(ranks) else _("King: **{who}**", who=seat_name(table, koth))))
        elif phase in ("round_ready", "deal", "late"):
            lines.append("👑 " + _("No King yet: whoever holds the final declaration becomes the King."))
        lines += self._phase_lines(table, pv)
        return "\n".join(lines)

    def _clock(self, table: Table, seats: Sequence[int | None]) -> str:
        return self.deadline_note(table, [s for s in seats if s is not None])

    def _phase_lines(self, table: Table, pv: View) -> list[str]:
        phase, koth = pv.get("phase"), pv.get("koth")
        lines: list[str] = []
        if phase == "round_ready":
            ready = pv.get("ready") or []
            waiting = [s for s, r in enumerate(ready) if not r]
            lines.append("⏳ " + _("The round starts when everyone is ready — waiting for {who}",
                                  who=", ".join(seat_name(table, s) for s in waiting)) + self._clock(table, waiting))
        elif phase in ("deal", "late"):
            dealt, total = pv.get("dealt", 0), pv.get("deal_total", 100)
            if phase == "deal":
                lines.append("🃏 " + _("Dealing {bar} {dealt}/{total} cards", bar=progress_bar(dealt, total),
                                      dealt=dealt, total=total))
            else:
                lines.append("🃏 " + _("All cards dealt — **last chance to declare**") + self._clock(table, [-1]))
            lines.append(self._declaration_line(table, pv))
        elif phase == "suit":
            lines.append(_("Nobody declared: **{who}** chooses the trump suit", who=seat_name(table, koth))
                         + self._clock(table, [koth]))
        elif phase == "bury":
            lines.append("🪦 " + _("**{who}** took the 8 dead-hand cards and is burying 8", who=seat_name(table, koth))
                         + self._clock(table, [koth]))
        elif phase == "call":
            lines.append("📣 " + _("**{who}** is calling a card", who=seat_name(table, koth))
                         + self._clock(table, [koth]))
        elif phase in ("play", "trick_ready"):
            trick_no = min(pv.get("trick_no", 0) + 1, TRICKS)
            turn = pv.get("turn")
            if phase == "play" and turn is not None:
                lines.append(_("Trick {trick}/{tricks} · ▶ **{who}** to play", trick=trick_no, tricks=TRICKS,
                               who=seat_name(table, turn)) + self._clock(table, [turn]))
            else:
                ready = pv.get("ready") or []
                waiting = [s for s, r in enumerate(ready) if not r]
                lines.append(_("Trick {trick}/{tricks} · waiting for Ready: {who}", trick=trick_no, tricks=TRICKS,
                               who=", ".join(seat_name(table, s) for s in waiting)) + self._clock(table, waiting))
            trick = pv.get("trick") or []
            if trick:
                lines.append(_("**On the table:** {cards}", cards=on_table(table, trick, faces)))
            elif pv.get("last_trick"):
                lt = pv["last_trick"]
                plays = " · ".join(faces(p) for _s, p in lt["plays"])
                lines.append(_("Last trick ({cards}): {who} took it (+{points})", cards=plays,
                               who=seat_name(table, lt["winner"]), points=lt["points"]))
        if phase in ("call", "play", "trick_ready") or pv.get("called"):
            called = self._called_line(table, pv)
            if called:
                lines.append(called)
        if phase in ("play", "trick_ready"):
            defenders = pv.get("defenders") or []
            names = ", ".join(("👑 " if s == koth else "🤝 ") + seat_name(table, s) for s in defenders)
            lines.append("🛡️ " + _("Known defenders: {who}", who=names))
            lines.append("⚔️ " + _("Challengers' points so far: **{points}** ({needed} or more takes the hill)",
                                   points=pv.get("challenger_points", 0), needed=DEFEND_BELOW))
        last = pv.get("last_round")
        if phase in ("round_ready", "over") and last:
            lines.append(self._last_round_line(table, last))
        return lines

    def _declaration_line(self, table: Table, pv: View) -> str:
        d = pv.get("declaration")
        if d is None:
            rank = rank_text(pv.get("trump_rank"))
            return _("No declaration yet — anyone holding a {rank} may declare from **My hand**.", rank=rank)
        cards = d["cards"]
        if len(cards) == 2:
            return "📢 " + _("**{who}** declared a pair {cards} — final.", who=seat_name(table, d["seat"]),
                            cards=labels(cards))
        return "📢 " + _("**{who}** declared {card} — an identical pair can still override it.",
                        who=seat_name(table, d["seat"]), card=label(cards[0]))

    def _called_line(self, table: Table, pv: View) -> str | None:
        called = pv.get("called")
        if not called:
            if pv.get("alone") and pv.get("phase") in ("play", "trick_ready"):
                return "📣 " + _("No card was called: **{who}** defends alone.", who=seat_name(table, pv.get("koth")))
            return None
        koth, mate = pv.get("koth"), pv.get("teammate")
        if mate is not None:
            return "📣 " + _("Called: {card} — 🤝 **{who}** played it and defends with the King.", card=label(called),
                            who=seat_name(table, mate))
        if pv.get("alone"):
            return "📣 " + _("Called: {card} — the King played it: **{who}** defends alone.", card=label(called),
                            who=seat_name(table, koth))
        seen = pv.get("called_seen", 0)
        tail = " " + _("(one copy played so far)") if seen else ""
        if pv.get("called_copy") == "first":
            said = _("Called: {card} — whoever plays the first copy joins the King", card=label(called))
        else:
            said = _("Called: {card} — whoever plays the second copy joins the King", card=label(called))
        return f"📣 {said}{tail}."

    def _last_round_line(self, table: Table, last: dict[str, Any]) -> str:
        score = last.get("challenge_score", 0)
        nxt = last.get("next_koth")
        verdict = _("the hill held") if score < DEFEND_BELOW else _("the hill fell")
        text = _("Last round: challengers scored **{score}** — {verdict}; next King **{who}**.", score=score,
                 verdict=verdict, who=seat_name(table, nxt))
        if last.get("dead_hand"):
            text += " " + n_("Buried: {cards} ({n} point).", "Buried: {cards} ({n} points).",
                             last.get("dead_hand_points", 0), cards=labels(last["dead_hand"]))
        return text

    def seat_lines(self, table: Table, pv: View) -> str:
        ranks, left, points = pv.get("ranks") or [], pv.get("cards_left") or [], pv.get("points") or []
        koth, mate, phase, turn = pv.get("koth"), pv.get("teammate"), pv.get("phase"), pv.get("turn")
        ready = pv.get("ready") or []
        lines = []
        for i in range(len(table.seats)):
            if phase in ("round_ready", "trick_ready") and i < len(ready):
                mark = "✅" if ready[i] else "⏳"
            elif phase == "play" and i == turn:
                mark = "▶"
            else:
                mark = "·"
            role = " 👑" if i == koth else " 🤝" if i == mate else ""
            parts = [_("rank **{rank}**", rank=rank_text(ranks[i])) if i < len(ranks) else ""]
            if i < len(left) and phase not in ("round_ready", "over"):
                parts.append(n_("{n} card", "{n} cards", left[i]))
            if i < len(points) and phase in ("play", "trick_ready"):
                parts.append(n_("{n} point taken", "{n} points taken", points[i]))
            lines.append(f"{mark} {seat_badge(table, i)}{role} — " + " · ".join(p for p in parts if p))
        return "\n".join(lines)

    @public_only
    def event_text(self, table: Table, event: Event) -> str | None:
        k, d, who = event.kind, event.data, seat_name(table, event.seat)
        if k == "round":
            rnd, rank, koth = d
            if koth is not None and koth >= 0:
                koth_name = seat_name(table, koth)
                return _("Round {round}: trump rank {rank}; {who} is the King and is dealt first.", round=rnd,
                         rank=rank_text(rank), who=koth_name)
            return _("Round {round}: trump rank {rank}; dealing starts with {who}.", round=rnd, rank=rank_text(rank),
                     who=who)
        if k == "declare":
            if len(d) == 2:
                return "📢 " + _("{who} declared a pair {cards}.", who=who, cards=labels(d))
            return "📢 " + _("{who} declared {card}.", who=who, card=label(d[0]))
        if k == "trump":
            suit, rank, how = d
            trumps = trumps_word(suit)
            if how == "random":
                return _("Trumps drawn at random: {suit}; {who} is the King.", suit=trumps, who=who)
            if how == "chosen":
                return _("{who} chose {suit} as trumps.", who=who, suit=trumps)
            return _("Trumps are {suit} (rank {rank}); {who} is the King.", suit=trumps, rank=rank_text(rank), who=who)
        if k == "suit_choice":
            return _("Nobody declared: {who} chooses the trump suit.", who=who)
        if k == "buried":
            return "🪦 " + _("{who} buried 8 cards.", who=who)
        if k == "call":
            if not d:
                return "📣 " + _("{who} called no card in time: nobody is enlisted, the King defends alone.", who=who)
            return "📣 " + _("{who} called {card}.", who=who, card=label(d[0]))
        if k in ("ready", "dealt"):
            return None
        if k == "play":
            return _("{who} played {cards}.", who=who, cards=play_words(d))
        if k == "teammate":
            return "🤝 " + _("{who} played the called {card} and now defends with the King!", who=who, card=label(d[0]))
        if k == "alone":
            return _("{who} played the called {card}: the King defends alone.", who=who, card=label(d[0]))
        if k == "trick":
            return _("{who} took trick {trick} (+{points}).", who=who, trick=int(d[0]) + 1, points=d[1])
        if k == "hand_end":
            rnd, score, nxt, gain = d[0], d[2], d[7], d[8]
            verdict = _("the hill held") if score < DEFEND_BELOW else _("the hill fell")
            climb = ", " + n_("+{n} rank", "+{n} ranks", gain) if gain else ""
            return _("Round {round} over: challengers {score} — {verdict}{climb}; next King {who}.", round=rnd,
                     score=score, verdict=verdict, climb=climb, who=seat_name(table, nxt))
        if k == "game_end":
            n = len(table.seats)
            winners = [int(s) for s in d[n:]]
            return _("Game over — {winners} won.", winners=words.join(words.spoken(),
                                                                       [seat_name(table, s) for s in winners]))
        return super().event_text(table, event)

    def own_text(self, table: Table, event: Event) -> str | None:
        k, d = event.kind, event.data
        if k == "play":
            return _("You played {cards}.", cards=play_words(d))
        if k == "declare":
            return _("You declared {cards}.", cards=labels(d))
        if k == "buried":
            return _("You buried 8 cards.")
        if k == "call":
            return _("You called {card}.", card=label(d[0])) if d else _("No card called: you defend alone.")
        if k == "ready":
            return _("Ready!")
        if k == "trump":
            return _("Trumps: {suit}.", suit=SUIT_SYMBOLS[d[0]])
        return super().own_text(table, event)

    def turn_what(self, table: Table, seats: Sequence[int], live: bool) -> str:
        kinds = set()
        for s in seats:
            d = table.state.decision(s) if table.state is not None else None
            if d is not None:
                kinds.add(d.kind)
        where = _("in your hand view") if live else _("with **My hand** below")
        what = {"ready": N_("press **Ready** {where} for the next round"),
                "bury": N_("you are the King: bury 8 cards {where}"),
                "call": N_("call a card {where}"),
                "suit": N_("nobody declared: choose the trump suit {where}")}
        if len(kinds) == 1 and next(iter(kinds)) in what:
            return _(what[next(iter(kinds))], where=where)
        return super().turn_what(table, seats, live)

    def summary(self, table: Table, events: Sequence[Event]) -> Rendered | None:
        return self.hand_summary(table, events, _("Game over"))

    def hand_end_lines(self, table: Table, end: Event, over: bool) -> list[str]:
        n, d = len(table.seats), end.data
        rnd, mate, score, ch_pts, dead_pts, bonus, last_winner, nxt, gain = d[:9]
        after = list(d[9:9 + n])
        koth = end.seat
        assert koth is not None  # a hand's end names its KotH
        pv = table.state.public_view() if table.state is not None else {}
        last = pv.get("last_round") or {}
        before = last.get("ranks_before") if last.get("round") == rnd else None
        lines = [_("**End of round {round}**", round=rnd),
                 "👑 " + (_("King {who} with 🤝 {mate}", who=player_name(table, koth),
                           mate=player_name(table, mate))
                         if mate >= 0 else _("King {who} defending alone", who=player_name(table, koth)))]
        took = (n_("Challengers took {n} point and the last trick: + {bonus} for the buried {dead}",
                   "Challengers took {n} points and the last trick: + {bonus} for the buried {dead}", ch_pts,
                   bonus=bonus, dead=dead_pts) if bonus
                else n_("Challengers took {n} point", "Challengers took {n} points", ch_pts))
        lines.append(f"⚔️ {took} → **{score}**")
        if score < DEFEND_BELOW:
            lines.append("🛡️ " + n_("The hill held: defenders climb {n} rank.",
                                   "The hill held: defenders climb {n} ranks.", gain))
        else:
            lines.append("🏔️ " + (n_("The hill fell: challengers climb {n} rank.",
                                    "The hill fell: challengers climb {n} ranks.", gain) if gain
                                 else _("The hill fell: no one climbs.")))
        if last.get("dead_hand") and last.get("round") == rnd:
            lines.append("🪦 " + _("Buried: {cards}", cards=labels(last["dead_hand"])))
        lines.append(_("Next King: **{who}**", who=player_name(table, nxt)) if not over else "")
        for s in range(n):
            was = f"{rank_text(before[s])} → " if before and before[s] != after[s] else ""
            now = "**" + rank_text(after[s]) + "**"
            lines.append(f"{player_name(table, s)}: " + _("rank {rank}", rank=was + now))
        return [line for line in lines if line]

    def standings(self, table: Table) -> list[tuple[int, int, int | None]]:
        state = table.state
        if state is None or state.is_over:
            return super().standings(table)
        ranks = [RANKS.index(r) + 2 for r in state.public_view().get("ranks", [])]
        return sorted((1 + sum(1 for o in ranks if o > r), s, r) for s, r in enumerate(ranks))

    def score_text(self, table: Table, seat: int, score: object) -> str:
        if isinstance(score, int) and 2 <= score <= 14:
            return _("rank {rank}", rank=rank_text(RANKS[score - 2]))
        return str(score)

    # -- private -------------------------------------------------------------------------------
    def hand_lines(self, sv: SeatView, hand: Sequence[str]) -> list[str]:
        trump = trump_of(sv.view or {})
        groups: list[tuple[str, list[str]]] = []
        for code in hand:
            c = card(code)
            eff = trump.effective_suit(c)
            if not groups or groups[-1][0] != eff:
                groups.append((eff, []))
            groups[-1][1].append(face(code))
        lines = [f"**{suit_title(eff)}** ({len(cs)}): {' '.join(cs)}" for eff, cs in groups]
        return [n_("{n} card, trumps first:", "{n} cards, trumps first:", len(hand)), *lines]

    def hand_extra(self, sv: SeatView) -> list[str]:
        table, view, seat = sv.table, sv.view or {}, sv.seat
        lines = []
        phase, koth, mate = view.get("phase"), view.get("koth"), view.get("teammate")
        ranks = view.get("ranks") or []
        suit = view.get("trump_suit")
        trumps = f"{SUIT_SYMBOLS[suit]}" if suit else _("not declared yet")
        lines.append(_("Trump rank {rank} · trump suit {suit} · your rank {yours}",
                       rank=rank_text(view.get("trump_rank")), suit=trumps,
                       yours=rank_text(ranks[seat]) if seat < len(ranks) else "?"))
        if phase in ("deal", "late"):
            lines.append("🃏 " + _("{dealt}/{total} cards dealt — new cards show up here as they come.",
                                  dealt=view.get("dealt", 0), total=view.get("deal_total", 100)))
            d = view.get("declaration")
            lines.append(self._declaration_line(table, view) if d is not None else
                         _("No declaration yet — anyone holding a {rank} may declare with the buttons.",
                           rank=rank_text(view.get("trump_rank"))))
        if seat == koth:
            mate_line = (" 🤝 " + _("{who} defends with you.", who=seat_name(table, mate))) if mate is not None \
                else ""
            lines.append("👑 " + _("You are the King.") + mate_line)
        elif seat == mate:
            lines.append("🤝 " + _("You defend with the King."))
        if view.get("dead_hand"):
            lines.append("🪦 " + _("You took the dead hand: {cards}", cards=labels(view["dead_hand"])))
        if view.get("buried"):
            lines.append("🪦 " + _("You buried: {cards}", cards=labels(view["buried"])))
        called = self._called_line(table, view)
        if called and phase in ("play", "trick_ready"):
            lines.append(called)
        trick = view.get("trick") or []
        if trick:
            lines.append(_("On the table: {cards}", cards=on_table(table, trick, labels)))
        if phase in ("play", "trick_ready"):
            lines.append(_("Challengers' points so far: {points}", points=view.get("challenger_points", 0)))
        return lines

    def decision_line(self, sv: SeatView) -> str:
        view = sv.view or {}
        if sv.decision is None and view.get("phase") in ("deal", "late") and phase_of(sv.table) == "running":
            rank = view.get("trump_rank")
            declared = view.get("declaration")
            if declared and len(declared["cards"]) == 2:
                return _("A pair was declared: trumps are settled. The deal goes on.")
            if declared:
                return _("Only an identical pair of {rank}s can override now. The deal goes on.", rank=rank_text(rank))
            return _("You may declare as soon as you hold a {rank}. The deal goes on.", rank=rank_text(rank))
        return super().decision_line(sv)

    def decision_deadline(self, sv: SeatView) -> float | None:
        # A declaration after the last card closes with the late window, on the table's clock.
        # (During the deal the window is the deal itself, shown card by card on the table.)
        if sv.decision is not None and (sv.view or {}).get("phase") == "late":
            return self.deadline_of(sv.table, [TABLE])
        return super().decision_deadline(sv)

    def decision_prompt(self, sv: SeatView, decision: Decision) -> str:
        k = decision.kind
        if k == "declare":
            return _("you may declare trumps (optional) — or let the deal go on.")
        if k == "bury":
            return _("bury 8 cards: choose them in the menus below (your choice is kept as you go), then press "
                     "**Bury** (or name all 8 with /play).")
        if k == "call":
            rank = rank_text((sv.view or {}).get("trump_rank"))
            if (sv.view or {}).get("called_copy") == "second":
                return _("call a card (not a joker, not a {rank}): whoever plays its second copy defends with you "
                         "— secretly, until then.", rank=rank)
            return _("call a card (not a joker, not a {rank}): whoever plays its first copy defends with you — "
                     "secretly, until then.", rank=rank)
        if k == "suit":
            return _("nobody declared: choose the trump suit.")
        if k == "ready":
            return _("press **Ready** when you are.")
        if k == "play":
            trick = (sv.view or {}).get("trick") or []
            if not trick:
                return _("lead one card or an identical pair.")
            if len(trick[0][1]) == 2:
                return _("a pair was led: play a pair of the led suit if you have one, else as many of it as you can.")
            return _("follow the led suit if you can.")
        return super().decision_prompt(sv, decision)

    # -- controls ------------------------------------------------------------------------------
    def action_label(self, action: Action, sv: SeatView | None = None) -> str:
        k = action.kind
        if k == "play" and action.cards:
            cs = action.cards
            if len(cs) == 2 and cs[0] is cs[1]:
                return _("{cards} (pair)", cards=labels(cs))
            return " + ".join(label(c) for c in cs)
        if k == "declare":
            return "📢 " + (_("Declare pair {cards}", cards=labels(action.cards)) if len(action.cards) == 2
                           else _("Declare {cards}", cards=labels(action.cards)))
        if k == "call":
            return _("Call {card}", card=label(action.cards[0]))
        if k == "suit" and action.args:
            s = action.args[0]
            return f"{SUIT_SYMBOLS.get(s, s)} {suit_word(s) if s in SUIT_WORDS else s}"
        if k == "ready":
            return "✅ " + _("Ready")
        if k == "bury":
            return _("bury {cards}", cards=labels(action.cards))
        return super().action_label(action)

    def action_description(self, sv: SeatView, action: Action) -> str | None:
        if action.kind == "call":
            return _("{card}: whoever plays it joins you", card=card_name(action.cards[0]))
        if action.kind == "play" and len(action.cards) == 2 and action.cards[0] is action.cards[1]:
            return _("a pair of {card}s", card=card_name(action.cards[0]))
        return super().action_description(sv, action)

    def action_style(self, action: Action) -> discord.ButtonStyle:
        if action.kind == "ready":
            return discord.ButtonStyle.success
        if action.kind == "declare":
            return discord.ButtonStyle.primary
        if action.kind == "suit" and action.args:
            return discord.ButtonStyle.danger if action.args[0] in "HD" else discord.ButtonStyle.secondary
        return super().action_style(action)

    def order_actions(self, sv: SeatView, actions: Sequence[Action]) -> list[Action]:
        view = sv.view or {}
        if actions and actions[0].kind == "call":
            trump = trump_of(view)
            return sorted(actions, key=lambda a: trump.sort_key(a.cards[0]))
        return super().order_actions(sv, actions)

    def action_group(self, sv: SeatView, action: Action) -> str | None:
        if action.kind in ("play", "call") and action.cards:
            return suit_title(trump_of(sv.view or {}).effective_suit(action.cards[0]))
        return None

    def menu_placeholder(self, sv: SeatView, groups: Sequence[str]) -> str:
        kind = sv.decision.kind if sv.decision else ""
        said = {"call": N_("Call: {groups}"), "play": N_("Play: {groups}")}.get(kind, N_("Choose: {groups}"))
        return _(said, groups=" · ".join(groups))

    def combo_pick(self, sv: SeatView, decision: Decision) -> int:
        # Two cards on a pair lead: when the combinations are too many to list, choose the two.
        trick = (sv.view or {}).get("trick") or []
        if decision.kind == "play" and trick and len(trick[0][1]) == 2 and len(decision.actions) > 25:
            return 2
        return 0

    def pick_option(self, sv: SeatView, c: Any, copy: int, copies: int) -> tuple[str, str | None]:
        return label(c), (_("{card} (you hold both)", card=card_name(c)) if copies > 1 else card_name(c))

    def pick_group(self, sv: SeatView, c: Any) -> str:
        return suit_title(trump_of(sv.view or {}).effective_suit(c))


# ==== King of the Hill: its screens, registered once (cogs/table/screens.py) ======================================
CHART_RANKS = "23456789TJQKA"


def rank_points(pv: View, n: int) -> list[float]:
    """The end-of-game chart's point for each player: their rank (2 to 14 for A)."""
    return [float(CHART_RANKS.index(str(r)) + 2) if str(r) in CHART_RANKS else 2.0
            for r in (pv.get("ranks") or ["2"] * n)]


_COPY = {"first": N_("the first copy of the called card joins"),
         "second": N_("the second copy of the called card joins")}
register(Screens("koth", KothRenderer(), words={
        "rounds": Words(N_("the most rounds the game lasts, then the highest rank wins; 0: until a King or teammate "
                           "defends at rank A"),
                        lambda v: _("play until a defence at rank A") if v == 0
                        else n_("at most {n} round", "at most {n} rounds", v), domain="koth"),
        "called_copy": Words(N_("which copy of the called card makes its player the King's teammate"),
                             lambda v: _(_COPY[v]) if v in _COPY else str(v),
                             {"first": N_("the first copy played"), "second": N_("the second copy played")},
                             domain="koth"),
        "dead_hand_multiplier": Words(N_("the buried cards' points count this many times for the challengers when "
                                         "they win the last trick"), lambda v: _("dead hand ×{n}", n=v), domain="koth"),
        "deal_rate": Words(N_("seconds between dealt cards"),
                           lambda v: n_("a card every {n} second", "a card every {n} seconds", v), domain="koth"),
        "ready_round": Words(N_("seconds to press Ready before a round (then ready anyway); 0: no Ready step"),
                             lambda v: _("no Ready before a round") if v == 0
                             else n_("{n} second to get ready before a round",
                                     "{n} seconds to get ready before a round", v), domain="koth"),
        "ready_trick": Words(N_("seconds to press Ready before each trick (then ready anyway); 0: no Ready step"),
                             lambda v: _("no Ready before a trick") if v == 0
                             else n_("{n} second to get ready before a trick",
                                     "{n} seconds to get ready before a trick", v), domain="koth"),
    },
    chart=Chart(N_("rank"), N_("round"), snapshot=rank_points,
                y_ticks={float(i + 2): ("10" if r == "T" else r) for i, r in enumerate(CHART_RANKS)}),
))
