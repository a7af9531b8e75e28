"""Table options: one way to set each (speed too), the table's own defaults, and plain words
wherever a person reads them (lobby, table footer, /game rules, autocomplete)."""

from __future__ import annotations

import pytest

import engine
from cogs.table import options, renderers
from cogs.table.autocomplete import option_choices
from games.tricks.rules import Tricks
from tables.table import Phase, Seat, Table
from tests import wargame
from tests.cogs.conftest import Harness
from tests.cogs.test_refusals import refused


async def open_table(h: Harness, game: str, text: str | None, speed: str | None = None) -> tuple[object, object]:
    i = h.inter(h.alice)
    await h.cog.game_new.callback(h.cog, i, game=game, options=text, speed=speed)
    return i, h.runtime.find(1, channel_id=h.channel.id)


async def test_speed_can_be_given_inside_options(h: Harness) -> None:
    _, table = await open_table(h, "hearts", "target=40 speed=blitz")
    assert table is not None and table.speed == "blitz" and table.options["target"] == 40
    assert "speed" not in table.options  # the runtime keeps speed on its own
    assert "blitz timers" in h.table_message(table).text


async def test_the_separate_speed_parameter_still_works(h: Harness) -> None:
    _, table = await open_table(h, "hearts", None, speed="relaxed")
    assert table is not None and table.speed == "relaxed"


async def test_speed_given_twice_differently_is_refused_and_nothing_is_created(h: Harness) -> None:
    i, table = await open_table(h, "hearts", "speed=blitz", speed="relaxed")
    refused(i, "Speed given twice")
    assert table is None and h.runtime.tables == {}
    i, table = await open_table(h, "hearts", "speed=fast")
    refused(i, "speed must be one of: blitz, normal, relaxed, untimed")
    assert table is None
    _, table = await open_table(h, "hearts", "speed=blitz", speed="blitz")  # the same twice is fine
    assert table is not None and table.speed == "blitz"


async def test_a_table_is_ranked_unless_its_host_says_casual_and_the_lobby_says_which(h: Harness) -> None:
    _, ranked = await open_table(h, "hearts", None)
    assert ranked is not None and ranked.ranked and "rating" not in ranked.options
    assert "Ranked: the result changes ratings" in h.table_message(ranked).text
    await h.runtime.add_ai(ranked.id, h.alice.id, 1)
    await h.settle()
    assert not ranked.rated and "Casual: an AI player is seated" in h.table_message(ranked).text
    await h.runtime.end(ranked.id, h.alice.id)
    _, casual = await open_table(h, "hearts", "rating=casual")
    assert casual is not None and not casual.ranked and not casual.rated
    assert "Casual: no rating changes." in h.table_message(casual).text


async def test_a_server_without_a_leaderboard_opens_casual_tables_and_refuses_ranked_ones(h: Harness) -> None:
    await h.runtime.servers.change(1, h.alice.id, 0.0, leaderboard=False)
    i, table = await open_table(h, "hearts", "rating=ranked")
    refused(i, "This server's games do not count for the leaderboard")
    assert table is None and h.runtime.tables == {}
    _, table = await open_table(h, "hearts", None)
    assert table is not None and not table.ranked


async def test_a_tricks_table_plays_to_50_unless_told_otherwise(h: Harness) -> None:
    _, table = await open_table(h, "tricks", None)
    assert table is not None and table.options["target"] == 50
    # The table's own default: the lobby says only what differs from it, and it does not.
    assert "first to" not in h.table_message(table).text and "Standard rules." in h.table_message(table).text
    # The engine's default (the program arena's, as in the seed) stays 1000.
    assert Tricks.read_options({})["target"] == 1000
    assert options.spec("tricks")[0].default == 50


async def test_a_tricks_table_takes_the_target_it_is_given(h: Harness) -> None:
    _, table = await open_table(h, "tricks", "target=1000")
    assert table is not None and table.options["target"] == 1000


@pytest.mark.parametrize("game", sorted(engine.games()))
async def test_rules_list_exactly_what_options_accepts(h: Harness, game: str) -> None:
    i = h.inter(h.stranger)
    await h.cog.game_rules.callback(h.cog, i, game=game)
    text = i.last.text
    assert i.last.ephemeral
    g = engine.get(game).game
    names = [o.name for o in g.options_spec] + (["ai"] if "strong" in engine.levels(game) else []) \
        + (["ahead"] if engine.get(game).play_ahead else []) + ["rating", "speed"]
    # What a host types stands apart, in one field; the rest is words.
    (how,) = [f for f in i.last.embed.fields if f.name == "How to set it"]
    assert options.accepted_line(game) in how.value
    words = "\n".join(f.value for f in i.last.embed.fields if f.name != "How to set it")
    for opt in options.spec(game):
        w = options.words(game, opt.name)
        assert w.about[1:] in words and f"{opt.name}=" not in words
        for v in opt.choices:
            assert (w.values.get(v) or w.say(v)) in words
        if not opt.choices:
            assert f"from {options.number(opt.low)} to {options.number(opt.high)}" in words
    assert [o.name for o in options.spec(game)] == names
    # No path in the repository (nothing a person in Discord can open) and no link unless configured.
    assert "docs/" not in text and ".md" not in text and "http" not in text and "../shared" not in text


@pytest.mark.parametrize("game", sorted(engine.games()))
async def test_every_option_of_every_game_has_plain_words(game: str) -> None:
    for opt in options.spec(game):
        w = options.words(game, opt.name)  # KeyError if an option was added without words
        assert w.about
        samples = list(opt.choices) or [opt.default, opt.low, opt.high]
        for v in samples:
            said = options.say(game, opt.name, v)
            assert said and "_" not in said, (game, opt.name, v, said)


def test_the_settings_read_in_plain_words_in_a_sensible_order() -> None:
    hearts = options.settings_line("hearts", {"rules": "classic", "target": 100, "moon": "others_plus_26"}, "normal")
    assert hearts == "classic rules (pass 3, hearts must break) · game to 100 · moon: the others get 26 · normal timers"
    koth = options.settings_line("koth", engine.get("koth").game.read_options({}), "blitz")
    assert "dead hand ×2" in koth and "dead_hand_multiplier" not in koth and koth.endswith("blitz timers (half time)")
    assert "a card every 2 seconds" in koth
    # Numbers ascending, speeds fastest first.
    deal_rate = next(o for o in options.spec("koth") if o.name == "deal_rate")
    assert options.values(deal_rate) == [0.5, 1, 2, 3]
    assert options.allowed(deal_rate) == "deal_rate=0.5|1|2|3"
    assert options.values(options.SPEED) == ["blitz", "normal", "relaxed", "untimed"]
    assert options.say("dalmuti", "hands", 1) == "1 hand" and options.say("dalmuti", "hands", 3) == "3 hands"
    assert options.say("siege", "max_rounds", 0) == "no round limit"


def test_the_footer_of_a_running_table_words_its_options() -> None:
    g = engine.get("koth").game
    seats = [Seat(10, "Ali"), *(Seat(None, f"AI {i}", is_ai=True) for i in range(1, 5))]
    t = Table(id="ABC234", game="koth", options=g.read_options({"dead_hand_multiplier": 3}), speed="normal",
              guild_id=1, channel_id=2, host_id=10, seats=seats, phase=Phase.RUNNING, seed=1)
    t.state = g.create(5, t.options, seed=1)
    footer = renderers.table_message(t).embed.footer.text
    # Only what differs from the defaults: the dead hand, not the normal timers.
    assert "dead hand ×3" in footer and "timers" not in footer and "dead hand ×2" not in footer
    assert "dead_hand_multiplier" not in footer and "called_copy" not in footer


def test_autocomplete_offers_speed_and_says_what_a_value_means() -> None:
    offered = option_choices("koth", "")
    values = [c.value for c in offered]
    assert "dead_hand_multiplier=2" in values
    named = {c.value: c.name for c in offered}
    assert "dead hand ×2" in named["dead_hand_multiplier=2"]
    more = [c.value for c in option_choices("hearts", "rules=mcgill target=50 moon=others_plus_26 ")]
    speeds = (f"speed={s}" for s in ("blitz", "normal", "relaxed", "untimed"))
    assert more == [f"rules=mcgill target=50 moon=others_plus_26 {o}"
                    for o in ("ai=normal", "ai=strong", "ahead=on", "ahead=off", "rating=ranked", "rating=casual",
                              *speeds)]
    assert any(c.value.startswith("ai=") for c in option_choices("siege", ""))
    with wargame.registered():  # a game without a strong AI offers no level
        assert not any(c.value.startswith("ai=") for c in option_choices("war", ""))
    tricks = [c.value for c in option_choices("tricks", "t")]
    assert tricks[:4] == ["target=25", "target=50", "target=100", "target=1000"]


def test_autocomplete_offers_no_options_before_a_game_is_chosen() -> None:
    """No game stands in for the one not yet chosen (issue 30)."""
    assert option_choices(None, "") == [] and option_choices("", "t") == []


def test_unworded_option_falls_back_to_its_name_and_value() -> None:
    assert options.say("hearts", "colour", "red") == "colour red"
