"""A table where the bot is not a member (issue 32): a group DM of four friends, one of whom added
Deckhand to their account.  The bot may only answer interactions there — the fake refuses (and the
closing checks fail on) any channel post, thread or history read, more than five followups per
interaction, and a token used after its 15 minutes — so the table message lives on interaction
tokens: the answer that posted it, then, once no token may edit it, a followup of the next
interaction that posts it again."""

from __future__ import annotations

import asyncio
import random
import time

from tests.e2e.conftest import make_world
from tests.fakediscord.play import is_over, open_table, play_seat, table_id_of


async def test_a_whole_hearts_game_in_a_group_dm_without_the_bot() -> None:
    async with make_world(sync_to_guild=False) as w:
        fd = w.fd
        ann, ben = w.ali, w.bob
        cat, dan = fd.add_member("Cat", locale="fr"), fd.add_member("Dan")
        people = [ann, ben, cat, dan]
        fd.install_to_account(ann)  # only Ann added the app; the others use its buttons
        group = fd.add_group_dm("Friday cards", people)
        for p in people:
            p.where = group
        table_message = await open_table(ann, [ben, cat, dan], game="hearts", options="target=20", ai=False,
                                         join_by="button")
        assert table_message.channel_id == group.id and not table_message.ephemeral
        tid = table_id_of(table_message)
        assert [b["label"] for b in table_message.buttons()] == ["My hand", "I'm back", "Watch", "How to play"]
        logs = await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(n), open_with="button",
                                                timeout=240) for n, p in enumerate(people)))
        assert is_over(fd, table_message) and all(log.moves > 0 for log in logs)
        # Nothing was posted but answers to the people's own interactions: no thread, no ping.
        assert not fd.threads() and not any(p.pings() for p in people)
        assert all(m.interaction_id is not None for m in fd.messages.values() if m.channel_id == group.id)
        assert tid in table_message.text and fd.problems == []


class JumpClock:
    """Real time, plus the jumps a test makes: the bot's clock (which says when a token runs out)
    moves on by a quarter of an hour at once, as Discord's does (:meth:`FakeDiscord.age_tokens`)."""

    def __init__(self) -> None:
        self.jumps: list[tuple[float, float]] = []  # (real time of the jump, seconds)

    def now(self) -> float:
        return time.time() + sum(s for _, s in self.jumps)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    def jump(self, seconds: float) -> None:
        self.jumps.append((time.time(), seconds))

    def real(self, at: float) -> float:
        """A time of this clock on the wall clock (what the fake stamps messages with)."""
        for when, seconds in self.jumps:
            if at >= when + seconds:
                at -= seconds
        return at


async def test_a_table_idle_past_fifteen_minutes_is_posted_again_by_the_next_interaction() -> None:
    clock = JumpClock()
    async with make_world(sync_to_guild=False, runtime_options={"clock": clock}) as w:
        w.real_time = clock.real
        fd = w.fd
        ann, ben = w.ali, w.bob
        fd.install_to_account(ann)
        group = fd.add_group_dm("Two and two AIs", [ann, ben])
        ann.where = ben.where = group
        # Untimed: nobody's time runs out while they are away (the AIs wait for nobody).
        table_message = await open_table(ann, [ben], game="hearts", options="target=20", ai=True,
                                         join_by="button", speed="untimed")
        first = table_message
        # Everyone is idle past the tokens' 15 minutes: Discord's and the bot's clocks move on.
        fd.age_tokens(16 * 60)
        clock.jump(16 * 60)
        opened = await ben.click(first, "My hand")
        assert opened.ephemeral and "Your hand" in opened.text
        # Ben's click had no token left that may edit the table message: its answer posts it again.
        again = await w.until(lambda: next((m for m in ben.sees(group) if not m.ephemeral and m.id != first.id
                                            and table_id_of(m) == table_id_of(first)), None),
                              what="the table posted again")
        assert "goes on here" in again.text
        logs = await asyncio.gather(*(play_seat(p, again, rng=random.Random(n), open_with="button", timeout=240)
                                      for n, p in enumerate((ann, ben))))
        assert is_over(fd, again) and all(log.moves > 0 for log in logs)
        assert not is_over(fd, first)  # the old message stays as it stopped
        assert fd.problems == []
