"""Deckhand's rules engine: pure, synchronous and deterministic.  Importing it registers every game."""

# First of all: import the mypyc-compiled modules instead of their sources when a current build
# exists (tools/native.py; the pure sources otherwise).  So the game imports come after it:
# ruff: noqa: E402
from tools import native as _native

_native.activate()

from engine import figures as _figures
from engine import hints as _hints
from engine import search as _search  # noqa: F401 (engine.search, for those that import engine)
from engine.core import (  # noqa: F401
    AI,
    Action,
    Decision,
    Event,
    Game,
    GameSpec,
    IllegalAction,
    Option,
    Outcome,
    ai_for,
    games,
    get,
    levels,
    register,
    register_level,
    replay,
    unregister,
)
from engine.dalmuti import Dalmuti
from engine.dalmuti_ai import DalmutiAI
from engine.koth import KingOfTheHill
from engine.koth_ai import KothAI
from engine.search import DalmutiHooks, KothHooks, SiegeHooks
from engine.siege import Siege
from engine.siege_ai import SiegeAI

# Every game is registered here, once, with all its pure parts (engine/core.py's GameSpec): a game
# module knows nothing of its AI, and the AI imports the game, so the imports run one way.  The
# order is the order /game new offers them in.
#
# Playouts per decision of the strong level, as measured by bench/ai.py (CPU p99 under 0.6 s for
# Hearts and Tricks).  Tricks: 1200 playouts (cheap playouts, equivalent cards merged, worlds that
# read sound play) measured +0.54 ± 0.13 tricks a hand over normal (400 hands) at CPU p50 0.23 s,
# p99 0.69 s.  King of the Hill: 60 playouts, shortlists of 24, measured +14.0 ± 7.1 challenge points
# a round over normal (200 hands) at CPU p99 0.27 s (0.35 s searching every candidate of a follow).
# Dalmuti: 400 playouts measured +0.25 ± 0.10 points a hand over normal at CPU p99 0.23 s.  Siege's
# search did not beat normal: its hooks stay for bench/ai.py, without a strong level.
register(GameSpec(
    Dalmuti, DalmutiAI, search=DalmutiHooks(), playouts=400, strong=True,
    explain=_hints.dalmuti_facts, review_units="places", review_thresholds=(0.3, 0.8),
    figures=_figures.dalmuti_figures, figure_names=_figures.DALMUTI,
    sample=(5, {"hands": 2}), order=3,
    quick_start=(
        "Goal: be the first to play away all your cards — lower numbers are better.",
        "Your turn: play as many cards of a better (lower) number as the last play had, or pass.",
        "Wins: going out first scores the most points each hand; the most points after the last hand wins.",
        "Key rule: the Peons pay their best cards as taxes to the Dalmutis before each hand.",
    )))
register(GameSpec(
    KingOfTheHill, KothAI, search=KothHooks(), playouts=60, strong=True,
    explain=_hints.koth_facts, hint_units="points better for your side this round",
    review_units="points", review_thresholds=(10.0, 25.0),
    figures=_figures.koth_figures, figure_names=_figures.KOTH,
    sample=(5, {"rounds": 1, "ready_round": 0, "deal_rate": 1}), order=4,
    quick_start=(
        "Goal: climb the ranks from 2 to A — defend the hill as the King, or take it from the King.",
        "Your turn: play one card or an identical pair; match the led suit as closely as you can.",
        "Wins: a King (or the King's teammate) who defends the hill at rank A wins the game.",
        "Key rule: the challengers need 80 of the 200 points (fives, tens and kings) to take the hill.",
    )))
register(GameSpec(
    Siege, SiegeAI, search=SiegeHooks(), playouts=24,
    explain=_hints.siege_facts,
    figures=_figures.siege_figures, figure_names=_figures.SIEGE,
    sample=(4, {"max_rounds": 8}), order=5,
    quick_start=(
        "Goal: collect your own suit's 2 to 10 on your King pile.",
        "Your turn: you are dealt 5 cards, may attack with a house pile, then build, then end your turn.",
        "Wins: the first player whose King pile holds all nine numbers wins at once.",
        "Key rule: in a fight the higher pile wins and takes the loser's number cards; a tie goes to the defender.",
    )))

