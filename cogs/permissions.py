"""What the bot may do where a table plays, as Discord says with each interaction
(``interaction.app_permissions``: the bot's permissions in the interaction's channel).

Three permissions are optional, each with a way to do without it:

* **Attach Files** — the end-of-game chart is a picture; without it the chart is a text table;
* **Use External Emojis** — cards show as Deckhand's card pictures (application emojis, which a
  server counts as external); without it cards read as text everywhere the table shows them;
* **Create Public Threads** — a game gets its own thread; without it the game stays in the channel.

This is presentation state of the cogs layer, kept per channel (lost on a restart: the next
interaction there says it again).  The host of a table is told once per table, in plain words, what
is missing and what it costs (:meth:`ChannelPermissions.untold`).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

import discord

from cogs import emoji

#: (discord.Permissions flag, its name in Discord's settings, what the table does without it)
OPTIONAL: tuple[tuple[str, str, str], ...] = (
    ("attach_files", "Attach Files", "I can't attach files here, so the final chart will be text. "
                                     "Give me Attach Files to see it."),
    ("use_external_emojis", "Use External Emojis", "I can't use my card pictures here, so cards show as text. "
                                                   "Give me Use External Emojis to see them."),
    ("create_public_threads", "Create Public Threads", "I can't create threads here, so the game is played "
                                                       "in this channel. Give me Create Public Threads to give "
                                                       "each game its own thread."),
)
FLAGS = tuple(flag for flag, _, _ in OPTIONAL)


class ChannelPermissions:
    """The optional permissions the bot lacks, per channel, from the last interaction there."""

    def __init__(self) -> None:
        self._lacking: dict[int, frozenset[str]] = {}
        self._told: dict[str, frozenset[str]] = {}  # table id -> what its host was told already

    def seen(self, interaction: Any) -> None:
        """Read ``interaction.app_permissions`` (a guild interaction's; a DM says nothing)."""
        perms = getattr(interaction, "app_permissions", None)
        channel_id = getattr(interaction, "channel_id", None)
        if perms is None or channel_id is None or getattr(interaction, "guild_id", None) is None:
            return
        lacking = frozenset(flag for flag in FLAGS if not getattr(perms, flag, True))
        # A thread inherits its channel's permissions; its own interactions say nothing of threads.
        if isinstance(getattr(interaction, "channel", None), discord.Thread):
            lacking -= {"create_public_threads"}
        self._lacking[channel_id] = lacking
        emoji.set_plain_channel(channel_id, "use_external_emojis" in lacking)

    def lacking(self, table: Any) -> frozenset[str]:
        """What the bot lacks where ``table`` plays (its thread's and its channel's, as last seen)."""
        out: frozenset[str] = frozenset()
        for cid in (getattr(table, "thread_id", None), getattr(table, "channel_id", None)):
            if cid is not None:
                out |= self._lacking.get(cid, frozenset())
        return out

    def allows(self, table: Any, flag: str) -> bool:
        return flag not in self.lacking(table)

    def untold(self, table: Any) -> str | None:
        """The notice for the host about what is missing at ``table`` that they have not been told
        yet (marked told: each is said once per table), or ``None``."""
        lacking = self.lacking(table)
        new = lacking - self._told.get(table.id, frozenset())
        if not new:
            return None
        self._told[table.id] = self._told.get(table.id, frozenset()) | new
        return "\n".join(f"⚠️ {text}" for flag, _, text in OPTIONAL if flag in new)

    def forget(self, table_id: str) -> None:
        self._told.pop(table_id, None)


@contextlib.contextmanager
def cards_for(table: Any) -> Iterator[None]:
    """Cards as text while drawing ``table`` when the bot may not use its card emojis there."""
    plain = any(emoji.plain_channel(cid) for cid in (getattr(table, "thread_id", None),
                                                       getattr(table, "channel_id", None)) if cid is not None)
    with emoji.no_card_emoji() if plain else contextlib.nullcontext():
        yield


def drawn_for_table(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A drawing function whose first argument is a table or a seat view: inside it, the cards are
    text when the table's channel does not allow the bot's card emojis (:func:`cards_for`)."""

    @functools.wraps(fn)
    def wrapper(first: Any, *args: Any, **kwargs: Any) -> Any:
        with cards_for(getattr(first, "table", first)):
            return fn(first, *args, **kwargs)

    return wrapper
