"""King of the Hill's hint facts (engine/hints.py asks them for the reason of a hint): what a move does
under docs/rules.md §4, from what the seat may know."""

from __future__ import annotations

from typing import Any

from engine.core import Action
from engine.hints import labels, suit_name
from engine.words import plural


def koth_facts(state: Any, seat: int, action: Action) -> list[str]:
    from games.koth.rules import points_of, trick_winner

    if action.kind != "play" or not action.cards:
        return _koth_other(state, seat, action)
    cs = tuple(action.cards)
    trump = state.trump
    pts = points_of(cs)
    what = "a pair" if len(cs) == 2 and cs[0] is cs[1] else ("a trump" if trump.is_trump(cs[0]) else "")
    facts: list[str] = []
    trick = list(state.trick)
    if not trick:
        if what:
            facts.append(f"leads {what}")
        if pts:
            facts.append(f"puts {plural(pts, 'point')} on your lead")
        elif not what:
            facts.append("leads a card with no points")
        return facts
    now = trick_winner(trump, [*trick, (seat, cs)])
    on_table = sum(points_of(p) for _, p in trick) + pts
    defenders = {*state.known_defenders(), state.koth}
    everyone_known = bool(state.call_done)  # the called copy is out (or nobody was called)
    if now == seat:
        last = len(trick) == 4
        facts.append(("wins the trick" if last else "takes the trick for now") +
                     (f" ({plural(on_table, 'point')} on it)" if on_table else ""))
    else:
        winner = trick_winner(trump, trick)
        side = "the defenders'" if winner in defenders else "the challengers'" if everyone_known else "the"
        if pts:
            facts.append(f"gives {plural(pts, 'point')} to {side} trick")
        else:
            facts.append(f"stays under {side} winning play, giving no points")
    if what and len(facts) < 2 and what != "a trump":
        facts.append(f"plays {what}")
    return facts


def _koth_other(state: Any, seat: int, action: Action) -> list[str]:
    """The KotH's own steps (the normal AI's: the search covers the tricks only)."""
    from games.koth.rules import points_of

    if action.kind == "bury" and len(action.cards) == 8:
        pts = points_of(action.cards)
        return [f"buries {labels(action.cards)}"
                + (f" — {plural(pts, 'point')} the challengers could win back" if pts else ": no points in the bury")]
    if action.kind == "call" and action.cards:
        return [f"calls {action.cards[0].label}: whoever plays it {state.options['called_copy']} joins your side"]
    if action.kind == "suit" and action.args:
        suit = action.args[0]
        hand = state.hands[seat]
        counts = {s: sum(1 for c in hand if c.suit == s) for s in "CDHS"}
        longest = counts[suit] == max(counts.values())
        return [f"{suit_name(suit)} as trumps" + (": your longest suit" if longest else "")]
    if action.kind == "declare" and action.cards:
        return [f"declares {labels(action.cards)}" + (": a pair is final" if len(action.cards) == 2 else "")]
    return []
