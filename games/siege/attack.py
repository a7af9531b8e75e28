"""The attack step of a Siege turn (docs/rules.md §5, "Your turn", step 2): one of the player's
house piles fights a rival's pile nearest their King pile; the winner takes the loser's number
cards into hand, the loser's Queen, Jack or Ace is discarded, and a winning attacker is spent.
Each house pile attacks at most once a turn; then the build follows (build.py)."""

from __future__ import annotations

from engine.core import Action, Event, IllegalAction
from games.siege.cards import (
    BUILD_PHASE,
    _codes,
    _slot_arg,
)
from games.siege.piles import (
    attacker_wins,
    defending_slot,
    pile_score,
)
from games.siege.turn import SiegeTurn
from words import N_


class SiegeAttack(SiegeTurn):
    """A fight between two house piles."""

    def _attack(self, seat: int, action: Action) -> list[Event]:
        args = action.args
        if len(args) != 2:
            raise IllegalAction(N_("Name your pile's slot and the rival's seat, e.g. attack 1 2."), "bad_args")
        i = _slot_arg(args[0])
        if args[1] not in ("1", "2", "3", "4"):
            raise IllegalAction(N_("There is no seat {text}: seats are 1 to 4."), "bad_seat", text=repr(args[1]))
        target = int(args[1]) - 1
        if target == seat:
            raise IllegalAction(N_("You cannot attack yourself."), "self_attack")
        if i in self.attacked:
            raise IllegalAction(N_("The pile in slot {slot} has already attacked this turn."), "already_attacked",
                                slot=i + 1)
        mine = self.houses[seat]
        att = mine[i]
        if att is None:
            raise IllegalAction(N_("Slot {slot} is empty: attack with one of your house piles."), "empty_slot",
                                slot=i + 1)
        theirs = self.houses[target]
        j = defending_slot(theirs)
        if j is None:
            raise IllegalAction(N_("Seat {seat} has no house pile to attack."), "no_target", seat=target + 1)
        dfd = theirs[j]
        assert dfd is not None  # defending_slot names a pile
        # Validated: from here on nothing can fail.
        a_score, d_score = pile_score(att), pile_score(dfd)
        self.attacked.append(i)
        events = [Event("attack", seat, (i + 1, target, j + 1, a_score, d_score))]
        if attacker_wins(a_score, d_score):
            winner, taken, lost = seat, dfd[1:], [dfd[0], *att]
            theirs[j] = None
        else:
            winner, taken, lost = target, att[1:], [att[0]]
        mine[i] = None  # a winning attacker is discarded, a losing one broken up: either way the slot empties
        self.hands[winner].extend(taken)
        self.seen_in_hand[winner].extend(taken)
        self.discard.extend(lost)
        self.seen_discard.extend(lost)
        events.append(Event("fight", winner, (seat if winner == target else target, *taken)))
        events.append(Event("discarded", None, tuple(lost)))
        self.last_attack = {
            "seat": seat, "slot": i + 1, "target": target, "target_slot": j + 1,
            "attack_score": a_score, "defend_score": d_score, "winner": winner,
            "taken": _codes(taken), "discarded": _codes(lost),
        }
        self._touch()
        if not self._can_attack(seat):
            self.phase = BUILD_PHASE
            events.append(Event("build", seat, ()))
        return events
