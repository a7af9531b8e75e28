"""The Great Dalmuti (docs/rules.md §3): a climbing game for 4 to 8, its hands split into the taxes
(taxes.py) and the play (play.py).  Each file's part: docs/interfaces.md, "Adding a game"."""

from typing import cast

from engine.core import Game, GameSpec
from engine.enlist import enlist
from engine.measure import Measure
from games.dalmuti.ai import DalmutiAI
from games.dalmuti.figures import DALMUTI, dalmuti_figures, dalmuti_hand_holders, dalmuti_hand_scores
from games.dalmuti.hints import dalmuti_facts, dalmuti_move_words
from games.dalmuti.replay import DalmutiReplay
from games.dalmuti.rules import Dalmuti
from games.dalmuti.search import DalmutiHooks
from words import N_

#: The modules tools/native.py compiles with mypyc (the strong level's playouts and the bench spend
#: their time in them), in the order they import each other, the rules last.  A literal: the build
#: reads it from this file's text, before the engine (which this package imports) is imported.
COMPILED = ("cards", "deal", "taxes", "play", "rules")

# Playouts per decision of the strong level, as measured by bench/ai.py: 400 playouts measured
# +0.19 ± 0.15 points a hand over normal (100 hands, deals from 20,000), 800 +0.31 ± 0.18 on the same
# deals; with playouts cut short once the seat is out (search.py), 900 measured +0.36 ± 0.13 (200
# hands, the default deals) at CPU p50 112 ms, p99 352 ms (load average 2.0).
enlist(__file__, GameSpec(
    # cast: Dalmuti is a virtual subclass of Game (compiled, it cannot inherit it: games/dalmuti/rules.py).
    cast("type[Game]", Dalmuti), DalmutiAI, search=DalmutiHooks(), playouts=900, strong=True,
    explain=dalmuti_facts, move_words=dalmuti_move_words, review_units=N_("places"), review_thresholds=(0.3, 0.8),
    figures=dalmuti_figures, figure_names=DALMUTI,
    hand_scores=dalmuti_hand_scores, hand_holders=dalmuti_hand_holders,
    replay=DalmutiReplay(),
    # The speed target is for 6 players.
    measure=Measure({"hands": 1}, "points a hand (3 … 0)", players=6, target=("games_per_s", 2000)),
    sample=(5, {"hands": 2}), order=3),
    "Goal: be the first to play away all your cards — lower numbers are better.",
    "Your turn: play as many cards of a better (lower) number as the last play had, or pass.",
    "Wins: going out first scores the most points each hand; the most points after the last hand wins.",
    "Key rule: the Peons pay their best cards as taxes to the Dalmutis before each hand.")
