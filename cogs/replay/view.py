"""The replay viewer: a finished game stepped through in Discord, one picture per step.

``/game replay id:`` (after its text recap and export) and the **Replay** button of a finished
table message (cogs/table/components.py) open an ephemeral viewer: the picture of a step
(cogs/replay/picture.py: every hand face up, the cards on the table, the scores, the step in words),
⏮ ◀ ▶ ⏭ and a menu to jump to a hand, round or trick.  Its components are persistent
(``dh:r:{table}:{step}:{op}``, cogs/table/custom_ids.py); a click is answered by editing the viewer in the
click's own interaction response (``edit_message`` with the new picture), which Discord's global
limit does not count.  Anyone in the server may replay a finished game; a game still running is
refused with one sentence that says nothing of it.

The steps (tables/history/replay_steps.py, with the renderers' words) and the pictures are computed in a
worker process — nothing heavy on the event loop — and kept in small LRU caches: the steps by
table, the pictures by (table, step).
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
import multiprocessing
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, TypeVar

import discord

import engine
import words as catalog
from cogs.i18n.reading import lang, reading
from cogs.pictures import emoji, fonts
from cogs.replay.picture import WORDS_PX, Meta, MetaJSON, _position, _where, draw_step, score_value, warm
from cogs.table import render, renderers
from cogs.table.custom_ids import MAX_OPTIONS, ReplayButton, ReplayJump, let_go, number
from cogs.table.render import NO_PINGS
from engine.core import Event, Game
from tables.ai.pool import PICTURE_NICE, die_with_parent
from tables.ai.pool import _lower_priority as lower_priority
from tables.history.replay import GameRecord, RecordJSON
from tables.history.replay_steps import NotReplayable, Step, steps
from tables.privacy import former_name
from tables.runtime import TableError
from words import N_

log = logging.getLogger("cogs.replay")
T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

STEP_CACHE = 16  # games whose steps are kept
PICTURE_CACHE = 256  # pictures kept (~60-120 KB each)
# Seconds after the click (the time in its id) a picture is waited for before the answer defers.
# The deferral must still reach Discord within its 3 s after the history load, a busy machine's
# delays and the network: waiting 2 s from the cog put it at 2.0x s on a loaded machine (the e2e
# check's limit), while a picture takes tens of milliseconds when the worker is warm.
PICTURE_WAIT = 1.0


def picture_wait(age: float) -> float:
    """How long a click ``age`` seconds old may still wait for its picture (never longer than
    ``PICTURE_WAIT``: a clock behind Discord's makes the age negative)."""
    return min(PICTURE_WAIT, max(0.0, PICTURE_WAIT - age))


def _age(interaction: discord.Interaction) -> float:
    return (discord.utils.utcnow() - interaction.created_at).total_seconds()


def still_running(table_id: str) -> str:
    # The same sentence whatever the game: nothing of a game in play is told.  (The asker's language.)
    return catalog.translate(lang(), "Table `{id}` is still open: its replay is available once the game is over.",
                             id=table_id)


# ==== what runs in the worker =====================================================================
def step_words(record: GameRecord, locale: str = catalog.ENGLISH) -> Callable[[Game, Sequence[Event]], str]:
    """The words for a step: the table's own sentences for its public events (as the table message
    said them), cards as text, and the players named as the picture can draw them (a name no font
    has reads "Player 3", two alike are told apart: cogs/fonts.picture_names)."""
    r = renderers.renderer_for(record.game)
    names = fonts.picture_names(record.names, WORDS_PX, float("inf"))
    seats = [SimpleNamespace(name=n, is_ai=a, away=False, hints=0, user_id=None)
             for n, a in zip(names, record.ai, strict=True)]
    # The renderer reads only these fields of a table: a stand-in built from the record, not a Table.
    table: Any = SimpleNamespace(id=record.id, game=record.game, options=dict(record.options), seats=seats,
                            state=None, ended_early=record.ended_early, locale=locale)

    def words(state: Game, events: Sequence[Event]) -> str:
        table.state = state
        out = []
        with emoji.text_only(), reading(locale):  # (the viewer's language: the replay is theirs)
            for e in events:
                try:
                    text = r.event_text(table, e)
                except Exception:  # a renderer's slip costs a line of words, never the replay
                    log.exception("Replay words failed for %s %s", record.id, e.kind)
                    text = None
                if text:
                    out.append(text)
        return " ".join(out)

    return words


def meta_of(record: GameRecord, count: int, locale: str = catalog.ENGLISH) -> Meta:
    state, _ = record.replay()
    outcome = state.outcome()
    r = renderers.renderer_for(record.game)
    rank = r.score_text(record.stand_in(), 0, 14).startswith("rank")
    # AI seats are marked once ("AI 2" needs no "(AI)").
    tag = catalog.translate(locale, " (AI)")
    names = tuple(n + tag if a and not n.startswith("AI") else n
                  for n, a in zip(record.names, record.ai, strict=True))
    title = catalog.translate(locale, "{game} · table {id}", game=catalog.Lazy(engine.get(record.game).game.title),
                              id=record.id)
    return Meta(title, names, count, "rank" if rank else "score", tuple(outcome.winners) if outcome is not None else (),
                locale)


def steps_in_worker(record_json: RecordJSON, locale: str = catalog.ENGLISH
                    ) -> tuple[list[Step], MetaJSON]:
    """A finished game's steps with their words, and the picture's :class:`Meta` (as JSON), in ``locale``."""
    record = GameRecord.from_json(record_json)
    # A seat without a name: someone Deckhand forgot (tables/privacy.py).
    record = dataclasses.replace(record, names=[n or former_name(locale) for n in record.names])
    got = steps(record, step_words(record, locale))
    return got, meta_of(record, len(got), locale).to_json()


def start_worker(parent: int) -> None:
    """The worker's initializer: it dies with the bot (even a SIGKILLed one), steps back behind the
    tables' AI workers (a picture is never drawn with the CPU a table's search needs), then warms up."""
    die_with_parent(parent)
    lower_priority(PICTURE_NICE)
    warm()


def picture_in_worker(step: Step, meta: MetaJSON) -> bytes:
    return draw_step(step, Meta.from_json(meta))


# ==== the viewer's state: workers and caches ========================================================
class Replays:
    """The worker and the caches (no game state: everything is recomputed from the stored log)."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = workers
        self._executor: ProcessPoolExecutor | None = None
        self._steps: OrderedDict[tuple[str, str], tuple[list[Step], MetaJSON]] = OrderedDict()
        self._pictures: OrderedDict[tuple[str, int, str], bytes] = OrderedDict()
        self._pending: dict[tuple[str | int, ...], asyncio.Future[Any]] = {}

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=start_worker, initargs=(os.getpid(),))
        return self._executor

    async def _once(self, key: tuple[str | int, ...], fn: Callable[..., T], *args: object) -> T:
        # Two clicks wanting the same thing share one computation.
        fut = self._pending.get(key)
        if fut is None:
            fut = asyncio.wrap_future(self._pool().submit(fn, *args))
            self._pending[key] = fut
            fut.add_done_callback(lambda _: self._pending.pop(key, None))
        try:
            return await asyncio.shield(fut)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): the next ask starts a fresh one.
            self.close()
            raise

    async def warm(self) -> int:
        """Start the worker now (the bot's first replay then waits for nothing but its picture)."""
        return await self._once(("warm",), warm)

    async def steps(self, record: GameRecord, locale: str = catalog.ENGLISH
                    ) -> tuple[list[Step], MetaJSON]:
        """The steps and meta of a game in ``locale`` (cached per game and language)."""
        key = (record.id, locale)
        got = self._steps.get(key)
        if got is None:
            got = await self._once(("steps", *key), steps_in_worker, record.to_json(None), locale)
            _remember(self._steps, key, got, STEP_CACHE)
        self._steps.move_to_end(key)
        return got

    async def picture(self, table_id: str, step: Step, meta: MetaJSON) -> bytes:
        key = (table_id, int(step["index"]), str(meta.get("locale") or "en"))
        png = self._pictures.get(key)
        if png is None:
            png = await self._once(("picture", *key), picture_in_worker, step, meta)
            _remember(self._pictures, key, png, PICTURE_CACHE)
        self._pictures.move_to_end(key)
        return png

    def drop(self, table_ids: Sequence[str]) -> None:
        """Forget what is cached of these games (someone in them had Deckhand forget them)."""
        ids = set(table_ids)
        for key in [k for k in self._steps if k[0] in ids]:
            del self._steps[key]
        for picture in [k for k in self._pictures if k[0] in ids]:
            del self._pictures[picture]

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


def _remember(cache: OrderedDict[K, V], key: K, value: V, size: int) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


# ==== the message ===================================================================================
def where(step: Step, count: int, locale: str = catalog.ENGLISH) -> str:
    return _where(step, count, locale)


def jump_options(all_steps: Sequence[Step], current: int,
                 locale: str = catalog.ENGLISH) -> list[tuple[str, int]]:
    """At most 25 places to jump to: the start of each hand or round (thinned evenly in a long game,
    the current one always kept), then each trick (turn, lead) of the current hand, then the end."""
    starts: list[tuple[int, int]] = []  # (hand, step)
    for s in all_steps:
        if not starts or s["hand"] != starts[-1][0]:
            starts.append((s["hand"], s["index"]))
    here = all_steps[current]["hand"]
    unit = all_steps[current]["unit"]
    hands = _thin(starts, 12, keep=lambda h: h[0] == here) if len(starts) > 1 else []
    out = [(_position(locale, unit.capitalize(), h), i) for h, i in hands]
    subs: list[tuple[int, int]] = []
    for s in all_steps:
        trick = s.get("trick")
        if s["hand"] == here and s.get("sub") and trick is not None and (not subs or trick != subs[-1][0]):
            subs.append((trick, s["index"]))
    room = MAX_OPTIONS - len(out) - 1
    if len(subs) > 1:
        sub = all_steps[current].get("sub") or "trick"
        head = _position(locale, unit.capitalize(), here)
        out += [(head + " · " + _position(locale, sub, t), i)
                for t, i in _thin(subs, room, keep=lambda _: False)]
    out.append((catalog.translate(locale, "The end"), len(all_steps) - 1))
    seen: set[int] = set()
    unique = []
    for label, i in sorted(out, key=lambda x: x[1]):
        if i not in seen:
            seen.add(i)
            unique.append((label, i))
    return unique[:MAX_OPTIONS]


def _thin(items: list[tuple[int, int]], most: int, keep: Callable[[tuple[int, int]], bool]) -> list[tuple[int, int]]:
    if len(items) <= most:
        return items
    every = -(-len(items) // most)
    return [x for k, x in enumerate(items) if k % every == 0 or keep(x)]


def timeout_line(step: Step, meta: MetaJSON) -> str:
    """The line for a move the clock made for a person (marked, as the live table said it)."""
    names = meta.get("names") or []
    seat = step.get("seat")
    if not step.get("timeout") or not isinstance(seat, int) or not 0 <= seat < len(names):
        return ""
    return "⏰ " + catalog.translate(str(meta.get("locale") or "en"), "{name}'s time ran out — the move was made for "
                                    "them.", name=render.clean(names[seat]))


def viewer(table_id: str, all_steps: Sequence[Step], index: int, meta: MetaJSON,
           png: bytes) -> tuple[discord.Embed, discord.File, discord.ui.View]:
    """The viewer at step ``index``: its embed (the step in words, the picture), the picture as a
    file, and its buttons and menu."""
    step = all_steps[index]
    count = len(all_steps)
    loc = str(meta.get("locale") or "en")
    _ = catalog.make_(loc)
    lines = [f"**{where(step, count, loc)}**"]
    said = step.get("words") or (_("The table before the first move.") if index == 0 else "")
    if said:
        lines.append(render.clip(said, 3000))
    timed_out = timeout_line(step, meta)
    if timed_out:
        lines.append(timed_out)
    if index == count - 1:
        names = meta.get("names") or []
        winners = set(meta.get("winners") or [])
        shown = Meta.from_json(meta)
        scores = " · ".join(f"{render.clean(names[s]) if s < len(names) else s} {score_value(shown, v)}"
                            f"{' 🏆' if s in winners else ''}" for s, v in enumerate(step["scores"]))
        lines.append(_("Final ranks: {scores}", scores=scores) if meta.get("score_word") == "rank"
                     else _("Final scores: {scores}", scores=scores))
    name = f"replay-{table_id}-{index}.png"
    embed = discord.Embed(title=_("{title} — replay", title=meta.get("title")), description="\n".join(lines),
                          colour=render.FINISHED_COLOUR)
    embed.set_image(url=f"attachment://{name}")
    embed.set_footer(text=_("Every hand is shown face up: the game is over."))
    view = discord.ui.View(timeout=None)
    view.add_item(ReplayButton(table_id, index, "first", disabled=index == 0))
    view.add_item(ReplayButton(table_id, index, "prev", disabled=index == 0))
    view.add_item(ReplayButton(table_id, index, "next", disabled=index >= count - 1))
    view.add_item(ReplayButton(table_id, index, "last", disabled=index >= count - 1))
    view.add_item(ReplayButton(table_id, index, "review"))
    options = [discord.SelectOption(label=label[:100], value=str(i), default=i == index)
               for label, i in jump_options(all_steps, index, loc)]
    view.add_item(ReplayJump(table_id, index, options))
    view.stop()  # dispatched by their ids (DynamicItem): nothing to keep per message
    return embed, discord.File(io.BytesIO(png), filename=name), view


def target(op: str, step: int, count: int, values: Sequence[str]) -> int | None:
    """The step a click asks for, or ``None`` when it names none."""
    if op == "first" or op == "open":
        return 0
    if op == "last":
        return count - 1
    if op == "prev":
        return max(0, min(step, count - 1) - 1)
    if op == "next":
        return min(count - 1, step + 1)
    if op == "jump":
        chosen = number(values[0]) if len(values) == 1 else None  # (a forged "²" or 5,000 digits: None)
        return chosen if chosen is not None and chosen < count else None
    return None


# ==== the cog's side (a mixin of cogs.table.game.GameCog) ====================================================
class ReplayClicks:
    """``/game replay``'s viewer and the clicks on it."""

    replays: Replays | None = None

    # What this mixin uses of the cog (cogs/table/game.py, cogs/table/plumbing.py, cogs/replay/review.py),
    # declared for the type checker.
    if TYPE_CHECKING:
        async def _history(self, interaction: discord.Interaction, table_id: str) -> GameRecord: ...
        async def _safely(self, interaction: discord.Interaction, work: Awaitable[object]) -> None: ...
        async def review_reply(self, interaction: discord.Interaction, table_id: str) -> None: ...

    def _replays(self) -> Replays:
        if self.replays is None:
            self.replays = Replays()
        return self.replays

    async def _replay_record(self, interaction: discord.Interaction, table_id: str) -> GameRecord:
        record = await self._history(interaction, table_id)  # (GameCog's)
        if not record.finished:
            raise TableError(still_running(record.id))
        if record.seed is None:
            raise TableError(N_("Table `{id}` closed before its game started: there is nothing to replay."),
                             id=record.id)
        return record

    async def _replay_at(self, record: GameRecord, op: str, step: int,
                         values: Sequence[str]) -> tuple[discord.Embed, discord.File, discord.ui.View]:
        replays = self._replays()
        try:
            all_steps, meta = await replays.steps(record, lang())  # (the viewer's language)
        except NotReplayable:
            log.exception("Table %s no longer replays", record.id)
            raise TableError(N_("The log of table `{id}` no longer replays, sorry."), id=record.id) from None
        index = target(op, step, len(all_steps), values)
        if index is None:
            raise TableError(N_("That is not a step of this game."))
        png = await replays.picture(record.id, all_steps[index], meta)
        return viewer(record.id, all_steps, index, meta, png)

    async def replay_followup(self, interaction: discord.Interaction, record: GameRecord) -> None:
        """After ``/game replay``'s recap: the viewer at the first step, as a followup (through the
        interaction's token)."""
        try:
            embed, file, view = await self._replay_at(record, "first", 0, ())
        except TableError as e:
            await interaction.followup.send(e.say(lang()), ephemeral=True)
            return
        try:
            await interaction.followup.send(embed=embed, file=file, view=view, ephemeral=True,
                                            allowed_mentions=NO_PINGS)
        finally:
            let_go(view)

    async def on_replay(self, interaction: discord.Interaction, table_id: str, step: int, op: str,
                        values: list[str]) -> None:
        await self._safely(interaction, self._on_replay(interaction, table_id, step, op, values))

    async def _on_replay(self, interaction: discord.Interaction, table_id: str, step: int, op: str,
                         values: list[str]) -> None:
        if op == "review":  # the clicker's own review, in a message of its own (cogs/replay/review.py)
            await self.review_reply(interaction, table_id)
            return
        record = await self._replay_record(interaction, table_id)
        work = asyncio.ensure_future(self._replay_at(record, op, step, values))
        deferred = False
        try:
            await asyncio.wait_for(asyncio.shield(work), picture_wait(_age(interaction)))
        except TimeoutError:
            # A cold worker: say "thinking" in time, then answer through the token.
            deferred = True
            if op == "open":
                await interaction.response.defer(ephemeral=True, thinking=True)
            else:
                await interaction.response.defer()
        embed, file, view = await work
        try:
            if op == "open":
                if deferred:
                    await interaction.followup.send(embed=embed, file=file, view=view, ephemeral=True,
                                                    allowed_mentions=NO_PINGS)
                else:
                    await interaction.response.send_message(embed=embed, file=file, view=view, ephemeral=True,
                                                            allowed_mentions=NO_PINGS)
            elif deferred:
                await interaction.edit_original_response(embed=embed, attachments=[file], view=view)
            else:
                await interaction.response.edit_message(embed=embed, attachments=[file], view=view)
        finally:
            let_go(view)  # sent: its items are rebuilt from their ids when clicked

    async def cog_unload(self) -> None:
        if self.replays is not None:
            self.replays.close()

