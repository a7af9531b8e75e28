"""A tournament's pairings and standings (Swiss, for tables of more than two).

Written out for players in ``docs/rules.md`` ("Tournaments"); in short:

- **Points**: at each table a person earns one point for every other seat (people and AIs) they
  finished ahead of and half a point for every seat they tied with.  Someone absent for a round —
  their seat played by the AI — earns no point for that round; the others at the table are scored
  as usual.
- **Standings**: by points; ties broken by *opposition* (the sum of the current points of everyone
  they sat with, once per meeting: who faced the stronger field), then by the number of tables they
  won; people equal on all three share their place.
- **Pairing**: the first round seats people in the tournament's shuffled sign-up order; later
  rounds by standings.  The tables are as even as the numbers allow (sizes differ by at most one;
  AIs fill the short ones), nobody sits with someone they already met while that is avoidable, and
  among the seatings that meet as few repeats as possible, people sit with those nearest them in the
  standings.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

#: How many partial seatings the exact search looks at before it keeps the best found so far.
SEARCH_LIMIT = 200_000


@dataclass(frozen=True)
class Seat:
    """One seat of a finished tournament table: the person (None: an AI seat), their place there
    (1 = first; equal places tied) and whether they were present (False: the AI played for them)."""

    player: int | None
    place: int
    present: bool = True


@dataclass(frozen=True)
class Standing:
    player: int
    points: float
    opposition: float
    wins: int
    place: int


def table_points(seats: Sequence[Seat]) -> dict[int, float]:
    """The points each person earned at one table (see the module's rules)."""
    out: dict[int, float] = {}
    for s in seats:
        if s.player is None:
            continue
        if not s.present:
            out[s.player] = 0.0
            continue
        out[s.player] = sum(1.0 if s.place < o.place else 0.5 if s.place == o.place else 0.0
                            for o in seats if o is not s)
    return out


def standings(players: Sequence[int], tables: Iterable[Sequence[Seat]],
              earned: Mapping[int, float] | None = None) -> list[Standing]:
    """Everyone's standing after the finished ``tables`` (any rounds), best first.  ``earned``:
    each person's points counted another way (a duplicate tournament's, against the field) instead
    of by places; the tie-breaks are the same."""
    tables = list(tables)
    points = dict.fromkeys(players, 0.0)
    wins = dict.fromkeys(players, 0)
    if earned is not None:
        for player, p in earned.items():
            points[player] = points.get(player, 0.0) + p
    for seats in tables:
        for player, p in ({} if earned is not None else table_points(seats)).items():
            points[player] = points.get(player, 0.0) + p
        for s in seats:
            if s.player is not None and s.present and s.place == 1:
                wins[s.player] = wins.get(s.player, 0) + 1
    opposition = dict.fromkeys(points, 0.0)
    for seats in tables:
        people = [s.player for s in seats if s.player is not None]
        for a in people:
            opposition[a] += sum(points[b] for b in people if b != a)
    order = list(points)
    key = {p: (points[p], opposition[p], wins.get(p, 0)) for p in order}
    order.sort(key=lambda p: (-key[p][0], -key[p][1], -key[p][2], players.index(p) if p in players else 0))
    out: list[Standing] = []
    for i, p in enumerate(order):
        place = out[-1].place if out and key[out[-1].player] == key[p] else i + 1
        out.append(Standing(p, key[p][0], key[p][1], key[p][2], place))
    return out


def met(tables: Iterable[Sequence[Seat]]) -> dict[frozenset[int], int]:
    """How many times each pair of people sat at one table."""
    out: dict[frozenset[int], int] = {}
    for seats in tables:
        people = sorted({s.player for s in seats if s.player is not None})
        for a, b in itertools.combinations(people, 2):
            key = frozenset((a, b))
            out[key] = out.get(key, 0) + 1
    return out


def table_sizes(people: int, seats: int) -> list[int]:
    """How many people sit at each table: as even as possible, larger tables first."""
    if people <= 0:
        return []
    count = -(-people // seats)
    base, extra = divmod(people, count)
    return [base + 1] * extra + [base] * (count - extra)


def pair(order: Sequence[int], seats: int, history: Mapping[frozenset[int], int] | None = None) -> list[list[int]]:
    """Seat ``order`` (people best first: the standings, or the first round's shuffled sign-ups) at
    tables of at most ``seats``: fewest repeated meetings, then nearest in the standings."""
    history = history or {}
    rank = {p: i for i, p in enumerate(order)}
    sizes = table_sizes(len(order), seats)

    def cost(table: Sequence[int]) -> tuple[int, int]:
        repeats = sum(history.get(frozenset(pair), 0) for pair in itertools.combinations(table, 2))
        return repeats, max(rank[p] for p in table) - min(rank[p] for p in table)

    def total(tables: Sequence[Sequence[int]]) -> tuple[int, int]:
        costs = [cost(t) for t in tables]
        return sum(c[0] for c in costs), sum(c[1] for c in costs)

    # A first seating by standings, improved by swaps; then an exact search bounded by it.
    best = _improved([list(order[sum(sizes[:i]):sum(sizes[:i + 1])]) for i in range(len(sizes))], total)
    best_cost = total(best)
    nodes = 0

    def search(left: list[int], remaining: list[int], built: list[list[int]], so_far: tuple[int, int]) -> None:
        nonlocal best, best_cost, nodes
        if so_far >= best_cost or nodes >= SEARCH_LIMIT:
            return
        if not left:
            best, best_cost = [list(t) for t in built], so_far
            return
        head, rest = left[0], left[1:]
        for size in sorted(set(remaining), reverse=True):
            others = remaining.copy()
            others.remove(size)
            for mates in itertools.combinations(rest, size - 1):
                nodes += 1
                table = [head, *mates]
                c = cost(table)
                chosen = set(mates)
                search([p for p in rest if p not in chosen], others, [*built, table],
                       (so_far[0] + c[0], so_far[1] + c[1]))
                if nodes >= SEARCH_LIMIT:
                    return

    search(list(order), sizes, [], (0, 0))
    best.sort(key=lambda t: min(rank[p] for p in t))
    return [sorted(t, key=rank.__getitem__) for t in best]


def _improved(tables: list[list[int]],
              total: Callable[[Sequence[Sequence[int]]], tuple[int, int]]) -> list[list[int]]:
    """Swap people between tables while a swap lowers the cost (the best swap each time)."""
    current = total(tables)
    while True:
        found = None
        for (i, a), (j, b) in itertools.combinations(list(enumerate(tables)), 2):
            for x, y in itertools.product(range(len(a)), range(len(b))):
                trial = [t.copy() for t in tables]
                trial[i][x], trial[j][y] = b[y], a[x]
                c = total(trial)
                if c < current and (found is None or c < found[0]):
                    found = (c, trial)
        if found is None:
            return tables
        current, tables = found
