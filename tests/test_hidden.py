"""Hidden means hidden through every channel (issue 13, item 3), for every registered game.

At random points of seeded games, a *twin* of the state is built that differs only in cards one
observer cannot see: the other seats' hidden cards, the stock and the dead hand are dealt again
(same sizes; cards that are public — declared, played, on the table — stay put).  Both states are
then seated at a real runtime (``tables.runtime.Runtime`` on a fake clock, every seat a person) and
everything the observer could receive must be identical:

* the public view, and the public events when the table's own timed step (a deal, the look at the
  cards) runs — at the same moment;
* the rendered table message with its buttons, and who is pinged;
* the observer's own hand view (text, buttons, menus, custom ids);
* the sentence the runtime answers the observer with for an out-of-turn or illegal move.

A leak of the kind issue 13 found (who may declare during a deal, who may call a revolution) makes
one of these differ between the twins.  The engine's views are checked card by card by the
conformance test; this guard is about the side channels around them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import discord
import pytest

import engine
from cogs.table import renderers
from cogs.table.components import hand_view, table_view
from engine.core import TABLE, Event, Game
from tables.clock import FakeClock
from tables.offers import WAIT_FOR_TABLE
from tables.runtime import Runtime, TableError
from tables.table import Table
from tests import wargame

USERS = [201, 202, 203, 204, 205]
POINTS = 7  # random points per game, besides the start
TWINS = ("sorted", "reversed", "random")  # the twins built per point and observer


def sample_game(game: str) -> tuple[int, dict[str, Any]]:
    """The game's short typical game (its ``GameSpec.sample``): players and options."""
    spec = engine.get(game)
    assert spec.sample is not None, f"{game} has no sample game"
    return spec.sample[0], dict(spec.sample[1])


@pytest.fixture(autouse=True)
def _throwaway_games():
    """Every registered game is checked, and War too: a game registered through its specs alone."""
    with wargame.registered():
        yield


# ---- twins ----------------------------------------------------------------------------------------
def _spots(game: str, d: dict[str, Any], observer: int) -> tuple[list[list[str]], set[int]]:
    """The lists of card codes in ``d`` hidden from ``observer`` (each dealt again at its own size)
    and, per list (by position in the returned list), nothing else: pinned cards are removed from
    the lists before they are returned and put back by :func:`_twin`."""
    others = [s for s in range(len(d["hands"])) if s != observer]
    lists = [d["hands"][s] for s in others]
    if game == "koth":
        lists.append(d["stock"])
        if d["koth"] != observer:
            lists.append(d["buried"])
    if game == "siege":
        lists.append(d["stock"])
    return lists, set(others)


def _pinned(game: str, d: dict[str, Any], seat: int) -> list[str]:
    """Cards of ``seat``'s hand that are public knowledge and must stay there."""
    if game == "hearts":
        chosen = d["pass_choice"][seat] or []
        first_lead = d["phase"] == "play" and d["trick_no"] == 0 and not d["trick"]
        return list(chosen) + (["2C"] if first_lead and "2C" in d["hands"][seat] else [])
    if game == "koth":
        shown = [code for s, code, n in d["declarations"] if s == seat for _ in range(n)]
        held = list(d["hands"][seat])
        out = []
        for code in shown:  # a declared card was shown from this hand: it is still there
            if code in held:
                held.remove(code)
                out.append(code)
        return out
    return []


def twin(state: Game, observer: int, rng: random.Random, how: str = "random") -> Game | None:
    """A state that differs from ``state`` only in cards ``observer`` cannot see (or None when
    nothing is hidden from them).  ``how`` deals the hidden cards: ``random``, or ``sorted`` /
    ``reversed`` by code, which gathers equal cards in one place — both Jesters in one hand, every
    trump-rank card with one seat — the positions where a leak shows most."""
    game = state.name
    d = state.to_dict()
    lists, others = _spots(game, d, observer)
    pins: list[list[str]] = []
    pool: list[str] = []
    for i, cards in enumerate(lists):
        wanted = _pinned(game, d, sorted(others)[i]) if i < len(others) else []
        pinned, free = [], []
        for c in cards:
            if c in wanted:
                wanted.remove(c)
                pinned.append(c)
            else:
                free.append(c)
        pins.append(pinned)
        pool += free
    if len(set(pool)) < 2:
        return None
    if how == "random":
        rng.shuffle(pool)
    else:
        pool.sort(reverse=how == "reversed")
    for cards, pinned in zip(lists, pins, strict=True):
        size = len(cards) - len(pinned)
        cards[:] = pinned + pool[:size]
        del pool[:size]
    if game == "dalmuti" and d["phase"] == "look":
        # Who holds both Jesters follows the cards (the engine notes it at the deal).
        d["holder"] = next((s for s, h in enumerate(d["hands"]) if h.count("JJ") == 2), None)
    if game == "koth" and d["koth"] is not None and d["koth"] != observer:
        # The KotH's marks (private) stay among the KotH's own cards.
        held = list(d["hands"][d["koth"]])
        marked = []
        for c in d["marked"]:
            if c in held:
                held.remove(c)
                marked.append(c)
        d["marked"] = marked
    other = type(state).from_dict(d)
    return None if other.to_dict() == state.to_dict() else other


# ---- points of seeded games -------------------------------------------------------------------------
def start_twins(game: str, seed: int, observer: int, rng: random.Random) -> list[tuple[Game, Game]]:
    """At the very start the engine itself builds the twins: the same game created from a deal
    that differs only in the other seats' cards, so everything the deal decides (who may call a
    revolution, whether anyone may) follows the cards, as it would at a real table."""
    players, options = sample_game(game)
    cls = engine.get(game).game
    if game != "dalmuti":
        return []
    dealt = [list(e.data) for e in cls.create(players, options, seed).start_events if e.kind == "dealt"]
    out = []
    for how in TWINS:
        pool = [c for s, h in enumerate(dealt) if s != observer for c in h]
        if how == "random":
            rng.shuffle(pool)
        else:
            pool.sort(key=lambda c: c.number, reverse=how == "reversed")
        deal = []
        for s, h in enumerate(dealt):
            if s == observer:
                deal.append(h)
            else:
                deal.append(pool[:len(h)])
                del pool[:len(h)]
        out.append((cls.create(players, options, seed, deal=dealt), cls.create(players, options, seed, deal=deal)))
    return out


def points(game: str, seed: int) -> list[Game]:
    """The state at the start and at ``POINTS`` random moments of one seeded random game."""
    players, options = sample_game(game)
    g = engine.get(game).game.create(players, options, seed)
    rng = random.Random(seed)
    states = [g.to_dict()]
    moves = 0
    while not g.is_over and moves < 400:
        seat = rng.choice(g.to_act())
        g.apply(seat, g.random_action(seat, rng))
        moves += 1
        if rng.random() < 0.08:
            states.append(g.to_dict())
    cls = engine.get(game).game
    picked = [states[0], *rng.sample(states[1:], min(POINTS, len(states) - 1))]
    return [cls.from_dict(d) for d in picked]


# ---- what an observer receives -------------------------------------------------------------------------
class Recorder:
    def __init__(self) -> None:
        self.pings: list[tuple[int, ...]] = []

    async def redraw(self, table: Table) -> None:
        return None

    async def turn(self, table: Table, seats: tuple[int, ...]) -> None:
        self.pings.append(tuple(seats))

    async def summary(self, table: Table, events: list[Event]) -> None:
        return None


def _controls(view: discord.ui.View) -> list[Any]:
    out = []
    for child in view.children:
        item = getattr(child, "item", child)
        out.append((type(item).__name__, getattr(item, "custom_id", None), getattr(item, "label", None),
                    getattr(item, "placeholder", None), getattr(item, "disabled", None),
                    [(o.label, o.value, o.description) for o in getattr(item, "options", [])]))
    return out


async def _attempt(rt: Runtime, t: Table, user: int, text: str) -> str:
    try:
        await rt.act(t.id, user, text)
    except TableError as e:
        return e.message
    return "<accepted>"


def _tries(state: Game, observer: int) -> list[str]:
    """Moves to try as the observer: nonsense, and the first card hidden from them (played, led,
    placed) — worked out once, from the original, and tried in both twins."""
    hidden = sorted(state.hidden_from(observer))
    code = hidden[0] if hidden else "QS"
    return ["xyzzy", f"play {code}", code, f"place {code} king", "pass"]


async def observe(state: Game, observer: int, tries: list[str]) -> dict[str, Any]:
    """Seat ``state`` at a fresh runtime with every seat a person, and record what ``observer``
    receives: now (trying the moves ``tries``), and when the table's own timed step (if any) runs."""
    players = len(state.to_dict()["hands"])
    clock = FakeClock()
    rec = Recorder()
    rt = Runtime(listener=rec, clock=clock, rng=random.Random(5), ai_delay=1.0)
    try:
        t = await rt.create(game=state.name, guild_id=1, channel_id=2, host_id=USERS[0], host_name="P0",
                            options=dict(state.options))
        for s in range(1, players):
            await rt.join(t.id, USERS[s], f"P{s}")
        await rt.start(t.id, USERS[0])
        await clock.settle()
        t.state = state
        rec.pings.clear()
        t.recent = []
        t.seats[observer].away = True  # coming back makes the runtime plan the injected state afresh
        await rt.back(t.id, USERS[observer])
        await clock.settle()
        user = USERS[observer]
        seen: dict[str, Any] = {}
        table_step = TABLE in state.to_act()

        def look(when: str, own: bool = True) -> None:
            seen[f"{when}: public view"] = t.state.public_view()
            seen[f"{when}: table message"] = renderers.table_message(t).text()
            seen[f"{when}: table buttons"] = _controls(table_view(t))
            if own:
                content, view = hand_view(rt.seat_view(t.id, user))
                seen[f"{when}: hand view"] = content
                seen[f"{when}: hand controls"] = _controls(view)
            seen[f"{when}: pings"] = list(rec.pings)
            seen[f"{when}: public events"] = [e for e in t.recent if e.to is None]
            seen[f"{when}: deadline of the table's step"] = t.deadlines.get(TABLE)

        look("now")
        # Refusals: out of turn (a seat with nothing required of it) or an illegal move.
        key = "refusals during a table step" if table_step and observer not in state.to_act() else "refusals"
        answers = []
        for text in tries:
            answer = await _attempt(rt, t, user, text)
            answers.append(answer)
            if answer == "<accepted>":
                break
        seen[key] = answers
        if table_step and "<accepted>" not in answers:
            when = t.deadlines.get(TABLE)
            if when is not None:
                hand = t.state.view(observer).get("hand")
                await clock.advance(max(0.0, when - clock.now()) + 0.01)
                await clock.settle()
                # A step that hands the observer cards (the next card of the deal, a tax) shows them
                # cards that were hidden a moment ago: their own view then differs, rightly.
                dealt = t.state.view(observer).get("hand") != hand
                seen["the table's step gave the observer cards"] = dealt
                look("after the table's step", own=not dealt)
        return seen
    finally:
        await rt.close()


def _differences(a: dict[str, Any], b: dict[str, Any], keep: Callable[[str], bool]) -> list[str]:
    return [f"{k}:\n  {a.get(k)!r}\n  {b.get(k)!r}" for k in sorted(set(a) | set(b))
            if keep(k) and a.get(k) != b.get(k)]


async def _compare(game: str, seed: int, keep: Callable[[str], bool]) -> tuple[int, list[str]]:
    rng = random.Random(f"twins/{game}/{seed}")
    compared = 0
    problems: list[str] = []
    for n, state in enumerate(points(game, seed)):
        acting = [s for s in state.to_act() if s != TABLE]
        players = len(state.to_dict()["hands"])
        idle = [s for s in range(players) if s not in acting]
        observers = sorted({rng.choice(acting)} if acting else set()) + ([rng.choice(idle)] if idle else [])
        for observer in observers:
            tries = _tries(state, observer)
            mine = await observe(type(state).from_dict(state.to_dict()), observer, tries)
            for how in TWINS:
                other = twin(state, observer, rng, how)
                if other is None:
                    continue
                compared += 1
                theirs = await observe(other, observer, tries)
                diff = _differences(mine, theirs, keep)
                if diff:
                    problems.append(f"{game} seed {seed} point {n} (phase {state.to_dict()['phase']}), "
                                    f"observer seat {observer}:\n" + "\n".join(diff))
    players, _ = sample_game(game)
    for observer in range(players):
        for original, other in start_twins(game, seed, observer, rng):
            tries = _tries(original, observer)
            compared += 1
            diff = _differences(await observe(original, observer, tries), await observe(other, observer, tries), keep)
            if diff:
                problems.append(f"{game} seed {seed} at the start, observer seat {observer}:\n" + "\n".join(diff))
    return compared, problems


@pytest.mark.parametrize("game", wargame.every_game())
async def test_nothing_an_observer_receives_depends_on_cards_they_cannot_see(game: str) -> None:
    compared, problems = await _compare(game, seed=11, keep=lambda k: k != "refusals during a table step")
    assert compared >= 8, "too few twins to mean anything"
    assert not problems, _report(problems)


def _report(problems: list[str]) -> str:
    heads = [p.split("\n", 2)[0] + " " + p.split("\n", 2)[1] for p in problems]
    return f"{len(problems)} leaks:\n" + "\n".join(heads) + "\n\nFirst:\n" + problems[0]


@pytest.mark.parametrize("game", ["dalmuti", "koth"])
async def test_an_out_of_turn_refusal_during_a_table_step_names_nobody(game: str) -> None:
    """While the table itself acts (King of the Hill's deal, the Dalmuti look) the seats that may
    act are the holders of certain cards: the refusal is one sentence for everyone."""
    compared, problems = await _compare(game, seed=11, keep=lambda k: k == "refusals during a table step")
    assert compared >= 8
    assert not problems, _report(problems)
    # And it names nobody, whoever holds what.
    players, options = sample_game(game)
    state = engine.get(game).game.create(players, options, 3)
    assert TABLE in state.to_act()
    idle = next(s for s in range(players) if s not in state.to_act())
    seen = await observe(state, idle, ["xyzzy"])
    first = seen["refusals during a table step"][0]
    assert first == WAIT_FOR_TABLE == "It is not your turn — wait a moment for the table.", first
