"""Siege's piles (docs/rules.md §5, "Your turn", step 3): what a Queen, Jack or Ace pile takes and
what it scores, why a card does not fit, which rival pile defends (the one nearest the King pile)
and who wins a fight (a tie goes to the defender)."""

from __future__ import annotations

from collections.abc import Sequence

from engine.words import Either, said
from engine.words import suit as said_suit
from games.siege.cards import PILE_KINDS, SUIT_NAMES, SiegeCard
from words import N_


def pile_kind(pile: Sequence[SiegeCard]) -> str:
    return PILE_KINDS[pile[0].rank]


def pile_score(pile: Sequence[SiegeCard]) -> int:
    """A house pile's score (the special card is ``pile[0]``)."""
    n = len(pile) - 1
    r = pile[0].rank
    if r == "Q":
        return 2 * n
    if r == "A" and any(c.value == 2 for c in pile[1:]):
        return n + 1  # the ace counts too once the straight reaches down to 2
    return n


def fits(pile: Sequence[SiegeCard], c: SiegeCard) -> bool:
    """Whether number card ``c`` may be added to house ``pile`` (docs/rules.md §5, step 3)."""
    r = pile[0].rank
    if r == "J":
        return c.suit == pile[0].suit
    v = c.value
    if r == "Q":
        counts: dict[int, int] = {}
        for x in pile[1:]:
            counts[x.value] = counts.get(x.value, 0) + 1
        # More of a number already there is always fine; a new number waits until every number is paired.
        return v in counts or all(n >= 2 for n in counts.values())
    if len(pile) == 1:
        return True
    vals = [x.value for x in pile[1:]]
    return v == min(vals) - 1 or v == max(vals) + 1


def _fit_rule(slot: int, pile: Sequence[SiegeCard]) -> tuple[int, str, frozenset[int] | None]:
    """:func:`fits` for ``pile`` in ``slot`` as data: (slot, the suit a Jack pile takes or "",
    the numbers it takes or ``None`` for any)."""
    r = pile[0].rank
    if r == "J":
        return slot, pile[0].suit, None
    if r == "Q":
        counts: dict[int, int] = {}
        for x in pile[1:]:
            counts[x.value] = counts.get(x.value, 0) + 1
        return slot, "", None if all(n >= 2 for n in counts.values()) else frozenset(counts)
    if len(pile) == 1:
        return slot, "", None
    vals = [x.value for x in pile[1:]]
    return slot, "", frozenset((min(vals) - 1, max(vals) + 1))


def why_not_fits(pile: Sequence[SiegeCard], c: SiegeCard) -> str:
    r = pile[0].rank
    if r == "J":
        what = (said(N_("blank number cards")) if pile[0].suit == "X"
                else said_suit(pile[0].suit, SUIT_NAMES[pile[0].suit]))
        return said(N_("A {card} Jack pile takes only {what}."), card=pile[0], what=what)
    if r == "Q":
        single = sorted({x.label[:-1] for x in pile[1:] if sum(1 for y in pile[1:] if y.value == x.value) < 2})
        return said(N_("A Queen pile takes a new number only once every number in it is paired "
                       "(pair the {numbers} first)."), numbers=", ".join(single))
    return said(N_("An Ace pile must stay a straight: {card} does not extend it at either end."), card=c)


def defending_slot(piles: Sequence[object | None]) -> int | None:
    """The slot (0-based) whose pile defends a seat: the one nearest its King pile, or ``None``
    when it has no house pile (``piles`` may be the state's piles or a view's)."""
    return next((k for k in range(len(piles)) if piles[k] is not None), None)


def attacker_wins(attack_score: int, defend_score: int) -> bool:
    """A fight's verdict: the higher score wins, a tie goes to the defender."""
    return attack_score > defend_score


def misfit_reason(pile: Sequence[SiegeCard], slot: int) -> str:
    """Why house ``pile`` in ``slot`` (0-based) does not take a number card that does not
    :func:`fits` it, in a clause short enough to list with the other piles' ("the Jack pile ①
    takes only spades")."""
    r, mark = pile[0].rank, "①②③"[slot]
    if r == "J":
        what = (said(N_("blank cards")) if pile[0].suit == "X"
                else said_suit(pile[0].suit, SUIT_NAMES[pile[0].suit]))
        return said(N_("the Jack pile {mark} takes only {what}"), mark=mark, what=what)
    if r == "Q":
        single = sorted({x.value for x in pile[1:] if sum(1 for y in pile[1:] if y.value == x.value) < 2})
        english = (f"the Queen pile {mark} takes a new number only once every number in it is paired "
                   f"(pair the {' and the '.join(str(v) for v in single)} first)")
        return said(N_("the Queen pile {mark} takes a new number only once every number in it is paired "
                       "(pair the {numbers} first)"), english=english, mark=mark, numbers=tuple(single))
    vals = [x.value for x in pile[1:]] or [pile[0].value]
    ends = [v for v in (min(vals) - 1, max(vals) + 1) if 2 <= v <= 10]
    if not ends:
        return said(N_("the Ace pile {mark} is a full straight"), mark=mark)
    english = f"the Ace pile {mark} grows only with " + " or ".join(("an " if v == 8 else "a ") + str(v) for v in ends)
    return said(N_("the Ace pile {mark} grows only with {numbers}"), english=english, mark=mark, numbers=Either(ends))
