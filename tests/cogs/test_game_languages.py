"""Every game's own words in every language (issue 31): each game's screens drawn along a seeded
playout in each supported locale (the table's and the person's) show none of the game's English
sentences — the detector is the game's own catalog: each msgid's literal pieces, looked for in every
view; the option words of /game rules read in the asker's language; a card named in words is the
language's (``Pik-Dame``), and /play's suggestions read a card typed in the person's language."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from functools import cache

import pytest

import words
from cogs.table import renderers  # noqa: F401  (every game's screens registered)
from engine.cards import card
from engine.core import Action, Decision, IllegalAction, refusal
from tables.live import TableError
from tests import wargame
from tests.cogs.screens_seen import playout
from tools import catalogs
from words import N_


@pytest.fixture(autouse=True)
def _war() -> Iterator[None]:
    """War (games/war/), not offered to users, is a registered game here like the five."""
    with wargame.registered():
        yield


LANGS = [lang for lang in words.LOCALES if lang != words.ENGLISH]
#: The games whose words have their own catalog (games/<name>/locale/): every registered domain.
GAMES = sorted(d for d in catalogs.domains() if d != words.DOMAIN)


@cache
def english_pieces(game: str) -> tuple[re.Pattern[str], ...]:
    """Every msgid of the game's catalog as a pattern (each placeholder any text), those whose own
    words are enough to tell English from another language (three words or more: "to beat" is also
    in sentences the game's catalog does not hold)."""
    pieces: set[str] = set()
    for m in catalogs.template(game):
        if not m.id:
            continue
        for msgid in (m.id if isinstance(m.id, tuple) else (m.id,)):
            parsed = list(string.Formatter().parse(msgid))
            literal = " ".join(text for text, _f, _s, _c in parsed)
            if len(re.findall(r"[A-Za-z]{2,}", literal)) >= 3:
                pieces.add(r"(?<!\w)" + "".join(re.escape(text) + (".+?" if field is not None else "")
                                   for text, field, _s, _c in parsed))
    return tuple(re.compile(p) for p in sorted(pieces))


def english_in(game: str, seen: list[tuple[str, str]]) -> list[str]:
    found = []
    for where, text in seen:
        for piece in english_pieces(game):
            m = piece.search(text)
            if m:
                line = next((ln for ln in text.splitlines() if m.group(0) in ln), text)
                found.append(f"{where}: {piece.pattern!r} in {line[:160]!r}")
    return found


def test_the_detector_knows_each_games_english() -> None:
    for game in GAMES:
        assert len(english_pieces(game)) >= 3, game
    seen = playout("hearts", 1)  # English: the detector must find the game's own sentences in it
    assert len(english_in("hearts", seen)) > 20


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game", GAMES)
def test_no_english_game_words_in_another_language(game: str, lang: str) -> None:
    seen = playout(game, 1, locale=lang)
    found = english_in(game, seen)
    assert not found, "\n".join([f"{game} in {lang}: {len(found)} English", *found[:20]])


def test_a_missing_translation_shows_as_english(monkeypatch: pytest.MonkeyPatch) -> None:
    """The detector at work: one Hearts sentence left untranslated in German is found on the screens."""
    translate = words.translate

    def forgetful(locale: str, msgid: str, /, **kw: object) -> str:
        if msgid == "{who} took the trick with {card} (+{points}).":
            return translate(words.ENGLISH, msgid, **kw)  # type: ignore[arg-type]
        return translate(locale, msgid, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(words, "translate", forgetful)
    found = english_in("hearts", playout("hearts", 1, locale="de"))
    assert found and all("took the trick with" in f for f in found), found[:5]


@cache
def refusals_along_a_playout(game: str, seed: int = 3, steps: int = 400) -> tuple[IllegalAction, ...]:
    """The rules' refusals of moves a person could try along a seeded playout: each card of their hand
    when it is not offered, a card they do not hold, words that name no card, another seat's move,
    a move out of turn."""
    import random

    import engine

    spec = engine.get(game)
    players, opts = spec.sample or (spec.game.min_players, {})
    state = spec.game.create(players, spec.game.read_options(dict(opts)), seed)
    rng, found = random.Random(seed), {}
    for _ in range(steps):
        if state.is_over:
            break
        due = state.to_act()
        for seat in range(players):
            d = state.decision(seat)
            offered = {a.code for a in d.actions} if d is not None else set()
            hand = list((state.view(seat) or {}).get("hand") or [])
            tries: list[Action | str] = [f"{d.kind if d else 'play'} {code}" for code in hand if code not in offered]
            tries += ["banana", "play 2C 3C 4C 5C", "frobnicate", "pass", "end", "attack 1 9", "swap 1 1"]
            for other in range(players):
                od = state.decision(other) if other != seat else None
                tries += list(od.actions[:2]) if od is not None else []
            for t in tries:
                why = refusal(state, seat, t)
                if why is not None:
                    found.setdefault((why.code, why.reason), why)
        seat = due[0]
        state.apply(seat, spec.ai().choose(state, seat, rng) if seat >= 0 else state.random_action(seat, rng))
    return tuple(found.values())


@pytest.mark.parametrize("game", GAMES)
def test_every_refusal_reads_in_the_persons_language(game: str) -> None:
    """A refused move's sentence, as the person who tried it reads it (``TableError.say``, what the cogs
    send): in each language, never the English one, none of the game's English in it, the cards
    in it named as the reader's deck names them; the English stays the rules' own (logs, programs)."""
    refused = refusals_along_a_playout(game)
    assert len(refused) >= 3, [e.reason for e in refused]
    for e in refused:
        assert TableError.of(e, game).say(words.ENGLISH) == e.reason == str(e)
    for lang in LANGS:
        said = [(f"refusal {e.code}: {e.reason}", TableError.of(e, game).say(lang)) for e in refused]
        english = [f"{where} -> {text!r}" for where, text in said if where.endswith(": " + text)]
        assert not english, f"{game} refusals in English for {lang} readers:\n" + "\n".join(english)
        found = english_in(game, said)
        assert not found, "\n".join([f"{game} in {lang}: {len(found)} English", *found[:20]])


@cache
def reasons_along_a_playout(game: str, seed: int = 5, steps: int = 300) -> tuple[str, ...]:
    """The reasons a hint would give for every legal move along a seeded playout, with the search's
    figures (a made-up mean per move: how the reason says what the search measured)."""
    import random

    import engine
    from engine.hints import explain

    spec = engine.get(game)
    players, opts = spec.sample or (spec.game.min_players, {})
    state = spec.game.create(players, spec.game.read_options(dict(opts)), seed)
    rng, found = random.Random(seed), {}
    for step in range(steps):
        if state.is_over:
            break
        seat = state.to_act()[0]
        d = state.decision(seat) if seat >= 0 else None
        if d is not None:
            moves = [state.random_action(seat, rng)] if d.pick else list(d.actions[:12])
            means = {a.code: 1.0 - k * 0.4 for k, a in enumerate(moves)} if step % 2 else {}
            for a in moves:
                reason = explain(state, seat, a, means)
                found.setdefault(str(reason), reason)
        state.apply(seat, spec.ai().choose(state, seat, rng) if seat >= 0 else state.random_action(seat, rng))
    return tuple(found.values())


@pytest.mark.parametrize("game", [g for g in GAMES if g != "war"])
def test_every_hints_reason_reads_in_the_persons_language(game: str) -> None:
    """A hint's reason (engine/hints.py and the game's hints.py), as the asker reads it
    (cogs/live/hints.py: ``words.say`` in the game's domain): never the English, none of the game's
    English in it; the English stays the engine's own."""
    reasons = reasons_along_a_playout(game)
    assert len(reasons) >= 10, reasons
    codes = [r for r in reasons if re.search(r"\b(play|pass|give) (D\d+|JJ|[2-9TJQKA][CDHS])\b", r)]
    assert not codes, codes[:5]  # a move the search compared is named in words, never by its code
    for lang in LANGS:
        said = [(f"reason {r}", words.say(lang, r, game)) for r in reasons]
        english = [f"{where} -> {text!r}" for where, text in said if where == f"reason {text}"]
        assert not english, f"{game} reasons in English for {lang} readers:\n" + "\n".join(english[:10])
        found = english_in(game, said)
        assert not found, "\n".join([f"{game} in {lang}: {len(found)} English", *found[:20]])
        shared = [f"{where} -> {text!r}" for where, text in said
                  if re.search(r"\b(the search|the highest|still out|wins the trick|the only move)\b", text)]
        assert not shared, "\n".join(shared[:10])


def test_a_refusal_names_its_cards_in_the_readers_words() -> None:
    """A joker in a refusal is the reader's word for it (大王, Roter Joker); a suit is the language's."""
    from engine.words import said, suit

    e = IllegalAction(N_("{card} is not in your hand."), "not_in_hand", card=card("~R"))
    assert e.reason == "Red joker is not in your hand."
    assert TableError.of(e, "hearts").say("zh_CN") == "你手里没有大王。"
    assert TableError.of(e, "hearts").say("de") == "Roter Joker hast du nicht auf der Hand."
    koth = IllegalAction(said(N_("You must follow suit ({suits} were led)."), suits=suit("S", "spades")),
                         "must_follow")
    assert koth.reason == "You must follow suit (spades were led)."
    assert TableError.of(koth, "koth").say("fr") == "Tu dois fournir (pique a été entamé)."


def test_a_phrase_is_found_in_the_games_domain_or_the_shared_one() -> None:
    """``words.say``: a game's msgid in its domain, the engine's in the shared one (a game's refusal of
    "It is not your turn." is either); fields put together without words of their own say each field;
    choices read "a or b", a fraction as the language writes it; English is the phrase itself."""
    from decimal import Decimal

    from engine.words import Either, said

    assert words.say("de", said(N_("It is not your turn.")), "hearts") == "Du bist nicht am Zug."
    both = said("{first}; {then}", first=said(N_("It is not your turn.")), then=said(N_("Play one card.")))
    assert words.say("fr", both, "war") == "Ce n'est pas ton tour. ; Joue une carte."  # (French spacing)
    assert words.say("en", both, "war") == str(both) == "It is not your turn.; Play one card."
    options = said(N_("Did you mean {options}? Type the cards one by one."), options=Either(("`5`", "`5 5`")))
    assert str(options) == "Did you mean `5` or `5 5`? Type the cards one by one."
    assert words.say("de", options, "dalmuti") == "Meinst du `5` oder `5 5`? Gib die Karten einzeln ein."
    gap = said(N_("the search expects about {gap} {units} than with {move}"), gap=Decimal("1.5"),
               units=said(N_("better")), move="5♣")
    assert str(gap) == "the search expects about 1.5 better than with 5♣"
    assert words.say("de", gap, "war") == "die Suche erwartet etwa 1,5 besser als mit 5♣"


@pytest.mark.parametrize("lang", LANGS)
def test_each_games_summary_and_titles_read_in_each_language(lang: str) -> None:
    """The one-line summary the lobby shows under a game's title, and War's own registry words (the
    test game, registered only here), in the reader's language."""
    import engine
    from cogs.i18n.reading import reading
    from cogs.table import renderers as table_renderers
    from tests.cogs.screens_seen import _table

    for name, spec in engine.games().items():
        g = spec.game
        for text in (g.title, g.summary, g.rules_text, *spec.quick_start):
            if text and text not in ("Hearts",):  # (Hearts is Hearts in German and French rule books)
                assert words.translate(lang, text) != text, (name, lang, text)
        t = _table(name, g.min_players, {}, 1)
        t.locale = lang
        with reading(lang):
            lobby = table_renderers.table_message(t).text()
        assert words.translate(lang, g.summary) in lobby and g.summary not in lobby, (name, lang)
    war = engine.get("war").game.create(2, {}, 1)  # the prompt of the rules' own decision (the base screens')
    prompt = war.decision(war.to_act()[0]).prompt
    assert prompt and words.say(lang, prompt, "war") != prompt


def test_a_card_is_named_in_the_language_it_is_drawn_in() -> None:
    from words.cards import name

    queen = card("QS")
    assert [name(queen, lang) for lang in ("de", "fr", "es", "pt_BR", "pl", "zh_CN", "ja")] == [
        "Pik-Dame", "dame de pique", "reina de picas", "dama de espadas", "dama pik", "黑桃Q", "スペードのクイーン"]
    assert name(queen, "en") == "queen of spades"
    seen = playout("hearts", 1, locale="de")
    controls = [t for w, t in seen if w.startswith("control")]
    assert "Pik-Dame" in controls or any("Pik-" in t for t in controls)
    assert not any(" of spades" in t or " of hearts" in t for t in controls)


@pytest.mark.parametrize(("lang", "typed"), [
    ("de", "dame pik"), ("de", "Pik-Dame"), ("de", "pik d"), ("de", "q♠"), ("de", "qs"), ("de", "D♠"),
    ("fr", "dame de pique"), ("fr", "dame pi"), ("es", "reina de picas"), ("pt_BR", "dama de espadas"),
    ("pl", "dama pik"), ("zh_CN", "黑桃Q"), ("ja", "スペードのクイーン"), ("en", "queen of spades"), ("en", "qs"),
])
def test_play_autocomplete_reads_a_card_typed_in_the_persons_language(lang: str, typed: str) -> None:
    from cogs.table.autocomplete import legal_choices

    plays = [Action("play", (card(c),)) for c in ("QS", "QH", "KS", "2S", "5D")]
    decision = Decision(0, "play", tuple(plays))
    got = legal_choices(decision, typed, locale=lang)
    assert [c.value for c in got] == ["play QS"], (typed, got)
    assert (lang == "en") or words.cards.name(card("QS"), lang) in got[0].name


def test_play_autocomplete_completes_a_pick_typed_in_words() -> None:
    """Passing in Hearts (choose 3): ``dame pik`` counts as one card."""
    from cogs.table.autocomplete import legal_choices

    hand = [card(c) for c in ("QS", "QH", "KS", "2S", "5D")]
    decision = Decision(0, "pass", (), pick=3, cards=tuple(hand))
    got = legal_choices(decision, "dame pik herz-dame ", locale="de")
    assert got and all(c.value.startswith("QS QH ") for c in got), got
