"""A Siege computer player: a step up from the seed's "very primitive AI" (greedy build, attack when
its pile outscores the target), and still a few tens of microseconds a move.

It reads only what its seat may see: its own hand, every King pile and house pile (public), and
the rules.  Never another hand, never the stock.  One call picks one action, so a turn is a run of
calls; each call re-reads the position, which keeps it stateless and deterministic.

Attack step: attack only with a pile that outscores the defender (a tie loses), and only when the
spoils are worth the attacking pile (a fight always empties the attacker's slot): the defender's
cards of our own suit count most (and those in a pile behind it, which the fight opens the way to),
then the pressure of hitting the leader (most King-pile cards), then the other number cards; when
the stock and discard pile run low, every card a fight puts back into play.  The cheapest winning
pile goes.

Build step, in order: every card of our suit onto the King pile; start a pile with the special card
the hand supports best (a bare pile is still a shield); place every number card where it adds the
most score (the hand is discarded at the end of the turn, so unplaced cards are lost), without
blocking a Queen pile with an unpaired single, and not into a pile already well above every rival
pile: cards locked into piles nobody can beat deadlock a table of computers; keep the piles ordered
strongest first, so slot 1 (the one attackers meet) is the hardest to beat; then end the turn.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from engine.core import AI, Action
from engine.scaffold import your_turn
from games.siege.rules import END, SEAT_SUITS, Siege, SiegeCard, fits, pile_score


def _potential(special: SiegeCard, numbers: Sequence[SiegeCard]) -> float:
    """Roughly the score a pile started with ``special`` could reach from ``numbers`` this turn."""
    r = special.rank
    if r == "J":
        return float(sum(1 for c in numbers if c.suit == special.suit))
    if r == "Q":
        counts = Counter(c.value for c in numbers)
        paired = sum(n for n in counts.values() if n >= 2)
        return 2.0 * paired if paired else (2.0 if counts else 0.0)
    values = sorted({c.value for c in numbers})
    best, run_start, best_has_two = 0, 0, False
    for k in range(len(values)):
        if k and values[k] != values[k - 1] + 1:
            run_start = k
        length = k - run_start + 1
        if length > best:
            best, best_has_two = length, values[run_start] == 2
    return best + (1.0 if best_has_two else 0.0)


class SiegeAI(AI[Siege]):
    """Rule-of-thumb Siege player: deterministic, always legal, uses only its seat's knowledge."""

    OWN_CARD = 4.0  # a defender's card of our suit: one ninth of a win ...
    OWN_CARD_PER_KING_CARD = 1.0  # ... and the more urgent the closer we are
    OWN_CARD_BEHIND = 1.5  # per card of our suit in a pile behind the defender: this fight opens the way
    OTHER_CARD = 0.4  # any other number card won: material to rebuild with this turn
    LEADER_HIT = 1.5  # hitting the rival closest to completing a King pile ...
    LEADER_PER_KING_CARD = 0.25  # ... more so the closer they are
    PILE_COST = 0.6  # the attacking pile is always lost: its special card ...
    PILE_COST_PER_POINT = 0.3  # ... and the defence its score was worth, ...
    PILE_COST_CAP = 12  # ... which stops growing once no attacker can match it anyway
    LOW_CIRCULATION = 24  # stock and discard below this many cards: cards are locked up in piles ...
    FREE_PER_CARD = 0.3  # ... and every card a fight puts back into play is worth something
    # A pile this far above every rival pile is strong enough; more cards would only lock them away
    # from the players who need them (four such players deadlock the game).
    ENOUGH_MARGIN = 8

    def choose(self, state: Siege, seat: int, rng: random.Random) -> Action:
        legal = your_turn(state.legal(seat))
        if len(legal) == 1:
            return legal[0]
        if state.phase == "attack":
            attack = self.choose_attack(state, seat, legal)
            if attack is not None:
                return attack
        return self.choose_build(state, seat, legal)

    # ---- attacking ----------------------------------------------------------------------------
    def choose_attack(self, state: Siege, seat: int, legal: Sequence[Action]) -> Action | None:
        """The attack worth making now, or ``None``."""
        own = SEAT_SUITS[seat]
        progress = [len(k) for k in state.kings]
        rivals = [s for s in range(4) if s != seat]
        lead = max(progress[s] for s in rivals)
        own_value = self.OWN_CARD + self.OWN_CARD_PER_KING_CARD * progress[seat]
        scarce = len(state.stock) + len(state.discard) < self.LOW_CIRCULATION
        best: tuple[float, int, Action] | None = None
        for a in legal:
            if a.kind != "attack":
                continue
            i, target = int(a.args[0]) - 1, int(a.args[1]) - 1
            mine = state.houses[seat][i]
            piles = [p for p in state.houses[target] if p is not None]
            dfd = piles[0]
            if mine is None or pile_score(mine) <= pile_score(dfd):
                continue  # a tie goes to the defender: never attack to lose
            gain = sum(own_value if c.suit == own else self.OTHER_CARD for c in dfd[1:])
            gain += self.OWN_CARD_BEHIND * sum(1 for p in piles[1:] for c in p[1:] if c.suit == own)
            if progress[target] == lead and lead > 0:
                gain += self.LEADER_HIT + self.LEADER_PER_KING_CARD * lead
            if scarce:
                gain += self.FREE_PER_CARD * (len(dfd) + len(mine))
            cost = self.PILE_COST + self.PILE_COST_PER_POINT * min(pile_score(mine), self.PILE_COST_CAP)
            value = gain - cost
            if value > 0 and (best is None or (value, -pile_score(mine)) > (best[0], best[1])):
                best = (value, -pile_score(mine), a)
        return None if best is None else best[2]

    # ---- building -----------------------------------------------------------------------------
    def choose_build(self, state: Siege, seat: int, legal: Sequence[Action]) -> Action:
        kings = [a for a in legal if a.kind == "place" and a.args[0] == "king"]
        if kings:
            return kings[0]
        start = self._start(state, seat, legal)
        if start is not None:
            return start
        place = self._place(state, seat, legal)
        if place is not None:
            return place
        swap = self._reorder(state, seat, legal)
        if swap is not None:
            return swap
        return END

    def _start(self, state: Siege, seat: int, legal: Sequence[Action]) -> Action | None:
        starts = [a for a in legal if a.kind == "start"]
        if not starts:
            return None
        hand = state.hands[seat]
        numbers = [c for c in hand if c.is_number]
        piles = [p for p in state.houses[seat] if p is not None]
        # Cards an existing pile will take anyway do not argue for a new pile.
        loose = [c for c in numbers if not any(fits(p, c) for p in piles)]

        def value(a: Action) -> tuple[float, int, int]:
            c = a.cards[0]
            # Later slots first: the reorder step moves the strongest pile to slot 1 anyway.
            return (_potential(c, loose), c.value, int(a.args[0]))

        return max(starts, key=value)

    def _place(self, state: Siege, seat: int, legal: Sequence[Action]) -> Action | None:
        hand = state.hands[seat]
        houses = state.houses[seat]
        strongest_rival = max(
            (pile_score(p) for s in range(4) if s != seat for p in state.houses[s] if p is not None), default=0)
        enough = strongest_rival + self.ENOUGH_MARGIN
        best: tuple[float, int, Action] | None = None
        for a in legal:
            if a.kind != "place" or a.args[0] == "king":
                continue
            c = a.cards[0]
            pile = houses[int(a.args[0]) - 1]
            if pile is None or pile_score(pile) >= enough:
                continue
            gain = float(pile_score([*pile, c]) - pile_score(pile))
            if pile[0].rank == "Q" and all(x.value != c.value for x in pile[1:]) and len(pile) > 1:
                # An unpaired new number blocks the pile until its pair comes: only with the pair in hand.
                if sum(1 for x in hand if x.value == c.value) < 2:
                    gain -= 1.5
            if best is None or (gain, -c.value) > (best[0], best[1]):
                best = (gain, -c.value, a)
        if best is None or best[0] <= 0:
            return None
        return best[2]

    def _reorder(self, state: Siege, seat: int, legal: Sequence[Action]) -> Action | None:
        houses = state.houses[seat]
        key = [-1 if p is None else pile_score(p) for p in houses]
        for a in legal:
            if a.kind == "swap":
                i, j = int(a.args[0]) - 1, int(a.args[1]) - 1
                if key[j] > key[i]:
                    return a  # each swap strictly sorts the slots, so this ends
        return None
