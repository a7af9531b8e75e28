"""The replay viewer's steps (tables/history/replay_steps.py), checked against the engine replaying the log."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

import engine
from engine.core import TABLE
from tables.history.replay import GameRecord
from tables.history.replay_steps import NotReplayable, final_scores, scores_of, steps
from tables.table import LogEntry
from tests import wargame


@pytest.fixture(autouse=True)
def _war() -> Iterator[None]:
    """War (games/war/), the sixth game, is a registered game in these tests like the five."""
    with wargame.registered():
        yield



def played(game: str, seed: int = 7) -> GameRecord:
    """A whole sample game of ``game``, every seat played by the normal AI, as a finished record."""
    spec = engine.get(game)
    players, options = spec.sample
    g = spec.game.create(players, options, seed)
    rng = random.Random(seed)
    log: list[LogEntry] = []
    while not g.is_over:
        seat = g.to_act()[0]
        action = spec.ai().choose(g, seat, rng)
        g.apply(seat, action)
        log.append(LogEntry(len(log) + 1, seat, action.code, 0.0))
    return GameRecord(id=game.upper()[:6].ljust(6, "X"), game=game, options=dict(options), seed=seed,
                      names=[f"P{i}" for i in range(players)], ai=[True] * players, log=log)


@pytest.mark.parametrize("game", wargame.every_game())  # and War (games/war/)
def test_every_step_is_the_engine_state_after_that_much_of_the_log(game: str) -> None:
    record = played(game)
    got = steps(record, words=lambda state, events: f"{len(events)} events")
    assert len(got) == len(record.log) + 1
    assert json.loads(json.dumps(got)) == got  # JSON-safe: it crosses to a worker and into a cache
    cls = engine.get(game).game
    state = cls.create(record.players, record.options, record.seed)
    for i, step in enumerate(got):
        if i:
            entry = record.log[i - 1]
            events = state.apply(entry.seat, cls.action_from_code(entry.code))
            assert step["seat"] == (None if entry.seat == TABLE else entry.seat)
            assert step["code"] == entry.code
            assert step["words"] == f"{len([e for e in events if e.to is None])} events"
        assert step["index"] == i
        # Every hand face up, exactly as each seat's own view had it at that moment.
        assert step["hands"] == [list(state.view(s)["hand"]) for s in range(record.players)]
        assert step["scores"] == scores_of(game, state.public_view(), record.players)
        assert step["phase"] == str(state.public_view()["phase"])
    # The last step's scores are the final standings.
    assert got[-1]["scores"] == final_scores(record) == list(state.outcome().scores)


def test_the_cards_on_the_table_follow_a_trick_and_stay_shown_on_the_step_that_completes_it() -> None:
    record = played("tricks")
    got = steps(record)
    first_four = got[1:5]
    assert [len(s["table"]) for s in first_four] == [1, 2, 3, 4]
    assert [g["cards"][0] for g in first_four[-1]["table"]] == [e.code.split()[1] for e in record.log[:4]]
    assert any(e[0] == "trick" for e in first_four[-1]["events"])
    assert got[5]["table"] and len(got[5]["table"]) == 1  # the next trick's lead
    assert (got[4]["trick"], got[5]["trick"]) == (1, 2)


def test_a_running_game_and_a_game_never_started_are_not_replayed() -> None:
    record = played("hearts")
    running = GameRecord(**{**record.__dict__, "phase": "running", "log": record.log[:10]})
    with pytest.raises(NotReplayable):
        steps(running)
    never = GameRecord(**{**record.__dict__, "seed": None, "log": []})
    with pytest.raises(NotReplayable):
        steps(never)


def test_a_damaged_log_is_refused_with_a_reason() -> None:
    record = played("hearts")
    bad = list(record.log)
    bad[20] = bad[20]._replace(code="play ZZ")
    with pytest.raises(NotReplayable, match="does not replay"):
        steps(GameRecord(**{**record.__dict__, "log": bad}))


def test_a_hearts_pass_shows_the_cards_each_seat_chose_until_they_change_hands() -> None:
    record = played("hearts")
    got = steps(record)
    chose = [e.seat for e in record.log[:4]]
    assert all(e.code.startswith("pass ") for e in record.log[:4])
    for k in range(1, 4):
        groups = got[k]["table"]
        assert [g["seat"] for g in groups] == chose[:k] and {g["label"] for g in groups} == {"to pass"}
        for g, entry in zip(groups, record.log[:k], strict=True):
            assert sorted(g["cards"]) == sorted(entry.code.split()[1:])
    assert not any(g["label"] == "to pass" for g in got[4]["table"])  # passed: in their new hands


@pytest.mark.parametrize("game", ["hearts", "tricks", "koth"])
def test_the_step_that_takes_a_trick_is_numbered_as_that_trick(game: str) -> None:
    got = steps(played(game))
    kinds = [{e[0] for e in s["events"]} for s in got]
    takes = [s for s, k in zip(got, kinds, strict=True) if "trick" in k and "deal" not in k]
    assert takes
    for s in takes:
        (trick_no,) = {e[2][0] for e in s["events"] if e[0] == "trick"}
        assert s["sub"] == "trick" and s["trick"] == trick_no + 1


def test_king_of_the_hill_shows_the_dead_hand_then_the_buried_cards_face_up() -> None:
    record = played("koth")
    got = steps(record)
    cls = engine.get("koth").game
    state = cls.create(record.players, record.options, record.seed)
    taken: list[str] = []
    seen: set[str] = set()
    for i, step in enumerate(got):
        if i:
            entry = record.log[i - 1]
            events = state.apply(entry.seat, cls.action_from_code(entry.code))
            taken = next((list(c.code for c in e.data) for e in events if e.kind == "dead_hand"), taken)
        piles = {(p["seat"], p["label"]): p["cards"] for p in step["piles"]}
        phase, king = step["phase"], state.public_view()["koth"]
        if phase in ("deal", "late", "suit"):
            assert list(piles) == [(None, "dead hand")] and len(piles[None, "dead hand"]) == 8
            seen.add("dead hand")
        elif phase == "bury":
            assert piles == {(king, "took the dead hand"): taken} and state.view(king)["dead_hand"] == taken
            seen.add("took")
        elif phase in ("call", "play", "trick_ready"):
            # Only the King's own view has them while the round is played.
            assert piles == {(king, "buried"): state.view(king)["buried"]}
            assert not any("buried" in state.view(s) for s in range(record.players) if s != king)
            seen.add("buried")
        elif phase in ("round_ready", "over") and state.public_view().get("last_round"):
            last = state.public_view()["last_round"]
            assert piles == {(last["koth"], "buried"): last["dead_hand"]}  # turned up when scored
            seen.add("scored")
        else:
            assert not piles, (i, phase)
    # The dead hand the deal left is the one the King took.
    deal_end = max(i for i, s in enumerate(got) if s["phase"] in ("deal", "late", "suit"))
    assert sorted(got[deal_end]["piles"][0]["cards"]) == sorted(taken)
    assert seen == {"dead hand", "took", "buried", "scored"}


def test_the_great_dalmuti_shows_each_players_taxes_for_the_rest_of_the_hand() -> None:
    record = played("dalmuti")
    got = steps(record)
    cls = engine.get("dalmuti").game
    state = cls.create(record.players, record.options, record.seed)
    paid = 0
    for i, step in enumerate(got):
        if i:
            entry = record.log[i - 1]
            state.apply(entry.seat, cls.action_from_code(entry.code))
        ranking = state.public_view()["ranking"]
        for s in range(record.players):
            v = state.view(s)
            mine = {p["label"]: p["cards"] for p in step["piles"] if p["seat"] == s}
            peon = ranking.index(s) >= len(ranking) - 2
            want = {"paid in taxes": v["tax_given"], "got back": v["tax_received"]} if peon else \
                {"received in taxes": v["tax_received"], "gave back": v["tax_given"]}
            assert mine == {k: c for k, c in want.items() if c}, (i, s)
            paid += bool(v["tax_given"])
    assert paid  # this game has taxes to show
    assert all(not s["piles"] for s in steps(played("hearts")))


def test_the_recap_says_each_hands_pass_the_first_one_included(tmp_path, capsys) -> None:
    """Issue 29: hand 1's deal is told when the game is created, not by a logged move; the recap
    read "Hand 1 (no pass)" while the table said "passed left"."""
    from tables.history.replay import main

    record = played("hearts")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record.to_json()))
    assert main([str(path)]) == 0
    out = capsys.readouterr().out
    hands = [line for line in out.splitlines() if line.startswith("Hand ")]
    assert len(hands) >= 2, out
    assert hands[0].startswith("Hand 1 (passed left): "), hands
    assert hands[1].startswith("Hand 2 (passed right): "), hands


def test_the_first_step_carries_the_events_of_the_games_creation() -> None:
    record = played("hearts")
    first = steps(record)[0]
    assert [e[0] for e in first["events"]] == ["deal"] and first["events"][0][2][1] == "left"
