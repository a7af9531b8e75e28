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

import engine
from tables.table import SHOWN_ALL, SHOWN_END, SHOWN_SUMMARY
from tests.e2e.conftest import make_restart_world, make_world
from tests.fakediscord import payloads as P
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
        began = time.perf_counter()
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
        # What it cost: no request to a channel (those count against Discord's global limit, and the
        # fake refuses them here): only interaction answers and their webhooks, which do not count
        # (the start-up's own emoji uploads and command sync aside); and at most five followups for
        # any interaction (Discord's limit for an app installed to a person).
        counted = [r for r in fd.rest_calls(since=began) if "/channels/" in r.route]
        assert counted == [], [r.route for r in counted]
        edits = [r for r in fd.rest_calls(since=began) if r.route.startswith("PATCH /webhooks")]
        followups = max(i.followup_calls for i in fd.interactions.values())
        print(f"group DM Hearts game: 0 counted REST calls, {len(edits)} token edits, "
              f"{len(fd.interactions)} interactions, at most {followups} followups for one")
        assert followups <= 5
        # The game counts for the group: /stats there shows it; in the server it is not there.
        await w.until(lambda: w.bot.runtime.tables.get(tid) is None or w.bot.runtime.tables[tid].phase == "finished",
                      what="the finished table")
        here = await ann.slash("stats")
        assert here.ephemeral and "Hearts" in here.text and "No finished games" not in here.text
        assert "results in this conversation" in here.text, here.text  # not "in this server": there is none
        elsewhere = await ann.slash("stats", where=fd.channel)
        assert "No finished games" in elsewhere.text


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
        opened = await ann.slash("hand")  # (Ann added the app to her account: her commands work here)
        assert opened.ephemeral and "Your hand" in opened.text
        # Ann's /hand had no token left that may edit the table message: its answer posts it again
        # (a click on the table message itself would have updated it in place: the test below).
        again = await w.until(lambda: next((m for m in ben.sees(group) if not m.ephemeral and m.id != first.id
                                            and table_id_of(m) == table_id_of(first)), None),
                              what="the table posted again")
        assert "goes on here" in again.text
        logs = await asyncio.gather(*(play_seat(p, again, rng=random.Random(n), open_with="button", timeout=240)
                                      for n, p in enumerate((ann, ben))))
        assert is_over(fd, again) and all(log.moves > 0 for log in logs)
        assert not is_over(fd, first)  # the old message stays as it stopped
        assert fd.problems == []


async def test_a_click_on_the_table_message_updates_it_and_its_token_keeps_it_current() -> None:
    """Past every token's 15 minutes, a click on the table message itself (not a command) is
    answered by updating that very message (UPDATE_MESSAGE): it shows the table as it is, its fresh
    token keeps it current to the end, and nothing is posted again.  The click's private answer (the
    hand, a refusal) comes as an ephemeral followup, and the hand it opened stays current through
    that followup — never through the public message."""
    clock = JumpClock()
    async with make_world(sync_to_guild=False, runtime_options={"clock": clock}) as w:
        w.real_time = clock.real
        fd = w.fd
        ann, ben = w.ali, w.bob
        fd.install_to_account(ann)
        group = fd.add_group_dm("Two and two AIs", [ann, ben])
        ann.where = ben.where = group
        table_message = await open_table(ann, [ben], game="hearts", options="target=20", ai=True,
                                         join_by="button", speed="untimed")
        tid = table_id_of(table_message)
        fd.age_tokens(16 * 60)
        clock.jump(16 * 60)
        # A refused click: its sentence privately, and the public message updated all the same.
        refused = await ann.click(table_message, "Watch")
        assert refused.ephemeral and "You play at table" in refused.text, refused.text
        assert any(v.by == refused.interaction.id and v.source == "update" for v in table_message.versions)
        opened = await ben.click(table_message, "My hand")
        assert opened.ephemeral and "Your hand" in opened.text, opened.text
        assert opened.interaction.callback_type == P.UPDATE_MESSAGE
        assert opened.message.id in opened.interaction.followups  # (the hand: a followup of the click)
        assert opened.interaction.followup_calls == 1
        logs = await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(40 + n), open_with="button",
                                                timeout=240) for n, p in enumerate((ann, ben))))
        assert all(log.moves > 0 for log in logs)
        # The same message followed the game to its end, through the clicks' tokens.
        await w.until(lambda: is_over(fd, table_message), 10.0, "the end on the table message")
        shown = [m for m in fd.public(group.id) if tid in m.text and m.buttons()]
        assert [m.id for m in shown] == [table_message.id] and "goes on here" not in table_message.text
        # The hands those clicks opened (followups) were kept current by their ids (the closing
        # privacy check: only ever seen by their own person; the public message never showed one).
        hands = [fd.messages[x] for i in fd.interactions.values() if i.message_id == table_message.id
                 for x in i.followups]
        assert hands and all(h.ephemeral for h in hands)
        assert any(v.source == "edit" for h in hands for v in h.versions)
        assert fd.problems == []


async def test_a_click_whose_update_discord_refuses_is_answered_the_ordinary_way() -> None:
    async with make_world(sync_to_guild=False) as w:
        fd = w.fd
        ann, ben = w.ali, w.bob
        fd.install_to_account(ann)
        group = fd.add_group_dm("Two", [ann, ben])
        ann.where = ben.where = group
        lobby = (await ann.slash("game new", game="hearts")).message
        await w.until(w.idle, 5.0, "the lobby drawn")
        fd.fail("POST /interactions/{interaction_id}/{interaction_token}/callback", status=400)
        joined = await ben.click(lobby, "Join")
        assert joined.ephemeral and "You joined table" in joined.text, joined.text
        assert joined.interaction.callback_type == P.CHANNEL_MESSAGE and not joined.interaction.followups
        assert fd.injected and not any(v.by == joined.interaction.id for v in lobby.versions)
        await w.until(lambda: "Bob" in lobby.text, 5.0, "Bob's seat on the lobby")  # (the /game new token drew it)
        await w.runtime.end(table_id_of(lobby), ann.id)
        w.allow("injected fault")


async def test_a_game_that_ended_after_every_token_ran_out_is_shown_by_the_next_interaction() -> None:
    """Everyone is idle past 15 minutes, then the AI plays the game to its end: no token may edit
    the table message any more, so it stops mid-game.  The next Deckhand interaction in that
    conversation — here a /stats that has nothing to do with the table — is followed by the final
    standings, headed by a line saying the message above stopped before the end; once only."""
    clock = JumpClock()
    async with make_world(sync_to_guild=False, runtime_options={"clock": clock}) as w:
        w.real_time = clock.real
        fd = w.fd
        ann, ben = w.ali, w.bob
        fd.install_to_account(ann)
        group = fd.add_group_dm("Two and two AIs", [ann, ben])
        ann.where = ben.where = group
        table_message = await open_table(ann, [ben], game="hearts", options="target=1", ai=True,
                                         join_by="button", speed="untimed")
        tid = table_id_of(table_message)
        fd.age_tokens(16 * 60)
        clock.jump(16 * 60)
        # Both step away for good: the AI plays their seats (as it does once their time runs out).
        for p in (ann, ben):
            await w.runtime.leave(tid, p.id)
        table = w.runtime.tables[tid]
        await w.until(lambda: table.phase == "finished", 60.0, "the AI finishing the game")
        await w.until(w.idle, 10.0, "the last redraw")
        assert not is_over(fd, table_message)  # the message stopped mid-game
        assert w.runtime.tables.get(tid) is table and not table.shown & SHOWN_END  # (kept: not shown yet)

        def ends() -> list:
            return [m for m in fd.public(group.id) if m.id != table_message.id and tid in m.text]

        stats = await ann.slash("stats")
        assert stats.ephemeral
        (end,) = await w.until(ends, 5.0, "the final standings posted again")
        assert "has ended" in end.text and "stopped updating before the end" in end.text, end.text
        assert is_over(fd, end) and end.interaction_id == stats.interaction.id
        await w.until(lambda: table.shown & SHOWN_END, 5.0, "the end counted as shown")
        await ann.slash("game list")
        await w.until(w.idle, 10.0, "the list answered")
        assert len(ends()) == 1  # shown once
        assert fd.problems == []


async def test_a_game_that_ended_unseen_is_shown_by_the_first_interaction_after_a_restart(tmp_path) -> None:
    """The same across a restart: the end no token could show is stored as not shown, so the new
    process loads the finished table again and the first interaction in the group shows it.  Tokens
    live a few seconds here (Discord's and the bot's alike), the AI plays slowly: the game outlives
    every token."""
    lifetime = 4.0
    async with make_restart_world(tmp_path / "deckhand.db", sync_to_guild=False, token_lifetime=lifetime,
                                  config={"token_lifetime": lifetime, "token_margin": 1.0},
                                  runtime_options={"ai_delay": 0.4}) as w:
        fd = w.fd
        ann = w.ali
        fd.install_to_account(ann)
        group = fd.add_group_dm("Ann and three AIs", [ann, w.bob])
        ann.where = group
        first = await open_table(ann, [], game="hearts", options="target=1", ai=True, speed="untimed")
        tid = table_id_of(first)
        left = await ann.slash("game leave")  # (the AI plays her seat to the end)
        assert "an AI plays your seat" in left.text, left.text
        await w.until(lambda: w.row(tid)["phase"] == "finished" and w.row(tid)["shown"] == SHOWN_SUMMARY, 120.0,
                      "the game played out and stored")
        assert not is_over(fd, first)
        await w.restart_bot(kill=True)
        stats = await ann.slash("stats")
        end = await w.until(lambda: next((m for m in fd.public(group.id) if m.id != first.id and tid in m.text),
                                         None), 10.0, "the final standings")
        assert "has ended" in end.text and is_over(fd, end) and end.interaction_id == stats.interaction.id
        await w.until(lambda: w.row(tid)["shown"] == SHOWN_ALL, 10.0, "the end stored as shown")


async def test_a_restart_mid_game_in_a_group_dm_loses_nothing_and_posts_the_table_again(tmp_path) -> None:
    """The tokens die with the bot: after a kill -9 mid-game the new process has none that may edit
    the table message, so the first interaction about the table posts it again, and the game goes
    on to its end there."""
    async with make_restart_world(tmp_path / "deckhand.db", sync_to_guild=False) as w:
        fd = w.fd
        ann, ben = w.ali, w.bob
        fd.install_to_account(ann)
        group = fd.add_group_dm("Two and two AIs", [ann, ben])
        ann.where = ben.where = group
        first = await open_table(ann, [ben], game="hearts", options="target=20", join_by="button")
        tid = table_id_of(first)

        def tables_shown() -> list:
            return [m for m in fd.public(group.id) if m.buttons() and tid in m.text]

        def over() -> bool:
            return any(is_over(fd, m) for m in tables_shown())

        async def play(p, n: int):
            return await play_seat(p, first, rng=random.Random(n), open_with="button", timeout=240, over=over,
                                   ready=w.ready, tolerate=w.tolerate)

        players = [asyncio.ensure_future(play(p, n)) for n, p in enumerate((ann, ben))]
        await w.until(lambda: w.version(tid) >= 12, 60.0, "a few moves")
        await w.restart_bot(kill=True)
        logs = await asyncio.gather(*players)
        assert over() and all(log.moves > 0 for log in logs)
        # The new process had no token: the first interaction about the table brought it back — a
        # click on the table message by updating that message, any other by posting it again.
        again = [m for m in tables_shown() if m.id != first.id]
        assert is_over(fd, first) or (again and "goes on here" in again[0].versions[0].text)
        row = w.row(tid)
        assert row["phase"] == "finished" and row["place"] == "private" and row["guild_id"] == group.id
        # (the world's closing checks: no refused call; only a click the killed bot never answered failed)


async def test_a_whole_dalmuti_game_in_a_group_dm_of_four() -> None:
    async with make_world(sync_to_guild=False) as w:
        fd = w.fd
        ann, ben = w.ali, w.bob
        cat, dan = fd.add_member("Cat", locale="de"), fd.add_member("Dan", locale="ja")
        people = [ann, ben, cat, dan]
        fd.install_to_account(ann)
        group = fd.add_group_dm("Dalmuti night", people)
        for p in people:
            p.where = group
        short = " ".join(f"{k}={v}" for k, v in engine.get("dalmuti").game.short_options[0].items()) or None
        table_message = await open_table(ann, [ben, cat, dan], game="dalmuti", options=short, ai=False,
                                         join_by="button", speed="blitz")
        # Someone in the group who does not play watches it all: the privacy check reads their view.
        eve = fd.add_member("Eve")
        group.recipients = (*group.recipients, eve.id)
        eve.where = group
        watching = await eve.click(table_message, "Watch")
        assert "You are watching" in watching.text
        logs = await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(20 + n), open_with="button",
                                                timeout=240) for n, p in enumerate(people)))
        assert is_over(fd, table_message) and all(log.moves > 0 for log in logs)
        assert not fd.threads() and fd.problems == []


async def test_where_a_server_forbids_external_apps_the_host_is_told_and_nothing_opens() -> None:
    async with make_world(sync_to_guild=False) as w:
        fd = w.fd
        ann = w.ali
        fd.install_to_account(ann)
        elsewhere = fd.add_guild("A server without the bot", bot=False)
        strict = fd.add_channel("strict", guild=elsewhere)
        strict.external_apps = False
        refused = await ann.slash("game new", game="hearts", where=strict)
        assert refused.ephemeral and "does not let apps" in refused.text and "group DM" in refused.text
        assert w.bot.runtime.tables == {}
        # Where the server lets them, the table opens there, for everyone in the channel to see.
        open_channel = fd.add_channel("cards", guild=elsewhere)
        opened = await ann.slash("game new", game="hearts", where=open_channel)
        assert not opened.ephemeral and table_id_of(opened.message) in opened.text
        (table,) = w.bot.runtime.tables.values()
        assert table.place == "app" and table.guild_id == elsewhere
        await w.bot.runtime.end(table.id, ann.id)
        assert fd.problems == []


async def test_play_again_and_replay_in_a_group_dm() -> None:
    """After a game in a group DM: its Replay answers privately, and Play again opens
    the rematch lobby there, as the answer to the click (it pings the other player: a mention in an
    interaction answer is no channel post)."""
    async with make_world(sync_to_guild=False) as w:
        fd = w.fd
        ann, ben = w.ali, w.bob
        fd.install_to_account(ann)
        group = fd.add_group_dm("Rematch", [ann, ben])
        ann.where = ben.where = group
        old = await open_table(ann, [ben], game="hearts", options="target=1", join_by="button")
        old_id = table_id_of(old)
        await asyncio.gather(*(play_seat(p, old, rng=random.Random(30 + n), open_with="button", timeout=120)
                               for n, p in enumerate((ann, ben))))
        await w.until(lambda: "Play again" in str(old.buttons()), 10.0, "Play again on the finished table")
        replay = await ben.click(old, "Replay")
        assert not replay.failed and replay.ephemeral, replay.text
        again = await ben.click(old, "Play again")
        assert not again.failed and not again.ephemeral and again.message is not None, again.text
        lobby = again.message
        assert lobby.channel_id == group.id and table_id_of(lobby) != old_id
        assert ann.mention in lobby.versions[0].content
        t = w.bot.runtime.tables[table_id_of(lobby)]
        assert t.place == "private" and t.guild_id == group.id and t.host_id == ben.id
        joined = await ann.click(lobby, "Join")
        assert "You joined table" in joined.text, joined.text
        await w.bot.runtime.end(t.id, ben.id)
        assert fd.problems == []
