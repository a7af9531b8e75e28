import asyncio

import pytest

import engine
from engine.cards import ALL_CARDS
from engine.core import Action
from tables import Phase, TableError
from tables.runtime import STALE

from .conftest import HOST, SHORT, choose, run_until, started

BOB = 200


async def play_as_host(rt, clock, t, limit: int = 20000) -> int:
    """Play the host's seat through seat_view() until the game ends; return how many moves."""
    moves = 0
    for _ in range(limit):
        if t.phase == Phase.FINISHED:
            break
        sv = rt.seat_view(t.id, HOST)
        if sv.decision is None:
            await clock.advance(1.0)
            continue
        action = choose(sv.decision)
        # Play by typed text half the time, to go through parse_action as /play does.
        arg = action.code if action.kind == "play" and moves % 2 else action
        await rt.act(t.id, HOST, arg, version=t.version)
        moves += 1
    assert t.phase == Phase.FINISHED
    return moves


async def test_one_person_and_three_ais_play_a_whole_game(rt, clock, listener):
    t = await started(rt)
    moves = await play_as_host(rt, clock, t)
    assert t.state.is_over and not t.ended_early and t.deadlines == {}
    # The log is complete and replays to the same result.
    assert len(t.log) == t.version and [e.seq for e in t.log] == list(range(1, t.version + 1))
    assert sum(1 for e in t.log if not e.auto) == moves
    assert all(e.auto == (e.seat != 0) for e in t.log)
    replayed, _ = engine.replay("hearts", 4, t.options, t.seed, [(e.seat, e.code) for e in t.log])
    assert replayed.outcome() == t.state.outcome()
    assert replayed.to_dict() == t.state.to_dict()
    # Summaries: one per hand, the last one also carrying game_end.
    await clock.settle()
    kinds = [[e.kind for e in events] for _, events in listener.summaries]
    assert kinds[-1] == ["hand_end", "game_end"]
    assert all(k == ["hand_end"] for k in kinds[:-1])
    assert len(kinds) == t.state.hand_no + 1
    assert listener.summaries[-1][1][-1].data == tuple(t.state.outcome().scores)
    # Only the person was ever pinged, and the table shows only public events.
    assert listener.turns and all(seats == (0,) for _, seats in listener.turns)
    assert 0 < len(t.recent) <= 20 and all(e.to is None for e in t.recent)
    assert t.recent[-1].kind == "game_end"


async def test_four_ais_finish_a_game_by_themselves(rt, clock, listener):
    t = await started(rt)
    await rt.leave(t.id, HOST)  # the AI now plays the host's seat too
    await run_until(clock, lambda: t.phase == Phase.FINISHED)
    assert t.state.is_over and len(t.log) == t.version > 52
    assert all(e.auto for e in t.log)
    replayed, _ = engine.replay("hearts", 4, t.options, t.seed, [(e.seat, e.code) for e in t.log])
    assert replayed.outcome() == t.state.outcome()
    await clock.settle()
    assert listener.turns == [(t.id, (0,))]  # the start, before the host left
    assert listener.redraws[-1][2:] == (t.version, Phase.FINISHED)


async def test_ai_with_no_delay_plays_through_between_event_loop_turns(make_runtime, clock):
    rt = make_runtime(ai_delay=0)
    t = await started(rt, options=SHORT)
    await rt.leave(t.id, HOST)
    for _ in range(2000):
        if t.phase == Phase.FINISHED:
            break
        await clock.settle()
    assert t.phase == Phase.FINISHED


async def test_illegal_moves_are_refused_with_the_reason_and_change_nothing(rt):
    t = await started(rt, options=SHORT)
    hand = rt.seat_view(t.id, HOST).decision.cards
    not_mine = next(c for c in ALL_CARDS[:52] if c not in hand)
    before = t.state.to_dict()
    with pytest.raises(TableError) as e:
        await rt.act(t.id, HOST, Action("pass", (hand[0], hand[1], not_mine)))
    assert e.value.code == "not_in_hand" and not_mine.label in e.value.message
    with pytest.raises(TableError) as e:
        await rt.act(t.id, HOST, "2C 3C")
    assert e.value.code == "wrong_count"
    with pytest.raises(TableError) as e:
        await rt.act(t.id, HOST, "not a card")
    assert e.value.message
    assert t.state.to_dict() == before and t.version == 0 and t.log == []


async def test_not_your_turn_names_who_is_playing(make_runtime, clock):
    rt = make_runtime(ai_delay=5.0)
    t = await started(rt, options=SHORT)
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision))
    with pytest.raises(TableError) as e:
        await rt.act(t.id, HOST, "2C")
    assert "AI" in e.value.message and "not your turn" in e.value.message
    with pytest.raises(TableError) as e:
        await rt.act(t.id, BOB, "2C")
    assert e.value.message == "You are not seated at this table."


async def test_stale_version_is_refused_and_changes_nothing(rt, clock):
    t = await started(rt, options=SHORT)
    await rt.act(t.id, HOST, choose(rt.seat_view(t.id, HOST).decision), version=0)
    await run_until(clock, lambda: t.state.phase == "play" and 0 in t.to_act() and t.version > 4)
    sv = rt.seat_view(t.id, HOST)
    before, version = t.state.to_dict(), t.version
    for old in (version - 1, version + 1):
        with pytest.raises(TableError) as e:
            await rt.act(t.id, HOST, choose(sv.decision), version=old)
        assert e.value.message == STALE
    assert t.state.to_dict() == before and t.version == version and len(t.log) == version
    await rt.act(t.id, HOST, choose(sv.decision), version=version)
    assert t.version == version + 1


async def test_two_simultaneous_acts_with_one_version_apply_once(rt, clock):
    t = await started(rt, options=SHORT)
    sv = rt.seat_view(t.id, HOST)
    results = await asyncio.gather(
        rt.act(t.id, HOST, choose(sv.decision), version=t.version),
        rt.act(t.id, HOST, Action("pass", tuple(sv.decision.cards[-3:])), version=t.version),
        return_exceptions=True,
    )
    errors = [r for r in results if isinstance(r, TableError)]
    assert len(errors) == 1 and errors[0].code == "stale"
    assert sum(isinstance(r, list) for r in results) == 1
    assert [(e.seat, e.auto) for e in t.log] == [(0, False)]


async def test_a_person_can_take_only_what_their_decision_offers(make_runtime, clock):
    """The engine accepts Tricks' `bad` card from the runtime (for programs); a crafted click by a
    person must not reach it — people are never penalised."""
    rt = make_runtime(ai_delay=0.0)
    t = await rt.create(game="tricks", guild_id=1, channel_id=10, host_id=100, host_name="Ann",
                        options={"target": 25})
    await rt.start(t.id, 100)
    await run_until(clock, lambda: 0 in t.state.to_act(), step=0.5)
    before = (t.version, t.state.to_dict())
    with pytest.raises(TableError) as e:
        await rt.act(t.id, 100, Action("bad", args=("x",)))
    assert e.value.code == "not_offered"
    assert (t.version, t.state.to_dict()) == before
    sv = rt.seat_view(t.id, 100)
    await rt.act(t.id, 100, sv.decision.actions[0])  # what is offered still works
    assert t.version == before[0] + 1


async def test_a_refused_card_is_explained_in_the_games_own_words(make_runtime, clock):
    """Not offered, but the engine knows why: the person reads the rule they broke, not a shrug."""
    rt = make_runtime(ai_delay=0.0)
    t = await rt.create(game="tricks", guild_id=1, channel_id=10, host_id=100, host_name="Ann",
                        options={"target": 25})
    await rt.start(t.id, 100)
    # Ann's turn, following a lead she can follow: a card of another suit from her hand is refused.
    await run_until(clock, lambda: 0 in t.state.to_act() and bool(t.state.trick), step=0.5, limit=2000)
    offered = {a.code for a in rt.seat_view(t.id, 100).decision.actions}
    hand = t.state.hands[0]
    wrong = [c for c in hand if Action("play", (c,)).code not in offered]
    assert wrong, "this seed should give Ann a suit to follow"
    before = (t.version, t.state.to_dict())
    with pytest.raises(TableError) as e:
        await rt.act(t.id, 100, Action("play", (wrong[0],)))
    assert "follow" in e.value.message.lower() and e.value.code != "not_offered", e.value.message
    assert (t.version, t.state.to_dict()) == before
