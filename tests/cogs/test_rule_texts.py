"""What a table and `/game rules` say applies to the table's own rules (issue 13 items 9 and 10):
a Hearts `mcgill` table shows no hearts-broken state and the rules text describes both rule sets;
The Great Dalmuti says 4 to 8 players in the lobby, in `/game rules` and in its rules text."""

from __future__ import annotations

import random

from cogs.table import renderers
from games.dalmuti.rules import Dalmuti
from games.hearts.rules import Hearts
from tables.table import Phase, Seat, Table
from tests.cogs.conftest import Harness


def hearts_table(rules: str) -> Table:
    t = Table(id="ABC234", game="hearts", options=Hearts.read_options({"rules": rules}), speed="normal",
              guild_id=1, channel_id=2, host_id=10, phase=Phase.RUNNING, seed=1,
              seats=[Seat(10, "Ali"), Seat(11, "Bea"), Seat(12, "Cy"), Seat(13, "Dee")])
    g = Hearts.create(4, {"rules": rules}, seed=4)
    rng = random.Random(4)
    for _ in range(12):  # past any passing, into the first tricks
        seat = g.to_act()[0]
        g.apply(seat, g.random_action(seat, rng))
    t.state = g
    return t


def test_a_mcgill_table_shows_no_hearts_broken_state() -> None:
    classic = renderers.table_message(hearts_table("classic")).text()
    mcgill = renderers.table_message(hearts_table("mcgill")).text()
    assert "♥ not broken yet" in classic or "♥ broken" in classic
    assert "broken" not in mcgill and "/13" in mcgill


async def test_hearts_rules_describe_each_rule_set(h: Harness) -> None:
    i = h.inter(h.stranger)
    await h.cog.game_rules.callback(h.cog, i, game="hearts")
    text = i.last.text
    classic, mcgill = text.index("`classic`"), text.index("`mcgill`")
    # Passing and hearts broken are told as classic rules, and mcgill says it has neither.
    assert "pass 3 cards" in text[classic:mcgill] and "hearts cannot be led" in text[classic:mcgill]
    assert "no passing" in text[mcgill:] and "no hearts-broken rule" in text[mcgill:]
    assert text.index("pass 3 cards") > classic


async def test_dalmuti_says_four_to_eight_players_everywhere(h: Harness) -> None:
    assert (Dalmuti.min_players, Dalmuti.max_players) == (4, 8)
    i = h.inter(h.alice)
    await h.cog.game_new.callback(h.cog, i, game="dalmuti", options=None, speed="normal")
    lobby = i.original.text
    i = h.inter(h.stranger)
    await h.cog.game_rules.callback(h.cog, i, game="dalmuti")
    rules = i.last.text
    assert "4–8 players" in lobby and "4–8 players" in rules and "4 to 8 players" in rules
    for text in (lobby, rules, Dalmuti.rules_text):
        assert "5 to 8" not in text and "5–8" not in text and "4 allowed" not in text
