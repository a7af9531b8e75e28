"""Hints: the move an AI level would make for a seat, and a short reason in words.

Pure and deterministic like the rest of the engine: :func:`hint` asks the level's AI for the seat's
move (the ``strong`` search where the game has one, else the ``normal`` AI) and :func:`explain`
says why in a sentence built from simple facts the seat may know — its own hand, the cards on the
table, the cards played, the voids shown (the games' own ``knowledge(seat)``) — and, after a
search, from its figures (the mean result of the chosen move against the next best).

Hidden means hidden: nothing here reads another seat's hand.  The search samples worlds from the
seat's knowledge only (``sample_world``), and the facts are computed from what the seat can tell,
so the same hint comes out of any world the seat cannot tell from the real one.

    h = hint(state, seat, random.Random(seed), level="strong", playouts=200)
    h.action, h.reason   # Action("play", (9♣,)), "it can still take a club lead; ..."
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from engine.cards import SUIT_NAMES, Card
from engine.core import Action, Game, games, get
from engine.levels import ai_for, levels
from engine.words import Phrase, said, said_n, suit
from words import N_

#: Below this difference in mean result the search saw no real difference between two moves.
CLOSE = 0.05


@dataclass(frozen=True)
class Hint:
    """The move for the seat, why, and which level chose it (``strong``: searched)."""

    action: Action
    reason: str
    level: str
    means: dict[str, float] = field(default_factory=dict)


def hint(state: Game, seat: int, rng: random.Random, *, level: str = "strong", playouts: int | None = None,
         time_left: Callable[[], float] | None = None) -> Hint:
    """The ``level`` AI's move for ``seat`` and its reason.  A game without that level (one
    with only ``normal``) gets the normal AI's move and a simpler reason."""
    name = type(state).name
    if level not in levels(name):
        level = "normal"
    if level == "normal":
        action = get(name).ai().choose(state, seat, rng)
        return Hint(action, explain(state, seat, action), "normal")
    ai = ai_for(name, level, playouts=playouts, time_left=time_left)
    action = ai.choose(state, seat, rng)
    last = getattr(ai, "last", {})
    if last.get("out_of_time") and not last.get("worlds"):
        # The deadline came before the search finished one world: the move is the normal AI's.
        level = "normal"
    means = dict(last.get("means") or {})
    return Hint(action, explain(state, seat, action, means), level, means)


def explain(state: Game, seat: int, action: Action, means: dict[str, float] | None = None) -> str:
    """Why ``action`` for ``seat``: the game's facts, then what the search measured, in one line."""
    spec = games().get(type(state).name)
    fn = spec.explain if spec is not None and spec.explain is not None else _generic
    try:
        facts = fn(state, seat, action)
    except Exception:  # a reason is a courtesy: a gap in it must never cost the hint itself
        facts = []
    if len(legal_codes(state, seat)) == 1:
        facts = [said(N_("the only move you have")), *facts[:1]]
    figure = _figure(state, seat, action, means or {})
    parts = [*facts[:2], *([figure] if figure else [])]
    if not parts:
        return said(N_("the AI's choice here"))
    reason = parts[-1] if isinstance(parts[-1], Phrase) else said(parts[-1])
    for part in reversed(parts[:-1]):  # "a; b; c": each language's own separator
        reason = said(N_("{first}; {then}"), first=part, then=reason)
    return reason


def legal_codes(state: Game, seat: int) -> list[str]:
    d = state.decision(seat)
    return [] if d is None or d.pick else [a.code for a in d.actions]


# ==== the search's figures ========================================================================
def _figure(state: Game, seat: int, action: Action, means: dict[str, float]) -> str:
    """``about 1.3 fewer points than 5♣``: the chosen move's mean against the next best's."""
    if action.code not in means or len(means) < 2:
        return ""
    mine = means[action.code]
    code, other = max(((c, m) for c, m in means.items() if c != action.code), key=lambda cm: cm[1])
    gap = mine - other
    spec = games().get(type(state).name)
    units = spec.hint_units if spec is not None else "better"
    if gap < CLOSE:
        return said(N_("the search found the moves about even"))
    words = None
    if spec is not None and spec.move_words is not None:
        d = state.decision(seat)
        other_move = next((a for a in d.actions if a.code == code), None) if d is not None else None
        words = spec.move_words(state, seat, other_move) if other_move is not None else None
    return said(N_("the search expects about {gap} {units} than with {move}"), gap=Decimal(f"{gap:.1f}"),
                units=said(units), move=words or _action_words(code))


def _action_words(code: str) -> str:
    """``play 5C`` → ``5♣``; other codes as they are."""
    try:
        a = Action.parse(code)
    except Exception:
        return code
    if a.cards and all(isinstance(c, Card) for c in a.cards):
        return " ".join(c.label for c in a.cards)
    return code


# ==== facts the games share ======================================================================
def suit_name(s: str) -> str:
    """A suit in a hint's reason: ``spades`` in English, the suit's own name in each language."""
    return suit(s, SUIT_NAMES[s]) if s in SUIT_NAMES else s


def one_of_suit(s: str) -> str:
    """One card of a suit (``spade``), as the reason says it."""
    return suit(s, SUIT_NAMES[s][:-1]) if s in SUIT_NAMES else s


def labels(cs: Iterable[Card]) -> str:
    return ", ".join(c.label for c in cs)


def trick_facts(c: Card, trick: Sequence[tuple[int, Card]], hand: Sequence[Card], out: set[Card],
                 later: Sequence[set[Card]], points: Callable[[Card], int]) -> list[str]:
    """Facts about playing ``c`` into a trick of a no-trump game (each game's own facts are in its
    ``games/<name>/hints.py``): ``out`` are the cards others may hold, ``later`` what each seat
    still to play may hold."""
    facts: list[str] = []
    suit = c.suit
    mine = sorted((x for x in hand if x.suit == suit), key=lambda x: x.value)
    higher_out = [x for x in out if x.suit == suit and x.value > c.value]
    if not trick:
        if not higher_out:
            facts.append(said(N_("the highest {suit} left: it wins the trick"), suit=one_of_suit(suit)))
        elif not any(x.suit == suit and x.value < c.value for x in out):
            facts.append(said(N_("every {suit} still out is higher: someone else takes the trick"),
                              suit=one_of_suit(suit)))
        elif c is mine[0]:
            facts.append(said(N_("leads your lowest {suit}"), suit=one_of_suit(suit)))
        elif len(higher_out) == 1:
            facts.append(said(N_("only one higher {suit} is still out"), suit=one_of_suit(suit)))
        else:
            facts.append(said_n("{n} higher {suit} is still out", "{n} higher {suit} are still out", len(higher_out),
                                suit=suit_name(suit)))
        return facts
    led = trick[0][1].suit
    best = max((x for _, x in trick if x.suit == led), key=lambda x: x.value)
    pts = sum(points(x) for _, x in trick)
    if suit == led:
        if c.value < best.value:
            under = [x for x in mine if x.value < best.value]
            if c is under[-1] and len(under) > 1:
                facts.append(said(N_("the highest {suit} that still stays under the {card}"),
                                  suit=one_of_suit(suit), card=best))
            else:
                facts.append(said(N_("stays under the {card}"), card=best))
        else:
            beaten_later = any(x.suit == suit and x.value > c.value for m in later for x in m)
            total = pts + points(c)
            if not later:
                facts.append(said_n("wins the trick ({n} point)", "wins the trick ({n} points)", total) if total
                             else said(N_("wins the trick")))
            elif not beaten_later:
                facts.append(said(N_("wins the trick: nobody still to play can beat it")))
            else:
                facts.append(said(N_("takes the lead over the {card}"), card=best))
        if c is mine[0] and len(mine) > 1:
            facts.append(said(N_("follows with your lowest {suit}"), suit=one_of_suit(suit)))
        return facts
    # Not following: a discard.
    lower_out = [x for x in out if x.suit == suit and x.value < c.value]
    if lower_out:
        facts.append(said(N_("it can still take a {suit} lead"), suit=one_of_suit(suit)))
    else:
        facts.append(said(N_("no {suit} still out is lower, so it can never take a trick"), suit=one_of_suit(suit)))
    return facts

#: The trick facts that say what a card does, not why (a reason follows them).
_BARE = ("leads your lowest {suit}", "takes the lead over the {card}")


def with_odds(facts: list[str], c: Card, trick: Sequence[tuple[int, Card]], out: set[Card],
              later: Sequence[set[Card]]) -> list[str]:
    """``facts`` with the odds right after a bare one: how many higher cards of the suit may still
    beat ``c`` (on a lead, all those still out; in a trick, those the seats still to play may hold)
    — why a low lead is likely to lose the trick, and why a card that takes the lead may not keep it."""
    if not facts or getattr(facts[0], "msgid", None) not in _BARE:
        return facts
    pool = out if not trick else set().union(*later)
    higher = {x for x in pool if x.suit == c.suit and x.value > c.value}
    if not higher:
        return facts
    odds = (said(N_("only one higher {suit} is still out"), suit=one_of_suit(c.suit)) if len(higher) == 1 else
            said_n("{n} higher {suit} is still out", "{n} higher {suit} are still out", len(higher),
                   suit=suit_name(c.suit)))
    return [facts[0], odds, *facts[1:]]


def _generic(state: Game, seat: int, action: Action) -> list[str]:
    return []

