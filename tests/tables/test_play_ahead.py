"""Play ahead (issue 34, tables/ahead.py), the runtime's part: a card chosen before one's turn is
played the moment the turn comes when still legal (the person's own move in the log), else dropped
and said to that seat alone; choosing changes nothing anyone else can see or time; a pick is
forgotten when the hand ends, when the AI takes the seat, on cancel, and on a restart; a table
option turns it off."""

from __future__ import annotations

import random

import pytest

from tables import Phase, Runtime, Table
from tables.live import TableError

from .conftest import CHANNEL, GUILD, HOST, SHORT, Recorder, choose, new_table, run_until, started
from .stores import StoredClock


class Signals(Recorder):
    def __init__(self, clock) -> None:
        super().__init__(clock)
        self.changed: list[tuple[float, int, tuple[int, ...]]] = []

    async def seat_changed(self, table: Table, seats: tuple[int, ...]) -> None:
        self.changed.append((self.clock.now(), table.version, tuple(seats)))


def playing(t: Table) -> bool:
    return t.state is not None and t.state.phase == "play" and t.phase == Phase.RUNNING


async def to_play(rt: Runtime, clock, t: Table) -> None:
    """Through the pass: the host passes its first cards, the AIs theirs."""
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    await run_until(clock, lambda: playing(t) and 0 not in t.to_act())


def code_of(card: str) -> str:
    return f"play {card}"


async def test_a_legal_pick_is_played_when_the_turn_comes_and_an_illegal_one_is_dropped(make_runtime, clock) -> None:
    listener = Signals(clock)
    rt = make_runtime(listener=listener)
    t = await started(rt, options=SHORT)
    await to_play(rt, clock, t)
    played = dropped = 0
    n = 0
    while t.phase == Phase.RUNNING and (played < 3 or dropped < 2) and n < 400:
        n += 1
        sv = rt.seat_view(t.id, HOST)
        if sv.decision is not None:
            await rt.act(t.id, HOST, choose(sv.decision))
            await clock.settle()
            continue
        if not playing(t):
            await clock.advance(1.0)
            continue
        hand = sv.view["hand"]
        if not hand:  # (the hand's last trick, the host's card on the table)
            await clock.advance(1.0)
            continue
        card = hand[n % len(hand)]
        assert await rt.play_ahead(t.id, HOST, code_of(card)) is None
        assert rt.seat_view(t.id, HOST).ahead == code_of(card)
        entries = len(t.log)
        await run_until(clock, lambda n=entries: 0 in t.to_act() or (len(t.log) > n and t.log[-1].seat == 0)
                        or t.phase != Phase.RUNNING)
        await clock.settle()
        if t.phase != Phase.RUNNING:
            break
        mine = [e for e in t.log[entries:] if e.seat == 0]
        if mine:
            # Played at once, as the person's own move, the moment the turn came.
            assert [(e.code, e.auto) for e in mine] == [(code_of(card), False)]
            assert rt.seat_view(t.id, HOST).ahead is None
            played += 1
        else:
            # No longer legal: dropped, said to this seat alone, and the person chooses as usual.
            sv = rt.seat_view(t.id, HOST)
            assert sv.decision is not None and code_of(card) not in {a.code for a in sv.decision.actions}
            assert (sv.ahead, sv.dropped) == (None, code_of(card))
            assert listener.changed[-1][2] == (0,)  # (the word is for this seat's own view)
            await rt.act(t.id, HOST, choose(sv.decision))
            assert rt.seat_view(t.id, HOST).dropped is None
            dropped += 1
    assert played >= 3 and dropped >= 2


async def _host_game(make_runtime, clock, ahead_codes: list[str] | None, seconds: float = 90.0):
    """One seeded game, ``seconds`` of it.  The host plays the first legal card the
    moment its turn comes (a click), or — ``ahead_codes`` — chooses that same card ahead whenever
    it may (before the turn comes), which is then played for it."""
    listener = Signals(clock)
    rt = make_runtime(listener=listener, rng=random.Random(11))
    t = await started(rt, options=SHORT)
    t0 = clock.now()
    await to_play(rt, clock, t)
    chosen = 0

    def host_plays() -> list[str]:
        return [e.code for e in t.log if e.seat == 0 and e.code.startswith("play")]

    while t.phase == Phase.RUNNING and clock.now() - t0 < seconds:
        sv = rt.seat_view(t.id, HOST)
        if sv.decision is not None:
            await rt.act(t.id, HOST, choose(sv.decision))
            await clock.settle()
            continue
        k = len(host_plays())
        if ahead_codes is not None and playing(t) and sv.ahead is None and k < len(ahead_codes) \
                and sv.view["hand"]:
            await rt.play_ahead(t.id, HOST, ahead_codes[k])
            chosen += 1
        await clock.advance(1.0)
    await clock.settle()
    # (times from the table's start: the two games are played one after the other on one clock)
    log = [e._replace(time=e.time - t0) for e in t.log]
    redraws = [(at - t0, version, phase) for at, _, version, phase in listener.redraws]
    changed = [(at - t0, v, tuple(s for s in seats if s != 0)) for at, v, seats in listener.changed
               if set(seats) - {0}]
    deadlines = {s: d - t0 for s, d in t.deadlines.items()}
    return t, (log, redraws, [r[1] for r in listener.turns], changed, deadlines, t.version), host_plays(), chosen


async def test_choosing_ahead_changes_nothing_anyone_else_sees_or_times(make_runtime, clock) -> None:
    """Two tables from the same seed: at one the host clicks its card the moment its turn comes, at
    the other it chose that same card ahead.  The log (seats, codes, times, who made each move),
    the pings, the deadlines and every other seat's signals are the same."""
    _, clicked, codes, _ = await _host_game(make_runtime, clock, None)
    _, ahead, codes_ahead, chosen = await _host_game(make_runtime, clock, codes)
    assert chosen >= 5 and len(codes) >= 6  # (most of the host's cards were chosen ahead)
    assert codes_ahead == codes
    log, redraws, turns, changed, deadlines, version = ahead
    assert log == clicked[0]
    # The table message: redrawn at the same moments, ending on the same state (a card played
    # the moment the turn comes may be drawn a redraw sooner, as a click that quick would be).
    assert [at for at, _, _ in redraws] == [at for at, _, _ in clicked[1]] and redraws[-1] == clicked[1][-1]
    assert turns == clicked[2]
    assert changed == clicked[3]
    assert (deadlines, version) == clicked[4:]


async def test_choosing_and_cancelling_touch_nothing_of_the_table(make_runtime, clock) -> None:
    listener = Signals(clock)
    rt = make_runtime(listener=listener)
    t = await started(rt, options=SHORT)
    await to_play(rt, clock, t)
    await clock.settle()
    before = (t.version, len(t.log), dict(t.deadlines), len(listener.changed), len(listener.redraws),
              len(listener.turns))
    card = rt.seat_view(t.id, HOST).view["hand"][0]
    await rt.play_ahead(t.id, HOST, code_of(card))
    await rt.play_ahead(t.id, HOST, code_of(rt.seat_view(t.id, HOST).view["hand"][1]))  # replaces it
    assert rt.seat_view(t.id, HOST).ahead == code_of(rt.seat_view(t.id, HOST).view["hand"][1])
    await rt.play_ahead(t.id, HOST, None)  # Cancel
    await clock.settle()
    assert rt.seat_view(t.id, HOST).ahead is None
    assert (t.version, len(t.log), dict(t.deadlines), len(listener.changed), len(listener.redraws),
            len(listener.turns)) == before


async def test_a_card_not_in_hand_or_outside_the_play_is_refused(make_runtime, clock) -> None:
    rt = make_runtime()
    t = await started(rt, options=SHORT)
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    with pytest.raises(TableError) as e:  # the others still pass: no card is played yet
        await rt.play_ahead(t.id, HOST, code_of(rt.seat_view(t.id, HOST).view["hand"][0]))
    assert e.value.code == "ahead_not_now"
    await run_until(clock, lambda: playing(t) and 0 not in t.to_act())
    hand = set(rt.seat_view(t.id, HOST).view["hand"])
    missing = next(c for c in ("2C", "3C", "4C", "5C", "6C", "7C", "QS", "AH", "2D", "3D") if c not in hand)
    for bad in (code_of(missing), "pass 2C", "play", "play 2C 3C"):
        with pytest.raises(TableError):
            await rt.play_ahead(t.id, HOST, bad)
    assert rt.seat_view(t.id, HOST).ahead is None


async def test_the_table_option_turns_it_off(make_runtime, clock) -> None:
    rt = make_runtime()
    t = await started(rt, options=SHORT, play_ahead=False)
    await to_play(rt, clock, t)
    with pytest.raises(TableError) as e:
        await rt.play_ahead(t.id, HOST, code_of(rt.seat_view(t.id, HOST).view["hand"][0]))
    assert e.value.code == "ahead_off"


async def test_a_pick_is_forgotten_when_the_ai_takes_the_seat(make_runtime, clock) -> None:
    rt = make_runtime()
    t = await started(rt, options=SHORT)
    await to_play(rt, clock, t)
    await rt.play_ahead(t.id, HOST, code_of(rt.seat_view(t.id, HOST).view["hand"][0]))
    await rt.leave(t.id, HOST)
    assert rt.seat_view(t.id, HOST).ahead is None
    assert rt._live[t.id].picks.chosen == {}


async def test_a_restart_drops_the_picks(make_runtime, store) -> None:
    """Picks live in memory only: the table comes back after a restart, its picks do not (the
    person chooses again, or plays when their turn comes)."""
    clock = StoredClock()
    rt = make_runtime(storage=await store.open(), clock=clock)
    t = await started(rt, options=SHORT)
    await to_play(rt, clock, t)
    card = rt.seat_view(t.id, HOST).view["hand"][0]
    await rt.play_ahead(t.id, HOST, code_of(card))
    await rt.close()
    rt2 = make_runtime(storage=await store.open(), clock=clock)
    await rt2.recover()
    sv = rt2.seat_view(t.id, HOST)
    assert sv.view is not None and card in sv.view["hand"]
    assert (sv.ahead, sv.dropped) == (None, None)
    assert rt2.get(t.id).play_ahead is True


async def test_the_setting_is_kept_across_a_restart(make_runtime, store) -> None:
    clock = StoredClock()
    rt = make_runtime(storage=await store.open(), clock=clock)
    t = await started(rt, options=SHORT, play_ahead=False)
    await rt.close()
    rt2 = make_runtime(storage=await store.open(), clock=clock)
    await rt2.recover()
    assert rt2.get(t.id).play_ahead is False


@pytest.mark.parametrize("stored", [False, True])
async def test_play_again_keeps_the_setting(make_runtime, store, stored) -> None:
    """A rematch of a table opened with ``ahead=off`` is off too (from memory, or from its stored row
    once the finished table has left memory)."""
    clock = StoredClock()
    rt = make_runtime(storage=await store.open(), clock=clock)
    t = await new_table(rt, options={"target": 1}, play_ahead=False)
    await rt.add_ai(t.id, HOST, 3)
    await rt.start(t.id, HOST)
    await rt.leave(t.id, HOST)
    await run_until(clock, lambda: t.phase == Phase.FINISHED)
    if stored:
        await clock.advance(3.0)
        assert t.id not in rt.tables
    again = (await rt.rematch(t.id, HOST, "Ann", guild_id=GUILD, channel_id=CHANNEL)).table
    assert again.play_ahead is False
