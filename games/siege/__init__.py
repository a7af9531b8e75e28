"""Siege (docs/rules.md §5): the rules (rules.py), the normal AI (ai.py), the strong level's
hooks (search.py), a hint's facts (hints.py), the stats figures (figures.py) and, for the Discord
side only, its screens (screens.py, imported by cogs/, never from here).  Importing this package
registers the game's pure parts (engine/core.py's ``GameSpec``); games/__init__.py imports it."""

from engine.core import GameSpec, register
from engine.measure import Measure, win_share
from games.siege.ai import SiegeAI
from games.siege.figures import SIEGE, siege_figures
from games.siege.hints import siege_facts
from games.siege.replay import SiegeReplay
from games.siege.rules import Siege
from games.siege.search import SiegeHooks

# Siege's search did not beat normal: its hooks stay for bench/ai.py, without a strong level.
register(GameSpec(
    Siege, SiegeAI, search=SiegeHooks(), playouts=24,
    explain=siege_facts,
    figures=siege_figures, figure_names=SIEGE,
    replay=SiegeReplay(),
    # A whole game is the "hand": one that reaches 40 rounds is won by the longest King pile, ties share.
    measure=Measure({"max_rounds": 40}, "share of games won", win_share, whole_game=True,
                    hints={"max_rounds": 3}, target=("turns_per_s", 1000)),
    sample=(4, {"max_rounds": 8}), order=5,
    quick_start=(
        "Goal: collect your own suit's 2 to 10 on your King pile.",
        "Your turn: you are dealt 5 cards, may attack with a house pile, then build, then end your turn.",
        "Wins: the first player whose King pile holds all nine numbers wins at once.",
        "Key rule: in a fight the higher pile wins and takes the loser's number cards; a tie goes to the defender.",
    )))
