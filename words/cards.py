"""Standard cards named in the words of each language (issue 31): ``Pik-Dame``, ``dame de pique``,
``黑桃Q``; and a card typed in a person's language read back (``dame pik``, ``q♠``, ``qs``).

Pure (no discord).  A card's *label* (``Q♠``, on buttons and in the table's lines) keeps the
international indices J Q K A in every language, as the card pictures and the card emoji do (one
set for every language, as the French-suited decks sold in each of these countries print them);
its *name*, where a card is said in words (a menu's second line, ``/play``'s suggestions, a hint),
is the language's.  Typing accepts the language's names and letters (German B D K A, French V D R A,
Polish W D K A) beside the English ones.
"""

from __future__ import annotations

import re

from engine.cards import RANK_NAMES, RANKS, SUIT_NAMES, SUIT_SYMBOLS, Card, CardError, card

#: rank code -> the rank's name (cards 2–10 by their number where the language says them so).
_RANKS: dict[str, dict[str, str]] = {
    "de": {"2": "Zwei", "3": "Drei", "4": "Vier", "5": "Fünf", "6": "Sechs", "7": "Sieben", "8": "Acht",
           "9": "Neun", "T": "Zehn", "J": "Bube", "Q": "Dame", "K": "König", "A": "Ass"},
    "fr": {"2": "deux", "3": "trois", "4": "quatre", "5": "cinq", "6": "six", "7": "sept", "8": "huit",
           "9": "neuf", "T": "dix", "J": "valet", "Q": "dame", "K": "roi", "A": "as"},
    "es": {"2": "dos", "3": "tres", "4": "cuatro", "5": "cinco", "6": "seis", "7": "siete", "8": "ocho",
           "9": "nueve", "T": "diez", "J": "jota", "Q": "reina", "K": "rey", "A": "as"},
    "pt_BR": {"2": "dois", "3": "três", "4": "quatro", "5": "cinco", "6": "seis", "7": "sete", "8": "oito",
              "9": "nove", "T": "dez", "J": "valete", "Q": "dama", "K": "rei", "A": "ás"},
    "pl": {"2": "dwójka", "3": "trójka", "4": "czwórka", "5": "piątka", "6": "szóstka", "7": "siódemka",
           "8": "ósemka", "9": "dziewiątka", "T": "dziesiątka", "J": "walet", "Q": "dama", "K": "król", "A": "as"},
    "zh_CN": {**{r: r for r in "23456789"}, "T": "10", "J": "J", "Q": "Q", "K": "K", "A": "A"},
    "ja": {**{r: r for r in "23456789"}, "T": "10", "J": "ジャック", "Q": "クイーン", "K": "キング", "A": "エース"},
}
#: suit code -> the suit's name as a card's name uses it.
_SUITS: dict[str, dict[str, str]] = {
    "de": {"C": "Kreuz", "D": "Karo", "H": "Herz", "S": "Pik"},
    "fr": {"C": "trèfle", "D": "carreau", "H": "cœur", "S": "pique"},
    "es": {"C": "tréboles", "D": "diamantes", "H": "corazones", "S": "picas"},
    "pt_BR": {"C": "paus", "D": "ouros", "H": "copas", "S": "espadas"},
    "pl": {"C": "trefl", "D": "karo", "H": "kier", "S": "pik"},
    "zh_CN": {"C": "梅花", "D": "方块", "H": "红心", "S": "黑桃"},
    "ja": {"C": "クラブ", "D": "ダイヤ", "H": "ハート", "S": "スペード"},
}
#: The jokers (red, black) in each language: 大王 and 小王 in Chinese, as the Finding Friends rules say.
_JOKERS = {"de": ("Roter Joker", "Schwarzer Joker"), "fr": ("Joker rouge", "Joker noir"),
           "es": ("Comodín rojo", "Comodín negro"), "pt_BR": ("Curinga vermelho", "Curinga preto"),
           "pl": ("Czerwony joker", "Czarny joker"), "zh_CN": ("大王", "小王"), "ja": ("赤ジョーカー", "黒ジョーカー")}
#: How a name is put together: rank and suit in the language's order.
_NAME = {"de": "{suit}-{rank}", "fr": "{rank} de {suit}", "es": "{rank} de {suit}", "pt_BR": "{rank} de {suit}",
         "pl": "{rank} {suit}", "zh_CN": "{suit}{rank}", "ja": "{suit}の{rank}"}
#: Other words a person may type for a rank or a suit (letters on the language's own decks, plurals).
_MORE_RANKS: dict[str, dict[str, str]] = {
    "de": {"b": "J", "d": "Q", "as": "A", "koenig": "K", "10": "T"},
    "fr": {"v": "J", "d": "Q", "r": "K", "10": "T"},
    "es": {"j": "J", "q": "Q", "k": "K", "a": "A", "10": "T"},
    "pt_BR": {"v": "J", "d": "Q", "r": "K", "as": "A", "10": "T"},
    "pl": {"w": "J", "d": "Q", "k": "K", "a": "A", "10": "T"},
    "zh_CN": {"10": "T"}, "ja": {"10": "T"},
}
_MORE_SUITS: dict[str, dict[str, str]] = {
    "fr": {"coeur": "H", "trefle": "C", "piques": "S", "cœurs": "H", "carreaux": "D", "trèfles": "C"},
    "es": {"pica": "S", "corazón": "H", "corazon": "H", "diamante": "D", "trébol": "C", "trebol": "C"},
    "pt_BR": {"espada": "S", "copa": "H", "ouro": "D", "pau": "C"},
    "pl": {"piki": "S", "kiery": "H", "trefle": "C", "kara": "D"},
    "zh_CN": {"红桃": "H", "方片": "D", "草花": "C"},
}


def rank_name(rank: str, locale: str) -> str:
    return _RANKS.get(locale, {}).get(rank) or RANK_NAMES[rank]


def suit_name(suit: str, locale: str) -> str:
    """A suit's name (``Pik``, ``pique``, ``黑桃``; English: ``spades``)."""
    return _SUITS.get(locale, {}).get(suit) or SUIT_NAMES[suit]


def label(c: Card, locale: str) -> str:
    """A standard card's label in ``locale``: ``Q♠`` in every language (the indices on the cards), a
    joker in words (``Red joker``, ``Roter Joker``, ``大王``)."""
    if c.suit == "~" and locale in _JOKERS:
        return _JOKERS[locale][0 if c.rank == "R" else 1]
    return c.label


def name(c: object, locale: str) -> str | None:
    """A card's name in ``locale`` (``Pik-Dame``); a game's own card its own ``name`` (or None)."""
    own = getattr(c, "name", None)
    if isinstance(c, Card) and c.suit == "~" and locale in _JOKERS:
        return label(c, locale)
    if not isinstance(c, Card) or c.suit not in SUIT_NAMES or locale not in _NAME:
        return own if isinstance(own, str) else None
    return _NAME[locale].format(rank=rank_name(c.rank, locale), suit=suit_name(c.suit, locale))


def _vocabulary(locale: str) -> tuple[dict[str, str], dict[str, str]]:
    ranks = {RANK_NAMES[r]: r for r in RANKS} | {r.lower(): r for r in RANKS} | {"10": "T", "ace": "A"}
    suits = {SUIT_NAMES[s]: s for s in SUIT_NAMES} | {SUIT_NAMES[s][:-1]: s for s in SUIT_NAMES}
    suits |= {sym: s for s, sym in SUIT_SYMBOLS.items()} | {"♧": "C", "♢": "D", "♡": "H", "♤": "S"}
    ranks |= {v.lower(): k for k, v in _RANKS.get(locale, {}).items()} | _MORE_RANKS.get(locale, {})
    suits |= {v.lower(): k for k, v in _SUITS.get(locale, {}).items()} | _MORE_SUITS.get(locale, {})
    return ranks, suits


_SPLIT = re.compile(r"[\s\-,]+|(?<=[^\s♠♥♦♣♤♡♢♧])(?=[♠♥♦♣♤♡♢♧])|(?<=[♠♥♦♣♤♡♢♧])(?=\S)")


def _tokens(text: str) -> list[str]:
    t = text.strip().lower().replace("\ufe0f", "").replace(" of ", " ").replace(" de ", " ").replace("の", " ")
    for suit in ("黑桃", "红心", "红桃", "方块", "方片", "梅花", "草花"):  # 黑桃Q: no space in Chinese
        t = t.replace(suit, f" {suit} ")
    return [w for w in _SPLIT.split(t) if w]


def read(text: str, locale: str) -> Card | None:
    """The standard card ``text`` names in ``locale`` or English (``dame pik``, ``Pik-Dame``, ``q♠``,
    ``qs``, ``黑桃Q``), or None."""
    try:
        return card(text)
    except CardError:
        pass
    ranks, suits = _vocabulary(locale)
    words = _tokens(text)
    if len(words) != 2:
        return None
    for r, s in (words, words[::-1]):
        if r in ranks and s in suits:
            return card(ranks[r] + suits[s])
    return None


def matches(c: object, typed: str, locale: str) -> bool:
    """Whether what was typed so far may name the standard card ``c``: the card itself, or each word
    the start of its rank's or suit's name (``dame p`` → every queen of spades)."""
    if not isinstance(c, Card) or c.suit not in SUIT_NAMES:
        return False
    if read(typed, locale) is c:
        return True
    ranks, suits = _vocabulary(locale)
    own = [w for w, r in ranks.items() if r == c.rank] + [w for w, s in suits.items() if s == c.suit]
    words = _tokens(typed)
    return bool(words) and all(any(w.startswith(t) for w in own) for t in words)


def join_cards(tokens: list[str], locale: str) -> list[str]:
    """Typed words with each card said in two words (``dame pik``) put back together as one."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if i + 1 < len(tokens) and read(tokens[i], locale) is None and read(f"{tokens[i]} {tokens[i + 1]}", locale):
            out.append(f"{tokens[i]} {tokens[i + 1]}")
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out
