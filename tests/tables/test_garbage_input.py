"""Whatever people type or a crafted click sends, at any moment: a friendly refusal that changes
nothing, or a legal move — never another exception, never a stuck table.  Every game, seeded."""

from __future__ import annotations

import random

import pytest

from cogs.table.arguments import playable
from engine.core import Action
from tables import Phase, TableError
from tests.tables.conftest import HOST, new_table

PEOPLE = (HOST, 200, 300)
WORDS = (
    "play", "pass", "bury", "mark", "call", "declare", "attack", "build", "start", "place", "swap",
    "end", "yes", "no", "give", "tax", "ready", "suit", "revolution", "king", "1", "2", "3", "0", "-1",
    "99", "x", "", " ", "~B", "~R", "JJ", "D5", "D13", "5X", "QX", "AS", "10h", "qs", "7♥", "A♠",
    "three", "5s", "x3", "and", "a", "jester", "#2", ":", "|QUERY|", "\u200b", "é", "🂡", "h" * 120,
)


def garbage(rng: random.Random, game: type, hand: list[str]) -> str | Action:
    """Typed text from the words above and the person's own cards, or a crafted action (what a
    forged custom id would carry): any kind, any of the person's cards, any arguments."""
    if rng.random() < 0.25:
        kind = rng.choice(["play", "pass", "bury", "call", "declare", "give", "bad", "attack", "end", "zz"])
        cards = rng.sample(hand, min(len(hand), rng.randint(0, 9)))
        args = [w for w in (rng.choice(WORDS) for _ in range(rng.randint(0, 2))) if w.strip()]
        try:
            return game.action_from_code(" ".join([kind, *cards, *args]))
        except Exception:  # not even a well-formed code: send it as typed text instead
            pass
    pool = list(WORDS) + hand * 2
    return " ".join(rng.choice(pool) for _ in range(rng.randint(0, 6)))


@pytest.mark.parametrize("game", sorted(playable()))
@pytest.mark.parametrize("seed", range(6))
async def test_garbage_is_refused_without_change_and_the_game_still_ends(make_runtime, clock, game, seed):
    rng = random.Random(f"{game}-{seed}")
    rt = make_runtime(ai_delay=0.0, table_pace=0.01, rng=random.Random(seed))
    entry = playable()[game]
    options = dict(entry.game.short_options[0])
    t = await new_table(rt, game=game, options=options)
    for n, user in enumerate(PEOPLE[1:]):
        await rt.join(t.id, user, f"P{n}")
    await rt.start(t.id, HOST)
    refused = moved = 0
    for _ in range(4000):
        if t.phase == Phase.FINISHED:
            break
        due = [u for u in PEOPLE if t.seat_of(u) in t.to_act()]
        user = rng.choice(due) if due and rng.random() < 0.7 else rng.choice(PEOPLE)  # mostly the one due
        seat = t.seat_of(user)
        sv = rt.seat_view(t.id, user)
        hand = [str(c) for c in ((sv.view or {}).get("hand") or [])]
        before = (t.version, len(t.log), repr(t.state.to_dict()))
        if sv.decision is not None and rng.random() < 0.3:
            # A legal move now and then, so the game goes on through all its phases.
            d = sv.decision
            action = (t.state.random_action(seat, rng) if d.pick else rng.choice(d.actions))
            await rt.act(t.id, user, action)
            moved += 1
        else:
            try:
                await rt.act(t.id, user, garbage(rng, type(t.state), hand))
                moved += 1
            except TableError as e:
                assert e.message and "Traceback" not in e.message and len(e.message) < 400, e.message
                assert (t.version, len(t.log), repr(t.state.to_dict())) == before, e.message
                refused += 1
        await clock.advance(rng.choice([0.0, 0.0, 0.2, 1.0, 3.0]))
    for _ in range(20000):  # whatever is left: the runtime's clocks and AIs finish it
        if t.phase == Phase.FINISHED:
            break
        await clock.advance(5.0)
    assert t.phase == Phase.FINISHED
    assert refused > 50 and moved > 0
