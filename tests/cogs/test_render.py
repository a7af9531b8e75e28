"""The renderer on its own: sentences, hands, summaries, and the generic fallback."""

from __future__ import annotations

import pytest

from cogs.table import render, renderer, renderers
from engine.cards import card
from engine.core import Event
from games.hearts.rules import Hearts
from tables.persistence import PAUSED
from tables.runtime import SeatView
from tables.table import Phase, Seat, Table

QS, AS, TH, TWO_C = card("QS"), card("AS"), card("TH"), card("2C")


def hearts_table(**kw) -> Table:
    t = Table(id="ABC234", game="hearts", options=Hearts.read_options({}), speed="normal", guild_id=1,
              channel_id=2, host_id=10, seats=[Seat(10, "Ali"), Seat(11, "Bea"), Seat(None, "AI 1", is_ai=True),
                                               Seat(12, "Cy", away=True)], **kw)
    return t


def test_event_sentences() -> None:
    t = hearts_table()
    say = renderers.renderer_for("hearts").event_text
    # Bea led A♠, Ali dropped Q♠ on it: Bea's A♠ wins, not the first card and not the Q♠.
    assert say(t, Event("trick", 1, (4, 13, AS, card("3S"), QS, card("5S")))) == "Bea took the trick with A♠ (+13)."
    assert say(t, Event("trick", 0, (4, 13, QS, card("3S"), card("2H"), TH))) == "Ali took the trick with Q♠ (+13)."
    assert say(t, Event("play", 3, (TH,))) == "Cy played 10♥."
    assert say(t, Event("deal", None, (2, "across"))) == "Hand 3 dealt — pass 3 cards across."
    assert say(t, Event("deal", None, (3, "hold"))) == "Hand 4 dealt — no passing this hand."
    assert say(t, Event("pass_chosen", 2, ())) == "AI 1 chose 3 cards to pass."
    assert "shot the moon" in say(t, Event("hand_end", None, (0, 26, 26, 26, 0, 10, 40, 30, 26)))
    assert say(t, Event("game_end", None, (40, 101, 40, 77))) == "Game over — Ali and AI 1 won with 40 points."
    # Private events never become public sentences.
    assert say(t, Event("received", 0, (3, QS, AS, TH), 0)) is None


def test_lobby_message() -> None:
    t = hearts_table()
    t.seats = t.seats[:2]
    text = renderers.table_message(t).text()
    assert "Hearts · table `ABC234`" in text
    assert Hearts.summary in text
    # The rules in one sentence; the settings only where they differ from the defaults (here: none);
    # no option keys, /game rules for what the host can change.
    assert "Standard rules." in text and "classic rules" not in text and "normal timers" not in text
    assert "=" not in text and "/game rules hearts" in text
    t.options = {**t.options, "moon": "shooter_minus_26"}
    t.speed = "blitz"
    text = renderers.table_message(t).text()
    assert "Played with: moon: the shooter loses 26 · blitz timers (half time)" in text, text
    assert "Ali (host)" in text and "Bea" in text and text.count("free seat") == 2


def test_running_message_shows_public_state_only() -> None:
    t = hearts_table(phase=Phase.RUNNING, seed=99)
    t.state = Hearts.create(4, {"rules": "mcgill"}, seed=5)
    t.deadlines = {t.state.public_view()["turn"]: 1_700_000_030.0}
    leader = t.state.public_view()["turn"]
    lead = t.state.decision(leader).actions[0]
    t.recent = [e for e in t.state.apply(leader, lead) if e.to is None]
    t.deadlines = {t.state.public_view()["turn"]: 1_700_000_030.0}
    text = renderers.table_message(t).text()
    assert "<t:1700000030:R>" in text
    assert f"{render.seat_name(t, leader)} {lead.cards[0].label}" in text  # the card on the table
    assert "🤖 AI 1" in text and "🤖 Cy (away" in text
    hidden = t.state.hidden_from(None)
    assert hidden and not any(card(c).label in text for c in hidden)


def test_hand_text_groups_by_suit_and_says_what_to_do() -> None:
    t = hearts_table(phase=Phase.RUNNING, seed=1)
    t.state = Hearts.create(4, {}, seed=3)
    view = t.state.view(0)
    sv = SeatView(t, 0, view, t.state.decision(0), 1_700_000_060.0)
    text = renderers.hand_text(sv)
    lines = text.splitlines()
    for _, labels in render.group_by_suit(view["hand"]):
        assert " ".join(labels) in lines
    assert "pass left to Bea" in text and "<t:1700000060:R>" in text


def test_generic_renderer_for_a_game_without_its_own() -> None:
    assert renderers.renderer_for("no-such-game") is renderer.GENERIC
    t = hearts_table(phase=Phase.RUNNING, seed=1)
    t.state = Hearts.create(4, {}, seed=3)
    text = renderer.GENERIC.table_message(t).text()
    assert "Ali" in text and "▶" in text
    assert renderer.GENERIC.event_text(t, Event("play", 1, (QS,))) == "Bea play Q♠."


def test_final_standings_share_medals_and_say_how_to_replay() -> None:
    t = hearts_table(phase=Phase.FINISHED, seed=4242, ended_early=True)
    t.state = Hearts.create(4, {}, seed=3)
    t.state.scores = [30, 12, 50, 12]
    text = renderers.table_message(t).text()
    assert "**Final standings** (ended early)" in text
    assert "Replay: `/game replay id:ABC234`" in text and "4242" not in text  # the seed stays in the replay
    lines = text.splitlines()
    # Tied players share a medal and the next player takes the next one: 🥇 🥇 🥈 🥉, not 🥇 🥇 🥉 4.
    assert lines.index("🥇 Bea — 12 points") < lines.index("🥈 Ali — 30 points") < lines.index("🥉 🤖 AI 1 — 50 points")
    assert "🥇 Cy — 12 points" in lines
    t.state.scores = [1, 12, 50, 12]
    lines = renderers.table_message(t).text().splitlines()
    assert ["🥇 Ali — 1 point", "🥈 Bea — 12 points", "🥈 Cy — 12 points", "🥉 🤖 AI 1 — 50 points"] == \
        [line for line in lines if line[:1] in "🥇🥈🥉"]


def test_final_standings_have_one_shape_with_each_games_unit() -> None:
    """Every game: "medal name — score unit", best first, ties sharing a medal, then the replay line."""
    import re
    from types import SimpleNamespace

    import engine
    from engine.core import Outcome

    scores = {"hearts": (9, "9 points", 40, "40 points"), "tricks": (50, "50 points", 12, "12 points"),
              "dalmuti": (14, "14 points", 1, "1 point"), "koth": (12, "rank Q", 5, "rank 5"),
              "siege": (9, "9 of 9 King pile cards", 1, "1 of 9 King pile cards")}
    assert set(scores) == set(engine.games())
    for name, entry in engine.games().items():
        g = entry.game
        best, best_text, worst, worst_text = scores[name]
        n = g.min_players
        seats = [Seat(None, f"P{i}") for i in range(n)]
        t = Table(id="ABC234", game=name, options=g.read_options({}), speed="normal", guild_id=1, channel_id=2,
                  host_id=None, seats=seats, phase=Phase.FINISHED, seed=7)
        result = [best, best] + [worst] * (n - 2)
        outcome = Outcome.ranked(result, lowest_wins=name == "hearts")
        t.state = SimpleNamespace(is_over=True, outcome=lambda o=outcome: o)
        lines = renderers.renderer_for(name).standings_text(t).splitlines()
        assert lines[0] == "**Final standings**", name
        assert lines[-1] == "Replay: `/game replay id:ABC234`", name
        assert lines[1:-1] == [f"🥇 P0 — {best_text}", f"🥇 P1 — {best_text}",
                               *(f"🥈 P{i} — {worst_text}" for i in range(2, n))], name
        assert all(re.fullmatch(r"(🥇|🥈) P\d — .+", line) for line in lines[1:-1])


def test_final_standings_mark_who_asked_for_hints_and_nothing_says_it_before() -> None:
    from types import SimpleNamespace

    import engine
    from engine.core import Outcome

    for name, entry in engine.games().items():
        g = entry.game
        n = g.min_players
        seats = [Seat(None, f"P{i}") for i in range(n)]
        seats[1].hints, seats[2].hints = 3, 1
        t = Table(id="ABC234", game=name, options=g.read_options({}), speed="normal", guild_id=1, channel_id=2,
                  host_id=None, seats=seats, phase=Phase.FINISHED, seed=7)
        outcome = Outcome.ranked(list(range(n)), lowest_wins=True)
        t.state = SimpleNamespace(is_over=True, outcome=lambda o=outcome: o)
        lines = renderers.renderer_for(name).standings_text(t).splitlines()[1:-1]
        assert lines[0].startswith("🥇 P0 — ") and "💡" not in lines[0], name
        assert lines[1].startswith("🥈 P1 — ") and lines[1].endswith(" · 💡 3 hints"), name
        assert lines[2].endswith(" · 💡 1 hint"), name
        assert sum("💡" in line for line in lines) == 2, name
    # During the game nothing public says it: the table message, a hand's summary.
    t = hearts_table(phase=Phase.RUNNING, seed=1)
    t.state = Hearts.create(4, {}, seed=3)
    t.seats[0].hints = 2
    assert "💡" not in renderers.table_message(t).text() and "hint" not in renderers.table_message(t).text()
    hand_end = Event("hand_end", None, (0, 26, 26, 26, 0, 0, 26, 26, 26))
    assert "💡" not in renderers.summary(t, [hand_end]).text()
    # At the end, the summary and the table message both say it.
    t.phase, t.ended_early = Phase.FINISHED, True
    assert "🥇 Ali — 0 points · 💡 2 hints" in renderers.summary(t, [hand_end]).text().splitlines()
    assert "· 💡 2 hints" in renderers.table_message(t).text()


def test_summary_of_a_hand_names_no_card() -> None:
    t = hearts_table(phase=Phase.RUNNING, seed=1)
    t.state = Hearts.create(4, {}, seed=3)
    r = renderers.summary(t, [Event("hand_end", None, (0, 26, 26, 26, 0, 0, 26, 26, 26))])
    text = r.text()
    assert "Ali shot the moon" in text and "+26 → **26**" in text
    assert not any(c.label in text for c in Hearts.create(4, {}, 0).all_cards())
    assert renderers.summary(t, [Event("play", 0, (TWO_C,))]) is None


async def test_rest_budget_spaces_requests_to_its_rate() -> None:
    """Table messages share one budget under Discord's global limit: past the burst, each request
    waits for its token (a fake clock: no real time passes)."""
    from cogs.live.listener import RestBudget

    clock = {"t": 100.0}
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock["t"] += seconds

    budget = RestBudget(per_second=10, burst=3, now=lambda: clock["t"], sleep=sleep)
    for _ in range(3):
        await budget.take()
    assert slept == []  # the burst is free
    for _ in range(5):
        await budget.take()
    assert clock["t"] == pytest.approx(100.5)  # 5 more at 10 a second
    clock["t"] += 10  # idle: the bucket refills, but only up to the burst
    slept.clear()
    for _ in range(4):
        await budget.take()
    assert len(slept) == 1


def test_a_missing_permission_is_named_from_the_channel_kind_when_nothing_is_cached() -> None:
    # Issue 14 item 8: a partial channel (not in the cache) knows no permissions: say what a post
    # there needs, not every permission there is.
    from types import SimpleNamespace

    import discord

    from cogs.live.listener import missing_permissions

    refused = discord.Forbidden(SimpleNamespace(status=403, reason="Forbidden"),
                                {"code": 50013, "message": "Missing Permissions"})
    no_access = discord.Forbidden(SimpleNamespace(status=403, reason="Forbidden"),
                                  {"code": 50001, "message": "Missing Access"})
    thread = SimpleNamespace(type=discord.ChannelType.public_thread)
    assert missing_permissions(SimpleNamespace(type=discord.ChannelType.text), refused) == "Send Messages"
    assert missing_permissions(thread, refused) == "Send Messages in Threads"
    assert missing_permissions(SimpleNamespace(type=discord.ChannelType.text), no_access) == "View Channel"


def test_a_table_that_cannot_save_says_it_is_paused() -> None:
    t = hearts_table(phase=Phase.RUNNING, seed=99)
    t.state = Hearts.create(4, {}, seed=5)
    assert "cannot save" not in renderers.table_message(t).text()
    t.paused = PAUSED
    assert PAUSED in renderers.table_message(t).text()


@pytest.mark.parametrize("lowest_wins", [False, True])
def test_standings_of_a_game_ended_early_rank_as_the_games_spec_says(lowest_wins: bool, monkeypatch) -> None:
    """The places of a table ended early are the engine's ranking with the spec's ``lowest_wins``:
    no renderer keeps its own copy of the rule (issue 30)."""
    import dataclasses
    from types import SimpleNamespace

    import engine
    from engine import core

    spec = engine.get("tricks")
    monkeypatch.setitem(core._REGISTRY, "tricks", dataclasses.replace(spec, lowest_wins=lowest_wins))
    seats = [Seat(None, f"P{i}") for i in range(4)]
    t = Table(id="ABC234", game="tricks", options=spec.game.read_options({}), speed="normal", guild_id=1,
              channel_id=2, host_id=None, seats=seats, phase=Phase.FINISHED, seed=7)
    t.state = SimpleNamespace(is_over=False, public_view=lambda: {"scores": [3, 1, 1, 0]})
    rows = renderers.renderer_for("tricks").standings(t)
    assert rows == ([(1, 3, 0), (2, 1, 1), (2, 2, 1), (4, 0, 3)] if lowest_wins
                    else [(1, 0, 3), (2, 1, 1), (2, 2, 1), (4, 3, 0)])


def test_the_recent_lines_are_the_last_of_the_whole_rounds_lines_clock_notes_included() -> None:
    """The table message draws only its newest events' sentences (a round's events are a whole hand
    of plays): its Recent lines are the last five of every sentence of the round, clock notes in
    place (after or instead of their event's line), at every step of a hand."""
    import random

    t = hearts_table(phase=Phase.RUNNING, seed=99)
    t.state = Hearts.create(4, Hearts.read_options({}), seed=7)
    r = renderers.renderer_for("hearts")
    rng = random.Random(7)
    checked = 0
    while not t.state.is_over and checked < 80:
        seat = t.state.to_act()[0]
        t.recent += [e for e in t.state.apply(seat, t.state.random_action(seat, rng)) if e.to is None]
        events = r.current_events(t)
        plays = [e for e in events if e.kind == "play"]
        notes = [(plays[-1], "⏰ a note after the newest play", False)] if plays else []
        if len(plays) > 3:
            notes += [(plays[-3], "⏰ instead of an older play", True), (plays[0], "⏰ after the first", False)]
        with render.clock_notes(notes):
            whole = render.noted(events, [r.event_text(t, e) for e in events])[-render.RECENT_LINES:]
            assert r.recent_lines(t) == whole
        checked += 1
    assert checked == 80
