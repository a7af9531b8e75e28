"""How a review spends its CPU budget: a game's budget, each decision's share of it, and the pieces of
work handed to an AI worker at once (tables/ai/reviews.py runs them; bench/review.py measures them)."""

from __future__ import annotations

from collections.abc import Sequence

#: CPU seconds a whole game's review may take (issue 35: at most a CPU minute a game, the benches'
#: reference game to 100 included; bench/review.py measures it).  Each decision's share is this over the person's
#: decisions, so the shares of a game add up to it at most.
GAME_BUDGET = 60.0
#: At most this share of CPU per decision (a short game gets no more than a long one's decision).
DECISION_CAP = 1.5
#: CPU seconds of work handed to a worker at once.
PIECE_BUDGET = 2.0


def pieces(steps: Sequence[int], share: float, piece_budget: float = PIECE_BUDGET) -> list[list[int]]:
    """``steps`` cut into runs whose budgets add up to about ``piece_budget`` each."""
    per = max(1, int(piece_budget // max(share, 1e-9)))
    return [list(steps[i:i + per]) for i in range(0, len(steps), per)]


class Plan:
    """A game's CPU budget spent piece by piece: each piece's decisions get an even share of the CPU
    still left (at most ``DECISION_CAP``), and each piece is charged what it took.  What a decision
    did not need (one legal move, a pass the search does not cover, equivalent cards) goes to the
    decisions after it, so the whole review keeps to the budget and spends it where there is
    something to weigh."""

    def __init__(self, steps: Sequence[int], budget: float) -> None:
        self.left = list(steps)
        self.cpu_left = budget

    @property
    def share(self) -> float:
        """CPU seconds for each decision left, as things stand."""
        return max(0.0, min(DECISION_CAP, self.cpu_left / max(1, len(self.left))))

    def next_piece(self) -> list[int]:
        """The next decisions to judge together (about ``PIECE_BUDGET`` of CPU); [] when done."""
        return pieces(self.left, self.share)[0] if self.left else []

    def charge(self, piece: Sequence[int], cpu: float) -> None:
        self.left = self.left[len(piece):]
        self.cpu_left -= cpu
