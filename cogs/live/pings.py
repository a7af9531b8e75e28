"""Turn pings and nudges (cogs/live/listener.py's part): one standing ping per person, deleted once
they moved; a nudge shortly before a deadline; both kept across a restart (tables/kept.py).

Whether and when someone is pinged depends only on public facts — whose turn it is, the deadlines —
and on their own hand view being open."""


import asyncio
import contextlib
import logging
from collections.abc import Iterable, Sequence

import discord

import words
from cogs.i18n.reading import reading
from cogs.live.listener_base import ListenerBase, _Nudges, _Ping
from cogs.table import renderers
from cogs.table.components import TableButton
from tables.kept import Kept, StoredPing
from tables.table import Table

log = logging.getLogger("cogs.live.listener")

# The nudge before a deadline (docs/rules.md, "Deadlines"): this many seconds before it runs out, for
# decisions that gave the person more than NUDGE_MIN_TIME seconds (a short timer is its own reminder).
NUDGE_LEAD = 10.0
NUDGE_MIN_TIME = 15.0


def pings_for(user_ids: Iterable[int]) -> discord.AllowedMentions:
    """Ping exactly these people, whatever else the text holds (a name with mention markup)."""
    return discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                   users=[discord.Object(u) for u in dict.fromkeys(user_ids)])


def _person(table: Table, seat: int) -> int:
    """The user id at ``seat``, which the caller has checked a person holds."""
    user_id = table.seats[seat].user_id
    if user_id is None:
        raise ValueError(f"seat {seat} of table {table.id} holds no person")
    return user_id


class Pings(ListenerBase):
    """Turn pings, standing pings and nudges."""

    async def _turn(self, table: Table, seats: Sequence[int]) -> None:
        # Notices are delivered in order, and may wait behind Discord's rate limit (5 messages per
        # 5 s in a thread) and the REST budget: one whose turn has been taken meanwhile would ping
        # for nothing, so who is still due is asked again after every wait.
        def due() -> list[int]:
            acting = set(table.to_act())
            return [s for s in seats if 0 <= s < len(table.seats) and not table.seats[s].auto
                    and table.seats[s].user_id is not None and s in acting]

        if not due():
            return
        # A person whose hand view is live sees their turn there (edited now, through its token):
        # no ping.  The others are pinged with a My hand button, which opens a fresh live view.
        # Whether someone is pinged depends only on whose turn it is (public) and on their own view.
        pinged = due()
        shown = await asyncio.gather(*(self.live.push(table, _person(table, s)) for s in pinged))
        closed = {s for s, live in zip(pinged, shown, strict=True) if not live}
        if not closed:
            return
        async with self._lock(table.id):
            where = self.where(table)
            if where is None:
                return
            await self.budget.take()
            people = [s for s in due() if s in closed]
            if not people:
                return
            ids = [_person(table, s) for s in people]
            await self._retire(table, people)
            sent = await self._send(table, where, renderers.turn_notice(table, people),
                                    view=_buttons(table.id, "hand", locale=table.locale),
                                    allowed_mentions=pings_for(ids))
            self._stand(table, sent, people)

    # ---- standing pings: one per person, removed once they moved ------------------------------------
    async def _retire(self, table: Table, seats: Sequence[int]) -> None:
        """Before a new ping to ``seats``: delete the older ones naming any of them (a thread holds
        at most one standing ping per person, so the old goes before the new is posted)."""
        await self._restore_pings(table)
        pings = self._pings.get(table.id, [])
        old = [p for p in pings if set(p.due) & set(seats)]
        for p in old:
            pings.remove(p)
        for p in old:
            await self._remove(table.id, p)

    def _stand(self, table: Table, sent: discord.Message | None, seats: Sequence[int]) -> None:
        """Remember a ping just posted for ``seats`` (deleted once they all moved)."""
        channel_id = getattr(getattr(sent, "channel", None), "id", None) or table.thread_id or table.channel_id
        if sent is not None and channel_id is not None:
            ping = _Ping(channel_id, sent.id, {s: table.deadlines.get(s) for s in seats})
            kept = self._kept()
            if kept is not None:
                ping.saved = self._spawn(kept.save_ping(table.id, StoredPing(ping.message_id, channel_id, ping.due)))
            self._pings.setdefault(table.id, []).append(ping)
        self._sweep_pings(table)

    def _kept(self) -> Kept | None:
        """The runtime's store of what a restart must not forget (tables/kept.py), if it has one."""
        runtime = self.live.runtime or getattr(self.bot, "runtime", None)
        return getattr(runtime, "kept", None)

    async def _restore_pings(self, table: Table) -> None:
        """The pings a previous process left standing for this table, read once per process (every
        caller waits for the same read), so they are deleted like the ones posted here."""
        task = self._restored.get(table.id)
        if task is None:
            task = self._restored[table.id] = self._spawn(self._read_pings(table.id))
        with contextlib.suppress(Exception):
            await asyncio.shield(task)

    async def _read_pings(self, table_id: str) -> None:
        kept = self._kept()
        if kept is None:
            return
        stored = await kept.pings(table_id)
        pings = self._pings.setdefault(table_id, [])
        here = {p.message_id for p in pings}
        pings.extend(_Ping(p.channel_id, p.message_id, dict(p.due)) for p in stored if p.message_id not in here)
        if not pings:
            del self._pings[table_id]

    def _sweep_pings(self, table: Table) -> None:
        """Delete the pings whose people have all moved (or the game ended): who is due and the
        deadlines are public, so when a ping goes tells nothing hidden."""
        pings = self._pings.get(table.id)
        if not pings:
            if table.phase == "finished":
                self._restored.pop(table.id, None)  # (nothing more to read for it)
            return
        acting = set(table.to_act())
        for p in [p for p in pings if not any(s in acting and table.deadlines.get(s) == d for s, d in p.due.items())]:
            pings.remove(p)
            self._delete_ping(table.id, p)
        if not pings:
            del self._pings[table.id]

    def _delete_ping(self, table_id: str, ping: _Ping) -> None:
        # In its own task: the table never waits for it.
        self._spawn(self._remove(table_id, ping))

    async def _remove(self, table_id: str, ping: _Ping) -> None:
        """One counted call, paced by the budget; a failure is logged once, never retried (and the
        stored ping forgotten either way: a successor would only try again)."""
        try:
            await self.budget.take()
            await self.channel(ping.channel_id).get_partial_message(ping.message_id).delete()
        except discord.NotFound:
            pass  # someone deleted it already
        except Exception as e:
            log.warning("Table %s: could not remove the ping %s (%s)", table_id, ping.message_id, e)
        kept = self._kept()
        if kept is not None:
            if ping.saved is not None:
                with contextlib.suppress(Exception):
                    await asyncio.shield(ping.saved)  # stored before it is forgotten, never after
            await kept.drop_ping(table_id, ping.message_id)

    # ---- the nudge before a deadline ------------------------------------------------------------------
    def _plan_nudges(self, table: Table) -> None:
        """Arm one sleep per table until the next decision's nudge is due.  Only decisions with a
        deadline are nudged: those a person must make (a seat that may act without having to, like
        a declaration during a live deal, has none)."""
        if table.id not in self._nudges and not table.deadlines:
            return  # a lobby, an untimed table, a finished one: nothing to plan
        n = self._nudges.setdefault(table.id, _Nudges())
        now = self.now()
        acting = set(table.to_act())
        seen: dict[tuple[int, float], float] = {}
        for s, d in table.deadlines.items():
            if s in acting and 0 <= s < len(table.seats) and not table.seats[s].auto \
                    and table.seats[s].user_id is not None:
                seen[(s, d)] = n.seen.get((s, d), now)
        n.seen = seen
        n.done &= set(seen)
        at = min((d - NUDGE_LEAD for (s, d), first in seen.items()
                  if (s, d) not in n.done and d - first > NUDGE_MIN_TIME), default=None)
        if at == n.at and n.task is not None and not n.task.done():
            return
        if n.task is not None and n.task is not asyncio.current_task():
            n.task.cancel()
        n.at, n.task = at, None
        if at is not None:
            n.task = self._spawn(self._nudge_later(table, n, at))
        elif table.phase == "finished":
            self._nudges.pop(table.id, None)

    async def _nudge_later(self, table: Table, n: _Nudges, at: float) -> None:
        clock = self._clock()
        wait = at - self.now()
        if wait > 0:
            await (clock.sleep(wait) if clock is not None else asyncio.sleep(wait))
        if n.task is not asyncio.current_task():
            return
        n.task, n.at = None, None
        with self._posting(table, "Could not remind the players of table %s"):
            await self._nudge(table, n)
        if self._nudges.get(table.id) is n:
            self._plan_nudges(table)

    async def _nudge(self, table: Table, n: _Nudges) -> None:
        """About NUDGE_LEAD seconds are left: one short ping with **My hand** for each person due
        who has not moved yet, their hand view open or not — Discord never tells the bot that
        someone dismissed theirs, so a view that seems open may be gone; each decision is nudged
        once, and the nudge is deleted once they moved (a standing ping)."""
        now = self.now()
        acting = set(table.to_act())

        def still(s: int, d: float) -> bool:
            return s in acting and table.deadlines.get(s) == d and not table.seats[s].auto

        people: list[tuple[int, float]] = []
        for (s, d), first in n.seen.items():
            if (s, d) in n.done or d - first <= NUDGE_MIN_TIME or d - NUDGE_LEAD > now + 1e-6 or not still(s, d):
                continue
            n.done.add((s, d))
            if table.seats[s].user_id is not None:
                people.append((s, d))
        if not people:
            return
        await self._wait_gate(table.id)
        async with self._lock(table.id):
            where = self.where(table)
            if where is None:
                return
            for s, d in people:
                await self.budget.take()
                acting = set(table.to_act())
                if not still(s, d):
                    continue
                uid = _person(table, s)
                await self._retire(table, [s])
                lang = table.locale  # posted in the table's channel: the table's language
                with reading(lang):
                    text = words.ngettext(lang, "{who}, about {n} second left for your move — press **My hand**.",
                                          "{who}, about {n} seconds left for your move — press **My hand**.",
                                          round(NUDGE_LEAD), who=_mention(uid))
                    buttons = _buttons(table.id, "hand")
                sent = await self._send(table, where, text, view=buttons, allowed_mentions=pings_for([uid]))
                where = self.where(table)  # (the channel, should the thread have turned out deleted)
                self._stand(table, sent, [s])


def _buttons(table_id: str, *acts: str, locale: str | None = None) -> discord.ui.View:
    """Table buttons for a ping (My hand, I'm back): they carry only the table id, and answer
    whoever presses them about their own seat.  Labelled in ``locale`` (else the language being drawn)."""
    view = discord.ui.View(timeout=None)
    with reading(locale) if locale is not None else contextlib.nullcontext():
        for act in acts:
            view.add_item(TableButton(act, table_id))
    view.stop()  # dispatched by their ids (DynamicItem): nothing to keep per message
    return view


def _mention(user_id: int) -> str:
    return f"<@{user_id}>"
