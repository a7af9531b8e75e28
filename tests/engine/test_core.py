import json

import pytest

import engine
from engine.cards import card, cards
from engine.core import Action, Event, IllegalAction, Option, replay
from games.hearts.rules import Hearts


def test_action_codes_round_trip():
    a = Action("pass", cards("2C 3D QS"))
    assert a.code == "pass 2C 3D QS"
    assert Action.parse(a.code) == a
    assert Action.parse("play ~R") == Action("play", (card("~R"),))
    assert Action.parse("attack 1 2") == Action("attack", (), ("1", "2"))
    with pytest.raises(IllegalAction):
        Action.parse("   ")


def test_actions_and_events_are_immutable_values():
    a = Action("play", (card("QS"),))
    with pytest.raises(AttributeError):
        a.kind = "pass"
    e = Event("trick", 2, (0, 13, card("QS")))
    assert e.code == "trick 2 0 13 QS"
    assert e.visible_to(1) and not Event("dealt", 1, (), 1).visible_to(2)
    assert hash(a) == hash(Action("play", (card("QS"),)))


def test_options_fill_defaults_and_refuse_bad_values_with_a_sentence():
    assert Hearts.read_options(None) == {"rules": "classic", "target": 100, "moon": "others_plus_26"}
    assert Hearts.read_options({"rules": "McGill", "target": "50"})["rules"] == "mcgill"
    with pytest.raises(ValueError, match="rules must be one of"):
        Hearts.read_options({"rules": "spades"})
    with pytest.raises(ValueError, match="between"):
        Hearts.read_options({"target": 0})
    with pytest.raises(ValueError, match="whole number"):
        Hearts.read_options({"target": "lots"})
    with pytest.raises(ValueError, match="Unknown option 'trumps'"):
        Hearts.read_options({"trumps": "spades"})
    assert Option("n", 3, low=1, high=5).read("4") == 4


def test_registry_knows_hearts_and_its_ai():
    entry = engine.get("hearts")
    assert entry.game is Hearts and "hearts" in engine.games()
    with pytest.raises(KeyError, match="Unknown game"):
        engine.get("poker")


def test_people_may_type_cards_forgivingly():
    g = Hearts.create(4, {"rules": "classic"}, seed=3)
    seat = 0
    hand = g.hands[seat]
    typed = " ".join(c.label for c in hand[:3])  # "Q♠ 10♥ 2♣" style
    assert g.parse_action(seat, typed) == Action("pass", tuple(hand[:3]))
    assert g.parse_action(seat, "pass " + " ".join(c.code.lower() for c in hand[:3])).cards == tuple(hand[:3])
    with pytest.raises(IllegalAction, match="exactly 3"):
        g.parse_action(seat, hand[0].code)
    with pytest.raises(IllegalAction, match="can't read"):
        g.parse_action(seat, "the good ones")


def test_replay_rebuilds_a_game_from_its_log_and_a_deal_can_be_given():
    g = Hearts.create(4, {"rules": "mcgill"}, seed=11)
    log = []
    for _ in range(20):
        s = g.to_act()[0]
        a = g.legal_actions(s)[0]
        g.apply(s, a)
        log.append((s, a.code))
    again, events = replay("hearts", 4, {"rules": "mcgill"}, 11, log)
    assert again.to_dict() == g.to_dict()
    assert [e.kind for e in events].count("play") == 20
    deal = [cards(" ".join(r + s for r in "23456789TJQKA")) for s in "CDHS"]
    fixed = Hearts.create(4, {"rules": "mcgill"}, seed=99, deal=deal)
    assert fixed.hands[2] == list(deal[2])
    with pytest.raises(ValueError):
        Hearts.create(4, None, seed=1, deal=deal[:3])


def test_serialised_state_is_json_safe():
    g = Hearts.create(4, None, seed=5)
    assert Hearts.from_dict(json.loads(json.dumps(g.to_dict()))).to_dict() == g.to_dict()


def test_a_pick_of_the_wrong_size_says_how_many_in_words():
    from engine.core import Decision

    class OneCard(Hearts):
        def decision(self, seat):
            return Decision(seat, "give", pick=1, cards=tuple(self.hands[seat]))

    g = OneCard.create(4, {}, seed=1)
    two = " ".join(c.code for c in g.hands[0][:2])
    with pytest.raises(IllegalAction, match=r"^Choose exactly 1 card\.$"):
        g.parse_action(0, two)
    h = Hearts.create(4, {}, seed=1)  # the classic pass: 3 cards
    with pytest.raises(IllegalAction, match=r"^Choose exactly 3 cards\.$"):
        h.parse_action(0, " ".join(c.code for c in h.hands[0][:2]))


def test_shuffled_is_the_sort_by_random_keys_the_stored_deals_were_made_with() -> None:
    """engine.core.shuffled (issue 35: faster deals) gives exactly ``sorted(items, key=lambda _: rnd())``
    for the same generator, so every stored game's deal stays the same."""
    import random

    from engine.core import shuffled

    items = list(range(96)) + [5] * 10
    for seed in range(30):
        a, b = random.Random(seed), random.Random(seed)
        assert shuffled(items, a.random) == sorted(items, key=lambda _: b.random())
        assert a.random() == b.random()  # the same number of draws
    assert shuffled((), random.Random(0).random) == []
