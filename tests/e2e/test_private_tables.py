"""Issue 29 item 15: a table in a channel someone may not read does not exist for them — not in
`/game watch`'s suggestions, not in `/game list`, not to watch (by command, or by **Watch** on a
message elsewhere), not to join, replay or review — and every refusal reads exactly as the one for
an id nobody knows.  Their permissions in the table's channel come from their roles and the
channel's overwrites (the fake Discord computes them as Discord documents; the bot from its guild
cache and the member each interaction carries: no privileged intent).  A thread has its parent's.
"""

from __future__ import annotations

import pytest

from tests.e2e.conftest import World
from tests.fakediscord import payloads as P
from tests.fakediscord.play import open_table
from tests.fakediscord.server import FakeDiscord
from tests.fakediscord.users import CannotDoThat, Person


def staff_room(w: World) -> tuple[object, object]:
    """``#staff-only``: @everyone may not see it, the staff role and the bot may."""
    staff = w.fd.add_role("staff")
    room = w.fd.add_channel("staff-only")
    w.fd.overwrite(room, "everyone", deny=P.VIEW_CHANNEL)
    w.fd.overwrite(room, staff, allow=P.VIEW_CHANNEL)
    w.fd.overwrite(room, w.fd.bot, allow=P.VIEW_CHANNEL)
    return staff, room


def as_unknown(text: str, table_id: str) -> str:
    return text.replace(table_id, "ZZZZZZ")


async def private_world(w: World) -> tuple[Person, object, str, str]:
    """Ali (staff) runs a table in ``#staff-only``, Bob one in ``#cards``; Carol is staff too.
    Returns Carol, the staff role, the private and the public table's ids."""
    staff, room = staff_room(w)
    w.fd.give_role(w.ali, staff)
    carol = w.fd.add_member("Carol")
    w.fd.give_role(carol, staff)
    w.ali.where = room
    private = await open_table(w.ali, [])
    public = await open_table(w.bob, [])  # in #cards, for everyone
    assert w.table(private).thread_id is not None  # the game moved into a thread of #staff-only
    # The fake: the stranger sees neither #staff-only nor its thread, and cannot open a link to them.
    assert not w.stranger.sees(room) and not w.stranger.sees(w.table(private).thread_id)
    with pytest.raises(CannotDoThat):
        await w.stranger.click(private, "Watch")
    with pytest.raises(CannotDoThat):
        await w.stranger.slash("game list", where=room)
    return carol, staff, w.table(private).id, w.table(public).id


async def test_suggestions_and_the_list_name_only_tables_one_may_read(w: World) -> None:
    carol, _, secret, shown = await private_world(w)
    # Suggestions: the stranger is offered the public table only; Carol (staff) both, from #cards.
    offered = await w.stranger.autocomplete("game watch", "table", "")
    assert [c["value"] for c in offered] == [shown], offered
    assert await w.stranger.autocomplete("game watch", "table", secret.lower()) == []
    assert sorted(c["value"] for c in await carol.autocomplete("game watch", "table", "")) == sorted([secret, shown])
    # /game list names it only to those who may read #staff-only (or sit at it).
    listed = await w.stranger.slash("game list")
    assert shown in listed.text and secret not in listed.text, listed.text
    assert secret in (await carol.slash("game list")).text
    assert secret in (await w.ali.slash("game list")).text  # (in #staff-only)


async def test_watch_and_join_of_a_table_one_may_not_read_answer_as_for_no_table(w: World) -> None:
    _, _, secret, _ = await private_world(w)
    unknown = await w.stranger.slash("game watch", table="ZZZZZZ")
    hidden = await w.stranger.slash("game watch", table=secret)
    assert hidden.ephemeral and as_unknown(hidden.text, secret) == unknown.text, (hidden.text, unknown.text)
    assert w.runtime.listener.watchers.count(secret) == 0
    joined = await w.stranger.slash("game join", id=secret)
    assert as_unknown(joined.text, secret) == (await w.stranger.slash("game join", id="ZZZZZZ")).text
    assert w.table(secret).seat_of(w.stranger.id) is None


async def test_watch_on_a_message_elsewhere_follows_only_while_one_may_read_the_table(w: World) -> None:
    carol, staff, secret, _ = await private_world(w)
    # Carol may read #staff-only: she watches it from #cards; her view (in #cards) has Watch.
    watching = await carol.slash("game watch", table=secret)
    assert "You are watching" in watching.text, watching.text
    # Her role is taken away: Watch on that view, outside the table's channel, no longer follows it.
    w.fd.take_role(carol, staff)
    unknown = await carol.slash("game watch", table="ZZZZZZ")
    again = await carol.click(watching.message, "Watch")
    assert as_unknown(again.text, secret) == unknown.text, again.text
    assert secret not in (await carol.slash("game list")).text


async def test_replay_and_review_of_a_game_one_may_not_read_answer_as_for_no_game(w: World) -> None:
    _, _, secret, _ = await private_world(w)
    ended = await w.ali.slash("game end")
    assert "has ended" in ended.text, ended.text
    said = {}
    for command in ("game replay", "game review"):
        nothing = await w.stranger.slash(command, id="ZZZZZZ")
        refused = await w.stranger.slash(command, id=secret)
        assert not refused.failed
        said[command] = (as_unknown(refused.text, secret)[:80], nothing.text[:80])
    assert all(hidden == unknown for hidden, unknown in said.values()), said
    unknown = await w.stranger.slash("game watch", table="ZZZZZZ")
    watched_over = await w.stranger.slash("game watch", table=secret)
    assert as_unknown(watched_over.text, secret) == unknown.text, watched_over.text
    # Its player still may: they sat at it.
    mine = await w.ali.slash("game replay", id=secret)
    assert not mine.failed and "replay" in mine.text.lower() and "There is no game" not in mine.text


def test_the_fake_computes_permissions_as_discord_documents() -> None:
    """Discord's "Permission Overwrites": @everyone's and the roles' permissions, then the channel's
    @everyone overwrite, the roles' overwrites together, the member's own; Administrator and the
    owner have all; no View Channel, nothing; a thread has its parent's."""
    fd = FakeDiscord()
    staff, mods = fd.add_role("staff"), fd.add_role("mods", P.ADMINISTRATOR)
    room = fd.add_channel("staff-only")
    people = {name: fd.add_member(name) for name in ("Ann", "Ben", "Cat", "Dan")}
    fd.give_role(people["Ben"], staff)
    fd.give_role(people["Cat"], staff)
    fd.give_role(people["Dan"], mods)
    fd.overwrite(room, "everyone", deny=P.VIEW_CHANNEL | P.SEND_MESSAGES)
    fd.overwrite(room, staff, allow=P.VIEW_CHANNEL)
    fd.overwrite(room, people["Cat"], deny=P.VIEW_CHANNEL)  # the member's own overwrite comes last

    def view(p: Person) -> bool:
        return fd.can_view(p.id, room.id)

    assert [view(people[n]) for n in ("Ann", "Ben", "Cat", "Dan")] == [False, True, False, True]
    assert fd.permissions_in(people["Ben"].id, room) & P.SEND_MESSAGES == 0  # (denied to @everyone, not allowed)
    assert fd.permissions_in(people["Ann"].id, room) == 0
    assert fd.permissions_in(fd.owner.id, room) == P.ALL_PERMISSIONS
    assert fd.permissions_in(people["Ann"].id, fd.channel) == P.MEMBER_PERMISSIONS
    thread = fd.channels.setdefault(424242, type(room)(424242, "a thread", type=11, parent_id=room.id))
    assert fd.can_view(people["Ben"].id, thread.id) and not fd.can_view(people["Ann"].id, thread.id)
