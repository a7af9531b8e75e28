"""Siege on Discord (docs/rules.md §5): every player's King pile progress (``♥ King 2 3 4 · · 7 · · 10``),
house piles in slot order with kind, cards and score, stock and discard counts and the last
attack; the hand view offers the legal actions of the current step in a menu per pile (attacks in
their own, each with the fight's outcome from the public scores) and greys the cards no pile takes
with the engine's reason (``Siege.unplaceable``), and refreshes after each move.

Blank codes repeat and cards taken in a fight go into a hand, so public lines name a card only
while it is surely on the table: the cards placed during the turn being played (attacks come
before building, so nothing placed this turn leaves the table before the turn ends) and the last
attack as ``public_view()`` shows it.  Older lines keep their numbers and drop the card names.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

import words
import words.cards
from cogs.pictures.emoji import card_markup, text_only
from cogs.table.render import (
    MAX_FIELD,
    RECENT_LINES,
    RUNNING_COLOUR,
    Rendered,
    clip,
    footer_text,
    player_name,
    seat_badge,
    seat_name,
    table_title,
)
from cogs.table.renderer import Renderer, summary_start
from cogs.table.screens import Chart, Screens, Words, register
from engine.cards import card
from engine.core import Action, Decision, Event, View
from games.siege.faces import siege_faces
from games.siege.rules import (
    BY_CODE,
    KING,
    KING_PILE,
    SEAT_SUITS,
    SUIT_SYMBOLS,
    SiegeCard,
    attacker_wins,
    defending_slot,
    pile_score,
)
from games.siege.view_types import LastAttack, PileView
from tables.live import SeatView
from tables.table import Table
from words import N_, Speaker

_, n_ = Speaker("siege").pair()

KINDS = {"queen": N_("Queen"), "jack": N_("Jack"), "ace": N_("Ace")}  # (msgids: said through kind())
SLOT_MARKS = ("①", "②", "③")
NUMBERS = "23456789T"
GROUPS = {"attack": N_("⚔️ Attack"), "start": N_("🏰 Start a pile"), "place": N_("➕ Place a card"),
          "swap": N_("⇄ Swap slots")}
KING_GOAL = KING_PILE
MAX_MENUS = 4  # menus a hand view holds, a row left for the buttons (cogs/table/custom_ids.py)


def kind(name: str) -> str:
    """A pile's kind (``Queen``) in the language being drawn."""
    return _(KINDS[name])


def card_label(c: SiegeCard) -> str:
    """A card's label in the language being drawn: a blank's word is translated (``blank 5``)."""
    if getattr(c, "suit", "") == "X" and words.spoken() != words.ENGLISH:
        return _("blank {rank}", rank="10" if c.rank == "T" else c.rank)
    return str(c.label)


def lab(code: str) -> str:
    return card_label(BY_CODE[code])


def labs(codes: Sequence[str]) -> str:
    return " ".join(lab(c) for c in codes)


def listed(items: Sequence[str]) -> str:
    """``9♠, blank 5 and 3♣``: a blank's label has a space, so cards in a sentence need commas."""
    if words.spoken() != words.ENGLISH:
        return words.join(words.spoken(), items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def king_progress(suit: str, codes: Sequence[str]) -> str:
    """``♥ King 2 3 4 · · 7 · · 10``."""
    have = {c[0] for c in codes}
    marks = [("10" if n == "T" else n) if n in have else "·" for n in NUMBERS]
    return f"{SUIT_SYMBOLS[suit]} " + _("King {cards}", cards=" ".join(marks))


def shown(code: str) -> str:
    """A card on the table as its emoji when they are ready, else its label (``blank 5``)."""
    return card_markup(code, lab(code))


def pile_text(slot: int, pile: PileView | None) -> str:
    """``① Queen Q♥: 5♠ blank 5 7♥ — score **8**``, the cards as emoji when they are ready (they lie face up
    on the table: the emoji name no more than the label)."""
    if pile is None:
        return f"{SLOT_MARKS[slot]} —"
    cards = " ".join(shown(c) for c in pile["cards"]) or _("(no cards yet)")
    return (f"{SLOT_MARKS[slot]} {kind(pile['kind'])} {shown(pile['special'])}: {cards} — "
            + _("score **{score}**", score=pile["score"]))


def start_words(c: SiegeCard, slot: str | int) -> str:
    """``blank Q starts a Queen pile in ①``."""
    said = {"Q": N_("{card} starts a Queen pile in {slot}"), "J": N_("{card} starts a Jack pile in {slot}"),
            "A": N_("{card} starts an Ace pile in {slot}")}[c.rank]
    return _(said, card=card_label(c), slot=SLOT_MARKS[int(slot) - 1])


def _of(n: int, total: int) -> str:
    return "/".join((str(n), str(total)))


def card_name(c: SiegeCard) -> str:
    """A card said in words in the language being drawn (``queen of spades``, ``Pik-Dame``; a blank's
    the rules' own English name outside English too: ``blank five`` reads as its label)."""
    if getattr(c, "suit", "") == "X":
        return str(c.name) if words.spoken() == words.ENGLISH else card_label(c)
    standard = card(f"{c.rank}{c.suit}")  # (the same card of the standard deck, named in the language)
    return words.cards.name(standard, words.spoken()) or str(c.name)


def defender_slot(houses: Sequence[PileView | None]) -> int | None:
    return defending_slot(houses)  # (the engine's rule: the pile nearest the King pile)


class SiegeRenderer(Renderer):
    new_round_events = frozenset()  # one deal for the whole game
    menus_always = True  # a menu per pile (and one of attacks) instead of up to 16 buttons
    _last_menus: tuple[Decision | None, View | None, dict[str, str]] | None = None
    lobby_values = {"max_rounds": (0, 5, 10, 20)}

    # -- public --------------------------------------------------------------------------------
    def running(self, table: Table) -> Rendered:
        pv = table.state.public_view() if table.state is not None else {}
        e = discord.Embed(title=table_title(table), colour=RUNNING_COLOUR)
        e.description = self.status_line(table, pv)
        for s in range(len(table.seats)):
            name, value = self.player_block(table, pv, s)
            if len(value) > MAX_FIELD:  # long piles as emoji: this player's piles as text
                with text_only():
                    name, value = self.player_block(table, pv, s)
            e.add_field(name=name[:256], value=clip(value, MAX_FIELD), inline=False)
        recent = self.recent_lines(table)
        if recent:
            e.add_field(name=_("Recent"), value="\n".join(recent)[:1024], inline=False)
        e.set_footer(text=footer_text(table))
        return Rendered(embed=e)

    def status_line(self, table: Table, pv: View) -> str:
        rounds = pv.get("max_rounds") or 0
        head = (_("Round {round} of {rounds}", round=pv.get("round", 1), rounds=rounds) if rounds
                else _("Round {round}", round=pv.get("round", 1)))
        head += " · " + _("stock {stock} · discard pile {discard}", stock=pv.get("stock", 0),
                          discard=pv.get("discard", 0))
        lines = [head]
        turn = pv.get("turn")
        if turn is not None:
            step = _("attack step (attack, or start building)") if pv.get("phase") == "attack" else _("building")
            lines.append("▶ " + _("**{who}**'s turn — {step}", who=seat_name(table, turn), step=step)
                         + self.deadline_note(table, [turn]))
            if pv.get("attacked"):
                lines.append(_("Piles that attacked this turn: {piles}",
                               piles=", ".join(SLOT_MARKS[i - 1] for i in pv["attacked"])))
        la = pv.get("last_attack")
        if la:
            lines.append(self.attack_line(table, pv, la))
        return "\n".join(lines)

    def attack_line(self, table: Table, pv: View, la: LastAttack) -> str:
        att, dfd, win = la["seat"], la["target"], la["winner"]
        text = "⚔️ " + _("Last attack: {who}'s pile {slot} (score {score}) against {rival}'s pile {their} "
                        "(score {theirs}) — **{winner}** won", who=seat_name(table, att),
                        slot=SLOT_MARKS[la["slot"] - 1], score=la["attack_score"], rival=seat_name(table, dfd),
                        their=SLOT_MARKS[la["target_slot"] - 1], theirs=la["defend_score"],
                        winner=seat_name(table, win))
        if la.get("taken"):
            text += " " + _("and took {cards}", cards=labs(la["taken"]))
        if la.get("discarded"):
            text += "; " + _("discarded {cards}", cards=labs(la["discarded"]))
        return text + "."

    def player_block(self, table: Table, pv: View, s: int) -> tuple[str, str]:
        suits = pv.get("suits") or list(SEAT_SUITS)
        kings, houses = pv.get("kings") or [], pv.get("houses") or []
        counts = pv.get("hand_counts") or []
        mark = "▶ " if s == pv.get("turn") else "🏆 " if s == pv.get("winner") else ""
        name = f"{mark}{SUIT_SYMBOLS[suits[s]]} {seat_badge(table, s)}"
        king = kings[s] if s < len(kings) else []
        lines = [f"{king_progress(suits[s], king)} ({len(king)}/{KING_GOAL})"]
        mine = houses[s] if s < len(houses) else [None, None, None]
        lines.append(" · ".join(pile_text(i, p) for i, p in enumerate(mine)))
        if s < len(counts) and pv.get("phase") != "over":
            lines.append(n_("{n} card in hand", "{n} cards in hand", counts[s]))
        return name, "\n".join(lines)

    def recent_lines(self, table: Table) -> list[str]:
        events = self.current_events(table)
        start = max((i for i, e in enumerate(events) if e.kind == "turn"), default=0)
        out = []
        for i, e in enumerate(events):
            text = self.event_words(table, e, named=i >= start)
            if text:
                out.append(text)
        return out[-RECENT_LINES:]

    def event_text(self, table: Table, event: Event) -> str | None:
        return self.event_words(table, event, named=True)

    def event_words(self, table: Table, event: Event, named: bool) -> str | None:
        """A sentence for a public event; ``named=False`` leaves out which cards (they may have
        moved into a hand since)."""
        if event.to is not None:
            return None
        k, d = event.kind, event.data
        who = seat_name(table, event.seat)

        def card_words(c: SiegeCard, what: str = "") -> str:
            return card_label(c) if named else (what or _("a card"))

        if k == "turn":
            return "— " + _("{who}'s turn (round {round})", who=who, round=d[0]) + " —"
        if k == "draw":
            n = d[0]
            return n_("{who} drew {n} card.", "{who} drew {n} cards.", n, who=who) if n else None
        if k == "reshuffle":
            return "🔀 " + n_("The discard pile was shuffled into a new stock ({n} card).",
                             "The discard pile was shuffled into a new stock ({n} cards).", d[0])
        if k == "build":
            return None
        if k == "attack":
            slot, target, tslot, a, dfd = d
            return "⚔️ " + _("{who}'s pile {slot} (score {score}) attacked {rival}'s pile {their} (score {theirs}).",
                            who=who, slot=SLOT_MARKS[slot - 1], score=a, rival=seat_name(table, target),
                            their=SLOT_MARKS[tslot - 1], theirs=dfd)
        if k == "fight":
            n = len(d) - 1
            return n_("{who} won the fight and took {n} card.", "{who} won the fight and took {n} cards.", n, who=who)
        if k == "discarded":
            return None  # the last attack's line says which
        if k == "start":
            c, slot = d
            said = {"Q": N_("{who} started a Queen pile in slot {slot} with {card}."),
                    "J": N_("{who} started a Jack pile in slot {slot} with {card}."),
                    "A": N_("{who} started an Ace pile in slot {slot} with {card}.")}.get(
                c.rank, N_("{who} started a house pile in slot {slot} with {card}."))
            return "🏰 " + _(said, who=who, slot=SLOT_MARKS[int(slot) - 1], card=card_words(c))
        if k == "place":
            c, where, n = d
            if where == KING:
                return "👑 " + _("{who} added {card} to their King pile ({n}/{goal}).", who=who, card=card_words(c),
                                n=n, goal=KING_GOAL)
            return _("{who} placed {card} on pile {slot} (score {score}).", who=who, card=card_words(c),
                     slot=SLOT_MARKS[int(where) - 1], score=n)
        if k == "swap":
            return _("{who} swapped slots {first} and {second}.", who=who, first=SLOT_MARKS[d[0] - 1],
                     second=SLOT_MARKS[d[1] - 1])
        if k == "end":
            n = d[0]
            return (n_("{who} ended the turn, discarding {n} card.", "{who} ended the turn, discarding {n} cards.", n,
                       who=who) if n else _("{who} ended the turn.", who=who))
        if k == "win":
            return "🏆 " + _("{who} completed their King pile!", who=who)
        if k == "game_end":
            return _("Game over.")
        return super().event_text(table, event)

    def own_text(self, table: Table, event: Event) -> str | None:
        k, d = event.kind, event.data
        if k == "place":
            c, where, n = d
            if where == KING:
                return _("You added {card} to your King pile ({n}/{goal}).", card=card_label(c), n=n, goal=KING_GOAL)
            return _("You placed {card} on pile {slot} (score {score}).", card=card_label(c),
                     slot=SLOT_MARKS[int(where) - 1], score=n)
        if k == "start":
            said = start_words(d[0], d[1])
            return f"{said[:1].upper()}{said[1:]}."  # (a sentence: "Blank Q starts…")
        if k == "attack":
            return None  # the fight says who won
        if k == "build":
            return _("You start building: no more attacks this turn.")
        if k == "end":
            return _("Turn over.")
        if k == "swap":
            return _("You swapped slots {first} and {second}.", first=SLOT_MARKS[d[0] - 1], second=SLOT_MARKS[d[1] - 1])
        return super().own_text(table, event)

    def ack(self, table: Table, seat: int, events: Sequence[Event]) -> str:
        fight = next((e for e in events if e.kind == "fight" and e.to is None), None)
        if fight is not None:
            n = len(fight.data) - 1
            won = fight.seat == seat
            if not won:
                who = seat_name(table, fight.seat)
                return "⚔️ " + (n_("You lost the fight: {who} took {n} card.",
                                   "You lost the fight: {who} took {n} cards.", n, who=who) if n
                               else _("You lost the fight: {who} took nothing.", who=who))
            attack = next((e for e in events if e.kind == "attack" and e.seat == seat), None)
            slot = f" {SLOT_MARKS[int(attack.data[0]) - 1]}" if attack is not None else ""
            # A winning attacker is discarded (docs/rules.md §5, step 2): say so, or the pile seems to vanish.
            return "⚔️ " + (n_("You won the fight and took {n} card; your pile{slot} was spent and discarded.",
                               "You won the fight and took {n} cards; your pile{slot} was spent and discarded.", n,
                               slot=slot) if n
                           else _("You won the fight and took nothing; your pile{slot} was spent and discarded.",
                                  slot=slot))
        # Starting a pile during the attack step also ends it: say what was done, not the step change.
        done = [e for e in events if e.seat == seat and e.to is None and e.kind != "build"]
        if done:
            return super().ack(table, seat, done)
        return super().ack(table, seat, events)

    def ack_line(self, table: Table, seat: int, events: Sequence[Event]) -> str:
        if any(e.kind == "fight" and e.to is None for e in events):
            return self.ack(table, seat, events)  # ⚔️ and the verdict: no ✅ on a lost fight
        return super().ack_line(table, seat, events)

    def summary(self, table: Table, events: Sequence[Event]) -> Rendered | None:
        start = summary_start(table, events, end_kind="")  # (no hand ends: only the game's end)
        if start is None:
            return None
        e = start[0]
        pv = table.state.public_view() if table.state is not None else {}
        lines = []
        win = pv.get("winner")
        if win is not None:
            lines.append("🏆 " + _("**{who}** completed their King pile!", who=player_name(table, win)))
        elif pv:
            lines.append(n_("The game stopped after {n} round: King piles decide.",
                            "The game stopped after {n} rounds: King piles decide.", pv.get("round", 1) - 1 or 1))
        suits = pv.get("suits") or list(SEAT_SUITS)
        for s, king in enumerate(pv.get("kings") or []):
            lines.append(f"{player_name(table, s)}: {king_progress(suits[s], king)} ({len(king)}/{KING_GOAL})")
        e.description = "\n".join(lines)
        e.add_field(name=_("Game over"), value=self.standings_text(table), inline=False)
        return Rendered(embed=e)

    def score_text(self, table: Table, seat: int, score: object) -> str:
        return _("{score} of {goal} King pile cards", score=score, goal=KING_GOAL)

    # -- private -------------------------------------------------------------------------------
    def hand_lines(self, sv: SeatView, hand: Sequence[str]) -> list[str]:
        groups: list[tuple[str, list[str]]] = []
        for code in hand:
            c = BY_CODE[code]
            sym = SUIT_SYMBOLS[c.suit] if c.suit != "X" else "blank"
            if not groups or groups[-1][0] != sym:
                groups.append((sym, []))
            # Blanks read "blanks 3 8", not "blank 3 blank 8" (an emoji shows its own card).
            rank = "10" if c.rank == "T" else c.rank
            groups[-1][1].append(card_markup(code, rank) if c.suit == "X" else shown(code))
        return [" · ".join((_("blank") if len(cs) == 1 else _("blanks")) + " " + " ".join(cs)
                           if sym == "blank" and not cs[0].startswith("<") else " ".join(cs) for sym, cs in groups)]

    def hand_extra(self, sv: SeatView) -> list[str]:
        view, seat = sv.view or {}, sv.seat
        suit = view.get("suit") or SEAT_SUITS[seat]
        kings, houses = view.get("kings") or [], view.get("houses") or []
        king = kings[seat] if seat < len(kings) else []
        lines = [_("Your suit: {suit}", suit=SUIT_SYMBOLS[suit]) + f" · {king_progress(suit, king)} "
                 f"({len(king)}/{KING_GOAL})"]
        mine = houses[seat] if seat < len(houses) else [None, None, None]
        lines.append(_("Your piles: {piles}", piles=" · ".join(pile_text(i, p) for i, p in enumerate(mine))))
        if view.get("turn") == seat and view.get("attacked"):
            lines.append(_("Already attacked this turn: {piles}",
                           piles=", ".join(SLOT_MARKS[i - 1] for i in view["attacked"])))
        la = view.get("last_attack")
        if la and seat in (la["seat"], la["target"]):
            lines.append(self.attack_line(sv.table, view, la))
        return lines

    def decision_prompt(self, sv: SeatView, decision: Decision) -> str:
        if decision.kind == "attack":
            return _("attack a rival with a house pile (the pile nearest their King pile defends; ties go to the "
                     "defender), or build, or end your turn.")
        if decision.kind == "build":
            return _("build: start piles, place number cards, swap slots — then **End turn** (your hand is "
                     "discarded).")
        return super().decision_prompt(sv, decision)

    # -- controls ------------------------------------------------------------------------------
    def action_label(self, action: Action, sv: SeatView | None = None) -> str:
        k, a = action.kind, action.args
        if sv is not None:
            return self._in_context(sv, action)
        if k == "attack" and len(a) == 2:
            # (no table here to name the rival: their suit says who they are)
            return "⚔️ " + _("Pile {slot} attacks the {suit} player", slot=SLOT_MARKS[int(a[0]) - 1],
                            suit=SUIT_SYMBOLS[SEAT_SUITS[int(a[1]) - 1]])
        if k == "build":
            return "🔨 " + _("Start building")
        if k == "end":
            return _("End turn")
        if k == "swap" and len(a) == 2:
            return "⇄ " + _("Swap {first} and {second}", first=SLOT_MARKS[int(a[0]) - 1],
                           second=SLOT_MARKS[int(a[1]) - 1])
        if k == "start" and action.cards and a:
            return start_words(action.cards[0], a[0])
        if k == "place" and action.cards and a:
            c = action.cards[0]
            return (_("{card} → King pile", card=card_label(c)) if a[0] == KING
                    else _("{card} → pile {slot}", card=card_label(c), slot=SLOT_MARKS[int(a[0]) - 1]))
        return super().action_label(action)

    def _in_context(self, sv: SeatView, action: Action) -> str:
        """The label with the table's names in it (who is attacked, which pile takes the card)."""
        k, a = action.kind, action.args
        view = sv.view or {}
        houses = view.get("houses") or []
        if k == "attack" and len(a) == 2:
            target = int(a[1]) - 1
            return "⚔️ " + _("Pile {slot} → {who}", slot=SLOT_MARKS[int(a[0]) - 1], who=seat_name(sv.table, target))
        if k == "place" and action.cards and a and a[0] != KING and sv.seat < len(houses):
            pile = houses[sv.seat][int(a[0]) - 1]
            if pile is not None:
                return _("{card} → {kind} pile {slot}", card=card_label(action.cards[0]), kind=kind(pile["kind"]),
                         slot=SLOT_MARKS[int(a[0]) - 1])
        if k == "end":
            n = len(view.get("hand") or [])
            return _("End turn (discard {n})", n=n) if n else _("End turn")
        return self.action_label(action)

    def action_description(self, sv: SeatView, action: Action) -> str | None:
        k, a = action.kind, action.args
        view = sv.view or {}
        houses = view.get("houses") or []
        if k == "attack" and len(a) == 2 and sv.seat < len(houses):
            mine = houses[sv.seat][int(a[0]) - 1]
            target = int(a[1]) - 1
            slot = defender_slot(houses[target]) if target < len(houses) else None
            if mine is not None and slot is not None:
                return self.attack_preview(mine, int(a[0]) - 1, houses[target][slot], slot)
        if k == "place" and action.cards and a:
            if a[0] == KING:
                kings = view.get("kings") or []
                n = len(kings[sv.seat]) if sv.seat < len(kings) else 0
                return _("your King pile: {before} → {after}", before=_of(n, KING_GOAL), after=_of(n + 1, KING_GOAL))
            pile = houses[sv.seat][int(a[0]) - 1] if sv.seat < len(houses) else None
            if pile is not None:
                codes = [pile["special"], *pile["cards"], action.cards[0].code]
                after = pile_score([BY_CODE[c] for c in codes])  # (the engine's count, as if placed)
                return _("{kind} pile {slot}: score {before} → {after}", kind=kind(pile["kind"]),
                         slot=SLOT_MARKS[int(a[0]) - 1], before=pile["score"], after=after)
        if k == "start" and action.cards:
            return card_name(action.cards[0])
        if k == "swap" and len(a) == 2 and sv.seat < len(houses):
            mine = houses[sv.seat]

            def what(i: int) -> str:
                pile = mine[i]
                return _("empty") if pile is None else _("{kind} pile (score {score})", kind=kind(pile["kind"]),
                                                          score=pile["score"])
            first, second = int(a[0]) - 1, int(a[1]) - 1
            return f"{SLOT_MARKS[first]} {what(first)} ⇄ {SLOT_MARKS[second]} {what(second)}"
        return None

    @staticmethod
    def attack_preview(mine: PileView, slot: int, theirs: PileView, their_slot: int) -> str:
        """The fight before it is fought, from the piles' public scores and the engine's verdict:
        ``your Queen ③ (score 4) against their Jack ① (score 3): you win``."""
        a, d = mine["score"], theirs["score"]
        verdict = _("you win") if attacker_wins(a, d) else _("they hold, a tie goes to them") if a == d \
            else _("they hold")
        return _("your {kind} {slot} (score {score}) against their {their_kind} {their_slot} (score {theirs}): "
                 "{verdict}", kind=kind(mine["kind"]), slot=SLOT_MARKS[slot], score=a, their_kind=kind(theirs["kind"]),
                 their_slot=SLOT_MARKS[their_slot], theirs=d, verdict=verdict)

    def restriction_line(self, sv: SeatView) -> str:
        """The cards no pile takes now, greyed (Discord's small grey subtext), with the engine's reason
        (``Siege.unplaceable``): "Can't place 9♠ and 3♣ now: your King pile takes only hearts; …"."""
        state = sv.table.state
        if sv.decision is None or state is None or not hasattr(state, "unplaceable"):
            return ""
        groups: dict[str, list[str]] = {}
        for c, why in state.unplaceable(sv.seat):
            groups.setdefault(why, []).append(c.label)
        return "\n".join("-# 🚫 " + _("Can't place {cards} now: {why}.", cards=listed(cards),
                                       why=words.say(words.spoken(), why, "siege")) for why, cards in groups.items())

    def action_style(self, action: Action) -> discord.ButtonStyle:
        k = action.kind
        if k == "attack":
            return discord.ButtonStyle.danger
        if k == "build":
            return discord.ButtonStyle.primary
        if k == "place" and action.args and action.args[0] == KING:
            return discord.ButtonStyle.success
        return discord.ButtonStyle.secondary

    def order_actions(self, sv: SeatView, actions: Sequence[Action]) -> list[Action]:
        # Pile by pile (attacks, the King pile, new piles, slots ① to ③, swaps), the cards in hand
        # order within each: the menus then follow the piles as the view lists them.
        return sorted(actions, key=_pile_order)

    def action_group(self, sv: SeatView, action: Action) -> str | None:
        """A menu per pile: the cards it takes (or, for an empty slot, the piles it may start); one
        for attacks and one for swaps; building and ending the turn stay buttons.  When they are
        more than the menus a view holds, the smallest neighbouring build menus share one (never the
        attacks: a fight is not a build)."""
        own = self.pile_group(sv, action)
        if own is None or action.kind == "attack" or sv.decision is None:
            return own
        return self._menus_of(sv).get(own, own)

    def _menus_of(self, sv: SeatView) -> dict[str, str]:
        """Each build menu's name → the name of the menu it shares (itself when alone), worked out
        once per drawing of a view (asked for every action, twice)."""
        decision, view = sv.decision, sv.view
        last = self._last_menus
        if last is not None and last[0] is decision and last[1] is view:
            return last[2]
        sizes: dict[str, int] = {}
        for other in self.order_actions(sv, decision.actions if decision is not None else ()):
            g = self.pile_group(sv, other)
            if g is not None and other.kind != "attack":
                sizes[g] = sizes.get(g, 0) + 1
        room = MAX_MENUS - any(x.kind == "attack" for x in (decision.actions if decision is not None else ()))
        menus = [([g], n) for g, n in sizes.items()]
        while len(menus) > max(1, room):
            _, i = min((menus[i][1] + menus[i + 1][1], i) for i in range(len(menus) - 1))
            menus[i:i + 2] = [(menus[i][0] + menus[i + 1][0], menus[i][1] + menus[i + 1][1])]
        merged = {g: " · ".join(names) for names, _ in menus for g in names}
        # (the decision and view objects are kept with the answer, so a recycled id never matches)
        self._last_menus = (decision, view, merged)
        return merged

    def pile_group(self, sv: SeatView, action: Action) -> str | None:
        """The menu of one pile (or of attacks, or of swaps) that ``action`` belongs in."""
        k, a = action.kind, action.args
        view = sv.view or {}
        if k == "place" and a and a[0] == KING:
            kings = view.get("kings") or []
            n = len(kings[sv.seat]) if sv.seat < len(kings) else 0
            return "👑 " + _("King pile ({n}/{goal})", n=n, goal=KING_GOAL)
        if k in ("place", "start") and a and a[0] in ("1", "2", "3"):
            slot = int(a[0]) - 1
            houses = view.get("houses") or []
            pile = houses[sv.seat][slot] if sv.seat < len(houses) else None
            if pile is None:  # one menu for every empty slot: the same cards start a pile in any
                mine = houses[sv.seat] if sv.seat < len(houses) else [None, None, None]
                empty = [SLOT_MARKS[i] for i, p in enumerate(mine) if p is None]
                return "🏰 " + (_("Empty slots {slots}: start a pile", slots=" ".join(empty)) if len(empty) > 1
                               else _("Empty slot {slots}: start a pile", slots=" ".join(empty)))
            return f"{SLOT_MARKS[slot]} " + _("{kind} pile (score {score})", kind=kind(pile["kind"]),
                                              score=pile["score"])
        return _(GROUPS[k]) if k in GROUPS else None

    def menu_placeholder(self, sv: SeatView, groups: Sequence[str]) -> str:
        return " · ".join(groups)


def _pile_order(action: Action) -> float:
    k, a = action.kind, action.args
    if k == "attack":
        return 0
    if k == "start":
        return 1.5  # (one menu for the empty slots, each card's slots together)
    if k == "place" and a:
        return 1 if a[0] == KING else 1 + int(a[0]) if a[0] in ("1", "2", "3") else 5
    return {"swap": 5, "build": 6}.get(k, 7)


# ==== Siege: its screens, registered once (cogs/table/screens.py) =================================================
register(Screens(
    "siege", SiegeRenderer(),
    words={
        "max_rounds": Words(N_("the most rounds the game lasts, then the most complete King pile wins; 0: until "
                               "someone completes their King pile"),
                            lambda v: _("no round limit") if v == 0
                            else n_("at most {n} round", "at most {n} rounds", v),
                            domain="siege"),
    },
    chart=Chart(N_("cards on the King pile"), N_("round"), per_round=True),
    faces=siege_faces(),
))
