"""Issue 14 item 8: the bot may not post in the table's channel.  Every turn ping and summary is
refused with a 403; the game goes on (clicks are answered through their interactions), the host is
told once — ephemerally, at their next interaction — which permission is missing, and the log gets
one warning, not a traceback per message."""

from __future__ import annotations

import asyncio
import logging
import random

from tests.e2e.conftest import World
from tests.fakediscord.play import open_table, play_seat
from tests.fakediscord.users import Reply


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_a_channel_the_bot_cannot_post_in_is_reported_to_the_host_once(w: World) -> None:
    quiet = w.fd.add_channel("quiet", threads=False)  # no thread: the table talks in the channel
    for p in (w.ali, w.bob):
        p.where = quiet
    logs = Collect()
    root = logging.getLogger()
    root.addHandler(logs)
    try:
        views: dict[int, Reply] = {}
        table_message = await open_table(w.ali, [w.bob], options="target=1", views=views)
        quiet.can_send = False  # a moderator takes Send Messages away once the table is up
        # Bob passes from his join answer and closes it: his next turn is a ping (refused here;
        # a live hand view would have shown the turn without one), then he opens his hand again.
        bob_view = views[w.bob.id]
        await w.until(lambda: bob_view.message.selects(), what="Bob's join answer showing his pass menu")
        menu = bob_view.message.selects()[0]
        await w.bob.choose(bob_view.message, [o["value"] for o in menu["options"][:3]], custom_id=menu["custom_id"])
        w.bob.dismiss(bob_view.message)
        mark = len(w.fd.requests)
        ali = asyncio.create_task(play_seat(w.ali, table_message, rng=random.Random(1), view=views[w.ali.id]))
        try:
            await w.until(lambda: [r for r in w.fd.requests[mark:] if r.status == 403 and r.method == "POST"], 20.0,
                          "Bob's turn ping refused")
            await play_seat(w.bob, table_message, rng=random.Random(2))
        finally:
            await ali
        await w.until(lambda: "— finished" in table_message.text, what="the finished table")
    finally:
        root.removeHandler(logs)
    # Bob's ping and the game-over summary at least (with live views open, pings are rare now; the
    # bot no longer tries a thread here, since the interactions say it may not create one).
    await w.until(lambda: len([r for r in w.fd.requests if r.status == 403]) >= 2, 10.0,
                  "several refused posts (the ping and the summary)")
    assert not [r for r in w.fd.requests if r.route.endswith("/threads")]
    # One warning, no traceback, no error.
    warned = [r for r in logs.records if r.levelno == logging.WARNING and "refused a post" in r.getMessage()]
    assert len(warned) == 1, [r.getMessage() for r in warned]
    assert not [r for r in logs.records if r.levelno >= logging.ERROR or r.exc_info], \
        [r.getMessage() for r in logs.records if r.levelno >= logging.ERROR or r.exc_info]
    # The host — and only the host — was told once, ephemerally, what is missing.
    told = [m for m in w.fd.messages.values() if "missing the **Send Messages** permission" in m.current.content]
    assert len(told) == 1, [m.current.content for m in told]
    assert told[0].ephemeral_to == w.ali.id
    assert "quiet" in told[0].current.content or f"<#{quiet.id}>" in told[0].current.content
    w.allow("403")
