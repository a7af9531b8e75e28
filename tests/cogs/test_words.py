"""Plain words: no programmer's words anywhere a player reads (the jargon scan over seeded playouts
of every game), counts agree with their nouns, nothing promises a next hand after the last one, a
confirmation says what the player did (and never ✅ on a fight they lost), /hand after the game."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import discord
import pytest

import engine
from cogs.table import options, renderers, screens
from engine.core import Event, Outcome
from games.dalmuti.rules import Dalmuti
from games.siege.rules import BY_CODE, Siege
from tables.table import Phase, Seat, Table
from tests import wargame
from tests.cogs.conftest import Harness
from tests.cogs.fakes import FakeMessage
from tests.cogs.playthrough import open_table, play_game
from tests.cogs.screens_seen import playout, view_texts
from tests.cogs.test_refusals import refused


@pytest.fixture(autouse=True)
def _war() -> Iterator[None]:
    """War (games/war/), the sixth game, is a registered game in these tests like the five."""
    with wargame.registered():
        yield


#: What a player should never read, each with an example of it from before it was put right.
JARGON = {
    "an option key": (re.compile(r"\b\w+="), "rounds=0…200 called_copy=first|second"),
    "an option value's code": (re.compile(r"\b[a-z]+_[a-z0-9_]+\b"), "moon others_plus_26"),
    "a menu value's copy number": (re.compile(r"(?<!<)#\d"), "D5#2"),  # (<#123> is a channel link)
    "a seat number": (re.compile(r"\bseats? \d", re.IGNORECASE), "Your hand · Siege · table 98RHKV · seat 2"),
    "an abbreviation": (re.compile(r"KotH"), "No KotH yet"),
    "a joker's code": (re.compile(r"~[RB]\b"), "~R"),
    "a card code": (re.compile(r"(?<![\w:<@#/`])(?:D1[0-2]|D[1-9]|JJ|10[HSDCX]|[2-9TJQKA][HSDCX])(?![\w>])"),
                    "Hal played D10 and QS"),
    "a blank's glyph": (re.compile(r"▫"), "3▫"),
    "a bare pile strength": (re.compile(r"[①②③] \(\d+\)"), "Hal's pile ③ (1) against AI 1's pile ② (2)"),
    # (the playouts' AI players are "AI 1", "AI 2"…: a number right after one reads as part of the name)
    "a bare number after a name": (re.compile(r"\bAI \d+ \d+(?![\d♠♥♦♣])"), "AI 2 12 · AI 1 12"),
    "a shortened word": (re.compile(r"\b(?:pts|pt|vs|approx|info|min|max|num|cfg)\b"), "0 pts taken"),
    "a range in dots": (re.compile(r"\w\.\.\w"), "the trump suit A..2"),
}
#: Every game a table can be opened for: the registry's, not a list written here.
GAMES = wargame.every_game(g for g in screens.registered() if g in engine.games())  # and War (games/war/)
SEEDS = (1, 2, 3)
#: Kinds of screen each playout must have rendered, or the scan would pass on nothing.
SCREENS = ("lobby", "/game rules", "table message", "hand view", "control", "after a move", "event", "summary",
           "finished table message", "replay", "refusal")


def jargon_in(seen: list[tuple[str, str]]) -> list[str]:
    """Every jargon match as ``where: kind: 'match' in line``, the /game rules field that shows what
    a host types (``options:target=50``, the one place an option key is needed) left out."""
    found = []
    for where, text in seen:
        if where == "how to set it":
            continue
        for kind, (pattern, _) in JARGON.items():
            for m in pattern.finditer(text):
                line = next((ln for ln in text.splitlines() if m.group(0) in ln), text)
                found.append(f"{where}: {kind}: {m.group(0)!r} in {line[:160]!r}")
    return found


def test_the_scan_catches_each_kind_of_jargon_and_passes_plain_words() -> None:
    for kind, (pattern, example) in JARGON.items():
        assert pattern.search(example), kind
    plain = ["Hal's pile ③ (score 1) against AI 1's pile ② (score 2)", "blanks 3 8 · blank Q starts a Queen pile",
             "👑 No King yet", "Bea drew a 10 · Ali drew an 11, then a 1 (tie broken)", "Red joker 2♠",
             "Played with: dead hand ×3 · blitz timers (half time)", "/game rules koth", "Seats (4/5)",
             "/game replay id:ABC234", "10♥ Q♠ A♦", "three 5s + Jester", "Round 1 — ranks Ali: 3 · Bea: 2"]
    assert jargon_in([("plain", text) for text in plain]) == []
    assert jargon_in([("how to set it", "options:target=50")]) == []
    assert jargon_in([("lobby", "options:target=50")]) != []


@pytest.mark.parametrize("game", GAMES)
def test_no_jargon_on_any_screen_of_seeded_playouts(game: str) -> None:
    for seed in SEEDS:
        seen = playout(game, seed)
        kinds = Counter(where.split(" of ")[0].split(" to ")[0] for where, _ in seen)
        missing = [k for k in SCREENS if not any(w.startswith(k) for w in kinds)]
        assert not missing, (game, seed, missing)
        # The exempt field holds what a host types, and only that.
        exempt = [text for where, text in seen if where == "how to set it"]
        assert any("=" in text for text in exempt) and all(
            "=" in text or text == "How to set it" for text in exempt), exempt
        found = jargon_in(seen)
        assert not found, "\n".join([f"{game} seed {seed}: {len(found)} jargon", *found[:30]])


@pytest.mark.parametrize("game", GAMES)
async def test_no_jargon_in_anything_the_bot_sent_during_a_whole_game(
        h: Harness, game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same scan over every message the bot sent or edited, public and private, while two people
    play a whole sample game through the cog (lobby buttons, hand views, turn pings, the thread's
    notices, summaries): what the renderers say reaches people unchanged, and the cog's own sentences
    are plain too."""
    sent: list[tuple[str, str]] = []

    def record(msg: FakeMessage, how: str) -> None:
        where = f"{'private' if msg.ephemeral else 'public'} {how}"
        sent.append((where, msg.text))
        if isinstance(msg.view, discord.ui.View):
            sent.extend((f"{where} control", t) for t in view_texts(msg.view))

    init, edit = FakeMessage.__init__, FakeMessage.apply_edit

    def new(msg: FakeMessage, *a: Any, **k: Any) -> None:
        init(msg, *a, **k)
        record(msg, "message")

    def edited(msg: FakeMessage, *a: Any, **k: Any) -> None:
        edit(msg, *a, **k)
        record(msg, "edit")

    monkeypatch.setattr(FakeMessage, "__init__", new)
    monkeypatch.setattr(FakeMessage, "apply_edit", edited)
    h.runtime.rng = random.Random(3)
    players, opts = engine.get(game).sample
    typed = " ".join(f"{k}={v}" for k, v in opts.items())
    table, lobby = await open_table(h, game, typed, ais=players - 2)
    await play_game(h, table, lobby, seed=1, optional=lambda state, seat: False)
    await h.settle(2)
    assert table.state.is_over
    for i in (h.inter(h.alice), h.inter(h.bob)):  # after the game: the hand, and the replay
        await h.cog.hand.callback(h.cog, i)
        sent.append(("private answer", i.last.content or ""))
    monkeypatch.undo()
    assert len(sent) > 50 and any(w.startswith("private") for w, _ in sent)
    assert any("Final standings" in t for w, t in sent if w.startswith("public"))
    found = jargon_in(sent)
    assert not found, "\n".join([f"{game}: {len(found)} jargon", *found[:30]])


#: Per language, words a rule book of that language would not use: a word-for-word translation of
#: the English card-game words (a "seat" for a place at the table, a "trick" translated as a
#: conjuring trick, "lead" as to command) and a programmer's "action". Each with an example.
LANGUAGE_JARGON: dict[str, tuple[re.Pattern[str], str]] = {
    "de": (re.compile(r"\b(?:Sitz(?:platz)?|Trick|Aktion|anführ\w*|folge der Farbe)\b"), "Sitz 2 führt an: Trick 3"),
    # (lower case: Siège, capitalised, is the game's French title)
    "fr": (re.compile(r"\b(?:siège|truc|tour de passe|action|mène|conduis\w*)\b"), "siège 2 mène le truc"),
    "es": (re.compile(r"\b(?:asiento|truco|acción|lidera\w*)\b", re.I), "el asiento 2 lidera el truco"),
    "pt_BR": (re.compile(r"\b(?:assento|truque|ação|lidera\w*)\b", re.I), "o assento 2 lidera o truque"),
    "pl": (re.compile(r"\b(?:siedzeni\w*|sztucz\w*|akcj\w*|prowadzi\w*)\b", re.I), "siedzenie 2 prowadzi sztuczkę"),
    "zh_CN": (re.compile(r"把戏|技巧|领导|动作|座椅"), "座椅2领导把戏"),
    "ja": (re.compile(r"座席|アクション|手品|指導"), "座席2のアクション"),
}
#: The games whose own words are in every language (games/<name>/locale/): each domain registered.
TRANSLATED = sorted(d for d in __import__("words").domains() if d in GAMES)


def test_each_language_has_its_own_jargon_list() -> None:
    import words

    assert sorted(LANGUAGE_JARGON) == sorted(lang for lang in words.LOCALES if lang != words.ENGLISH)
    for lang, (pattern, example) in LANGUAGE_JARGON.items():
        assert pattern.search(example), lang
    assert len(TRANSLATED) >= 2


@pytest.mark.parametrize("lang", sorted(LANGUAGE_JARGON))
@pytest.mark.parametrize("game", TRANSLATED)
def test_no_jargon_in_any_language(game: str, lang: str) -> None:
    """The scan above over a seeded playout drawn in each language (the table's and everyone's), with
    that language's own list besides: no option key, card code or seat number in any language, and
    none of the word-for-word words a rule book of the language would not use."""
    seen = playout(game, 1, locale=lang)
    # English shortenings ("num", "min") are other languages' words ("num" is Portuguese's "em um").
    found = [f for f in jargon_in(seen) if ": a shortened word: " not in f]
    pattern, _example = LANGUAGE_JARGON[lang]
    for where, text in seen:
        if where == "how to set it":
            continue
        found += [f"{where}: {lang}: {m.group(0)!r} in {text[:160]!r}" for m in pattern.finditer(text)]
    assert not found, "\n".join([f"{game} in {lang}: {len(found)} jargon", *found[:30]])


def test_the_scan_fails_when_jargon_comes_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """Put known jargon back in a scratch patch and the scan finds it: option keys in the lobby and the
    footers, Siege's cards as codes, King of the Hill's abbreviation."""
    from games.koth import screens as render_koth
    from games.siege.rules import SiegeCard

    monkeypatch.setattr(options, "changes_line", lambda game, *a, **k: options.accepted_line(game))
    found = jargon_in(playout("hearts", 1))
    assert any("an option key" in f and f.startswith("lobby") for f in found)
    assert any("an option key" in f and f.startswith("table message") for f in found)
    monkeypatch.undo()

    monkeypatch.setattr(SiegeCard, "label", property(lambda c: c.code))
    assert any("a card code" in f for f in jargon_in(playout("siege", 1)))
    monkeypatch.undo()

    status = render_koth.KothRenderer.status_line
    monkeypatch.setattr(render_koth.KothRenderer, "status_line",
                        lambda self, t, pv: status(self, t, pv).replace("King", "KotH"))
    assert any("an abbreviation" in f for f in jargon_in(playout("koth", 1)))


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


def test_no_jargon_on_the_game_night_screens() -> None:
    """Ranked and casual, seasons and tournaments (issue 34): the tournament's message at each stage,
    a season's leaderboard, /stats with ranked games, the lobby's rating line, /settings' seasons."""
    from cogs.table.render import embed_text, rating_line
    from cogs.table.settings import settings_text
    from cogs.table.stats import rating_board_embed, stats_line
    from cogs.table.tournament import tournament_embed
    from tables.history.stats import GameStats
    from tables.nights.tournament import Tournament
    from tables.servers import Settings
    from tables.tournaments import Entry

    seen: list[tuple[str, str]] = []
    t = Tournament("ABC234", "hearts", 4, 2, 1, 7, players=list(range(1, 7)))
    entry = Entry(t, 5, 6, {"target": 50}, "blitz", "en")
    seen.append(("tournament sign-ups", embed_text(tournament_embed(entry))))
    first = t.start(1)
    for n, _ in enumerate(first.tables):
        t.opened(n, f"T{n}AAAA")
    seen.append(("tournament round", embed_text(tournament_embed(entry))))
    for n, people in enumerate(first.tables):
        t.finished(f"T{n}AAAA", list(range(1, len(people) + 1)), absent=(0,))
    for n, _ in enumerate(t.played[-1].tables):
        t.opened(n, f"U{n}AAAA")
    for n, people in enumerate(t.played[-1].tables):
        t.finished(f"U{n}AAAA", [1] * len(people))
    assert t.state == "finished"
    seen.append(("tournament final", embed_text(tournament_embed(entry))))
    rows = [{"user_id": 9, "mu": 27.5, "sigma": 2.5, "games": 3}]
    seen.append(("leaderboard", embed_text(rating_board_embed("hearts", rows, season="2026-11"))))
    seen.append(("leaderboard of a quarter", embed_text(rating_board_embed("hearts", [], season="2026-Q4"))))
    g = GameStats("hearts", games=5, wins=2, place_total=10, ranked=4, ranked_finished=3)
    seen.append(("stats", stats_line(g, {"mu": 27.5, "sigma": 2.5, "games": 4})))
    table = Table(id="ABC234", game="hearts", options={}, speed="normal", guild_id=1, channel_id=2, host_id=3,
                  seats=[Seat(3, "Ann")], ranked=True)
    seen.append(("lobby", rating_line(table)))
    for season in ("month", "quarter", "none"):
        seen.append(("settings", settings_text(Settings(season=season), "en", "English", [])))
    assert "November 2026" in seen[3][1] and "October–December 2026" in seen[4][1]
    assert "finished **3** of 4 ranked games" in seen[5][1]
    from tables.nights.tournament import Boards
    d = Tournament("DUP234", "hearts", 4, 1, 1, 7, players=list(range(1, 9)), duplicate=True, lowest_wins=True)
    dentry = Entry(d, 5, 6, {"target": 1}, "normal", "en")
    for n, _people in enumerate(d.start(1).tables):
        d.opened(n, f"D{n}AAAA")
    seen.append(("duplicate round", embed_text(tournament_embed(dentry))))
    for n, _people in enumerate(d.played[-1].tables):
        d.finished(f"D{n}AAAA", [1, 2, 3, 4], boards=Boards([0, 1, 2, 3], [[3.0, 13.0, 10.0, 0.0] if n else
                                                                           [10.0, 6.0, 10.0, 0.0]]))
    final = embed_text(tournament_embed(dentry))
    assert "**+7** against the field on the same cards" in final and "**-7** against the field" in final
    seen.append(("duplicate final", final))
    alone = Tournament("PAR234", "hearts", 4, 1, 1, 7, players=list(range(1, 5)), duplicate=True, lowest_wins=True)
    pentry = Entry(alone, 5, 6, {"target": 1}, "normal", "en")
    alone.start(1)
    alone.opened(0, "P0AAAA")
    alone.finished("P0AAAA", [1, 2, 3, 4], boards=Boards([0, 1, 2, 3], [[3.0, 13.0, 10.0, 0.0]],
                                                          par=[[10.0, 6.0, 10.0, 0.0]]))
    par = embed_text(tournament_embed(pentry))
    assert "**+7** against par on the same cards" in par and "**-7** against par" in par
    seen.append(("duplicate against par", par))
    found = jargon_in(seen)
    assert not found, "\n".join(found)
