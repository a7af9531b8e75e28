"""The runtime's signals for live hand views: ``seat_changed(table, seats)`` names the seats whose own
view changed (so the Discord layer need not compare every view at every redraw), and a move the
clock made for a person is marked ``LogEntry.timeout``."""

from __future__ import annotations

from tables import FakeClock, Table

from .conftest import HOST, SHORT, Recorder, choose, run_until, started


class Signals(Recorder):
    def __init__(self, clock: FakeClock) -> None:
        super().__init__(clock)
        self.changed: list[tuple[int, tuple[int, ...]]] = []  # (table version, seats)

    async def seat_changed(self, table: Table, seats: tuple[int, ...]) -> None:
        self.changed.append((table.version, tuple(seats)))


def signalled(listener: Signals, since: int = 0) -> set[int]:
    return {s for _, seats in listener.changed[since:] for s in seats}


async def test_each_seat_is_signalled_when_its_own_view_changes(make_runtime, clock) -> None:
    listener = Signals(clock)
    rt = make_runtime(listener=listener)
    t = await started(rt, options=SHORT)
    await clock.settle()
    # The deal and every seat's pass decision.
    assert signalled(listener) == {0, 1, 2, 3}
    # The host passes: nobody is signalled — the host sees it in the answer to their own action,
    # and the AIs pass later, on their own clock.
    mark = len(listener.changed)
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    await clock.settle()
    assert signalled(listener, mark) == set()
    # The AIs pass: everyone receives cards and the first lead is due.
    mark = len(listener.changed)
    await run_until(clock, lambda: t.state.phase == "play")
    await clock.settle()
    assert signalled(listener, mark) == {0, 1, 2, 3}


async def test_a_move_between_two_other_seats_does_not_signal_the_bystander(make_runtime, clock) -> None:
    """While two AIs play in turn, the host — neither moving nor due — hears nothing: nothing of
    theirs changed, and the signal does not depend on the others' hidden cards."""
    listener = Signals(clock)
    rt = make_runtime(listener=listener)
    t = await started(rt, options=SHORT)
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    await run_until(clock, lambda: t.state.phase == "play")
    seen_plays = 0
    for _ in range(200):
        due = t.state.to_act()
        if due and due[0] == 0:
            await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
            await clock.settle()
            continue
        await clock.settle()
        mark, before = len(listener.changed), due
        trick = t.state.public_view()["trick_no"]
        await clock.advance(1.0)
        await clock.settle()
        after = t.state.to_act()
        if (before and after and 0 not in before and 0 not in after
                and t.state.public_view()["trick_no"] == trick and t.version > 0):
            assert 0 not in signalled(listener, mark), (before, after, listener.changed[mark:])
            seen_plays += 1
        if seen_plays >= 5:
            break
    assert seen_plays >= 5


async def test_the_clock_marks_its_moves_for_a_person(make_runtime, clock) -> None:
    listener = Signals(clock)
    rt = make_runtime(listener=listener)
    t = await started(rt, options=SHORT, speed="blitz")
    await run_until(clock, lambda: t.seats[0].missed == 1)
    mine = [e for e in t.log if e.seat == 0]
    assert [e.timeout for e in mine] == [True] and mine[0].auto
    # The AIs' moves are automatic but not the clock's.
    assert [e for e in t.log if e.seat != 0] and not any(e.timeout for e in t.log if e.seat != 0)
    # A move the person makes is neither.
    await run_until(clock, lambda: 0 in t.to_act())
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    assert not t.log[-1].auto and not t.log[-1].timeout


async def test_coming_back_and_the_end_signal_the_seat(make_runtime, clock) -> None:
    listener = Signals(clock)
    rt = make_runtime(listener=listener)
    t = await started(rt, options={"target": 1}, speed="blitz")
    await run_until(clock, lambda: t.seats[0].away)
    await clock.settle()
    mark = len(listener.changed)
    await rt.back(t.id, HOST)
    await clock.settle()
    assert 0 in signalled(listener, mark)
    mark = len(listener.changed)
    await rt.leave(t.id, HOST)  # the AI plays the hand out
    await clock.settle()
    assert 0 in signalled(listener, mark)  # (their view says the AI plays for them now)
    await run_until(clock, lambda: t.state.is_over)
    await clock.settle()
    assert listener.changed[-1][1] == (0, 1, 2, 3)

