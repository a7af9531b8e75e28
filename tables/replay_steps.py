"""A finished game, step by step: what the replay viewer shows at each step.

:func:`steps` replays a :class:`tables.replay.GameRecord`'s log through the engine and describes the
table after every step: step 0 is the table as it was created (the first deal), then one step per
logged action — a player's move or the table's own (a deal).  Each step is a JSON-safe dict:

* ``index``, ``seat`` (who acted; ``None`` for the table itself), ``code`` (the logged action);
* ``hand`` (the hand or round it belongs to, from 1) and ``unit`` (``"hand"`` or ``"round"``, the
  game's own word), ``trick`` (the trick, turn or lead within it, from 1) and ``sub`` (which of
  those words: ``"trick"``, ``"turn"``, ``"lead"``; both ``None`` for a game with none);
* ``hands``: every seat's cards — face up, since only a finished game is replayed;
* ``table``: the cards on the table, as ``{"seat", "label", "cards"}`` groups (a trick being played,
  or the one just taken; The Great Dalmuti's cards to beat; Siege's houses and King piles; in a
  Hearts pass, the cards each seat chose to pass);
* ``piles``: the hidden piles, face up, as ``{"seat", "label", "cards"}`` groups (``seat`` ``None``:
  in the middle): King of the Hill's dead hand (in the middle while the deal goes on, with the King
  once taken) and the King's buried cards until the next deal; The Great Dalmuti's taxes, paid and
  given back, with each of the two players for the rest of that hand;
* ``scores``: the public scores (King of the Hill: each player's rank, 2 to 14 for A), so the last
  step's equal the engine's final outcome;
* ``events``: the step's public events, ``[kind, seat, [data…]]`` with cards as codes;
* ``words``: what a ``words(state, events)`` callback made of them (the cogs' renderers), else "";
* ``timeout``: true when the clock made this move for a person whose time ran out (the log's mark).

Pure and synchronous (the engine only), so the Discord layer runs it in a worker.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import engine
from engine.core import TABLE, Event, Game
from tables.replay import GameRecord

RANKS = "23456789TJQKA"  # King of the Hill's ranks, as its public view spells them
DEAD = 8  # King of the Hill's dead hand

Words = Callable[[Game, Sequence[Event]], str]


class NotReplayable(ValueError):
    """This record cannot be stepped through (still running, never started, or its log is damaged)."""


def scores_of(pv: dict[str, Any], players: int) -> list[int]:
    """The public scores in one list, the way the game's outcome counts them."""
    if isinstance(pv.get("scores"), list):
        return [int(x) for x in pv["scores"]]
    if isinstance(pv.get("ranks"), list):
        return [RANKS.index(str(r)) + 2 if str(r) in RANKS else 2 for r in pv["ranks"]]
    return [0] * players


def _codes(cards: Any) -> list[str]:
    if isinstance(cards, str):
        return [cards]
    return [str(c) for c in cards or ()]


def _trick_groups(plays: Sequence[Any], label: str) -> list[dict[str, Any]]:
    # Hearts and Tricks keep [seat, code], King of the Hill [seat, [codes]].
    return [{"seat": int(s), "label": label, "cards": _codes(c)} for s, c in plays]


def table_groups(pv: dict[str, Any], events: Sequence[Event]) -> list[dict[str, Any]]:
    """The cards on the table after a step, from the public view (and the step's events: a trick
    that was just taken is still shown, so the step that completes it shows all its cards)."""
    out: list[dict[str, Any]] = []
    if "houses" in pv:  # Siege: every player's houses and King pile
        for s, houses in enumerate(pv.get("houses") or []):
            for h in houses or []:
                if h:
                    # The rule book's words: a Queen, Jack or Ace pile.
                    out.append({"seat": s, "label": f"{str(h.get('kind') or 'house').capitalize()} pile",
                                "cards": _codes([h.get("special")]) + _codes(h.get("cards"))})
        for s, pile in enumerate(pv.get("kings") or []):
            if pile:
                out.append({"seat": s, "label": "King pile", "cards": _codes(pile)})
        return out
    current = pv.get("current")
    if isinstance(current, dict) and current.get("cards"):  # The Great Dalmuti: the cards to beat
        by = current.get("by")
        return [{"seat": None if by is None else int(by), "label": "to beat", "cards": _codes(current["cards"])}]
    trick = pv.get("trick")
    if trick:
        return _trick_groups(trick, "played")
    last = pv.get("last_trick")
    if isinstance(last, dict) and any(e.kind == "trick" for e in events) and last.get("cards"):
        return _trick_groups(last["cards"], "played")
    return out


def hidden_piles(g: Game, pv: dict[str, Any], views: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The piles no view shows everyone, face up (only a finished game is replayed): King of the
    Hill's dead hand and buried cards, The Great Dalmuti's taxes (see the module's doc)."""
    out: list[dict[str, Any]] = []
    if pv.get("game") == "koth":
        # The dead hand lies undealt in the stock during the deal: only the engine's whole state
        # (its snapshot) has it.
        d = g.to_dict()
        phase, stock, koth = d.get("phase"), list(d.get("stock") or ()), d.get("koth")
        if phase in ("deal", "late", "suit") and len(stock) >= DEAD:
            out.append({"seat": None, "label": "dead hand", "cards": _codes(stock[:DEAD][::-1])})
        elif phase == "bury" and d.get("dead") and koth is not None:
            out.append({"seat": int(koth), "label": "took the dead hand", "cards": _codes(d["dead"])})
        elif d.get("buried"):
            if phase in ("round_ready", "over"):  # scored: the King may have changed since
                koth = (pv.get("last_round") or {}).get("koth", koth)
            if koth is not None:
                out.append({"seat": int(koth), "label": "buried", "cards": _codes(d["buried"])})
        return out
    ranking = [int(s) for s in pv.get("ranking") or ()]
    for s, v in enumerate(views):  # The Great Dalmuti: each seat's own taxes
        given, received = _codes(v.get("tax_given")), _codes(v.get("tax_received"))
        if not given and not received:
            continue
        peon = s in ranking and ranking.index(s) >= len(ranking) - 2
        first, then = (("paid in taxes", given), ("got back", received)) if peon else \
            (("received in taxes", received), ("gave back", given))
        out += [{"seat": s, "label": label, "cards": cards} for label, cards in (first, then) if cards]
    return out


def _position(pv: dict[str, Any], leads: int) -> tuple[int, str, int | None, str | None]:
    """(hand or round from 1, its word, the trick/turn/lead within it from 1, that one's word)."""
    if "hand_no" in pv:
        hand, unit = int(pv.get("hand_no") or 0) + 1, "hand"
    else:
        hand, unit = int(pv.get("round") or 1), "round"
    if "trick_no" in pv:
        return hand, unit, int(pv.get("trick_no") or 0) + 1, "trick"
    if "turn_no" in pv:
        return hand, unit, int(pv.get("turn_no") or 0) + 1, "turn"
    if "current" in pv:
        return hand, unit, leads, "lead"
    return hand, unit, None, None


def _event(e: Event) -> list[Any]:
    data = [getattr(x, "code", x) for x in e.data]
    return [e.kind, e.seat, [x if isinstance(x, (int, str, bool, float)) or x is None else str(x) for x in data]]


def _describe(g: Game, players: int, index: int, seat: int | None, code: str | None, events: Sequence[Event],
              leads: int, words: Words | None, timeout: bool = False) -> dict[str, Any]:
    pv = g.public_view()
    views = [g.view(s) for s in range(players)]
    hands = [_codes(v.get("hand")) for v in views]
    table = table_groups(pv, [e for e in events if e.to is None])
    if pv.get("phase") == "pass":  # Hearts: the cards each seat chose to pass, until they change hands
        table += [{"seat": s, "label": "to pass", "cards": _codes(v["passing"])}
                  for s, v in enumerate(views) if v.get("passing")]
    public = [e for e in events if e.to is None]
    piles = hidden_piles(g, pv, views)
    hand, unit, trick, sub = _position(pv, leads)
    taken = [e for e in public if e.kind == "trick" and e.data and isinstance(e.data[0], int)]
    if sub == "trick" and taken and not pv.get("trick") and not any(e.kind == "deal" for e in public):
        trick = int(taken[-1].data[0]) + 1  # the step that completes a trick is that trick's (table_groups)
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
        "table": table,
        "piles": piles,
        "scores": scores_of(pv, len(hands)),
        "events": [_event(e) for e in public],
        "words": words(g, public) if words is not None else "",
        "timeout": timeout,
    }


def _has_current(pv: dict[str, Any]) -> bool:
    current = pv.get("current")
    return bool(current.get("cards")) if isinstance(current, dict) else False


def steps(record: GameRecord, words: Words | None = None) -> list[dict[str, Any]]:
    """Every step of a finished game (see the module's doc); raises :class:`NotReplayable`."""
    if not record.finished:
        raise NotReplayable("the game is not over")
    if record.seed is None:
        raise NotReplayable("the game never started")
    cls = engine.get(record.game).game
    try:
        g = cls.create(record.players, record.options, record.seed)
        first = g.public_view()
        leads = 1
        out = [_describe(g, record.players, 0, None, None, [], leads, words)]
        was_current = _has_current(first)
        last_hand = _position(first, leads)[0]
        for i, e in enumerate(record.log, start=1):
            events = g.apply(e.seat, cls.action_from_code(e.code))
            pv = g.public_view()
            # The Great Dalmuti has no trick number: a new lead starts when the cards to beat clear.
            now_current = _has_current(pv)
            hand = _position(pv, leads)[0]
            if hand != last_hand:
                leads, last_hand = 1, hand
            elif was_current and not now_current:
                leads += 1
            was_current = now_current
            who = None if e.seat == TABLE else e.seat
            out.append(_describe(g, record.players, i, who, e.code, events, leads, words, bool(e.timeout)))
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
