"""Hints (engine/hints.py): the move a level's AI would make for a seat, and its reason in words,
from what that seat may know only."""

from __future__ import annotations

import random

import pytest

import engine
from engine.cards import card
from engine.core import Action, Game
from engine.hints import explain, hint
from games.hearts.rules import Hearts
from games.tricks.rules import Tricks
from tests import wargame
from tests.engine.test_search import OPTIONS, advance, searchable_position, table_step


def play(code: str) -> Action:
    return Action("play", (card(code),))


def cs(codes: str) -> list[str]:
    return codes.split()


def hearts_position(hands: list[str], trick: list[tuple[int, str]], turn: int, trick_no: int = 9,
                    broken: bool = True) -> Hearts:
    """A classic Hearts hand in the middle of play: the cards in no hand and not on the table have
    been played into tricks already (seat 0's won pile; only their absence matters here)."""
    base = Hearts.create(4, {"rules": "mcgill"}, 1).to_dict()
    held = {c for h in hands for c in cs(h)} | {c for _, c in trick}
    won = [c.code for c in engine.get("hearts").game.create(4, {}, 1).all_cards() if c.code not in held]
    base.update({
        "phase": "play", "hands": [cs(h) for h in hands], "trick": [[s, c] for s, c in trick],
        "trick_no": trick_no, "leader": trick[0][0] if trick else turn, "turn": turn, "hearts_broken": broken,
        "won": [won, [], [], []], "hand_points": [0, 0, 0, 0], "history": [], "last_trick": None,
        "pass_choice": [None] * 4, "passed": [[]] * 4, "received": [[]] * 4,
    })
    return Hearts.from_dict(base)


def test_hearts_discards_what_can_still_win_and_says_why() -> None:
    # Seat 0 is out of hearts; nobody else has a diamond left, and a club lower than 9♣ is still out.
    g = hearts_position(["9C KD 2S 3S", "4C 6S 7S", "5C 8S 9S", "TC JS KS"],
                        [(1, "5H"), (2, "8H"), (3, "JH")], turn=0)
    why = explain(g, 0, play("9C"))
    assert "it can still take a club lead" in why
    assert "nobody can lead to your K♦" in why
    assert "can never take a trick" in explain(g, 0, play("KD"))
    # The normal AI makes that discard (issue 18's fix), and its hint says so.
    h = hint(g, 0, random.Random(1), level="normal")
    assert h.action == play("9C") and h.level == "normal"
    assert h.reason.startswith("it can still take a club lead")


def test_hearts_queen_and_following_reasons() -> None:
    g = hearts_position(["QS 9C 2D", "4C 6S 7S", "5C 8S 9S", "TC JS KS"], [(1, "5H"), (2, "8H"), (3, "JH")],
                        turn=0, trick_no=10)
    assert explain(g, 0, play("QS")).startswith("gets rid of Q♠ (13 points)")
    # Following: under the winning card, or the last to play taking it.
    g = hearts_position(["2C 9C KC", "4C 6S 7S", "5C 8S 9S", "TC JS KS"], [(1, "4C"), (2, "5C"), (3, "TC")],
                        turn=0, trick_no=10)
    assert "the highest club that still stays under the 10♣" in explain(g, 0, play("9C"))
    assert "follows with your lowest club" in explain(g, 0, play("2C"))
    assert explain(g, 0, play("KC")).startswith("wins the trick")
    assert "point" not in explain(g, 0, play("KC"))  # four clubs: no points on it


def test_only_move_and_search_figures() -> None:
    g = hearts_position(["9C KD 2S 3S", "4C 6S 7S", "5C 8S 9S", "TC JS KS"], [(1, "6C"), (2, "5C"), (3, "TC")],
                        turn=0)
    assert explain(g, 0, play("9C")).startswith("the only move you have")
    g = hearts_position(["9C KD 2S 3S", "4C 6S 7S", "5C 8S 9S", "TC JS KS"],
                        [(1, "5H"), (2, "8H"), (3, "JH")], turn=0)
    why = explain(g, 0, play("9C"), {"play 9C": -1.0, "play KD": -2.5, "play 2S": -3.0})
    assert why.endswith("the search expects about 1.5 fewer points this hand than with K♦")
    assert explain(g, 0, play("9C"), {"play 9C": -1.0, "play KD": -1.01}).endswith("about even")


def test_hearts_pass_reason() -> None:
    g = Hearts.create(4, {"rules": "classic"}, 3)
    hand = g.hands[0]
    spades = [c for c in hand if c.suit == "S"]
    action = Action("pass", tuple(sorted(hand, key=lambda c: -c.value)[:3]))
    why = explain(g, 0, action)
    assert why and "AI's choice" not in why
    if card("QS") in action.cards:
        assert "passes Q♠" in why
    h = hint(g, 0, random.Random(2))  # passing is the normal AI's even at the strong level
    assert h.action.kind == "pass" and h.reason and h.means == {}
    assert spades is not None


def tricks_position(hands: list[str], trick: list[tuple[int, str]], turn: int) -> Tricks:
    base = Tricks.create(4, {"target": 1}, 1).to_dict()
    base.update({"hands": [cs(h) for h in hands], "trick": [[s, c] for s, c in trick], "turn": turn,
                 "leader": trick[0][0] if trick else turn, "trick_no": 13 - max(len(cs(h)) for h in hands),
                 "history": []})
    return Tricks.from_dict(base)


def test_tricks_reasons() -> None:
    # Seat 0 holds the A♣ (boss) and low cards; leading it wins the trick whatever the others hold.
    g = tricks_position(["AC 3C 2D", "KC 4D 5D", "QC 6D 7D", "JC 8D 9D"], [], turn=0)
    why = explain(g, 0, play("AC"))
    assert why.startswith("the highest club left: it wins the trick")
    assert "every diamond still out is higher" in explain(g, 0, play("2D"))
    # Out of the led suit, it keeps its boss and throws a card that cannot win.
    g = tricks_position(["AC 2D", "KS 4D", "QS 6D", "JS 8D"], [(1, "KS"), (2, "QS"), (3, "JS")], turn=0)
    why = explain(g, 0, play("2D"))
    assert "no diamond still out is lower, so it can never take a trick" in why
    assert "keeps your A♣" in why


def test_koth_reason_names_trick_and_points() -> None:
    g = searchable_position("koth", 0)
    seat = g.turn
    h = hint(g, seat, random.Random(3), playouts=30)
    assert h.level == "strong" and h.means and h.action.code in h.means
    assert h.reason.split(";")[0].startswith(("leads", "puts", "wins", "takes", "gives", "stays", "the only"))


def test_games_without_strong_level_hint_the_normal_choice() -> None:
    with wargame.registered():  # (every real game has a strong AI)
        _hint_the_normal_choice("war")


def _hint_the_normal_choice(name: str) -> None:
    e = engine.get(name)
    g = e.game.create(e.game.min_players, {}, 5)
    rng = random.Random(5)
    advance(g, rng, lambda g: any(g.decision(s) is not None and not g.decision(s).pick for s in g.to_act() if s >= 0))
    seat = next(s for s in g.to_act() if s >= 0 and g.decision(s) is not None)
    h = hint(g, seat, random.Random(4), level="strong")
    assert h.level == "normal" and h.means == {}
    assert h.action == e.ai().choose(g, seat, random.Random(4))
    assert h.reason


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_hint_is_blind_to_hidden_cards(name: str) -> None:
    """The redeal check: deal every card the seat cannot see again; the hint (move and words) stays."""
    for seed in range(3):
        g: Game = searchable_position(name, seed)
        seat = g.turn
        h = hint(g, seat, random.Random(11), playouts=24)
        other = g.sample_world(seat, random.Random(99 + seed))
        other.seed = g.seed
        held = (lambda x: x.counts) if name == "dalmuti" else (lambda x: x.hands)
        assert any(held(other)[s] != held(g)[s] for s in range(g.players) if s != seat)
        assert hint(other, seat, random.Random(11), playouts=24) == h
        n = hint(g, seat, random.Random(11), level="normal")
        assert hint(other, seat, random.Random(11), level="normal") == n
        assert explain(other, seat, h.action, h.means) == h.reason


def test_dalmuti_and_siege_reasons_say_what_the_move_does() -> None:
    from games.dalmuti.rules import Dalmuti

    for seed in range(6):
        g = Dalmuti.create(5, {}, seed)
        rng = random.Random(seed)
        ai = engine.get("dalmuti").ai()
        advance(g, rng, lambda g: g.phase == "play" and g.view(g.turn).get("current") is not None)
        seat = g.turn
        cur = g.view(seat)["current"]
        h = hint(g, seat, random.Random(1), level="normal")
        assert h.action == ai.choose(g, seat, random.Random(1))
        if h.action.kind == "pass":
            assert h.reason.startswith("keeps your cards rather than top ")
        elif len(h.action.cards) < len(g.view(seat)["hand"]):
            assert h.reason.startswith("beats ") and " with " in h.reason, h.reason
        assert str(cur["number"]) in h.reason or "Jester" in h.reason or h.reason.startswith("goes out")
    assert explain(g, seat, Action("pass")).startswith("keeps your cards")
    siege = engine.get("siege").game.create(4, {}, 1)
    assert explain(siege, 0, Action("end")) == ("ends your turn: the J♠ and the blank A go to the discard pile "
                                                "rather than into a pile")
    siege.hands[0] = []
    siege._touch()
    assert explain(siege, 0, Action("end")) == "the only move you have; nothing more worth doing: ends your turn"


def test_koth_bury_and_call_reasons() -> None:
    g = engine.get("koth").game.create(5, {"rounds": 1, "ready_round": 0}, 2)
    rng = random.Random(2)
    advance(g, rng, lambda g: g.phase == "bury")
    koth = g.koth
    h = hint(g, koth, random.Random(1))
    assert h.action.kind == "bury" and h.reason.startswith("buries ")
    assert all(c.label in h.reason for c in h.action.cards)
    g.apply(koth, h.action)
    h = hint(g, koth, random.Random(1))
    assert h.action.kind == "call" and h.reason.startswith(f"calls {h.action.cards[0].label}: whoever plays it first")


@pytest.mark.parametrize("name", ["hearts", "tricks", "koth", "dalmuti", "siege"])
def test_a_reason_names_no_card_hidden_from_the_seat(name: str) -> None:
    """Besides the fixed sentences about Q♠ (a card named by the rules), a reason names only cards
    the seat may see: its own, the table's, the ones it is offered."""
    from games.hearts.hints import FIXED_PHRASES
    from tests.fakediscord.privacy import _offered, cards_in

    e = engine.get(name)
    rng = random.Random(4)
    ai = e.ai()
    checked = 0
    for seed in range(3):
        g = e.game.create(e.game.min_players, OPTIONS.get(name, {}), seed)
        for _ in range(400):
            if g.is_over:
                break
            if table_step(g, ai, rng):
                continue
            s = g.to_act()[0]
            if rng.random() < 0.2:
                h = hint(g, s, random.Random(seed), playouts=8)
                d = g.decision(s)
                # The hint's reason, and the reason any other legal move would get.
                reasons = [h.reason, *(explain(g, s, a) for a in (() if d.pick else d.actions[:30]))]
                hidden = set(g.hidden_from(s)) - _offered(g, s)
                for reason in reasons:
                    text = reason
                    for phrase in FIXED_PHRASES:
                        text = text.replace(phrase, "")
                    assert not cards_in(text) & hidden, (reason, cards_in(text) & hidden)
                    checked += 1
            g.apply(s, ai.choose(g, s, rng))
    assert checked >= 10


#: Facts that only say what a move is, not why it is good: a hint needs a reason beside them.
NAMING_ONLY = {
    "leads your lowest {suit}", "follows with your lowest {suit}", "takes the lead over the {card}",
    "leads {play}", "beats {set} with {play}", "keeps your cards", "keeps your cards rather than top {set}",
    "spends {n} Jester as wild",
    "leads {what}", "leads a card with no points", "puts {n} point on your lead", "plays {what}",
    "declares {cards}", "{suits} as trumps", "swaps your piles {first} and {second}",
    # The search's figure and the generic line are not the rules' reasons.
    "the search found the moves about even", "the search expects about {gap} {units} than with {move}",
    "the AI's choice here",
}


def reasons_in(reason: str) -> list[str]:
    """The facts a hint's reason is made of (its ``{first}; {then}`` joins taken apart), by msgid."""
    msgid = getattr(reason, "msgid", None)
    if msgid == "{first}; {then}":
        fields = reason.fields  # type: ignore[attr-defined]
        return [*reasons_in(fields["first"]), *reasons_in(fields["then"])]
    return [msgid or str(reason)]


@pytest.mark.parametrize("name", ["hearts", "tricks", "dalmuti", "koth", "siege", "war"])
def test_every_hint_gives_a_reason_not_only_the_move(name: str) -> None:
    """Issue 35: whatever the decision, a hint says why in the rules' words ("Q♠ … on someone else's
    trick"), not only what the move is ("leads a 7"): at least one fact of its reason is a reason.
    War too (its hint is the normal AI's, with the reason of the highest card taking the battle)."""
    with wargame.registered():
        _every_hint_gives_a_reason(name)


def _every_hint_gives_a_reason(name: str) -> None:
    e = engine.get(name)
    bare: dict[str, int] = {}
    checked = 0
    for seed in range(3):
        g = e.game.create(e.game.min_players, {}, seed)
        rng, ai = random.Random(seed), e.ai()
        for _ in range(600):
            if g.is_over:
                break
            # The seats' own decisions, and those they may take while the table acts (a declaration
            # during King of the Hill's deal).
            for s in [x for x in g.to_act() if x >= 0]:
                d = g.decision(s)
                moves = [] if d is None or d.pick else list(d.actions[:6])
                if len(g.to_act()) == 1:
                    moves.insert(0, ai.choose(g, s, rng))
                for a in moves:
                    facts = reasons_in(explain(g, s, a))
                    checked += 1
                    if all(f in NAMING_ONLY for f in facts):
                        key = " / ".join(facts)
                        bare[key] = bare.get(key, 0) + 1
            if table_step(g, ai, rng):
                continue
            s = g.to_act()[0]
            g.apply(s, ai.choose(g, s, rng))
    assert checked >= 100
    assert not bare, bare


def test_siege_names_an_ace_pile_with_its_article() -> None:
    """"starts an Ace pile", never "starts a Ace pile" (the reason and the move it is compared with)."""
    from games.siege.hints import siege_facts, siege_move_words

    e = engine.get("siege")
    rng, ai = random.Random(1), e.ai()
    for seed in range(20):
        g = e.game.create(4, {}, seed)
        for _ in range(300):
            if g.is_over:
                break
            if table_step(g, ai, rng):
                continue
            s = g.to_act()[0]
            d = g.decision(s)
            ace = next((a for a in (d.actions if d is not None and not d.pick else ())
                        if a.kind == "start" and a.cards[0].rank == "A"), None)
            if ace is not None:
                assert siege_facts(g, s, ace)[0].startswith("starts an Ace pile in slot ")
                assert siege_move_words(g, s, ace) == "starting an Ace pile"
                return
            g.apply(s, ai.choose(g, s, rng))
    raise AssertionError("no Ace pile could be started")


def test_koth_trump_suit_choice_says_why_even_when_not_the_longest() -> None:
    from games.koth.hints import koth_facts

    g = engine.get("koth").game.create(5, {"rounds": 1, "ready_round": 0}, 2)
    advance(g, random.Random(2), lambda g: g.phase == "bury")
    hand = g.hands[g.koth]
    counts = {s: sum(1 for c in hand if c.suit == s) for s in "CDHS"}
    for s in "CDHS":
        facts = [getattr(f, "msgid", f) for f in koth_facts(g, g.koth, Action("suit", args=(s,)))]
        assert any(f not in NAMING_ONLY for f in facts), (s, facts)
    short = min(counts, key=lambda s: counts[s])
    assert koth_facts(g, g.koth, Action("suit", args=(short,)))[1].startswith(f"{counts[short]} card")


def test_dalmuti_pass_says_what_topping_would_have_cost() -> None:
    from games.dalmuti.rules import Dalmuti

    for seed in range(6):
        g = Dalmuti.create(5, {}, seed)
        advance(g, random.Random(seed), lambda g: g.phase == "play" and g.view(g.turn).get("current") is not None
                and any(a.kind == "play" for a in g.legal_plays(g.turn)))
        why = explain(g, g.turn, Action("pass"))
        assert why.startswith("keeps your cards rather than top ") and "; topping it would spend " in why, why
        assert why.endswith(", better kept for later")
