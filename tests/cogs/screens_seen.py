"""Every screen a player reads along a seeded playout of one game, as ``(where, text)`` pairs.

A game is played from its ``GameSpec.sample`` by the normal AI in every seat (a seeded generator
picks a legal move now and then, so the rarer screens show too), and at every step the collector
renders what someone would read: the table message (lobby, running, finished), each seat's hand view
(its text, every button label, every menu's placeholder, options and descriptions), the line after
a move, the sentences of the public events, the turn ping, the summaries, the engine's refusals of
moves a person could try (a card of another seat's choice, a card held but not offered), the
replay's recap and standings, and ``/game rules``.  tests/cogs/test_words.py looks for jargon in them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import discord

import engine
import words
from cogs.table import components, options, renderers
from cogs.table.answers import replay_standings
from engine.core import TABLE, Action, Event, refusal
from tables import ahead
from tables.history.replay import GameRecord, recap
from tables.live import SeatView, TableError
from tables.table import LogEntry, Phase, Seat, Table

NAMES = ("Ali", "Bea", "Cy", "Dee", "Eli", "Fay")


def view_texts(view: discord.ui.View) -> Iterator[str]:
    """Every word of a view's components a person reads: labels, placeholders, options."""
    for row in view.to_components():
        for c in row.get("components", ()):
            for key in ("label", "placeholder"):
                if c.get(key):
                    yield str(c[key])
            for o in c.get("options") or ():
                yield str(o.get("label", ""))
                if o.get("description"):
                    yield str(o["description"])


def _table(game: str, players: int, opts: dict[str, Any], seed: int) -> Table:
    g = engine.get(game).game
    seats = [Seat(10, NAMES[0]), Seat(11, NAMES[1]),
             *(Seat(None, f"AI {i}", is_ai=True) for i in range(1, players - 1))]
    full = dict(options.table_defaults(game))
    full.update(opts)
    return Table(id="ABC234", game=game, options=g.read_options(full), speed="normal", guild_id=1, channel_id=2,
                 host_id=10, seats=seats, phase=Phase.LOBBY, seed=seed)


def rules_texts(game: str, locale: str = "en") -> list[tuple[str, str]]:
    """``/game rules`` as its embed reads, field by field.  The field that shows what a host types
    (``HOW_TO_SET``: ``options:target=50``) is the one place option keys belong, so it is kept apart
    as ``"how to set it"`` for the test to leave out of the jargon scan."""
    from cogs.table.answers import HOW_TO_SET, rules_embed

    d = rules_embed(game, locale=locale).to_dict()
    out = [(f"/game rules {game}", d.get("title", "")), (f"/game rules {game}", d.get("description", "")),
           (f"/game rules {game}", d.get("footer", {}).get("text", ""))]
    for f in d.get("fields", ()):
        where = "how to set it" if f["name"] == words.translate(locale, HOW_TO_SET) else f"/game rules {game}"
        out += [(where, f["name"]), (where, f["value"])]
    from cogs.table.howto import howto_text

    out.append((f"How to play {game}", howto_text(game, locale=locale)))
    return out


def _hand(table: Table, seat: int) -> list[tuple[str, str]]:
    state = table.state
    phase = str(getattr(table.phase, "value", table.phase))
    view = state.view(seat) if state is not None else None
    decision = state.decision(seat) if state is not None and phase == "running" else None
    sv = SeatView(table, seat, view, decision, None)
    content, v = components.hand_view(sv)
    out = [(f"hand view of seat {seat}", content)]
    out += [(f"control of seat {seat}", t) for t in view_texts(v)]
    v.stop()
    hand = (view or {}).get("hand") or []
    if hand and phase == "running":
        # Play ahead (tables/ahead.py): a card chosen for the turn, and one its turn refused.
        code = f"play {hand[0]}"
        for sv in (SeatView(table, seat, view, decision, None, code), SeatView(table, seat, view, decision, None,
                                                                               None, code)):
            content, v = components.hand_view(sv)
            out.append((f"hand view of seat {seat}, a card chosen ahead", content))
            out += [(f"control of seat {seat}, a card chosen ahead", t) for t in view_texts(v)]
            v.stop()
    return out


def _refusals(table: Table, seat: int) -> list[tuple[str, str]]:
    """The engine's sentences for moves a person could try now and may not make."""
    state = table.state
    mine = state.decision(seat)
    offered = {a.code for a in mine.actions} if mine is not None and mine.actions else set()
    tries: list[Action] = []
    for other in range(len(table.seats)):
        d = state.decision(other) if other != seat else None
        if d is not None and d.actions:
            tries += [a for a in d.actions[:3] if a.code not in offered]
    hand = (state.view(seat) or {}).get("hand") or []
    typed: list[Action | str] = list(tries)
    if mine is not None and not mine.pick:
        typed += [code for code in hand[:13] if code not in offered]  # typed with /play, as a person would
    elif mine is None:
        typed += hand[:1]  # out of turn (in War, say, no card is refused in turn)
    out = []
    for a in typed:
        why = refusal(state, seat, a)
        if why is not None:  # as the person reads it: in their language (TableError.say)
            out.append((f"refusal to seat {seat} of {getattr(a, 'code', a)}",
                        TableError.of(why, table.game).say(words.spoken())))
    return out


def playout(game: str, seed: int = 1, max_steps: int = 4000, locale: str = "en") -> list[tuple[str, str]]:
    """Play one seeded sample game and return every text a player would read on the way, every one
    drawn in ``locale`` (the table's and every person's: words.speaking)."""
    with words.speaking(locale):
        return _playout(game, seed, max_steps, locale)


def _playout(game: str, seed: int, max_steps: int, locale: str) -> list[tuple[str, str]]:
    spec = engine.get(game)
    players, opts = spec.sample or (spec.game.min_players, {})
    t = _table(game, players, dict(opts), seed)
    t.locale = locale
    r = renderers.renderer_for(game)
    seen: list[tuple[str, str]] = [("lobby", renderers.table_message(t).text())]
    seen += rules_texts(game, locale)
    seen += [("play ahead refusal", TableError(m).say(words.spoken()))
             for m in (ahead.NOT_OFFERED, ahead.NOT_NOW, ahead.NOT_IN_HAND)]
    t.phase = Phase.RUNNING
    t.state = spec.game.create(players, t.options, seed)
    ai = spec.ai()
    rng = random.Random(seed)
    all_events: list[Event] = []
    for step in range(max_steps):
        state = t.state
        if state.is_over:
            break
        due = list(state.to_act())
        seat = due[0] if due[0] != TABLE or len(due) == 1 else due[0]
        if step % 7 == 0:
            seen.append(("table message", renderers.table_message(t).text()))
            people = [s for s in t.to_act() if 0 <= s < len(t.seats) and t.seats[s].user_id is not None]
            if people:
                seen.append(("turn ping", renderers.turn_notice(t, people)))
            for s in range(players):
                seen += _hand(t, s)
            if seat >= 0:
                seen += _refusals(t, seat)
            waiting = [s for s in range(players) if s not in due]
            if waiting:
                seen += _refusals(t, waiting[0])
        decision = state.decision(seat)
        if decision is not None and decision.actions and rng.random() < 0.2:
            action = rng.choice(decision.actions)
        else:
            action = ai.choose(state, seat, rng)
        events = state.apply(seat, action)
        t.version += 1
        t.log.append(LogEntry(len(t.log) + 1, seat, action.code, float(step), seat != 0))
        all_events += events
        t.recent = [*t.recent, *(e for e in events if e.to is None)][-40:]
        for e in events:
            text = r.event_text(t, e) if e.to is None else None
            if text:
                seen.append((f"event {e.kind}", text))
        if seat >= 0:
            seen.append((f"after a move of seat {seat}", r.ack_line(t, seat, events)))
        if state.is_over:
            t.phase = Phase.FINISHED
        summary = renderers.summary(t, events)
        if summary is not None:
            seen.append(("summary", summary.text()))
    assert t.state.is_over, f"{game} did not finish in {max_steps} steps"
    t.phase = Phase.FINISHED
    seen.append(("finished table message", renderers.table_message(t).text()))
    for s in range(players):
        seen += _hand(t, s)
    record = GameRecord.of_table(t)
    state, events = record.replay()
    seen += [("replay", line) for line in replay_standings(record, state.outcome())]
    seen += [("replay", line) for line in recap(record)]
    return seen
