"""The hand view as Discord's JSON (``components.hand_payload``, what the answers to clicks and the
live views' edits send) is exactly what the View of ``hand_view`` turns into — text, rows, labels,
emoji, custom ids, disabled cards — in every game and phase along random playouts, with and
without card emoji; its kept buttons follow the table's version, the hand and the decision."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import discord
import pytest

import engine
from cogs import components, emoji, faces
from cogs.components import hand_payload, hand_view
from tables.runtime import SeatView
from tables.table import Phase, Seat, Table

STEPS = 160  # moves per playout: a whole Hearts hand with its pass, the openings of the others


def _table(name: str, g: Any) -> Table:
    seats = [Seat(10 + i, f"P*{i}_") if i % 2 == 0 else Seat(None, f"AI {i}", is_ai=True) for i in range(g.players)]
    t = Table(id="ABC234", game=name, options=dict(g.options), speed="normal", guild_id=1, channel_id=2,
              host_id=10, seats=seats, phase=Phase.RUNNING, seed=1)
    t.state = g
    return t


def _seat_views(t: Table, deadline: float | None) -> Iterator[SeatView]:
    g = t.state
    for seat in range(g.players):
        yield SeatView(t, seat, g.view(seat), g.decision(seat), deadline if seat in g.to_act() else None)


def _same(sv: SeatView) -> None:
    content, view = hand_view(sv)
    want = {"content": content, "components": view.to_components()}
    view.stop()
    msg = hand_payload(sv)
    got = {"content": msg.content, "components": msg.components}
    assert got == want
    # Byte for byte as discord.py serialises it (the same keys in the same order).
    assert json.dumps(got, separators=(",", ":")) == json.dumps(want, separators=(",", ":"))


@pytest.fixture(params=["text", "emoji"])
def faces_as(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "emoji":
        emoji.REGISTRY.use({code: discord.PartialEmoji(name=faces.emoji_name(code, code.encode()), id=10**18 + i)
                            for i, code in enumerate(faces.face_codes())})
    else:
        emoji.REGISTRY.clear()
    try:
        yield request.param
    finally:
        emoji.REGISTRY.clear()


@pytest.mark.parametrize("name", sorted(engine.games()))
def test_the_payload_is_the_views_json_along_a_playout(name: str, faces_as: str) -> None:
    cls = engine.get(name).game
    for seed in (1, 2):
        g = cls.create(cls.max_players, cls.read_options({}), seed)
        t = _table(name, g)
        rng = random.Random(seed)
        for step in range(STEPS):
            if g.is_over:
                break
            t.version = step + 1
            for sv in _seat_views(t, 1_900_000_000.0 if step % 2 else None):
                _same(sv)
            seat = rng.choice(g.to_act())
            g.apply(seat, g.random_action(seat, rng))
        t.phase = Phase.FINISHED
        for sv in _seat_views(t, None):
            _same(sv)


def test_a_kept_button_follows_the_version_the_hand_and_the_decision() -> None:
    emoji.REGISTRY.clear()
    cls = engine.get("hearts").game
    g = cls.create(4, cls.read_options({}), 3)
    t = _table("hearts", g)
    rng = random.Random(3)
    while g.public_view().get("phase") != "play":
        seat = rng.choice(g.to_act())
        g.apply(seat, g.random_action(seat, rng))
    t.version = 40
    leader = g.to_act()[0]
    before = hand_payload(SeatView(t, leader, g.view(leader), g.decision(leader), None))
    ids = [b["custom_id"] for row in before.components for b in row["components"]]
    assert ids[0].startswith("dh:a:ABC234:40:play_") and ids[-2:] == ["dh:t:hint:ABC234", "dh:t:howto:ABC234"]
    lit = [b for row in before.components for b in row["components"] if not b.get("disabled")]
    assert len(lit) >= 2  # the hint and at least one card
    card = g.decision(leader).actions[0]
    g.apply(leader, card)
    t.version = 41
    after = hand_payload(SeatView(t, leader, g.view(leader), g.decision(leader), None))
    buttons = [b for row in after.components for b in row["components"]]
    # One card fewer, every card now waiting (disabled), the new version in every id, Refresh for Hint.
    assert len(buttons) == len(ids) - 1
    assert card.code.split()[-1] not in " ".join(b["custom_id"] for b in buttons)
    assert all(b["custom_id"].startswith("dh:a:ABC234:41:") and b["disabled"] for b in buttons[:-2])
    assert [b["custom_id"] for b in buttons[-2:]] == ["dh:t:refresh:ABC234", "dh:t:howto:ABC234"]
    # A kept button is copied, never shared: changing one message's dict leaves the next as drawn.
    buttons[0]["label"] = "changed"
    again = hand_payload(SeatView(t, leader, g.view(leader), g.decision(leader), None))
    assert again.components[0]["components"][0]["label"] != "changed"
    assert components._BUTTONS  # (the kept buttons are what this test is about)


def test_a_kept_hand_line_follows_the_card_emoji() -> None:
    """The fanned hand is kept per hand: it still turns into emoji when they become ready, back into
    text when they go, and into text inside ``text_only`` (a message too long with emoji)."""
    cls = engine.get("hearts").game
    g = cls.create(4, cls.read_options({}), 5)
    t = _table("hearts", g)
    sv = SeatView(t, 0, g.view(0), g.decision(0), None)
    first = g.view(0)["hand"][0]
    emoji.REGISTRY.clear()
    as_text = hand_payload(sv).content
    assert "<:dk_" not in as_text
    emoji.REGISTRY.use({code: discord.PartialEmoji(name=f"dk_{code.lower()}_abcdef", id=10**18 + i)
                        for i, code in enumerate(faces.face_codes())})
    try:
        drawn = hand_payload(sv).content
        assert f"<:dk_{first.lower()}_abcdef:" in drawn
        with emoji.text_only():
            assert "<:dk_" not in hand_payload(sv).content
        assert hand_payload(sv).content == drawn
    finally:
        emoji.REGISTRY.clear()
    assert hand_payload(sv).content == as_text
