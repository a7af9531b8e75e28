"""Hearts (docs/rules.md §1): a trick game for four where points are bad; its rules are compiled
(``COMPILED``).  What each file here holds: docs/interfaces.md, "Adding a game"."""

from typing import cast

from engine.core import Game, GameSpec
from engine.enlist import enlist
from engine.figures import hand_totals
from engine.measure import Measure
from games.hearts.ai import HeartsAI
from games.hearts.figures import HEARTS, hearts_figures
from games.hearts.hints import hearts_facts
from games.hearts.replay import HeartsReplay
from games.hearts.rules import Hearts
from games.hearts.search import HeartsHooks
from words import N_

#: The modules tools/native.py compiles with mypyc (the strong level's playouts spend their time in
#: them), in the order they import each other, the rules last.  A literal: the build reads it from
#: this file's text, before the engine (which this package imports) is imported.
COMPILED = ("deal", "passing", "play", "rules")

# Playouts per decision of the strong level, as measured by bench/ai.py (CPU p99 under 0.6 s).
enlist(__file__, GameSpec(
    # cast: Hearts is a virtual subclass of Game (compiled, it cannot inherit it: games/hearts/rules.py).
    cast("type[Game]", Hearts), HeartsAI, search=HeartsHooks(), playouts=480, strong=True,
    explain=hearts_facts, hint_units=N_("fewer points this hand"),
    review_units=N_("points"), review_thresholds=(1.0, 3.0),
    figures=hearts_figures, figure_names=HEARTS, lowest_wins=True,
    replay=HeartsReplay(),
    measure=Measure({"rules": "classic", "target": 1}, "points a hand", hints={"target": 1},
                    lower_is_better=True,
                    target=("games_per_s", 6000), openspiel="hearts", reference=True, length="target",
                    # Both rule sets, each against the closest OpenSpiel parameters: classic with its
                    # pass (OpenSpiel's defaults), McGill with no pass, no first-trick or broken-hearts
                    # limits and any club leading (OpenSpiel has no "any card" first lead).
                    openspiel_variants=(
                        ("classic, passing", {"rules": "classic", "target": 1}, "hearts"),
                        ("mcgill, no passing", {"rules": "mcgill", "target": 1},
                         "hearts(pass_cards=false,no_pts_on_first_trick=false,must_break_hearts=false,"
                         "can_lead_any_club=true)"),
                    )),
    sample=(4, {"target": 30}), order=1, play_ahead=True, hand_scores=hand_totals),
    "Goal: take as few points as you can — every heart costs 1 point and Q♠ costs 13.",
    "Your turn: play one card. Follow the suit that was led if you can; otherwise play any card.",
    "Wins: the game ends once someone reaches the target; the lowest score wins.",
    "Key rule: take all 13 hearts and Q♠ in one hand (shooting the moon) and the others get 26.")
