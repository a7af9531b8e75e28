"""A finished game, step by step: what the replay viewer shows at each step.

:func:`steps` replays a :class:`tables.history.replay.GameRecord`'s log through the engine and describes the
table after every step: step 0 is the table as it was created (the first deal), then one step per
logged action — a player's move or the table's own (a deal).  Each step is a JSON-safe dict:

* ``index``, ``seat`` (who acted; ``None`` for the table itself), ``code`` (the logged action);
* ``hand`` (the hand or round it belongs to, from 1) and ``unit`` (``"hand"`` or ``"round"``, the
  game's own word), ``trick`` (the trick, turn or lead within it, from 1) and ``sub`` (which of
  those words: ``"trick"``, ``"turn"``, ``"lead"``; both ``None`` for a game with none);
* ``hands``: every seat's cards — face up, since only a finished game is replayed;
* ``table``: the cards on the table, as ``{"seat", "label", "cards"}`` groups;
* ``piles``: the hidden piles, face up, as ``{"seat", "label", "cards"}`` groups (``seat`` ``None``:
  in the middle);
* ``scores``: the public scores as the outcome counts them, so the last step's equal the engine's
  final outcome;
* ``events``: the step's public events, ``[kind, seat, [data…]]`` with cards as codes (step 0's:
  those of the game's creation, its first deal);
* ``words``: what a ``words(state, events)`` callback made of them (the cogs' renderers), else "";
* ``timeout``: true when the clock made this move for a person whose time ran out (the log's mark).

What is on the table, which piles are hidden, what the scores are and where a step falls are each
game's own: its spec's replay hooks (engine/replays.py, the game's ``engine/<game>_replay.py``).
Pure and synchronous (the engine only), so the Discord layer runs it in a worker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypedDict

import engine
from engine.core import TABLE, Event, Game, View
from engine.replays import Group, ReplayHooks
from tables.history.replay import GameRecord

Words = Callable[[Game, Sequence[Event]], str]
#: An event's data as a step keeps it: cards as their codes, anything else a JSON scalar.
Datum = int | str | bool | float | None
#: A public event of a step: ``[kind, seat, [data…]]``.
EventRow = list[str | int | None | list[Datum]]


class Step(TypedDict):
    """One step of a replay (the module's doc says what each key holds)."""

    index: int
    seat: int | None
    code: str | None
    hand: int
    unit: str
    trick: int | None
    sub: str | None
    phase: str
    hands: list[list[str]]
    table: list[Group]
    piles: list[Group]
    scores: list[int]
    events: list[EventRow]
    words: str
    timeout: bool


class NotReplayable(ValueError):
    """This record cannot be stepped through (still running, never started, or its log is damaged)."""


def hooks_of(game: str) -> ReplayHooks:
    """What a replay shows of ``game``: its spec's hooks (engine/<game>_replay.py), else the plain ones."""
    return engine.get(game).replay or ReplayHooks()


def scores_of(game: str, pv: View, players: int) -> list[int]:
    """The public scores in one list, the way the game's outcome counts them."""
    return hooks_of(game).scores(pv, players)


def _event(e: Event) -> EventRow:
    data = [getattr(x, "code", x) for x in e.data]
    return [e.kind, e.seat, [x if isinstance(x, (int, str, bool, float)) or x is None else str(x) for x in data]]


def _describe(g: Game, hooks: ReplayHooks, players: int, index: int, seat: int | None, code: str | None,
              events: Sequence[Event], leads: int, words: Words | None, timeout: bool = False) -> Step:
    pv = g.public_view()
    views = [g.view(s) for s in range(players)]
    hands = [[str(c) for c in v.get("hand") or ()] for v in views]
    public = [e for e in events if e.to is None]
    hand, unit, trick, sub = hooks.position(pv, public, leads)
    return {
        "index": index,
        "seat": seat,
        "code": code,
        "hand": hand,
        "unit": unit,
        "trick": trick,
        "sub": sub,
        "phase": str(pv.get("phase")),
        "hands": hands,
        "table": hooks.table(g, pv, views, public),
        "piles": hooks.piles(g, pv, views),
        "scores": hooks.scores(pv, len(hands)),
        "events": [_event(e) for e in public],
        "words": words(g, public) if words is not None else "",
        "timeout": timeout,
    }


def steps(record: GameRecord, words: Words | None = None) -> list[Step]:
    """Every step of a finished game (see the module's doc); raises :class:`NotReplayable`."""
    if not record.finished:
        raise NotReplayable("the game is not over")
    if record.seed is None:
        raise NotReplayable("the game never started")
    cls = engine.get(record.game).game
    hooks = hooks_of(record.game)
    try:
        g = cls.create(record.players, record.options, record.seed)
        before = g.public_view()
        leads = 1
        # Step 0 is the table as created, with what its creation said (the first deal).
        out = [_describe(g, hooks, record.players, 0, None, None, list(g.start_events), leads, words)]
        last_hand = hooks.position(before, [], leads).hand
        for i, e in enumerate(record.log, start=1):
            events = g.apply(e.seat, cls.action_from_code(e.code))
            pv = g.public_view()
            # A game without trick numbers counts its leads as they end.
            hand = hooks.position(pv, [], leads).hand
            if hand != last_hand:
                leads, last_hand = 1, hand
            elif hooks.lead_over(before, pv):
                leads += 1
            before = pv
            who = None if e.seat == TABLE else e.seat
            out.append(_describe(g, hooks, record.players, i, who, e.code, events, leads, words, bool(e.timeout)))
    except NotReplayable:
        raise
    except Exception as exc:  # an illegal logged move, an unknown game: this log does not replay
        raise NotReplayable(f"the log does not replay ({getattr(exc, 'reason', None) or exc})") from None
    return out


def final_scores(record: GameRecord) -> list[int] | None:
    """The engine's final outcome's scores (what the last step must show)."""
    state, _ = record.replay()
    outcome = state.outcome()
    return None if outcome is None else list(outcome.scores)
