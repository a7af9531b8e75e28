"""Siege (docs/rules.md §5): four King piles raced with house piles and fights, on cards of its own
(cards.py).  Each file's part: docs/interfaces.md, "Adding a game"."""

from engine.core import GameSpec
from engine.enlist import enlist
from engine.measure import Measure, win_share
from games.siege.ai import SiegeAI
from games.siege.figures import SIEGE, siege_figures
from games.siege.hints import siege_facts, siege_move_words
from games.siege.replay import SiegeReplay
from games.siege.rules import Siege
from games.siege.search import SiegeHooks
from words import N_

# The strong level: 100 playouts (short playouts scored by where each suit's cards lie, search.py)
# measured by bench/ai.py +0.19 ± 0.07 of a win a game over normal (200 games, 50 deals; normal
# wins 0.25) at CPU p50 54 ms, p99 87 ms a decision.
enlist(__file__, GameSpec(
    Siege, SiegeAI, search=SiegeHooks(), playouts=100, strong=True,
    explain=siege_facts, move_words=siege_move_words, hint_units=N_("more of a lead in the King pile race"),
    review_units=N_("cards of King pile lead"), review_thresholds=(0.5, 1.5),
    figures=siege_figures, figure_names=SIEGE,
    replay=SiegeReplay(),
    # A whole game is the "hand": one that reaches 40 rounds is won by the longest King pile, ties share.
    measure=Measure({"max_rounds": 40}, "share of games won", win_share, whole_game=True,
                    hints={"max_rounds": 3}, target=("turns_per_s", 1000)),
    sample=(4, {"max_rounds": 8}), order=5),
    "Goal: collect your own suit's 2 to 10 on your King pile.",
    "Your turn: you are dealt 5 cards, may attack with a house pile, then build, then end your turn.",
    "Wins: the first player whose King pile holds all nine numbers wins at once.",
    "Key rule: in a fight the higher pile wins and takes the loser's number cards; a tie goes to the defender.")
