"""The tricks of a round of King of the Hill and its scoring (docs/rules.md §4, steps 2 and 8-10,
and "Scoring a round"): the ready steps before a round or a trick, legal plays (singles and
identical pairs, following the led suit), who wins a trick, and the round's end: the challengers'
points and the dead hand's bonus decide who climbs how many ranks and who holds the hill next."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from engine.cards import Card
from engine.core import Action, Decision, Event, IllegalAction
from engine.words import said, said_n, suit
from games.koth.call import KothCall
from games.koth.cards import (
    _COMBO,
    _ONE,
    _PLAY_EVENTS,
    _PLAYS,
    _TWO,
    ACE,
    DEFEND_BELOW,
    OVER,
    PLAY,
    PLAYERS,
    READY_ACTION,
    ROUND_READY,
    _canon,
    _pairs_in,
    points_of,
    rank_char,
)
from games.koth.trump import TRUMPS, Trump
from words import N_


def trick_winner(trump: Trump, trick: Sequence[tuple[int, tuple[Card, ...]]]) -> int:
    """The seat winning ``trick`` (``[(seat, cards), ...]``, the lead first) so far (docs/rules.md §4, step 9):
    the highest single, or identical pair, of the led suit or of trumps; of equal plays the first."""
    order = trump.table()
    lead = trick[0][1]
    pair = len(lead) == 2
    winner = trick[0][0]
    best_suit, best, _ = order[lead[0]]
    for s, p in trick[1:]:
        if pair and p[0] is not p[1]:
            continue  # only an identical pair can win a pair lead
        suit, strength, _ = order[p[0]]
        if suit == best_suit:
            if strength > best:  # strictly: of equal plays the first wins
                winner, best = s, strength
        elif suit == TRUMPS:  # a trump over the led plain suit
            winner, best_suit, best = s, suit, strength
    return winner


class KothPlay(KothCall):
    """The ready steps, the tricks and the scoring of a round."""

    def _ready_decision(self, seat: int) -> Decision:
        delay = self.options["ready_round" if self.phase == ROUND_READY else "ready_trick"]
        return Decision(seat, "ready", (READY_ACTION,), timer=float(delay),
                        prompt="Ready for the next round?" if self.phase == ROUND_READY else "Ready for the trick?")

    def legal_plays(self, seat: int) -> list[tuple[Card, ...]]:
        """Every distinct play ``seat`` may make now (cards of a two-card play in index order)."""
        legal = self.legal_play_actions(seat)
        if not legal:
            return []
        plays = self._legal_plays
        if plays is None:
            plays = self._legal_plays = [a.cards for a in legal]
        return plays

    def legal_play_actions(self, seat: int) -> list[Action]:
        """:meth:`legal_plays` as their ``play`` actions (shared values: see cards.py)."""
        if self.phase != PLAY or seat != self.turn:
            return []
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal(seat)
            self._legal_plays = self._legal_set = None
        return legal

    def _compute_legal(self, seat: int) -> list[Action]:
        hand = self.hands[seat]
        trick = self.trick
        if not trick:
            distinct = dict.fromkeys(hand)
            out = list(map(_ONE.__getitem__, distinct))
            if len(distinct) < len(hand):
                out.extend(map(_TWO.__getitem__, _pairs_in(hand)))
            return out
        lead = trick[0][1]
        of_led = self._suit_sets[self._suit[lead[0]]]
        suited = list(filter(of_led.__contains__, hand))
        if len(lead) == 1:
            return list(map(_ONE.__getitem__, dict.fromkeys(suited or hand)))
        pairs = _pairs_in(suited)
        if pairs:
            return list(map(_TWO.__getitem__, pairs))
        if len(suited) >= 2:
            return [_COMBO[a][b] for a, b in combinations(suited, 2)]  # no pairs among them: all distinct
        if len(suited) == 1:
            one = suited[0]
            with_one = _COMBO[one]
            return [with_one[c] for c in dict.fromkeys(hand) if c is not one]
        # Void in the led suit: any two cards.
        out = [_COMBO[a][b] for a, b in combinations(dict.fromkeys(hand), 2)]
        out.extend(map(_TWO.__getitem__, _pairs_in(hand)))
        return out

    def _ready(self, seat: int, action: Action) -> list[Event]:
        if self.ready[seat]:
            raise IllegalAction(N_("You are already ready."), "already_ready")
        if action.cards or action.args:
            raise IllegalAction(N_("Just say ready."), "bad_action")
        self.ready[seat] = True
        events = [Event("ready", seat, ())]
        if all(self.ready):
            if self.phase == ROUND_READY:
                self._begin_round(events)
            else:
                self.phase = PLAY
                self.turn = self.leader
        return events

    def _play(self, seat: int, action: Action) -> list[Event]:
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        if action is not self._drawn or self._legal is None:
            # Not the play random_action just drew from the legal plays (legal by construction):
            # check it, as the shared action of its cards.
            cs = action.cards
            if len(cs) not in (1, 2) or action.args:
                raise IllegalAction(N_("Play one card or two."), "wrong_count")
            play = _canon(cs)
            legal = self.legal_play_actions(seat)
            legal_set = self._legal_set
            if legal_set is None:
                legal_set = self._legal_set = {id(a) for a in legal}
            shared = _PLAYS.get(play)
            if shared is None or id(shared) not in legal_set:
                reason, code = self._why_illegal(seat, play)
                raise IllegalAction(reason, code)
            action = shared
        # Validated: from here on nothing can fail.
        play = action.cards
        hand = self.hands[seat]
        for c in play:
            hand.remove(c)
        # (_legal_plays and _legal_set are read only through a fresh _legal, which resets them.)
        self._legal = self._play_decision = self._drawn = None
        trick = self.trick
        trick.append((seat, play))
        events = [_PLAY_EVENTS[seat][id(action)]]
        called = self.called
        if called is not None and not self.call_done and called in play:
            self._count_called(seat, play.count(called), events)
        if len(trick) < PLAYERS:
            self.turn = seat + 1 if seat + 1 < PLAYERS else 0
            return events
        winner = trick_winner(self.trump, trick)
        cards_won = [c for _, p in trick for c in p]
        pts = points_of(cards_won)
        self.taken[winner].extend(cards_won)
        self.points[winner] += pts
        events.append(Event("trick", winner, (self.trick_no, pts)))
        done = tuple(trick)
        self.last_trick = (winner, pts, done)
        self.history.append(done)
        self.trick = []
        self.trick_no += 1
        self.leader = winner
        if self.hands[winner]:
            self._before_trick()
        else:
            self._end_round(winner, events)
        return events

    def _why_illegal(self, seat: int, play: tuple[Card, ...]) -> tuple[str, str]:
        have = Counter(self.hands[seat])
        for c, n in Counter(play).items():
            if have[c] < n:
                return (said(N_("You don't hold two {card}.") if n == 2 else N_("You don't hold that {card}."),
                             card=c), "not_in_hand")
        if not self.trick:
            return (N_("Lead one card or an identical pair."), "bad_lead")
        lead = self.trick[0][1]
        if len(play) != len(lead):
            return (said_n("Play {n} card, as many as were led.", "Play {n} cards, as many as were led.", len(lead)),
                    "wrong_count")
        led = self._order[lead[0]][0]
        suit_name = said(N_("trumps")) if led == TRUMPS else suit(led, {"C": "clubs", "D": "diamonds", "H": "hearts",
                                                                        "S": "spades"}[led])
        if len(lead) == 1:
            return (said(N_("You must follow suit ({suits} were led)."), suits=suit_name), "must_follow")
        if _pairs_in([c for c in self.hands[seat] if self._order[c][0] == led]):
            return (said(N_("A pair of {suits} was led and you hold a pair of {suits}: play a pair."), suits=suit_name),
                    "must_follow")
        return (said(N_("A pair of {suits} was led: play as many {suits} as you hold, up to two."), suits=suit_name),
                "must_follow")

    def _end_round(self, last_winner: int, events: list[Event]) -> None:
        koth = self.koth
        assert koth is not None
        defenders = {koth} if self.teammate is None else {koth, self.teammate}
        challenger_points = sum(self.points[s] for s in range(PLAYERS) if s not in defenders)
        dead_points = points_of(self.buried)
        bonus = 0 if last_winner in defenders else self.options["dead_hand_multiplier"] * dead_points
        score = challenger_points + bonus
        before = list(self.ranks)
        if score < DEFEND_BELOW:
            next_koth = koth if self.teammate is None else self.teammate
            gain = 3 if score == 0 else 2 if score <= 40 else 1
            gainers = sorted(defenders)
            winners = [s for s in gainers if before[s] == ACE]
        else:
            next_koth = next(s for s in ((koth + i) % PLAYERS for i in range(1, PLAYERS)) if s not in defenders)
            gain = 0 if score < 120 else 1 if score < 160 else 2 if score < 200 else 3
            gainers = [s for s in range(PLAYERS) if s not in defenders]
            winners = []
        for s in gainers:
            self.ranks[s] = min(ACE, self.ranks[s] + gain)
        after = [rank_char(r) for r in self.ranks]
        self.last_round = {
            "round": self.round_no, "koth": koth, "teammate": self.teammate, "defenders": sorted(defenders),
            "called": None if self.called is None else self.called.code,
            "challenge_score": score, "challenger_points": challenger_points, "dead_hand_points": dead_points,
            "dead_hand_bonus": bonus, "last_trick_winner": last_winner, "next_koth": next_koth,
            "gain": gain, "gainers": gainers, "ranks_before": [rank_char(r) for r in before], "ranks_after": after,
            "dead_hand": [c.code for c in self.buried],
        }
        events.append(Event("hand_end", koth, (
            self.round_no, -1 if self.teammate is None else self.teammate, score, challenger_points, dead_points,
            bonus, last_winner, next_koth, gain, *after)))
        rounds = self.options["rounds"]
        if not winners and rounds and self.round_no >= rounds:
            top = max(self.ranks)
            winners = [s for s in range(PLAYERS) if self.ranks[s] == top]
        self.turn = self.leader = None
        if winners:
            self.winners = winners
            self.phase = OVER
            events.append(Event("game_end", None, (*after, *winners)))
            return
        self.koth = next_koth
        self.round_no += 1
        if self.options["ready_round"] > 0:
            self.phase = ROUND_READY
            self.ready = [False] * PLAYERS
        else:
            self._begin_round(events)
