from tables import Phase

from .conftest import HOST, SHORT, choose, started


async def test_a_burst_of_moves_makes_one_redraw_now_and_one_after(make_runtime, clock, listener):
    rt = make_runtime(ai_delay=0, redraw_interval=1.0)
    t = await started(rt, options=SHORT)
    await clock.settle()
    t0 = clock.now()
    moves = 0
    for _ in range(200):  # a person playing as fast as the AIs answer, all within one instant
        sv = rt.seat_view(t.id, HOST)
        if sv.decision is not None:
            await rt.act(t.id, HOST, choose(sv.decision))
            moves += 1
            if moves == 8:
                break
        await clock.settle()
    assert moves == 8 and t.version > 8 and clock.now() == t0
    assert [r[0] for r in listener.redraws] == [t0]
    await clock.advance(0.5)
    assert len(listener.redraws) == 1  # still inside the interval
    await clock.advance(0.5)
    assert [r[0] for r in listener.redraws] == [t0, t0 + 1.0]
    assert listener.redraws[-1][2] == t.version  # the redraw after the burst shows its end
    await clock.advance(10)
    assert len(listener.redraws) == 2  # nothing changed, nothing redrawn


async def test_redraws_are_never_closer_than_the_interval_over_a_whole_game(make_runtime, clock, listener):
    rt = make_runtime(ai_delay=0.25, redraw_interval=1.0)
    t = await started(rt, options=SHORT)
    await rt.leave(t.id, HOST)
    for _ in range(20000):
        if t.phase == Phase.FINISHED:
            break
        await clock.advance(0.25)
    await clock.advance(1.0)
    times = [r[0] for r in listener.redraws]
    assert len(times) > 10
    assert all(b - a >= 1.0 for a, b in zip(times, times[1:], strict=False))
    assert listener.redraws[-1][2:] == (t.version, Phase.FINISHED)


async def test_separate_tables_redraw_independently(make_runtime, clock, listener):
    rt = make_runtime()
    a = await started(rt)
    b = await started(rt, host=HOST + 1)
    await clock.settle()
    assert sorted(r[1] for r in listener.redraws) == sorted([a.id, b.id])



async def test_a_redraw_that_left_something_unshown_is_called_again_when_it_asked(make_runtime, clock, listener):
    # The listener paces the public table message: it may answer a redraw with "call me again in
    # N seconds" although the table does not change meanwhile (the trailing edit after a quiet spell).
    asked: list[tuple[float, int]] = []

    async def redraw(table):
        asked.append((clock.now(), table.version))
        return 5.0 if len(asked) == 1 else None

    listener.redraw = redraw
    rt = make_runtime(ai_delay=1000, redraw_interval=1.0)  # nobody moves for a while
    await started(rt, options=SHORT)
    await clock.settle()
    assert len(asked) == 1
    t0, version = asked[0]
    await clock.advance(4.9)
    assert len(asked) == 1
    await clock.advance(0.2)
    assert asked[1:] == [(t0 + 5.0, version)]  # the same table, called again as asked
    await clock.advance(20)
    assert len(asked) == 2  # that call answered None: not called again
