"""The words King of the Hill's screens say of suits, ranks and cards (docs/rules.md §4), in the language
being drawn, and the trump ordering a view stands for.  Pure: games/koth/screens.py draws with them."""

from __future__ import annotations

import words
import words.cards
from engine.cards import SUIT_SYMBOLS, Card
from engine.core import View
from games.koth.trump import TRUMPS, Trump
from words import Speaker
from words.cards import suit_name

_ = Speaker("koth")  # (the screens' words, in the language being drawn)

SUIT_WORDS = {"C": "Clubs", "D": "Diamonds", "H": "Hearts", "S": "Spades"}
RANK_WORDS = {"T": "10"}


def rank_text(rank: str | None) -> str:
    return RANK_WORDS.get(rank or "", rank or "?")


def trump_of(view: View) -> Trump:
    return Trump(view.get("trump_suit"), view.get("trump_rank") or "2")


def suit_word(suit: str) -> str:
    """A suit's name in the language being drawn (``Clubs``, ``Kreuz``, ``梅花``)."""
    said = suit_name(suit, words.spoken())
    return SUIT_WORDS[suit] if words.spoken() == words.ENGLISH else said[:1].upper() + said[1:]


def trumps_word(suit: str) -> str:
    """``♣ clubs``: the trump suit inside a sentence."""
    said = SUIT_WORDS[suit].lower() if words.spoken() == words.ENGLISH else suit_name(suit, words.spoken())
    return f"{SUIT_SYMBOLS[suit]} {said}"


def suit_title(suit: str) -> str:
    """A group name for an effective suit."""
    return _("Trumps") if suit == TRUMPS else f"{SUIT_SYMBOLS[suit]} {suit_word(suit)}"


def card_name(c: Card) -> str:
    """A card said in words in the language being drawn (``queen of spades``, ``Pik-Dame``)."""
    return words.cards.name(c, words.spoken()) or str(getattr(c, "name", c))


def progress_bar(done: int, total: int, width: int = 10) -> str:
    full = round(width * done / total) if total else 0
    return "▰" * full + "▱" * (width - full)
