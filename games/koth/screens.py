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

from cogs.table.options import plural
from cogs.table.render import (
    FINISHED_COLOUR,
    RUNNING_COLOUR,
    Rendered,
    Renderer,
    face,
    faces,
    label,
    labels,
    phase_of,
    player_name,
    seat_badge,
    seat_name,
    table_title,
    when,
)
from cogs.table.screens import Chart, Screens, Words, choice, register
from engine.cards import SUIT_SYMBOLS, Card, card
from engine.core import TABLE, Action, Decision, Event, View
from games.koth.trump import TRUMPS, Trump
from tables.live import SeatView
from tables.table import Table

SUIT_WORDS = {"C": "Clubs", "D": "Diamonds", "H": "Hearts", "S": "Spades"}
RANK_WORDS = {"T": "10"}
DEFEND_BELOW = 80
TRICKS = 20
RANKS = "23456789TJQKA"


def rank_text(rank: str | None) -> str:
    return RANK_WORDS.get(rank or "", rank or "?")


def trump_of(view: View) -> Trump:
    return Trump(view.get("trump_suit"), view.get("trump_rank") or "2")


def suit_title(suit: str) -> str:
    """A group name for an effective suit."""
    return "Trumps" if suit == TRUMPS else f"{SUIT_SYMBOLS[suit]} {SUIT_WORDS[suit]}"


def play_words(cards: Sequence[Card | str]) -> str:
    cs = [card(c) if isinstance(c, str) else c for c in cards]
    if len(cs) == 2 and cs[0] is cs[1]:
        return f"a pair of {cs[0].label}"
    return " + ".join(c.label for c in cs)


def progress_bar(done: int, total: int, width: int = 10) -> str:
    full = round(width * done / total) if total else 0
    return "▰" * full + "▱" * (width - full)


class KothRenderer(Renderer):
    new_round_events = frozenset({"round"})
    lobby_values = {"rounds": (0, 1, 3, 5), "ready_round": (5, 0, 10), "ready_trick": (0, 2, 5),
                    "dead_hand_multiplier": (2, 1, 3)}

    # -- public --------------------------------------------------------------------------------
    def status_line(self, table: Table, pv: View) -> str:
        phase = pv.get("phase")
        rounds = pv.get("rounds") or 0
        koth = pv.get("koth")
        head = f"Round {pv.get('round', 1)}" + (f" of {rounds}" if rounds else "")
        head += f" · trump rank **{rank_text(pv.get('trump_rank'))}**"
        suit = pv.get("trump_suit")
        if suit:
            how = {"declared": "declared", "random": "drawn at random", "chosen": "chosen by the King"}.get(
                pv.get("trump_how") or "", "")
            head += f" · trumps **{SUIT_SYMBOLS[suit]} {SUIT_WORDS[suit].lower()}**" + (f" ({how})" if how else "")
        lines = [head]
        if koth is not None:
            ranks = pv.get("ranks") or []
            lines.append(f"👑 King: **{seat_name(table, koth)}** (rank {rank_text(ranks[koth])})"
                         if koth < len(ranks) else f"👑 King: **{seat_name(table, koth)}**")
        elif phase in ("round_ready", "deal", "late"):
            lines.append("👑 No King yet: whoever holds the final declaration becomes the King.")
        lines += self._phase_lines(table, pv)
        return "\n".join(lines)

    def _clock(self, table: Table, seats: Sequence[int | None]) -> str:
        deadline = self.deadline_of(table, [s for s in seats if s is not None])
        return f" · ⏰ {when(deadline)}" if deadline else ""

    def _phase_lines(self, table: Table, pv: View) -> list[str]:
        phase, koth = pv.get("phase"), pv.get("koth")
        lines: list[str] = []
        if phase == "round_ready":
            ready = pv.get("ready") or []
            waiting = [s for s, r in enumerate(ready) if not r]
            lines.append("⏳ The round starts when everyone is ready — waiting for "
                         + ", ".join(seat_name(table, s) for s in waiting) + self._clock(table, waiting))
        elif phase in ("deal", "late"):
            dealt, total = pv.get("dealt", 0), pv.get("deal_total", 100)
            if phase == "deal":
                lines.append(f"🃏 Dealing {progress_bar(dealt, total)} {dealt}/{total} cards")
            else:
                lines.append("🃏 All cards dealt — **last chance to declare**" + self._clock(table, [-1]))
            lines.append(self._declaration_line(table, pv))
        elif phase == "suit":
            lines.append(f"Nobody declared: **{seat_name(table, koth)}** chooses the trump suit"
                         + self._clock(table, [koth]))
        elif phase == "bury":
            lines.append(f"🪦 **{seat_name(table, koth)}** took the 8 dead-hand cards and is burying 8"
                         + self._clock(table, [koth]))
        elif phase == "call":
            lines.append(f"📣 **{seat_name(table, koth)}** is calling a card" + self._clock(table, [koth]))
        elif phase in ("play", "trick_ready"):
            trick_no = min(pv.get("trick_no", 0) + 1, TRICKS)
            turn = pv.get("turn")
            if phase == "play" and turn is not None:
                lines.append(f"Trick {trick_no}/{TRICKS} · ▶ **{seat_name(table, turn)}** to play"
                             + self._clock(table, [turn]))
            else:
                ready = pv.get("ready") or []
                waiting = [s for s, r in enumerate(ready) if not r]
                lines.append(f"Trick {trick_no}/{TRICKS} · waiting for Ready: "
                             + ", ".join(seat_name(table, s) for s in waiting) + self._clock(table, waiting))
            trick = pv.get("trick") or []
            if trick:
                lines.append("**On the table:** " + " · ".join(f"{seat_name(table, s)} {faces(p)}" for s, p in trick))
            elif pv.get("last_trick"):
                lt = pv["last_trick"]
                plays = " · ".join(faces(p) for _, p in lt["plays"])
                lines.append(f"Last trick ({plays}): {seat_name(table, lt['winner'])} took it (+{lt['points']})")
        if phase in ("call", "play", "trick_ready") or pv.get("called"):
            called = self._called_line(table, pv)
            if called:
                lines.append(called)
        if phase in ("play", "trick_ready"):
            defenders = pv.get("defenders") or []
            names = ", ".join(("👑 " if s == koth else "🤝 ") + seat_name(table, s) for s in defenders)
            lines.append(f"🛡️ Known defenders: {names}")
            lines.append(f"⚔️ Challengers' points so far: **{pv.get('challenger_points', 0)}** "
                         f"({DEFEND_BELOW} or more takes the hill)")
        last = pv.get("last_round")
        if phase in ("round_ready", "over") and last:
            lines.append(self._last_round_line(table, last))
        return lines

    def _declaration_line(self, table: Table, pv: View) -> str:
        d = pv.get("declaration")
        if d is None:
            rank = rank_text(pv.get("trump_rank"))
            return f"No declaration yet — anyone holding a {rank} may declare from **My hand**."
        cards = d["cards"]
        if len(cards) == 2:
            return f"📢 **{seat_name(table, d['seat'])}** declared a pair {labels(cards)} — final."
        return (f"📢 **{seat_name(table, d['seat'])}** declared {label(cards[0])} — an identical pair can still "
                "override it.")

    def _called_line(self, table: Table, pv: View) -> str | None:
        called = pv.get("called")
        if not called:
            if pv.get("alone") and pv.get("phase") in ("play", "trick_ready"):
                return f"📣 No card was called: **{seat_name(table, pv.get('koth'))}** defends alone."
            return None
        which = "first" if pv.get("called_copy") == "first" else "second"
        koth, mate = pv.get("koth"), pv.get("teammate")
        if mate is not None:
            return f"📣 Called: {label(called)} — 🤝 **{seat_name(table, mate)}** played it and defends with the King."
        if pv.get("alone"):
            return f"📣 Called: {label(called)} — the King played it: **{seat_name(table, koth)}** defends alone."
        seen = pv.get("called_seen", 0)
        tail = " (one copy played so far)" if seen else ""
        return f"📣 Called: {label(called)} — whoever plays the {which} copy joins the King{tail}."

    def _last_round_line(self, table: Table, last: dict[str, Any]) -> str:
        score = last.get("challenge_score", 0)
        nxt = last.get("next_koth")
        verdict = "the hill held" if score < DEFEND_BELOW else "the hill fell"
        text = (f"Last round: challengers scored **{score}** — {verdict}; next King "
                f"**{seat_name(table, nxt)}**.")
        if last.get("dead_hand"):
            text += f" Buried: {labels(last['dead_hand'])} ({plural(last.get('dead_hand_points', 0), 'point')})."
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
            parts = [f"rank **{rank_text(ranks[i])}**" if i < len(ranks) else ""]
            if i < len(left) and phase not in ("round_ready", "over"):
                parts.append(plural(left[i], "card"))
            if i < len(points) and phase in ("play", "trick_ready"):
                parts.append(f"{plural(points[i], 'point')} taken")
            lines.append(f"{mark} {seat_badge(table, i)}{role} — " + " · ".join(p for p in parts if p))
        return "\n".join(lines)

    def event_text(self, table: Table, event: Event) -> str | None:
        if event.to is not None:
            return None
        k, d = event.kind, event.data
        who = seat_name(table, event.seat)
        if k == "round":
            rnd, rank, koth = d
            if koth is not None and koth >= 0:
                koth_name = seat_name(table, koth)
                return f"Round {rnd}: trump rank {rank_text(rank)}; {koth_name} is the King and is dealt first."
            return f"Round {rnd}: trump rank {rank_text(rank)}; dealing starts with {who}."
        if k == "declare":
            if len(d) == 2:
                return f"📢 {who} declared a pair {labels(d)}."
            return f"📢 {who} declared {label(d[0])}."
        if k == "trump":
            suit, rank, how = d
            trumps = f"{SUIT_SYMBOLS[suit]} {SUIT_WORDS[suit].lower()}"
            if how == "random":
                return f"Trumps drawn at random: {trumps}; {who} is the King."
            if how == "chosen":
                return f"{who} chose {trumps} as trumps."
            return f"Trumps are {trumps} (rank {rank_text(rank)}); {who} is the King."
        if k == "suit_choice":
            return f"Nobody declared: {who} chooses the trump suit."
        if k == "buried":
            return f"🪦 {who} buried 8 cards."
        if k == "call":
            if not d:
                return f"📣 {who} called no card in time: nobody is enlisted, the King defends alone."
            return f"📣 {who} called {label(d[0])}."
        if k in ("ready", "dealt"):
            return None
        if k == "play":
            return f"{who} played {play_words(d)}."
        if k == "teammate":
            return f"🤝 {who} played the called {label(d[0])} and now defends with the King!"
        if k == "alone":
            return f"{who} played the called {label(d[0])}: the King defends alone."
        if k == "trick":
            return f"{who} took trick {int(d[0]) + 1} (+{d[1]})."
        if k == "hand_end":
            rnd, score, nxt, gain = d[0], d[2], d[7], d[8]
            verdict = "the hill held" if score < DEFEND_BELOW else "the hill fell"
            climb = f", +{gain} rank{'s' if gain != 1 else ''}" if gain else ""
            return f"Round {rnd} over: challengers {score} — {verdict}{climb}; next King {seat_name(table, nxt)}."
        if k == "game_end":
            n = len(table.seats)
            winners = [int(s) for s in d[n:]]
            return "Game over — " + " and ".join(seat_name(table, s) for s in winners) + " won."
        return super().event_text(table, event)

    def own_text(self, table: Table, event: Event) -> str | None:
        k, d = event.kind, event.data
        if k == "play":
            return f"You played {play_words(d)}."
        if k == "declare":
            return f"You declared {labels(d)}."
        if k == "buried":
            return "You buried 8 cards."
        if k == "call":
            return f"You called {label(d[0])}." if d else "No card called: you defend alone."
        if k == "ready":
            return "Ready!"
        if k == "trump":
            return f"Trumps: {SUIT_SYMBOLS[d[0]]}."
        return super().own_text(table, event)

    def turn_what(self, table: Table, seats: Sequence[int], live: bool) -> str:
        kinds = set()
        for s in seats:
            d = table.state.decision(s) if table.state is not None else None
            if d is not None:
                kinds.add(d.kind)
        where = "in your hand view" if live else "with **My hand** below"
        what = {"ready": f"press **Ready** {where} for the next round",
                "bury": f"you are the King: bury 8 cards {where}",
                "call": f"call a card {where}",
                "suit": f"nobody declared: choose the trump suit {where}"}
        if len(kinds) == 1 and next(iter(kinds)) in what:
            return what[next(iter(kinds))]
        return super().turn_what(table, seats, live)

    def summary(self, table: Table, events: Sequence[Event]) -> Rendered | None:
        events = [e for e in events if e.to is None]
        end = next((e for e in events if e.kind == "hand_end"), None)
        over = phase_of(table) == "finished" or any(e.kind == "game_end" for e in events)
        if end is None and not over:
            return None
        e = discord.Embed(title=table_title(table), colour=FINISHED_COLOUR if over else RUNNING_COLOUR)
        if end is not None:
            n = len(table.seats)
            d = end.data
            rnd, mate, score, ch_pts, dead_pts, bonus, last_winner, nxt, gain = d[:9]
            after = list(d[9:9 + n])
            koth = end.seat
            assert koth is not None  # a hand's end names its KotH
            pv = table.state.public_view() if table.state is not None else {}
            last = pv.get("last_round") or {}
            before = last.get("ranks_before") if last.get("round") == rnd else None
            lines = [f"**End of round {rnd}**",
                     f"👑 King {player_name(table, koth)}" + (f" with 🤝 {player_name(table, mate)}" if mate >= 0
                                                              else " defending alone")]
            lines.append(f"⚔️ Challengers took {plural(ch_pts, 'point')}" + (
                f" and the last trick: + {bonus} for the buried {dead_pts}" if bonus else "") + f" → **{score}**")
            if score < DEFEND_BELOW:
                lines.append(f"🛡️ The hill held: defenders climb {plural(gain, 'rank')}.")
            else:
                climb = f"challengers climb {gain} rank{'s' if gain != 1 else ''}" if gain else "no one climbs"
                lines.append(f"🏔️ The hill fell: {climb}.")
            if last.get("dead_hand") and last.get("round") == rnd:
                lines.append(f"🪦 Buried: {labels(last['dead_hand'])}")
            lines.append(f"Next King: **{player_name(table, nxt)}**" if not over else "")
            for s in range(n):
                was = f"{rank_text(before[s])} → " if before and before[s] != after[s] else ""
                lines.append(f"{player_name(table, s)}: rank {was}**{rank_text(after[s])}**")
            e.description = "\n".join(line for line in lines if line)
        if over:
            e.add_field(name="Game over", value=self.standings_text(table), inline=False)
        return Rendered(embed=e)

    def standings(self, table: Table) -> list[tuple[int, int, int | None]]:
        state = table.state
        if state is None or state.is_over:
            return super().standings(table)
        ranks = [RANKS.index(r) + 2 for r in state.public_view().get("ranks", [])]
        return sorted((1 + sum(1 for o in ranks if o > r), s, r) for s, r in enumerate(ranks))

    def score_text(self, table: Table, seat: int, score: object) -> str:
        if isinstance(score, int) and 2 <= score <= 14:
            return f"rank {rank_text(RANKS[score - 2])}"
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
        return [f"{plural(len(hand), 'card')}, trumps first:", *lines]

    def hand_extra(self, sv: SeatView) -> list[str]:
        table, view, seat = sv.table, sv.view or {}, sv.seat
        lines = []
        phase, koth, mate = view.get("phase"), view.get("koth"), view.get("teammate")
        ranks = view.get("ranks") or []
        suit = view.get("trump_suit")
        trumps = f"{SUIT_SYMBOLS[suit]}" if suit else "not declared yet"
        lines.append(f"Trump rank {rank_text(view.get('trump_rank'))} · trump suit {trumps} · your rank "
                     f"{rank_text(ranks[seat]) if seat < len(ranks) else '?'}")
        if phase in ("deal", "late"):
            lines.append(f"🃏 {view.get('dealt', 0)}/{view.get('deal_total', 100)} cards dealt — new cards show up "
                         "here as they come.")
            lines.append(self._declaration_line(table, view).replace("from **My hand**", "with the buttons"))
        if seat == koth:
            lines.append("👑 You are the King." + (f" 🤝 {seat_name(table, mate)} defends with you." if mate is not None
                                                  else ""))
        elif seat == mate:
            lines.append("🤝 You defend with the King.")
        if view.get("dead_hand"):
            lines.append(f"🪦 You took the dead hand: {labels(view['dead_hand'])}")
        if view.get("buried"):
            lines.append(f"🪦 You buried: {labels(view['buried'])}")
        called = self._called_line(table, view)
        if called and phase in ("play", "trick_ready"):
            lines.append(called)
        trick = view.get("trick") or []
        if trick:
            lines.append("On the table: " + " · ".join(f"{seat_name(table, s)} {labels(p)}" for s, p in trick))
        if phase in ("play", "trick_ready"):
            lines.append(f"Challengers' points so far: {view.get('challenger_points', 0)}")
        return lines

    def decision_line(self, sv: SeatView) -> str:
        view = sv.view or {}
        if sv.decision is None and view.get("phase") in ("deal", "late") and phase_of(sv.table) == "running":
            rank = view.get("trump_rank")
            declared = view.get("declaration")
            if declared and len(declared["cards"]) == 2:
                return "A pair was declared: trumps are settled. The deal goes on."
            if declared:
                return f"Only an identical pair of {rank_text(rank)}s can override now. The deal goes on."
            return f"You may declare as soon as you hold a {rank_text(rank)}. The deal goes on."
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
            return "you may declare trumps (optional) — or let the deal go on."
        if k == "bury":
            return ("bury 8 cards: choose them in the menus below (your choice is kept as you go), then press "
                    "**Bury** (or name all 8 with /play).")
        if k == "call":
            which = "second" if (sv.view or {}).get("called_copy") == "second" else "first"
            return f"call a card (not a joker, not a {rank_text((sv.view or {}).get('trump_rank'))}): whoever " \
                   f"plays its {which} copy defends with you — secretly, until then."
        if k == "suit":
            return "nobody declared: choose the trump suit."
        if k == "ready":
            return "press **Ready** when you are."
        if k == "play":
            trick = (sv.view or {}).get("trick") or []
            if not trick:
                return "lead one card or an identical pair."
            if len(trick[0][1]) == 2:
                return "a pair was led: play a pair of the led suit if you have one, else as many of it as you can."
            return "follow the led suit if you can."
        return super().decision_prompt(sv, decision)

    # -- controls ------------------------------------------------------------------------------
    def action_label(self, action: Action, sv: SeatView | None = None) -> str:
        k = action.kind
        if k == "play" and action.cards:
            cs = action.cards
            if len(cs) == 2 and cs[0] is cs[1]:
                return f"{cs[0].label} {cs[1].label} (pair)"
            return " + ".join(c.label for c in cs)
        if k == "declare":
            return ("📢 Declare pair " if len(action.cards) == 2 else "📢 Declare ") + labels(action.cards)
        if k == "call":
            return f"Call {label(action.cards[0])}"
        if k == "suit" and action.args:
            s = action.args[0]
            return f"{SUIT_SYMBOLS.get(s, s)} {SUIT_WORDS.get(s, s)}"
        if k == "ready":
            return "✅ Ready"
        if k == "bury":
            return "bury " + labels(action.cards)
        return super().action_label(action)

    def action_description(self, sv: SeatView, action: Action) -> str | None:
        if action.kind == "call":
            return f"{action.cards[0].name}: whoever plays it joins you"
        if action.kind == "play" and len(action.cards) == 2 and action.cards[0] is action.cards[1]:
            return f"a pair of {action.cards[0].name}s"
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
        verb = {"call": "Call", "play": "Play"}.get(sv.decision.kind if sv.decision else "", "Choose")
        return f"{verb}: " + " · ".join(groups)

    def combo_pick(self, sv: SeatView, decision: Decision) -> int:
        # Two cards on a pair lead: when the combinations are too many to list, choose the two.
        trick = (sv.view or {}).get("trick") or []
        if decision.kind == "play" and trick and len(trick[0][1]) == 2 and len(decision.actions) > 25:
            return 2
        return 0

    def pick_option(self, sv: SeatView, c: Any, copy: int, copies: int) -> tuple[str, str | None]:
        return c.label, (f"{c.name} (you hold both)" if copies > 1 else c.name)

    def pick_group(self, sv: SeatView, c: Any) -> str:
        return suit_title(trump_of(sv.view or {}).effective_suit(c))


# ==== King of the Hill: its screens, registered once (cogs/table/screens.py) ======================================
CHART_RANKS = "23456789TJQKA"


def rank_points(pv: View, n: int) -> list[float]:
    """The end-of-game chart's point for each player: their rank (2 to 14 for A)."""
    return [float(CHART_RANKS.index(str(r)) + 2) if str(r) in CHART_RANKS else 2.0
            for r in (pv.get("ranks") or ["2"] * n)]


_COPY = {"first": "the first copy of the called card joins", "second": "the second copy of the called card joins"}
register(Screens(
    "koth", KothRenderer(),
    words={
        "rounds": Words("the most rounds the game lasts, then the highest rank wins; 0: until a King or teammate "
                        "defends at rank A",
                        lambda v: "play until a defence at rank A" if v == 0 else f"at most {plural(v, 'round')}"),
        "called_copy": Words("which copy of the called card makes its player the King's teammate", choice(_COPY),
                             {"first": "the first copy played", "second": "the second copy played"}),
        "dead_hand_multiplier": Words("the buried cards' points count this many times for the challengers when "
                                      "they win the last trick", lambda v: f"dead hand ×{v}"),
        "deal_rate": Words("seconds between dealt cards", lambda v: f"a card every {plural(v, 'second')}"),
        "ready_round": Words("seconds to press Ready before a round (then ready anyway); 0: no Ready step",
                             lambda v: "no Ready before a round" if v == 0
                             else f"{plural(v, 'second')} to get ready before a round"),
        "ready_trick": Words("seconds to press Ready before each trick (then ready anyway); 0: no Ready step",
                             lambda v: "no Ready before a trick" if v == 0
                             else f"{plural(v, 'second')} to get ready before a trick"),
    },
    chart=Chart("rank", "round", snapshot=rank_points,
                y_ticks={float(i + 2): ("10" if r == "T" else r) for i, r in enumerate(CHART_RANKS)}),
))
