"""Every count in a sentence agrees with its noun (issue 29 item 6: "first to 1 points", "An inaccuracy
costs 1 points or more"): the screens of every game drawn along a playout, with counts of 1 and 2
where a screen takes them (option values, targets, review thresholds, hands of one card), and no
text says "1 points", "1 cards" or the like.  One helper makes them all (engine/words.py)."""

from __future__ import annotations

import re

import pytest

import engine
from cogs.replay.review import review_message
from cogs.table import options, render, renderers
from cogs.table.answers import rules_embed
from engine.core import TABLE
from engine.review import Review
from engine.words import plural
from tables.history.replay import GameRecord
from tables.table import Phase
from tests.cogs.screens_seen import _hand, _table, playout

# "1" as a count (not part of 10, 1.5, 2/1, −1 or a card like 1♠), then the word after it.
ONE = re.compile(r"(?<![\w.,/+\-−])1 (?:more |extra |new |whole |of the )?([a-z]+)\b")
# Words after "1 " that are not plural nouns, though they end in s.
NOT_PLURAL = {"is", "was", "has", "plus", "minus", "always", "gets", "goes", "takes", "wins", "leads", "plays",
              "as", "its", "this", "us", "does", "passes", "calls", "keeps", "across", "ahead"}
IRREGULAR = {"people", "children", "men", "women"}  # plurals without an s
SEAT_NAMES = re.compile(r"\b(AI|Player|Seat) \d+")  # "AI 1 defends with you": a name, not a count


def bad_counts(texts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out = []
    for where, text in texts:
        for m in ONE.finditer(SEAT_NAMES.sub(r"\1", text or "")):
            word = m.group(1)
            if (word.endswith("s") and not word.endswith("ss") and word not in NOT_PLURAL) or word in IRREGULAR:
                out.append((where, text[max(0, m.start() - 40):m.end() + 20]))
    return out


def test_the_one_helper_agrees_with_its_count() -> None:
    assert render.plural is options.plural is plural
    assert [plural(n, "point") for n in (0, 1, 1.0, 2, 2.0, 0.5)] == \
        ["0 points", "1 point", "1 point", "2 points", "2 points", "0.5 points"]
    assert plural(1, "copy", "copies") == "1 copy" and plural(3, "copy", "copies") == "3 copies"
    assert bad_counts([("x", "first to 1 points")]) and bad_counts([("x", "costs 1 cards")])
    assert bad_counts([("x", "already has 1 people watching")])
    assert not bad_counts([("x", "first to 1 point, 10 points, 2/1 points, 1 is enough")])


@pytest.mark.parametrize("game", sorted(engine.games()))
def test_no_screen_of_a_game_says_1_points(game: str) -> None:
    seen = playout(game, seed=3)
    # Every option's value in words, at 1 and 2 where it takes them, and /game rules.
    for opt in options.spec(game):
        for v in (1, 2, opt.low, opt.high, *opt.choices):
            if v is not None:
                seen.append((f"option {opt.name}={v}", options.say(game, opt.name, v)))
    d = rules_embed(game).to_dict()
    seen += [("/game rules", d.get("title", ""))] + [("/game rules", f["value"]) for f in d.get("fields", ())]
    # A table whose numeric options are 1 (a target of 1 point): its lobby, running and finished screens.
    spec = engine.get(game)
    players, sample = spec.sample or (spec.game.min_players, {})
    ones = {o.name: 1 for o in spec.game.options_spec
            if (o.choices and 1 in o.choices) or (not o.choices and o.low is not None and o.low <= 1 <= o.high)}
    t = _table(game, players, {**sample, **ones}, seed=5)
    seen.append(("lobby", renderers.table_message(t).text()))
    t.phase = Phase.RUNNING
    t.state = spec.game.create(players, t.options, 5)
    ai = spec.ai()
    import random
    rng = random.Random(5)
    for _ in range(2000):
        if t.state.is_over:
            break
        seat = next((s for s in t.state.to_act() if s != TABLE), TABLE)
        action = ai.choose(t.state, seat, rng) if seat != TABLE else t.state.table_timer()[1]
        events = t.state.apply(seat, action)
        t.version += 1
        for e in events:
            text = renderers.renderer_for(game).event_text(t, e) if e.to is None else None
            if text:
                seen.append((f"event {e.kind}", text))
        summary = renderers.summary(t, events)
        if summary is not None:
            seen.append(("summary", summary.text()))
        seen.append(("table message", renderers.table_message(t).text()))
        for s in range(min(players, 2)):
            seen += _hand(t, s)
    t.phase = Phase.FINISHED
    seen.append(("finished table message", renderers.table_message(t).text()))
    # The review's footer with thresholds of 1 and 2 of the game's units.
    record = GameRecord.of_table(t)
    found = Review(game, 0, spec.review_units, (1.0, 2.0))
    embed, _ = review_message(record, found, {})
    seen.append(("review footer", (embed.footer.text or "")))
    assert "costs 1 " in (embed.footer.text or "")
    bad = bad_counts(seen)
    assert not bad, "\n".join(f"{w}: …{t}…" for w, t in bad[:10])
