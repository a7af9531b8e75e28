"""Tables where the bot is not a member (``Table.anchored``: a DM, a group DM, a server that never
added it): the bot may only answer interactions there, so the table message is kept current through
the tokens of interactions that may edit it (cogs/live/hand.py ``LiveViews.table_opened``).  Two
kinds of interaction renew that token:

* **A click on the table message itself** (My hand, Join, Start, Watch, How to play, I'm back, …)
  is answered with ``UPDATE_MESSAGE`` (type 7): that very message is redrawn as the table is now,
  and the click's fresh token (15 minutes) becomes the one that keeps it current.  The click's own
  answer is private (a hand, a refusal, a sentence), so it comes as an *ephemeral followup* of the
  same token — one of the five followups Discord allows an app installed to a person per
  interaction (``USER_APP_FOLLOWUPS`` in the fake) — and a private view it opens (a hand, a watcher's
  view) is edited afterwards through that followup's id, never through ``@original``, which is the
  public table message.  Only the public table goes into the update, and every such click is
  answered so, accepted or refused: the update tells nobody what the private answer said.  A click
  Discord would not let the bot update with (an error) gets its answer the ordinary way.  **Play again** is not answered
  so (its answer is the new lobby, a public message of its own).
* **Any Deckhand interaction in that conversation**, once a game there finished while no token could
  edit its message (everyone idle past 15 minutes while AI seats or deadlines finished it, or the bot
  restarted): the final standings are posted as a public followup of its answer, headed by a line
  saying the message above stopped before the end (:func:`show_ends`).  Until then the table's end
  counts as not shown (the listener's ``unshown``), so the table stays stored as unfinished and a
  restart loads it again to be shown by the next interaction.  A live table with no token left is
  posted again by the next interaction about it (cogs/table/game.py ``_post_again``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

import words
from cogs.live.hand import ORIGINAL_IS_TABLE
from cogs.table.custom_ids import let_go
from cogs.table.render import NO_PINGS
from tables.ids import normalise
from tables.runtime import Runtime, TableError
from tables.table import SHOWN_END, Phase, Table
from words import N_

if TYPE_CHECKING:
    from cogs.live.listener import DiscordListener

log = logging.getLogger(__name__)

#: Said above the final standings posted again: the old message stopped before the end.
ENDED_HERE = N_("🏁 Table `{id}` has ended. Its message above stopped updating before the end; here is the final "
                "result.")
#: Discord's followups per interaction for an app installed to a person (tests/fakediscord: USER_APP_FOLLOWUPS).
FOLLOWUPS = 5
#: At most this many finished tables' standings ride on one interaction, each a followup: with the
#: click's private answer and a live table posted again (cogs/table/game.py ``_post_again``), within
#: :data:`FOLLOWUPS`.
ENDS_PER_INTERACTION = 2
ANSWERED = 3.0  # how long to wait for the interaction's own answer before a followup may come
_tasks: set[asyncio.Future[None]] = set()  # the storing of ends shown by a click's update


class _Sent:
    """What ``send_message`` gives back when the answer went as a followup: its message's id (as
    Discord's callback response names the message it made)."""

    def __init__(self, message_id: int) -> None:
        self.message_id = message_id


class AnchoredResponse(discord.InteractionResponse):
    """``interaction.response`` for a click on an anchored table's message: the first answer is the
    table message updated (type 7); a private answer follows as an ephemeral followup."""

    __slots__ = ("_listener", "_runtime", "_table")

    def __init__(self, parent: discord.Interaction, table: Table, listener: DiscordListener,
                 runtime: Runtime) -> None:
        super().__init__(parent)
        self._table = table
        self._listener = listener
        self._runtime = runtime

    async def _update(self) -> bool:
        """Answer with the table message as it is now; whether that worked."""
        table = self._table
        content, embed, view = self._listener.anchored_message(table)
        view.stop()  # (its buttons are dispatched by their ids: nothing to keep)
        try:
            await super().edit_message(content=content, embed=embed, view=view, allowed_mentions=NO_PINGS)
            let_go(view)
        except (discord.HTTPException, aiohttp.ClientError, OSError, TimeoutError) as e:
            log.info("Table %s: could not update its message with a click (%s)", table.id, e)
            return False
        # No await since the answer: whatever looks at the interaction next sees the fresh token.
        self._listener.live.table_opened(self._parent, table.id)
        self._parent.extras[ORIGINAL_IS_TABLE] = True
        if table.phase == Phase.FINISHED and not table.shown & SHOWN_END:
            task = asyncio.ensure_future(_attach(self._runtime, table))  # the end is shown: stored, let go
            _tasks.add(task)
            task.add_done_callback(_tasks.discard)
        return True

    async def send_message(self, content: Any = None, **kwargs: Any) -> Any:
        if not kwargs.get("ephemeral") or self.is_done() or not await self._update():
            return await super().send_message(content, **kwargs)
        kwargs.pop("delete_after", None)
        sent = await self._parent.followup.send(content, wait=True,
                                                **{k: v for k, v in kwargs.items() if v is not None})
        return _Sent(sent.id)

    async def defer(self, *, ephemeral: bool = False, thinking: bool = False
                    ) -> discord.InteractionCallbackResponse[discord.Client] | None:
        # ("thinking…" would be a new message: the update acknowledges the click; the answer follows)
        if self.is_done() or not await self._update():
            return await super().defer(ephemeral=ephemeral, thinking=thinking)
        return None


def answer_by_update(interaction: discord.Interaction, act: str, table_id: str, runtime: Runtime,
                     listener: DiscordListener | None) -> None:
    """Before a click on a table button is handled: when it came from the current message of a
    table where the bot is not a member, its answer updates that message (:class:`AnchoredResponse`)."""
    if listener is None or act == "again" or interaction.response.is_done():
        return
    message = getattr(interaction, "message", None)
    if message is None or getattr(getattr(message, "flags", None), "ephemeral", False):
        return
    table = runtime.tables.get(normalise(table_id))
    if table is None or not table.anchored or table.message_id != message.id \
            or interaction.channel_id != table.channel_id:
        return
    # ignore: discord.py caches ``response`` in this private slot and offers no way to replace it.
    interaction._cs_response = AnchoredResponse(interaction, table, listener, runtime)  # type: ignore[attr-defined]


# ---- a game that ended while no token could show it ----------------------------------------------
def ends_to_show(runtime: Runtime, listener: DiscordListener, channel_id: int | None) -> list[Table]:
    """The finished tables of this conversation whose end their message never showed."""
    if channel_id is None:
        return []
    return [t for t in list(runtime.tables.values())
            if t.channel_id == channel_id and t.anchored and t.phase == Phase.FINISHED
            and not t.shown & SHOWN_END and listener.unshown(t)]


async def show_ends(interaction: discord.Interaction, runtime: Runtime, listener: DiscordListener,
                    posting: set[str], wait: float = ANSWERED) -> None:
    """After any interaction in a conversation where a game ended unseen has been answered: post
    that game's final standings there (a public followup of the answer), so the message that stopped
    mid-game is not the last word.  ``posting``: the tables being posted by another interaction."""
    if interaction.type not in (discord.InteractionType.application_command, discord.InteractionType.component,
                                discord.InteractionType.modal_submit):
        return
    if not ends_to_show(runtime, listener, interaction.channel_id):
        return
    loop = asyncio.get_running_loop()
    end = loop.time() + wait
    while not interaction.response.is_done():
        if loop.time() > end:
            return  # nobody answered it: no followup is possible; the next interaction shows it
        await asyncio.sleep(0.05)
    if interaction.response.type not in (discord.InteractionResponseType.channel_message,
                                         discord.InteractionResponseType.deferred_channel_message,
                                         discord.InteractionResponseType.message_update,
                                         discord.InteractionResponseType.deferred_message_update):
        return  # (a form: no followup)
    if getattr(interaction, "guild_id", None) is not None and not interaction.is_guild_integration() \
            and not interaction.permissions.use_external_apps:
        return  # every answer would show to this person alone
    for table in ends_to_show(runtime, listener, interaction.channel_id)[:ENDS_PER_INTERACTION]:
        if table.id in posting:
            continue
        posting.add(table.id)
        try:
            await _post_end(interaction, runtime, listener, table)
        finally:
            posting.discard(table.id)


async def _post_end(interaction: discord.Interaction, runtime: Runtime, listener: DiscordListener,
                    table: Table) -> None:
    content, embed, view = listener.anchored_message(table)
    note = words.translate(table.locale, ENDED_HERE, id=table.id)
    view.stop()
    text = "\n".join(x for x in (note, content) if x)
    try:
        if embed is not None:
            sent = await interaction.followup.send(text, embed=embed, view=view, allowed_mentions=NO_PINGS, wait=True)
        else:
            sent = await interaction.followup.send(text, view=view, allowed_mentions=NO_PINGS, wait=True)
    except discord.HTTPException as e:
        log.info("Table %s: could not post its final standings again (%s)", table.id, e)
        return
    finally:
        let_go(view)
    table.message_id = sent.id
    listener.live.table_opened(interaction, table.id, message_id=sent.id)
    await _attach(runtime, table)


async def _attach(runtime: Runtime, table: Table) -> None:
    """The finished table's message shows its end now: stored (a restart does not show it again;
    the runtime redraws it once more through the fresh token and lets the table go)."""
    try:
        await runtime.attach(table.id, message_id=table.message_id)
    except TableError:
        pass
    except Exception:
        log.exception("Table %s: could not store that its end was shown", table.id)
