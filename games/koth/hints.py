"""King of the Hill's hint facts (engine/hints.py asks them for the reason of a hint): what a move does
under docs/rules.md §4, from what the seat may know."""

from __future__ import annotations

from typing import Any

from engine.core import Action
from engine.hints import labels, suit_name
from engine.words import said, said_n
from words import N_


def koth_facts(state: Any, seat: int, action: Action) -> list[str]:
    from games.koth.rules import points_of, trick_winner

    if action.kind != "play" or not action.cards:
        return _koth_other(state, seat, action)
    cs = tuple(action.cards)
    trump = state.trump
    pts = points_of(cs)
    what = (said(N_("a pair")) if len(cs) == 2 and cs[0] is cs[1] else
            said(N_("a trump")) if trump.is_trump(cs[0]) else "")
    facts: list[str] = []
    trick = list(state.trick)
    if not trick:
        if what:
            facts.append(said(N_("leads {what}"), what=what))
        if pts:
            facts.append(said_n("puts {n} point on your lead", "puts {n} points on your lead", pts))
        elif not what:
            facts.append(said(N_("leads a card with no points")))
        # Why lead it (docs/rules.md §4, the tricks), second so that a hint's two facts say it.
        why = (said(N_("on a pair lead only a pair can win the trick")) if len(cs) == 2 else
               said(N_("a trump lead draws out the others' trumps")) if trump.is_trump(cs[0]) else
               said(N_("nothing to lose if the other side takes the trick")) if not pts else
               said(N_("everyone must follow suit if they can: only a player out of that suit can trump it")))
        return [facts[0], why, *facts[1:]]
    now = trick_winner(trump, [*trick, (seat, cs)])
    on_table = sum(points_of(p) for _, p in trick) + pts
    defenders = {*state.known_defenders(), state.koth}
    everyone_known = bool(state.call_done)  # the called copy is out (or nobody was called)
    if now == seat:
        last = len(trick) == 4
        if last:
            facts.append(said_n("wins the trick ({n} point on it)", "wins the trick ({n} points on it)", on_table)
                         if on_table else said(N_("wins the trick")))
        else:
            facts.append(said_n("takes the trick for now ({n} point on it)",
                                "takes the trick for now ({n} points on it)", on_table)
                         if on_table else said(N_("takes the trick for now")))
    else:
        winner = trick_winner(trump, trick)
        side = "defenders" if winner in defenders else "challengers" if everyone_known else ""
        if pts:
            facts.append(said_n("gives {n} point to the defenders' trick",
                                "gives {n} points to the defenders' trick", pts)
                         if side == "defenders" else
                         said_n("gives {n} point to the challengers' trick",
                                "gives {n} points to the challengers' trick", pts) if side else
                         said_n("gives {n} point to the trick", "gives {n} points to the trick", pts))
        else:
            facts.append(said(N_("stays under the defenders' winning play, giving no points"))
                         if side == "defenders" else
                         said(N_("stays under the challengers' winning play, giving no points")) if side else
                         said(N_("stays under the winning play, giving no points")))
    if what and len(facts) < 2 and what != "a trump":
        facts.append(said(N_("plays {what}"), what=what))
    return facts


def _koth_other(state: Any, seat: int, action: Action) -> list[str]:
    """The KotH's own steps (the normal AI's: the search covers the tricks only)."""
    from games.koth.rules import points_of

    if action.kind == "bury" and len(action.cards) == 8:
        pts = points_of(action.cards)
        cards = labels(action.cards)
        return [said_n("buries {cards} — {n} point the challengers could win back",
                       "buries {cards} — {n} points the challengers could win back", pts, cards=cards) if pts
                else said(N_("buries {cards}: no points in the bury"), cards=cards)]
    if action.kind == "call" and action.cards:
        c = action.cards[0]
        return [said(N_("calls {card}: whoever plays it first joins your side"), card=c)
                if state.options["called_copy"] == "first" else
                said(N_("calls {card}: whoever plays it second joins your side"), card=c)]
    if action.kind == "suit" and action.args:
        suit = action.args[0]
        hand = state.hands[seat]
        counts = {s: sum(1 for c in hand if c.suit == s) for s in "CDHS"}
        longest = counts[suit] == max(counts.values())
        return [said(N_("{suits} as trumps: your longest suit"), suits=suit_name(suit))] if longest else [
            said(N_("{suits} as trumps"), suits=suit_name(suit)),
            said_n("{n} card of that suit is already in your hand", "{n} cards of that suit are already in your hand",
                   counts[suit])]
    if action.kind == "declare" and action.cards:
        if len(action.cards) == 2:
            return [said(N_("declares {cards}: a pair is final"), cards=labels(action.cards))]
        suit = action.cards[0].suit
        hand = state.hands[seat]
        counts = {s: sum(1 for c in hand if c.suit == s) for s in "CDHS"}
        held = counts.get(suit, 0)
        # Why this suit: trumps win tricks, so the more of them in your hand the better.
        why = (said(N_("{suits} as trumps: your longest suit"), suits=suit_name(suit)) if held == max(counts.values())
               else said_n("{n} card of that suit is already in your hand",
                           "{n} cards of that suit are already in your hand", held))
        return [said(N_("declares {cards}"), cards=labels(action.cards)), why]
    return []
