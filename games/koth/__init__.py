"""King of the Hill (docs/rules.md §4), five players in two hidden sides: the live deal, the bury, the
call and the tricks of singles and pairs.  Each file's part: docs/interfaces.md, "Adding a game"."""

from engine.core import GameSpec
from engine.enlist import enlist
from engine.measure import Measure
from games.koth.ai import KothAI
from games.koth.figures import KOTH, koth_figures
from games.koth.hints import koth_facts
from games.koth.measure import challenge_result
from games.koth.replay import KothReplay
from games.koth.rules import KingOfTheHill
from games.koth.search import KothHooks
from words import N_

# Playouts per decision of the strong level, as measured by bench/ai.py: 60 playouts, shortlists
# of 24, measured +14.0 ± 7.1 challenge points a round over normal (200 hands) at CPU p99 0.27 s
# (0.35 s searching every candidate of a follow).
enlist(__file__, GameSpec(
    KingOfTheHill, KothAI, search=KothHooks(), playouts=60, strong=True,
    explain=koth_facts, hint_units=N_("points better for your side this round"),
    review_units=N_("points"), review_thresholds=(10.0, 25.0),
    figures=koth_figures, figure_names=KOTH,
    replay=KothReplay(),
    measure=Measure({"rounds": 1, "ready_round": 0, "ready_trick": 0},
                    "challenge points a round for the seat's side", challenge_result, target=("games_per_s", 500)),
    sample=(5, {"rounds": 1, "ready_round": 0, "deal_rate": 1}), order=4),
    "Goal: climb the ranks from 2 to A — defend the hill as the King, or take it from the King.",
    "Your turn: play one card or an identical pair; match the led suit as closely as you can.",
    "Wins: a King (or the King's teammate) who defends the hill at rank A wins the game.",
    "Key rule: the challengers need 80 of the 200 points (fives, tens and kings) to take the hill.")
