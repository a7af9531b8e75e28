"""Random seeded playouts of every registered game, checking the engine's invariants
(OpenSpiel's random_sim_test, rlcard's determinism checks)."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest

import engine
from engine.core import Action, Game, IllegalAction
from tests import wargame

GAMES_TOTAL = 2000  # seeded games per registered game
FULL_CHECK_EVERY = 10  # every check on every step of every 10th game; sampled steps on the rest
STEP_CAP = 20_000
# Actions whose cards stay hidden (given face down): their public events must not show them.
PRIVATE_KINDS = {"pass", "bury", "tax", "give", "return"}

# Option sets the playouts cycle through: each game's short ones plus these longer ones.
LONGER: dict[str, list[dict[str, Any]]] = {
    "hearts": [
        {"rules": "classic", "target": 40},
        {"rules": "classic", "target": 30, "moon": "shooter_minus_26"},
        {"rules": "mcgill", "target": 100},
    ],
    "dalmuti": [{"hands": 3}],
    "koth": [{"rounds": 3, "called_copy": "second", "ready_trick": 1}],
}


@pytest.fixture(autouse=True)
def _throwaway_games():
    """Every registered game is tested, and War too: a game registered through its specs alone."""
    with wargame.registered():
        yield


def option_sets(name: str) -> list[dict[str, Any]]:
    return list(engine.get(name).game.short_options) + LONGER.get(name, [])


_TOKEN = re.compile(r'[^\s"\[\]{},:]+')


def strings_in(obj: Any) -> set[str]:
    """Every token inside a JSON-safe value (card codes are single tokens).  Read off the JSON text,
    which is many times faster than walking the value in Python."""
    return set(_TOKEN.findall(obj if isinstance(obj, str) else json.dumps(obj, ensure_ascii=False)))


def check_turns(g: Game) -> list[Any]:
    """Checks who acts; returns every seat's decision (the restore check compares against them)."""
    acting = g.to_act()
    assert bool(acting) != g.is_over, "someone must act exactly while the game is not over"
    decisions = []
    for seat in range(g.players):
        d = g.decision(seat)
        decisions.append(d)
        if seat in acting:
            assert d is not None and d.seat == seat
            assert d.actions or (d.pick and len(d.cards) >= d.pick), f"seat {seat} has no legal action"
        else:
            assert d is None and g.legal_actions(seat) == []
    return decisions


def check_views(g: Game) -> set[str]:
    """Checks every view is JSON-safe (``strings_in`` dumps it) and shows no hidden card; returns
    what the public must not see, which the step's event check reuses."""
    hidden = g.hidden_from(None)
    public = g.public_view()
    leaked = strings_in(public) & hidden
    assert not leaked, f"public view shows hidden cards {leaked}"
    for seat in range(g.players):
        v = g.view(seat)
        leaked = strings_in(v) & g.hidden_from(seat)
        assert not leaked, f"seat {seat} sees hidden cards {leaked}"
    return hidden


def check_restore(g: Game, cls: type[Game], state: dict[str, Any] | None = None,
                  decisions: list[Any] | None = None) -> Game:
    """``state`` is ``g.to_dict()`` and ``decisions`` every seat's ``g.decision``, both of this step
    (computed once and shared with the other checks; computed here when not given)."""
    if state is None:
        state = g.to_dict()
    if decisions is None:
        decisions = [g.decision(seat) for seat in range(g.players)]
    r = cls.from_dict(json.loads(json.dumps(state)))
    assert r.to_dict() == state
    for seat in range(g.players):
        # Comparing decisions says the same as comparing legal actions, without enumerating a big
        # pick (King of the Hill's bury: 8 of 28 cards is three million actions).
        assert r.decision(seat) == decisions[seat]
    return r


def playout(name: str, seed: int, options: dict[str, Any], full: bool) -> None:
    entry = engine.get(name)
    cls = entry.game
    players = cls.min_players if cls.min_players == cls.max_players else random.Random(seed).randint(
        cls.min_players, cls.max_players)
    g = cls.create(players, options, seed)
    rng = random.Random(seed)
    deck = Counter(c.code for c in g.all_cards())
    codes = set(deck)
    # The same game one action behind: what the public was allowed to see before each action is
    # asked of it only when that action's public events name a card other than its own (a King of
    # the Hill move never does; asking on every step was a third of its playouts' time).
    shadow = cls.create(players, options, seed)
    log: list[tuple[int, str]] = []
    hand_total = 0 if name == "hearts" else None
    # g.to_dict() after the last sampled step's action, while g has not moved since (a full check
    # samples every step, so the next step's restore check starts from it).
    state: dict[str, Any] | None = None
    for step in range(STEP_CAP):
        sample = full or step % 17 == 0
        if sample or g.is_over:
            decisions = check_turns(g)
        if g.is_over:
            break
        if sample:
            assert Counter(c.code for c in g.all_cards()) == deck, "a card was lost or duplicated"
            public_hidden = check_views(g)
            restored = check_restore(g, cls, state if state is not None else g.to_dict(), decisions)
        seat = rng.choice(g.to_act())
        action = g.random_action(seat, rng)
        # A public event may reveal the cards its own action put on the table, nothing else.  What
        # is hidden is card codes (checked on every sampled step), so only the event's other card
        # codes need the look at what was hidden before the action.
        hidden = public_hidden if sample else None
        if sample:
            assert hidden is not None and hidden <= codes, f"hidden names no card: {hidden - codes}"
        own = set() if action.kind in PRIVATE_KINDS else {c.code for c in action.cards}
        events = g.apply(seat, action)
        log.append((seat, action.code))
        for e in events:
            if e.to is None and (named := (strings_in(e.code) & codes) - own):
                if hidden is None:
                    hidden = shadow.hidden_from(None)
                assert not (named & hidden), f"public event {e.code} shows a hidden card"
            if name == "hearts" and e.kind == "hand_end":
                pts = e.data[:4]
                expected = {26, 78} if options.get("moon", "others_plus_26") == "others_plus_26" else {26, -26}
                assert sum(pts) in expected, f"hand points {pts} do not add up"
        shadow.apply(seat, action)
        state = None
        if sample:
            restored.apply(seat, cls.action_from_code(action.code))
            state = g.to_dict()
            assert restored.to_dict() == state, "a restored game continued differently"
    else:
        pytest.fail(f"{name} seed {seed} did not end within {STEP_CAP} steps")
    assert hand_total is None or g.outcome() is not None
    out = g.outcome()
    assert out is not None and len(out.scores) == players and set(out.winners) <= set(range(players))
    assert all(out.places[w] == 1 for w in out.winners)
    # The same seed and actions replay the same game (the shadow too: it was in step throughout).
    again, _ = engine.replay(name, players, options, seed, log)
    assert again.to_dict() == g.to_dict() == shadow.to_dict()


CHUNK = 250  # seeds per test item, so parallel workers share the load evenly (a King of the Hill chunk
# is the longest item of the suite)


@pytest.mark.parametrize("name,start", [(n, s) for n in wargame.every_game() for s in range(0, GAMES_TOTAL, CHUNK)])
def test_random_playouts_keep_every_invariant(name, start):
    sets = option_sets(name)
    for i in range(start, start + CHUNK):
        # Every tenth round of the option sets is checked in full: every set gets its full checks
        # (``i % 10`` would pick the same few sets whenever their number divides into ten).
        playout(name, seed=i, options=sets[i % len(sets)], full=(i // len(sets)) % FULL_CHECK_EVERY == 0)


@pytest.mark.parametrize("name", wargame.every_game())
def test_same_seed_same_deal_and_different_seed_different_deal(name):
    cls = engine.get(name).game
    a = cls.create(cls.min_players, None, 42).to_dict()
    b = cls.create(cls.min_players, None, 42).to_dict()
    c = cls.create(cls.min_players, None, 43).to_dict()
    assert a == b and a != c


@pytest.mark.parametrize("name", wargame.every_game())
def test_illegal_actions_change_nothing(name):
    cls = engine.get(name).game
    g = cls.create(cls.min_players, None, 7)
    rng = random.Random(7)
    for _ in range(200):
        if g.is_over:
            break
        before = g.to_dict()
        idle = [s for s in range(g.players) if s not in g.to_act()]
        for seat in idle:
            with pytest.raises(IllegalAction):
                g.apply(seat, g.random_action(g.to_act()[0], random.Random(1)))
        with pytest.raises(IllegalAction):
            g.apply(g.to_act()[0], Action("nonsense"))
        assert g.to_dict() == before
        seat = g.to_act()[0]
        g.apply(seat, g.random_action(seat, rng))
