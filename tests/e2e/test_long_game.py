"""A game that runs past an interaction token's lifetime (issue 25, item 5).

This Discord's tokens live LIFETIME seconds, and the bot is told the same (its ``Config``), with a
MARGIN: every token is used only until MARGIN seconds before it runs out.  The AIs take longer than
that between a person's clicks, so each person's view lives a while after each click (and is kept
current meanwhile: the cards passed to them, a trick won), then the person is pinged with **My hand**
when their turn comes; pressing it opens a fresh, live view, which they play from.  The table
message is edited through the token of the ``/game new`` that posted it, then, once that runs out,
by the bot's REST edits, still one a second.  Discord never answers the bot 401: no request is made
with a dead token.  The world's closing checks (privacy, answers in 3 s, no 429, edit pacing, no
error logged, no problem such as a token used after its lifetime) run at the end.
"""

from __future__ import annotations

import asyncio
import random

from tests.e2e.conftest import make_world
from tests.fakediscord.play import is_over, open_table, play_seat
from tests.fakediscord.server import Message
from tests.fakediscord.users import Reply

LIFETIME, MARGIN = 3.0, 1.0  # seconds: Discord's 15 minutes and the bot's 30 s, shrunk
AI_DELAY = 1.2  # two AIs between a person's clicks take longer than LIFETIME - MARGIN


def rest_and_token_edits(table_message: Message) -> tuple[list[float], list[float]]:
    """When the bot sent the table message's REST edits, and its edits through a token."""
    rest = [v.sent for v in table_message.versions if v.source == "edit" and v.by is None]
    token = [v.sent for v in table_message.versions if v.source == "edit" and v.by is not None]
    return rest, token


async def test_a_game_past_the_tokens_lifetime_never_uses_a_dead_token() -> None:
    config = {"token_lifetime": LIFETIME, "token_margin": MARGIN}
    async with make_world(token_lifetime=LIFETIME, config=config, runtime_options={"ai_delay": AI_DELAY}) as w:
        views: dict[int, Reply] = {}
        table_message = await open_table(w.ali, [w.bob], options="target=1", views=views)
        table = w.table(table_message)
        # A person looks at their view again only when it changes or a ping comes (a dead view does
        # not change until their turn pings them): ``patience`` makes "looking again at a silent
        # view" take 20 s, which would show in ``why_opened``.
        logs = await asyncio.gather(
            play_seat(w.ali, table_message, rng=random.Random(1), view=views[w.ali.id], timeout=150, patience=5.0),
            play_seat(w.bob, table_message, rng=random.Random(2), view=views[w.bob.id], timeout=150, patience=5.0),
        )
        assert table.state.is_over
        assert is_over(w.fd, table_message)  # (the people stopped when the table message said so)

        # No request with a dead token: Discord answered none of the bot's requests with a 401.
        assert [r.path for r in w.fd.requests if r.status == 401] == []
        # Every token edit was made before the token's lifetime less the margin.
        by_token = {i.token: i for i in w.fd.interactions.values()}
        edits = w.fd.token_edits()
        assert edits, "no view was edited through its token"
        for r in edits:
            i = by_token[r.path.split("/")[-3]]
            assert r.at - i.created < LIFETIME - MARGIN + 0.5, (i.label, round(r.at - i.created, 2))
        # ...and the people's views were among them: kept current while their tokens lived.
        assert [r for r in edits if by_token[r.path.split("/")[-3]].label != "/game new"], "no hand view was edited"

        for log in logs:
            # Each person played every card, from views the bot kept current or from the fresh
            # views the pings' My hand opened; nobody had to look again at a silent view.
            assert log.moves == 14 and not log.refusals, (log.person.name, log.refusals)
            assert set(log.why_opened) <= {"ping button"}, (log.person.name, log.why_opened)
        assert any(log.why_opened for log in logs), "no token ran out: nobody was pinged with My hand"
        # A fresh view from a ping was live: it was edited through its token, or played from.
        fresh = [r for log in logs for r in log.replies if r.interaction.data.get("custom_id", "").startswith(
            "dh:t:hand:")]
        assert fresh and all("Your hand" in r.message.versions[0].text for r in fresh)
        played = [m for log in logs for m in log.replies if m.text.startswith("✅")
                  and any(m.message is r.message for r in fresh)]
        assert played, "nobody played from a view a ping's My hand opened"

        # The table message: edited through the /game new token while it lived, then by REST.
        new = next(i for i in w.fd.interactions.values() if i.label == "/game new")
        rest, token = rest_and_token_edits(table_message)
        assert token and max(token) - new.created_wall < LIFETIME - MARGIN + 0.5, [t - new.created_wall for t in token]
        assert rest, "after its token ran out, the table message was not edited by REST"
        assert min(rest) > max(token)
        # Within the pace: one edit a second, and the last one shows the end.
        assert all(b - a >= 0.95 for a, b in zip(rest, rest[1:], strict=False)), rest
        assert table_message.versions[-1].source == "edit" and table_message.versions[-1].by is None
