"""A game is registered once per layer — the engine's ``GameSpec`` (games/<name>/__init__.py), its Discord
side's ``Screens`` (games/<name>/screens.py) — and every list of games derives from those (issue 23).

A registered game that lacks a part fails here: a game without its screens (or screens without a
game), an option nobody worded, a figure without a name, a card without a face, a strong level
without search hooks, no sample game for the tests that run every game.  War (tests/wargame.py), a
sixth game registered through its two specs alone, is checked like the others and shows up in every
list that is read while it is registered.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

import engine
from cogs.pictures import faces
from cogs.table import arguments, options, renderers, screens
from cogs.table.renderer import Renderer
from cogs.table.screens import Chart
from engine.core import AI, Event, Game
from engine.hints import explain
from tables.history import stats
from tables.programs import arena
from tables.programs import driver as programs
from tests import wargame

STEP_CAP = 20_000
QUICK_LINE = 120  # a How to play line reads as one line on a phone


@pytest.fixture(autouse=True)
def _throwaway_games() -> Iterator[None]:
    with wargame.registered():
        yield


def sample_events(spec: engine.GameSpec, seed: int = 1) -> tuple[Game, list[Event]]:
    """The spec's sample game played to its end with random moves, and every event of it."""
    assert spec.sample is not None
    players, opts = spec.sample
    g = spec.game.create(players, dict(opts), seed)
    rng = random.Random(seed)
    events: list[Event] = list(getattr(g, "start_events", ()) or ())
    for _ in range(STEP_CAP):
        if g.is_over:
            break
        seat = rng.choice(g.to_act())
        events += g.apply(seat, g.random_action(seat, rng))
    assert g.is_over, f"{spec.name}'s sample game did not end within {STEP_CAP} moves"
    return g, events


def missing_parts(name: str) -> list[str]:
    """What game ``name`` lacks of its two specs, in words (empty: nothing)."""
    missing: list[str] = []
    spec = engine.games().get(name)
    found = screens.get(name)
    if spec is None:
        return ["its engine spec"]
    if found is None:
        missing.append("its screens (cogs/table/screens.py)")
    if not (isinstance(spec.game, type) and issubclass(spec.game, Game)):
        missing.append("a Game class")
    if not (isinstance(spec.ai, type) and issubclass(spec.ai, AI)):
        missing.append("an AI")
    if spec.sample is None:
        missing.append("a sample game")
        return missing
    players, opts = spec.sample
    if not spec.game.min_players <= players <= spec.game.max_players:
        missing.append(f"a sample game with {spec.game.min_players}–{spec.game.max_players} players")
    try:
        spec.game.read_options(dict(opts))
    except ValueError as e:
        missing.append(f"a sample game with valid options ({e})")
    if spec.strong and spec.search is None:
        missing.append("search hooks for its strong level")
    lines = spec.quick_start
    if len(lines) != 4 or not all(isinstance(x, str) and x.strip() and len(x) <= QUICK_LINE for x in lines):
        missing.append(f"a quick start of 4 short lines (How to play; at most {QUICK_LINE} characters each)")
    if spec.figures is None:
        missing.append("stats figures")
    else:
        g, events = sample_events(spec)
        counted = spec.figures(events, players)
        if len(counted) != players:
            missing.append("figures for every seat")
        unnamed = {k for seat in counted for k in seat} - set(spec.figure_names)
        if unnamed or not spec.figure_names:
            missing.append(f"names for its figures {sorted(unnamed)}")
        faceless = {c.code for c in g.all_cards()} - set(faces.face_codes())
        if faceless:
            missing.append(f"faces for its cards {sorted(faceless)}")
    if found is not None:
        if not isinstance(found.renderer, Renderer):
            missing.append("a renderer")
        if not isinstance(found.chart, Chart):
            missing.append("a chart")
        names = {o.name for o in spec.game.options_spec}
        unworded = names - set(found.words)
        if unworded:
            missing.append(f"words for its options {sorted(unworded)}")
        if set(found.table_defaults) - names:
            missing.append("table defaults only for its own options")
    return missing


def test_every_engine_game_has_its_screens_and_every_screens_their_game() -> None:
    assert "war" in engine.games()
    assert set(engine.games()) == set(screens.registered())


@pytest.mark.parametrize("name", wargame.every_game())
def test_a_registered_game_has_every_part(name: str) -> None:
    assert missing_parts(name) == []


def test_a_game_that_lacks_a_part_fails_the_check() -> None:
    spec = engine.get(wargame.NAME)
    engine.register(dataclasses.replace(spec, sample=None, strong=True))
    assert missing_parts(wargame.NAME) == ["a sample game"]
    engine.register(dataclasses.replace(spec, strong=True, figure_names={}))
    assert missing_parts(wargame.NAME) == ["search hooks for its strong level", "names for its figures ['battles']"]
    engine.register(dataclasses.replace(spec, quick_start=spec.quick_start[:3]))
    assert missing_parts(wargame.NAME) == ["a quick start of 4 short lines (How to play; at most 120 characters each)"]
    engine.register(spec)
    found = screens.get(wargame.NAME)
    assert found is not None
    screens.register(dataclasses.replace(found, words={}, table_defaults={"target": 5}))
    assert missing_parts(wargame.NAME) == ["words for its options ['cards']", "table defaults only for its own options"]
    screens.unregister(wargame.NAME)
    assert missing_parts(wargame.NAME) == ["its screens (cogs/table/screens.py)"]


def test_a_game_registered_through_its_specs_alone_is_in_every_list() -> None:
    name = wargame.NAME
    assert name in renderers.RENDERERS and renderers.renderer_for(name) is wargame.SCREENS.renderer
    assert name in arguments.playable()
    assert stats.figure_names()["battles"] == "battles won"
    assert options.rules_lines(name)[0][0] == "cards" and options.settings_line(name, {"cards": 4}, None).startswith(
        "4 cards each")
    assert engine.levels(name) == ("normal",)
    g = wargame.War.create(2, None, 3)
    move = engine.get(name).ai().choose(g, 0, random.Random(1))
    assert explain(g, 0, move) == "your lowest card: the higher ones wait for later battles"  # games/war/hints.py
    spec = engine.get(name)
    engine.register(dataclasses.replace(spec, explain=None))
    try:
        assert explain(g, 0, move) == "the AI's choice here"  # no facts of its own: the generic reason
    finally:
        engine.register(spec)


def test_the_lists_fixed_at_import_are_the_registry_s() -> None:
    """Slash-command choices and the program arena's game list are built when their modules load
    (before War registers): from the registry then."""
    before = {n: s for n, s in engine.games().items() if n != wargame.NAME}
    assert arguments.GAMES == {n: s.game.title for n, s in before.items()}
    assert [c.value for c in arguments.GAME_CHOICES] == list(before)
    assert programs.PROGRAM_GAMES == arena.GAMES == tuple(n for n, s in before.items() if s.programs)
    assert programs.PROGRAM_GAMES  # the line protocol has a game


class _PeekingWar(wargame.War):
    """War whose public view shows each hand's lowest card: a leak the privacy test must catch."""

    def public_view(self) -> dict:
        return {**super().public_view(), "lowest": [h[0].code if h else None for h in self.hands]}


async def test_the_privacy_test_catches_a_registered_game_that_leaks() -> None:
    from tests import test_hidden

    engine.register(dataclasses.replace(engine.get(wargame.NAME), game=_PeekingWar))
    compared, problems = await test_hidden._compare(wargame.NAME, seed=11, keep=lambda k: True)
    assert compared >= 8 and problems and "public view" in problems[0]
