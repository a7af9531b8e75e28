import logging

import engine
from tables import Phase

from .conftest import HOST, SHORT, run_until, started
from .test_play import play_as_host


class Exploding:
    """A listener whose every method raises, as a Discord layer having a very bad day might."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def redraw(self, table) -> None:
        self.calls.append("redraw")
        raise RuntimeError("redraw boom")

    async def turn(self, table, seats) -> None:
        self.calls.append("turn")
        raise RuntimeError("turn boom")

    async def summary(self, table, events) -> None:
        self.calls.append("summary")
        raise RuntimeError("summary boom")


async def test_a_failing_listener_does_not_stop_the_game(make_runtime, clock, caplog):
    bad = Exploding()
    rt = make_runtime(listener=bad)
    t = await started(rt, options=SHORT)
    with caplog.at_level(logging.ERROR, logger="deckhand.tables"):
        await play_as_host(rt, clock, t)
        await clock.advance(2)
    assert t.phase == Phase.FINISHED and t.state.is_over
    assert {"redraw", "turn", "summary"} <= set(bad.calls)
    assert bad.calls.count("turn") > 1  # kept being called after the first failure
    assert any("Listener turn failed" in r.getMessage() for r in caplog.records)


async def test_a_failing_ai_falls_back_and_does_not_stop_another_table(make_runtime, clock, monkeypatch, caplog):
    rt = make_runtime()
    good = await started(rt, options=SHORT)
    bad = await started(rt, options=SHORT, host=HOST + 1)
    ai_class = engine.get("hearts").ai
    original = ai_class.choose

    def choose(self, state, seat, rng):
        if state is bad.state:
            raise RuntimeError("AI boom")
        return original(self, state, seat, rng)

    monkeypatch.setattr(ai_class, "choose", choose)
    await rt.leave(good.id, HOST)
    await rt.leave(bad.id, HOST + 1)
    with caplog.at_level(logging.ERROR, logger="deckhand.tables"):
        await run_until(clock, lambda: good.phase == bad.phase == Phase.FINISHED)
    assert any("AI move failed" in r.getMessage() for r in caplog.records)
    replayed, _ = engine.replay("hearts", 4, bad.options, bad.seed, [(e.seat, e.code) for e in bad.log])
    assert replayed.outcome() == bad.state.outcome()


async def test_a_table_whose_game_breaks_does_not_stop_another(make_runtime, clock, monkeypatch, caplog):
    rt = make_runtime()
    good = await started(rt, options=SHORT)
    bad = await started(rt, options=SHORT, host=HOST + 1)

    class Broken(type(bad.state)):  # Hearts may be compiled (tools/native.py): a subclass, not a patch
        def apply(self, seat, action):
            raise RuntimeError("engine boom")

    bad.state = Broken.from_dict(bad.state.to_dict())
    await rt.leave(good.id, HOST)
    await rt.leave(bad.id, HOST + 1)
    with caplog.at_level(logging.ERROR, logger="deckhand.tables"):
        await run_until(clock, lambda: good.phase == Phase.FINISHED)
    assert bad.phase == Phase.RUNNING and bad.version == 0
    assert any("AI could not move" in r.getMessage() for r in caplog.records)
    # The broken table is left alone, not retried in a loop, and can still be ended.
    await clock.advance(100)
    await rt.end(bad.id, HOST + 1, admin=True)
    assert bad.phase == Phase.FINISHED


async def test_close_cancels_every_task(make_runtime, clock):
    rt = make_runtime()
    t = await started(rt, options=SHORT)
    await clock.settle()
    assert rt._tasks
    await rt.close()
    assert not rt._tasks
    version = t.version
    await clock.advance(600)
    assert t.version == version
