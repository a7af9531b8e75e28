"""Tricks (docs/rules.md §2), the plain trick game for four, and the one program seats can play
(programs.py).  What each file here holds: docs/interfaces.md, "Adding a game"."""

from engine.core import GameSpec
from engine.enlist import enlist
from engine.figures import hand_totals
from engine.measure import Measure
from games.tricks.ai import TricksAI
from games.tricks.figures import TRICKS, tricks_figures
from games.tricks.hints import tricks_facts
from games.tricks.programs import TricksPrograms
from games.tricks.replay import TricksReplay
from games.tricks.rules import Tricks
from games.tricks.search import TricksHooks
from words import N_

# Playouts per decision of the strong level, as measured by bench/ai.py: 1200 playouts (cheap
# playouts, equivalent cards merged, worlds that read sound play) measured +0.54 ± 0.13 tricks a hand
# over normal (400 hands) at CPU p50 0.23 s, p99 0.69 s.
enlist(__file__, GameSpec(
    Tricks, TricksAI, search=TricksHooks(), playouts=1200, strong=True,
    explain=tricks_facts, hint_units=N_("more tricks this hand"),
    review_units=N_("tricks"), review_thresholds=(0.25, 0.6),
    figures=tricks_figures, figure_names=TRICKS,
    programs=TricksPrograms(), replay=TricksReplay(),
    measure=Measure({"target": 1}, "tricks a hand"),
    sample=(4, {"target": 5}), order=2, play_ahead=True, hand_scores=hand_totals),
    "Goal: win tricks — each trick you take is worth 1 point. There are no trumps.",
    "Your turn: play one card. Follow the suit that was led if you can; otherwise play any card.",
    "Wins: the game ends after the hand in which someone reaches the target; the highest score wins.",
    "Key rule: the highest card of the led suit takes the trick, and its winner leads the next one.")
