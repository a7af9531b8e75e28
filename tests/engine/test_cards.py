import copy
import pickle
import random

import pytest

import engine.cards
from engine.cards import ALL_CARDS, BLACK_JOKER, RED_JOKER, CardError, card, cards, deck, shuffled
from tools import native


@pytest.mark.parametrize(
    "text",
    ["10h", "Th", "10♥", "ten of hearts", "TH", "th", "♥10", "10 of hearts", "Ten of Hearts", "10♥️", "h10", "10H"],
)
def test_forgiving_parser_reads_every_spelling_of_ten_of_hearts(text):
    assert card(text) is card("TH")


def test_codes_are_rank_then_suit_and_jokers_are_tilde():
    assert [c.code for c in ALL_CARDS[:3]] == ["2C", "3C", "4C"]
    assert ALL_CARDS[51].code == "AS"
    assert BLACK_JOKER.code == "~B" and RED_JOKER.code == "~R"
    assert card("~b") is BLACK_JOKER and card("red joker") is RED_JOKER


def test_symbol_formatter_shows_suits_as_symbols_and_ten_as_10():
    assert card("QS").label == "Q♠"
    assert card("TH").label == "10♥"
    assert card("2c").label == "2♣"
    assert card("AD").label == "A♦"
    assert card("queen of spades").name == "queen of spades"


@pytest.mark.parametrize("bad", ["", "1H", "10X", "ZZ", "eleven of hearts", "QQ", "10", "1S"])
def test_unreadable_text_raises_a_readable_error(bad):
    with pytest.raises(CardError) as e:
        card(bad)
    assert "card" in str(e.value)


def test_several_cards_separated_by_spaces_commas_or_words():
    assert cards("2c 3d QS") == (card("2C"), card("3D"), card("QS"))
    assert cards("two of clubs, queen of spades") == (card("2C"), card("QS"))
    assert cards("ten of hearts queen of spades") == (card("TH"), card("QS"))
    assert cards("red joker 2c") == (RED_JOKER, card("2C"))


def test_decks_plain_with_jokers_and_doubled():
    assert len(deck()) == 52 and len(set(deck())) == 52
    assert len(deck(jokers=True)) == 54
    d = deck(jokers=True, copies=2)
    assert len(d) == 108 and d.count(RED_JOKER) == 2


def test_shuffle_uses_the_given_generator_only():
    a = shuffled(deck(), random.Random(7))
    b = shuffled(deck(), random.Random(7))
    assert a == b and a != deck()


@pytest.mark.parametrize("build", ["engine", "source"])
def test_cards_are_immutable_and_interned(build):
    """Whichever build: engine.cards may be compiled (a native class, tools/native.py); the source
    module is imported on its own too, so the pure class is checked wherever the tests run."""
    mod = engine.cards if build == "engine" else native.pure("cards")
    c = mod.card("QS")
    for name, value in (("rank", "K"), ("suit", "H"), ("code", "KH"), ("value", 13), ("index", 0), ("new", 1)):
        with pytest.raises(AttributeError, match="immutable"):
            setattr(c, name, value)
        with pytest.raises(AttributeError):
            delattr(c, name)
    # Around __setattr__: no instance dict to put anything in (the native class refuses outright).
    with pytest.raises((AttributeError, TypeError)):
        object.__setattr__(c, "new", 1)
    assert (c.rank, c.suit, c.code, c.value, c.index) == ("Q", "S", "QS", 12, 49)
    assert mod.card("Q♠") is c
    assert pickle.loads(pickle.dumps(c)) is c and copy.deepcopy(c) is c and copy.copy(c) is c
