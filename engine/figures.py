"""Each game's stats figures, counted from the public events of a replay of its log (moons shot in
Hearts, hills held in King of the Hill), and what each figure is called.

Counted from events, not kept by the games, so old logs can be counted again.  Each game's
``GameSpec`` names its function and figures (``figures``, ``figure_names``); ``tables/stats.py``
stores what they count at the end of a game.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import Event

DALMUTI = {"firsts": "hands finished first", "revolutions": "revolutions called", "hands": "hands played"}
KOTH = {"rounds_as_koth": "rounds as the King", "defences": "hills held", "teammate": "rounds as teammate"}
SIEGE = {"attacks": "attacks made", "attacks_won": "attacks won"}



def dalmuti_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"firsts": 0, "revolutions": 0, "hands": 0} for _ in range(players)]
    for e in events:
        if e.to is not None:
            continue
        if e.kind == "hand_end" and len(e.data) > 1:
            first = e.data[1]  # (hand_no, finishing order..., scores...)
            for f in out:
                f["hands"] += 1
            if isinstance(first, int) and 0 <= first < players:
                out[first]["firsts"] += 1
        elif e.kind == "revolution" and e.seat is not None and 0 <= e.seat < players:
            out[e.seat]["revolutions"] += 1
    return out


def koth_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"rounds_as_koth": 0, "defences": 0, "teammate": 0} for _ in range(players)]
    for e in events:
        # hand_end: seat = the KotH; data = (round, teammate or -1, challenge score, ...)
        if e.to is None and e.kind == "hand_end" and e.seat is not None and 0 <= e.seat < players:
            out[e.seat]["rounds_as_koth"] += 1
            mate, score = e.data[1], e.data[2]
            if isinstance(score, int) and score < 80:
                out[e.seat]["defences"] += 1
            if isinstance(mate, int) and 0 <= mate < players and mate != e.seat:
                out[mate]["teammate"] += 1
    return out


def siege_figures(events: Sequence[Event], players: int) -> list[dict[str, int]]:
    out = [{"attacks": 0, "attacks_won": 0} for _ in range(players)]
    attacker: int | None = None
    for e in events:
        if e.to is not None or e.seat is None or not 0 <= e.seat < players:
            continue
        if e.kind == "attack":
            attacker = e.seat
            out[attacker]["attacks"] += 1
        elif e.kind == "fight" and attacker is not None:
            if e.seat == attacker:
                out[attacker]["attacks_won"] += 1
            attacker = None
    return out
