"""Deckhand's rules engine: pure, synchronous and deterministic.  Importing it registers every game."""

# First of all: import the mypyc-compiled modules instead of their sources when a current build
# exists (tools/native.py; the pure sources otherwise).  So the game imports come after it:
# ruff: noqa: E402
from tools import native as _native

_native.activate(__path__)

from engine.core import (  # noqa: F401
    AI,
    Action,
    Decision,
    Event,
    Game,
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
)
from engine.dalmuti import Dalmuti
from engine.dalmuti_ai import DalmutiAI
from engine.hearts import Hearts
from engine.hearts_ai import HeartsAI
from engine.koth import KingOfTheHill
from engine.koth_ai import KothAI
from engine.siege import Siege
from engine.siege_ai import SiegeAI
from engine.tricks import Tricks
from engine.tricks_ai import TricksAI

# Every game and its AI are registered here, in one place: a game module knows nothing of its AI,
# and the AI imports the game, so the imports run one way.
for _game, _ai in ((Dalmuti, DalmutiAI), (Hearts, HeartsAI), (KingOfTheHill, KothAI), (Siege, SiegeAI),
                   (Tricks, TricksAI)):
    register(_game, _ai)

# The strong AI level searches with the registered AIs: registered after them.
from engine import search as _search  # noqa: E402, F401
