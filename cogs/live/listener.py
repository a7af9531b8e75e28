"""How the table runtime reaches Discord: redraw the table message, ping whoever must act, post
summaries.

The runtime calls these from its own tasks, so every Discord error is caught and logged here: a
deleted channel, a missing permission or an outage must never stop a table.
"""



import asyncio
import logging
from collections.abc import Sequence

import discord

import words
from cogs.i18n.reading import reading
from cogs.live.budget import RestBudget as RestBudget
from cogs.live.hand import edit_original_message
from cogs.live.listener_base import UNKNOWN_CHANNEL as UNKNOWN_CHANNEL
from cogs.live.listener_base import _Watch
from cogs.live.listener_base import missing_permissions as missing_permissions
from cogs.live.pace import events_after
from cogs.live.pings import NUDGE_LEAD as NUDGE_LEAD
from cogs.live.pings import Pings, _buttons, _mention, _person, pings_for
from cogs.table import render, renderers
from cogs.table.components import let_go, table_view
from cogs.table.endgame import add_rating_changes, attach_picture_later
from cogs.table.render import NO_PINGS
from cogs.watch.view import ClockNote, with_count
from engine.core import Event
from tables.table import Table
from tables.turns import MISSES_TO_AWAY

log = logging.getLogger(__name__)

NOTES_KEPT = 8  # clock lines remembered per table (the table message shows the last few events)


class DiscordListener(Pings):
    """The runtime's ``Listener``, backed by a discord.py client."""

    # ---- Listener ---------------------------------------------------------------------------
    async def redraw(self, table: Table) -> float | None:
        """Live hand views follow at once; the public message when a watcher needs it.  Returns in
        how many seconds to be called again when part of the change is not shown yet."""
        news: list[tuple[str, int]] = []
        again: float | None = None
        try:
            news = self._watch(table)
            # Token edits do not wait for the bot's REST budget: Discord does not count them.
            self.live.changed(table)
            self.watchers.use_clock(getattr(self.live.runtime, "clock", None))
            self.watchers.changed(table, self.notes(table))
        except Exception:
            log.exception("Could not follow the changes of table %s", table.id)
        try:
            await self._restore_pings(table)
            self._sweep_pings(table)
            self._plan_nudges(table)
        except Exception:
            log.exception("Could not plan the reminders of table %s", table.id)
        try:
            again = await self._redraw(table)
        except discord.Forbidden as e:
            self._forbidden(table, e)
        except Exception:
            log.exception("Could not redraw table %s", table.id)
        for kind, seat in news:
            try:
                await self._wait_gate(table.id)
                await self._seat_notice(table, kind, seat)
            except discord.NotFound as e:
                self._not_found(table, e, f"Could not tell seat {seat} of table %s about its missed turns")
            except Exception:
                log.exception("Could not tell seat %d of table %s about its missed turns", seat, table.id)
        return again

    async def seat_changed(self, table: Table, seats: Sequence[int]) -> None:
        # The runtime's signal: only these seats' own hand views are edited (through their tokens).
        self.live.seat_changed(table, seats)

    def released(self, table: Table) -> None:
        """The runtime let go of this table (another process runs it now): nothing more of it is
        posted from here.  Its nudge is disarmed, its hand views are no longer edited, and its
        standing pings are forgotten here (they are stored: the process that runs the table now
        deletes them once their people moved)."""
        n = self._nudges.pop(table.id, None)
        if n is not None and n.task is not None:
            n.task.cancel()
        self._pings.pop(table.id, None)
        self._restored.pop(table.id, None)
        self._first.pop(table.id, None)
        self._watches.pop(table.id, None)
        self.pace.forget(table.id)
        self.live.let_go(table.id)

    def showing(self, table: Table) -> bool:
        """The runtime's question before a finished table leaves memory: is a hand view of it still
        being edited (those read the table by its id)?"""
        return self.live.editing(table.id) or self.watchers.editing(table.id)

    def notes(self, table: Table) -> tuple[ClockNote, ...]:
        """The clock lines the table message shows now (``render.clock_notes``)."""
        watch = self._watches.get(table.id)
        return tuple(watch.notes) if watch is not None else ()

    async def started(self, table: Table) -> None:
        """The game's first message in its new thread (the cog calls it while it holds the table's
        pings): **My hand** and **I'm back** for the whole game, so a hand opened there answers in
        the thread; it also pings the people who must act already and have no live hand view (their
        first turn ping: one post for both)."""
        if table.thread_id is None:
            return
        try:
            where = self.where(table)
            await self.budget.take(urgent=True)  # the game's My hand: people wait for it
            # (while the table deals, nobody is due: the seats' moves are optional, never pinged)
            acting = () if table.state is None or len(table.to_act()) != len(table.state.to_act()) else table.to_act()
            # Only people due now whose hand view is not live are pinged (as by ``turn``).
            people = [s for s in acting if 0 <= s < len(table.seats) and not table.seats[s].auto
                      and (user_id := table.seats[s].user_id) is not None
                      and not self.live.alive(table.id, user_id)]
            ids = [_person(table, s) for s in people]
            with reading(table.locale):  # the thread's first post: the table's language
                text = words.translate(
                    table.locale, "**{game}** is on! Press **My hand** for your cards: they show up here and stay "
                    "up to date while you play. **I'm back** gives you your seat back after the AI took over.",
                    game=render.game_title(table))
                buttons = _buttons(table.id, "hand", "back")
            if people:
                text += "\n" + renderers.turn_notice(table, people)
                self._first[table.id] = frozenset(people)
            # Not again in the channel: there the table message gets My hand back instead.
            await self._send(table, where, text, view=buttons, allowed_mentions=pings_for(ids), again=False)
        except discord.Forbidden as e:
            self._first.pop(table.id, None)
            self._forbidden(table, e)
        except discord.NotFound as e:
            self._first.pop(table.id, None)
            self._not_found(table, e, "Could not post the start notice of table %s")
        except Exception:
            self._first.pop(table.id, None)
            log.exception("Could not post the start notice of table %s", table.id)

    async def turn(self, table: Table, seats: Sequence[int]) -> None:
        with self._posting(table, "Could not post the turn notice of table %s"):
            await self._wait_gate(table.id)
            first = self._first.pop(table.id, None)
            if first is not None and set(seats) <= first:
                return  # the start notice pinged them for this very turn
            await self._turn(table, seats)

    async def summary(self, table: Table, events: Sequence[Event]) -> None:
        with self._posting(table, "Could not post the summary of table %s"):
            await self._wait_gate(table.id)
            await self._summary(table, events)

    async def unposted(self, table: Table) -> None:
        """The runtime's call for a table restored with no message (the bot stopped after storing a
        new lobby, before its message reached Discord): post it in its channel, as a table message
        that was deleted is posted again, so people can see and join it.  No pings."""
        if table.message_id is not None or table.anchored:
            return  # (a table where the bot is not a member is posted again by the next interaction)
        with self._posting(table, "Could not post the message of table %s"):
            channel = self.channel(table.channel_id)
            # The message may have reached Discord with its id not yet stored: found, it is kept
            # (the redraws edit it); else it is posted.
            msg = await self._find_posted(table, channel)
            if msg is None:
                await self.budget.take()
                rendered = renderers.table_message(table)
                view = table_view(table)
                try:
                    msg = await channel.send(content=rendered.content, embed=rendered.embed, view=view,
                                             allowed_mentions=NO_PINGS)
                finally:
                    let_go(view)
            if table.message_id is None:
                table.message_id = msg.id  # (the runtime stores it: its ids changed)

    async def _find_posted(self, table: Table, channel: discord.abc.Messageable, look_back: int = 25
                           ) -> discord.Message | None:
        """The bot's own message of ``table`` among the channel's latest (Read Message History), or
        ``None`` (none there, or the bot may not read the history)."""
        me = getattr(getattr(self.bot, "user", None), "id", None)  # (the bot's own account, once logged in)
        mark = f"table `{table.id}`"
        try:
            await self.budget.take()
            async for m in channel.history(limit=look_back):
                texts = [m.content or "", *(f"{e.title or ''} {e.description or ''}" for e in m.embeds)]
                if m.author.id == me and any(mark in t for t in texts):
                    return m
        except discord.HTTPException as e:
            log.info("Table %s: could not read the channel's history (%s); its message is posted", table.id, e)
        return None

    # ---- a thread deleted before Discord said so ------------------------------------------------

    # ---- the work ---------------------------------------------------------------------------
    async def _redraw(self, table: Table) -> float | None:
        if table.message_id is None:
            return None  # /game new posts the first message and records its id
        if table.anchored:
            await self._redraw_anchored(table)
            return None
        channel = self.channel(table.channel_id)
        if channel is None:
            return None
        # While the /game new answer's token lives, the table message is edited through it: Discord's
        # global limit does not count that, so no budget is taken (the pace still decides when).
        token = self.live.table_token(table.id)
        self.pace.free(table.id, token is not None)
        watch = self._watches.get(table.id)
        wait = self.pace.due(table, self.now(), watch.noted if watch is not None else 0)
        if wait is None:
            return None
        if wait > 0:
            return wait
        if token is not None:
            # Nothing waits for the budget here: while the cog opens the game's thread, the table
            # shows the running game only once the thread's first message (My hand) is there.
            await self._wait_gate(table.id)
        else:
            if self.pace.urgent(table.id):
                await self.budget.take()  # in the queue, first come first served
            elif not self.budget.try_take():
                # A routine edit never queues before a ping or a summary: the table tries again
                # soon, with whatever it shows by then.
                return self.pace.retry()
        # After the token: the table may have moved on while waiting, and that is what is drawn.
        watch = self._watches.get(table.id)
        self.pace.shown(table, self.now(), watch.noted if watch is not None else 0)
        with render.clock_notes(watch.notes if watch is not None else ()):
            rendered = renderers.table_message(table)
        # How many watch rides on this paced edit: a watcher coming or going never costs one.
        if render.phase_of(table) == "running":  # (a finished message is never redrawn to take it back)
            with_count(rendered, self.watchers.count(table.id), table.locale)
        view = table_view(table)
        if token is not None:
            try:
                await edit_original_message(token, content=rendered.content, embed=rendered.embed, view=view,
                                            allowed_mentions=NO_PINGS)
                if render.phase_of(table) == "finished":
                    self.live.table_token_gone(table.id)
                let_go(view)  # (sent: its items and it are garbage now, freed without the collector)
                return None
            except discord.HTTPException as e:
                # The token ran out early, or the message is gone: the bot's own REST edit (which
                # posts the message again if it was deleted) takes over for good.
                log.info("Table %s: its message can no longer be edited through a token (%s)", table.id, e)
                self.live.table_token_gone(table.id)
                self.pace.free(table.id, False)
                await self.budget.take()
        try:
            await channel.get_partial_message(table.message_id).edit(
                content=rendered.content, embed=rendered.embed, view=view, allowed_mentions=NO_PINGS
            )
        except discord.NotFound:
            # Someone deleted the table message: post it again so the game stays playable.
            await self.budget.take()
            msg = await channel.send(
                content=rendered.content, embed=rendered.embed, view=view, allowed_mentions=NO_PINGS
            )
            table.message_id = msg.id
        let_go(view)
        return None

    async def _redraw_anchored(self, table: Table) -> None:
        """A table where the bot is not a member: its message is edited only through a token that
        may edit it (cogs/live/hand.py: the answer that posted it, or the interaction that posted it
        again), never paced against the REST budget (Discord does not count those edits).  With no
        such token left the table waits: the next interaction about it posts it again."""
        token = self.live.table_token(table.id)
        if token is None:
            self.live.table_stale(table.id)
            return None
        content, embed, view = self.anchored_message(table)
        try:
            await self.live.edit_table(token, table.id, content=content, embed=embed, view=view,
                                       allowed_mentions=NO_PINGS)
        except discord.HTTPException as e:
            log.info("Table %s: its message can no longer be edited through a token (%s)", table.id, e)
            self.live.table_token_gone(table.id)
            self.live.table_stale(table.id)
        let_go(view)
        return None

    def anchored_message(self, table: Table) -> tuple[str | None, discord.Embed | None, discord.ui.View]:
        """The public table message of a table where the bot is not a member, as it is now (what a
        token edit or a click's update shows: cogs/live/anchors.py)."""
        watch = self._watches.get(table.id)
        with render.clock_notes(watch.notes if watch is not None else ()):
            rendered = renderers.table_message(table)
        if render.phase_of(table) == "running":
            with_count(rendered, self.watchers.count(table.id), table.locale)
        return rendered.content, rendered.embed, table_view(table)

    def unshown(self, table: Table) -> bool:
        """The runtime's optional question after a redraw: did it leave the table message as it was?
        True for a table where the bot is not a member with no token left that may edit its message:
        a game that ended so counts as not shown (stored unfinished), and the next interaction in its
        conversation posts its end (cogs/live/anchors.py ``show_ends``).  A lobby closed before its
        game began has nothing to show."""
        return table.anchored and table.state is not None and self.live.needs_posting(table.id)

    async def close(self) -> None:
        """Stop the nudges and ping removals under way (the standing pings are stored as posted)."""
        tasks = list(self._tasks)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def shutdown(self) -> None:
        """The bot stops: pending edits of hand views and watchers' views (nothing of them is kept
        across a restart), then the nudges and ping removals under way."""
        await self.live.close()
        await self.close()
        await self.watchers.close()

    async def broken(self, table: Table, reason: str) -> None:
        """The runtime's optional notice: a table could not be restored after a restart; say so
        where it was played."""
        try:
            where = self.where(table)
            if where is None:
                return
            ids = [s.user_id for s in table.seats if s.user_id is not None and not s.is_ai]
            text = (f"⚠️ Table `{table.id}` could not be restored after Deckhand restarted, so it has ended "
                    f"({reason[:300]}). Sorry about that! Start a new game with `/game new`.")
            await where.send(" ".join([*(f"<@{u}>" for u in ids), text]), allowed_mentions=pings_for(ids))
        except Exception:
            log.exception("Could not tell the players of table %s that it is broken", table.id)


    # ---- missed turns and moves made by the clock ------------------------------------------------
    def _watch(self, table: Table) -> list[tuple[str, int]]:
        """Compare the table with what the last redraw saw: a line on the table for every move the
        clock made for a person, and the seats to warn (second missed turn in a row) or to tell that
        the AI plays for them now (third).  Only public facts are used: who moved, that the clock
        ran out, and the public events of the move."""
        seats = table.seats
        w = self._watches.get(table.id)
        if w is None or len(table.log) < w.log_len:
            self._watches[table.id] = _Watch(len(table.log), table.recent[-1] if table.recent else None,
                                             {i: s.away for i, s in enumerate(seats)},
                                             {i: s.missed for i, s in enumerate(seats)})
            return []
        new_log = table.log[w.log_len:]
        events = events_after(table.recent, w.last_event)
        w.log_len = len(table.log)
        w.last_event = table.recent[-1] if table.recent else None
        used: set[int] = set()
        news: list[tuple[str, int]] = []
        for i, s in enumerate(seats):
            if s.is_ai or s.user_id is None:
                continue
            was_away, missed_before = w.away.get(i, False), w.missed.get(i, 0)
            w.away[i], w.missed[i] = s.away, s.missed
            if was_away:
                continue  # the AI plays for them: its moves are nothing special
            for e in (e for e in new_log if e.seat == i and e.timeout):  # the clock's, not the AI's
                w.notes.append(self._clock_note(table, i, e.code, events, used))
                w.noted += 1
            if s.away and not s.left and s.missed >= MISSES_TO_AWAY:
                news.append(("away", i))
            elif not s.away and s.missed == MISSES_TO_AWAY - 1 and missed_before < s.missed:
                if not self.live.alive(table.id, s.user_id):
                    news.append(("warn", i))  # a live view shows the warning itself
        del w.notes[:-NOTES_KEPT]
        return news

    def _clock_note(self, table: Table, seat: int, code: str, events: Sequence[Event],
                    used: set[int]) -> tuple[Event | None, str, bool]:
        """The table's line for a move the clock made: the public event of that move, reworded
        ("Ali's time ran out — played 4♣."), or a plain line after the newest event when the move
        showed nothing (a pass chosen in secret)."""
        name = render.seat_name(table, seat)
        codes = set(code.split()[1:])
        pick = None
        for n, e in enumerate(events):
            if n in used or e.seat != seat or e.to is not None:
                continue
            shown = {getattr(x, "code", str(x)) for x in e.data}
            if codes and codes <= shown:
                pick = n
                break
        if pick is None:
            pick = next((n for n, e in enumerate(events) if n not in used and e.seat == seat and e.to is None
                         and not any(hasattr(x, "code") for x in e.data)), None)
        if pick is not None:
            used.add(pick)
            text = renderers.event_text(table, events[pick])
            if text:
                rest = text[len(name) + 1:] if text.startswith(name + " ") else text
                return events[pick], "⏰ " + words.translate(table.locale, "{name}'s time ran out — {move}",
                                                             name=name, move=rest), True
        return (events[-1] if events else None), "⏰ " + words.translate(
            table.locale, "{name}'s time ran out — a safe move was made for them.", name=name), False

    async def _seat_notice(self, table: Table, kind: str, seat: int) -> None:
        """The second missed turn in a row: a warning; the third: the AI plays the seat now, and
        how to come back.  One short ping each, in the table's thread."""
        s = table.seats[seat]
        if s.user_id is None or table.phase != "running":
            return
        where = self.where(table)
        if where is None:
            return
        await self.budget.take()
        if kind == "away":
            if not (s.away and not s.left):
                return
            lang = table.locale  # posted in the table's channel: the table's language
            with reading(lang):
                text = words.ngettext(lang, "{who}, you missed {n} turn in a row, so the AI is playing your seat now. "
                                      "Press **I'm back** or use `/hand` to play again.",
                                      "{who}, you missed {n} turns in a row, so the AI is playing your seat now. "
                                      "Press **I'm back** or use `/hand` to play again.", MISSES_TO_AWAY,
                                      who=_mention(s.user_id))
                buttons = _buttons(table.id, "back")
            await self._send(table, where, text, view=buttons, allowed_mentions=pings_for([s.user_id]))
        else:
            if s.away or s.missed != MISSES_TO_AWAY - 1:
                return
            lang = table.locale
            with reading(lang):
                text = words.ngettext(lang, "{who}, your time ran out {n} turn in a row — if it runs out once more, "
                                      "the AI plays your seat until you press **I'm back**.",
                                      "{who}, your time ran out {n} turns in a row — if it runs out once more, "
                                      "the AI plays your seat until you press **I'm back**.", s.missed,
                                      who=_mention(s.user_id))
                buttons = _buttons(table.id, "hand")
            await self._send(table, where, text, view=buttons, allowed_mentions=pings_for([s.user_id]))

    async def _summary(self, table: Table, events: Sequence[Event]) -> None:
        rendered = renderers.summary(table, [e for e in events if e.to is None])
        over = render.phase_of(table) == "finished"
        try:
            self.watchers.summary(table, rendered)  # (through their tokens: no budget)
        except Exception:
            log.exception("Could not show the summary of table %s to its watchers", table.id)
        if over:
            self._locks.pop(table.id, None)
            self._watches.pop(table.id, None)
        if rendered is None:
            return
        where = self.where(table)
        if where is not None:
            if over:
                await add_rating_changes(self.bot, table, rendered)
            await self.budget.take()
            sent = await self._send(table, where, content=rendered.content, embed=rendered.embed,
                                    allowed_mentions=NO_PINGS)
            if over:
                # Without Attach Files the chart comes as a text table (cogs/ops/permissions.py).
                attach_picture_later(self.budget, table, sent, rendered,
                                     as_text=not self.permissions.allows(table, "attach_files"))

