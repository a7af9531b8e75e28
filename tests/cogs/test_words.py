"""Plain words: counts agree with their nouns, nothing promises a next hand after the last one, a
confirmation says what the player did (and never ✅ on a fight they lost), /hand after the game."""

from __future__ import annotations

from types import SimpleNamespace

import engine
from cogs import renderers
from engine.core import Event, Outcome
from engine.dalmuti import Dalmuti
from engine.siege import BY_CODE, Siege
from tables.table import Phase, Seat, Table
from tests.cogs.conftest import Harness
from tests.cogs.test_refusals import refused


def table_of(game: str, n: int, state=None, phase: Phase = Phase.RUNNING, **opts) -> Table:
    g = engine.get(game).game
    seats = [Seat(10, "Ali"), Seat(11, "Bea"), *(Seat(None, f"AI {i}", is_ai=True) for i in range(1, n - 1))]
    t = Table(id="ABC234", game=game, options=g.read_options(opts), speed="normal", guild_id=1, channel_id=2,
              host_id=10, seats=seats, phase=phase, seed=1)
    t.state = state
    return t


def test_one_card_is_one_card_in_every_seat_line() -> None:
    pvs = {
        "hearts": {"scores": [0] * 4, "hand_points": [0] * 4, "cards_left": [1, 2, 1, 1], "phase": "play", "turn": 0},
        "tricks": {"scores": [0] * 4, "hand_tricks": [1, 0, 0, 0], "cards_left": [1, 2, 1, 1], "phase": "play",
                   "turn": 0},
        "dalmuti": {"ranking": [0, 1, 2, 3], "titles": ["Greater Dalmuti", "Lesser Dalmuti", "Lesser Peon",
                                                        "Greater Peon"],
                    "cards_left": [1, 2, 1, 1], "scores": [1, 0, 0, 0], "passed": [False, True, False, False],
                    "out": [0] * 4, "phase": "play", "turn": 0, "current": {"cards": ["D5"], "by": 2, "count": 1}},
        "koth": {"ranks": ["2"] * 5, "cards_left": [1, 2, 1, 1, 1], "points": [0] * 5, "phase": "play", "turn": 0},
    }
    for game, pv in pvs.items():
        n = len(pv["cards_left"])
        t = table_of(game, n)
        t.state = SimpleNamespace(public_view=lambda pv=pv: pv, to_act=lambda: ())
        t.to_act = lambda: ()  # type: ignore[method-assign]
        text = renderers.renderer_for(game).seat_lines(t, pv)
        assert "1 card" in text and "1 cards" not in text and "2 cards" in text, (game, text)


def test_no_next_hand_after_the_last_hand_of_dalmuti() -> None:
    r = renderers.renderer_for("dalmuti")
    out = Event("out", 0, (1,))
    play = Event("play", 0, (Dalmuti.create(5, {}, seed=3).all_cards()[0],))
    last = table_of("dalmuti", 5, Dalmuti.create(5, {"hands": 1}, seed=3), hands=1)
    assert r.event_text(last, out) == "🏁 Ali is out 1st."
    assert "next hand" not in r.ack(last, 0, [play, out])
    more = table_of("dalmuti", 5, Dalmuti.create(5, {"hands": 2}, seed=3), hands=2)
    assert r.event_text(more, out) == "🏁 Ali is out 1st — next hand: Greater Dalmuti."
    assert "next hand you are Greater Dalmuti" in r.ack(more, 0, [play, out])
    # Going out ended the game (the hand and the game end in the same move): no next hand either.
    assert "next hand" not in r.ack(more, 0, [play, out, Event("hand_end", None, ()), Event("game_end", None, ())])
    # Going out ended a hand that was not the last: the next hand is real.
    assert "next hand you are" in r.ack(more, 0, [play, out, Event("hand_end", None, ()),
                                                  Event("hand_start", None, (1, 0))])


def siege_table(state: Siege | None = None) -> Table:
    return table_of("siege", 4, state if state is not None else Siege.create(4, {}, seed=1))


def test_siege_confirms_what_was_done_not_the_step() -> None:
    r = renderers.renderer_for("siege")
    t = siege_table()
    queen = BY_CODE["QX"]
    # Starting a pile during the attack step ends that step too: the player hears about the pile.
    line = r.ack_line(t, 0, [Event("build", 0, ()), Event("start", 0, (queen, 1))])
    assert line == "✅ Blank Q starts a Queen pile in ①."
    assert r.ack_line(t, 0, [Event("build", 0, ())]) == "✅ You start building: no more attacks this turn."


def test_siege_fights_say_who_won_and_a_won_attack_spends_the_pile() -> None:
    r = renderers.renderer_for("siege")
    t = siege_table()
    five, six = BY_CODE["5X"], BY_CODE["6H"]
    attack = Event("attack", 0, (2, 1, 1, 4, 6))
    lost = r.ack_line(t, 0, [attack, Event("fight", 1, (0, five)), Event("discarded", None, (BY_CODE["QX"],))])
    assert lost == "⚔️ You lost the fight: Bea took 1 card."
    assert "✅" not in lost
    won = r.ack_line(t, 0, [attack, Event("fight", 0, (1, five, six)), Event("discarded", None, ())])
    assert won == "⚔️ You won the fight and took 2 cards; your pile ② was spent and discarded."


def test_siege_summary_counts_rounds_in_words() -> None:
    r = renderers.renderer_for("siege")
    kings = [["2H"], [], [], []]
    for rounds, words in ((2, "after 1 round:"), (4, "after 3 rounds:")):
        pv = {"round": rounds, "kings": kings, "winner": None, "suits": ["H", "S", "D", "C"]}
        t = table_of("siege", 4, phase=Phase.FINISHED)
        t.state = SimpleNamespace(public_view=lambda pv=pv: pv, is_over=True,
                                  outcome=lambda: Outcome.ranked([1, 0, 0, 0]))
        text = r.summary(t, [Event("game_end", None, (1, 0, 0, 0))]).text()
        assert words in text and "round(s)" not in text, text
        assert "🥇 Ali — 1 of 9 King pile cards" in text and "🥈 Bea — 0 of 9 King pile cards" in text


async def test_hand_after_the_game_says_it_is_over(h: Harness) -> None:
    table, msg = await h.running_table()
    i = h.inter(h.alice)
    await h.cog.game_end.callback(h.cog, i, id=table.id)
    await h.settle(2)
    assert table.phase == Phase.FINISHED
    for user in (h.alice, h.bob):
        i = h.inter(user)
        await h.cog.hand.callback(h.cog, i)
        refused(i, f"The game at table `{table.id}` is over", f"`/game replay id:{table.id}`")
        i = h.inter(user)
        await h.cog.play.callback(h.cog, i, cards="QS")
        refused(i, "is over")
    # The My hand button of the (finished) table message says the same.
    i = h.inter(h.bob)
    await h.cog.on_table_button(i, "hand", table.id)
    refused(i, "is over")
    # Someone who never sat there still hears that they have no table.
    i = h.inter(h.stranger)
    await h.cog.hand.callback(h.cog, i)
    refused(i, "not seated")
