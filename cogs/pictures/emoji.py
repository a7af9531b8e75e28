"""Card faces as application emoji: drawn once, uploaded once, looked up everywhere.

At start-up :func:`sync_card_emoji` runs in the background: it draws every face in a worker, lists
the application's emojis (one call), uploads only the faces whose name is missing — a face's name
carries a hash of its art (``dk_qs_1a2b3c``), so changed art is a new name — and then removes the
stale ones *it* made (our prefix, a card we draw, another hash).  Emojis anyone else made are never
touched.  A second start with nothing changed makes the one list call and nothing else.

Until the sync has finished, or when Discord refuses (emoji limit, missing access, an error), the
registry stays empty and :func:`card_emoji` answers ``None``: every message falls back to the text
labels, and no game ever waits for art.  A half-uploaded set is never used (a hand showing some
cards as pictures and some as text reads worse than all text).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import discord

from cogs.pictures import faces

if TYPE_CHECKING:
    from engine.core import Action, AnyCard

log = logging.getLogger(__name__)

#: Our emojis, and only ours: prefix, card slug, six hex digits of the art.
OUR_NAME = re.compile(r"^dk_([a-z0-9]+)_([0-9a-f]{6})$")


@dataclass
class EmojiRegistry:
    """Card code -> the application emoji showing it.  Empty until a sync completed."""

    by_code: dict[str, discord.PartialEmoji] = field(default_factory=dict)
    state: str = "pending"  # pending → ready | refused
    calls: dict[str, int] = field(default_factory=lambda: {"list": 0, "create": 0, "delete": 0})
    draw_seconds: float = 0.0

    def get(self, code: str) -> discord.PartialEmoji | None:
        return self.by_code.get(code) if self.state == "ready" else None

    generation: int = 0  # changes whenever what the registry answers may change

    def use(self, by_code: Mapping[str, discord.PartialEmoji]) -> None:
        self.by_code = dict(by_code)
        self.state = "ready"
        self.generation += 1

    def clear(self, state: str = "pending") -> None:
        self.by_code = {}
        self.state = state
        self.generation += 1


#: The one registry the renderers read.
REGISTRY = EmojiRegistry()


def card_emoji(code: AnyCard | str) -> discord.PartialEmoji | None:
    """The emoji of a card (a card object or its code: ``QS``, ``~R``, ``D5``, ``JJ``, ``5X``,
    ``back``), or ``None`` when there is none (not synced yet, refused, not a card).  An
    application's own emojis need no permission in any channel ("The USE_EXTERNAL_EMOJIS
    permission is not required to use app emojis", Discord's emoji resource): no channel makes
    them text."""
    return REGISTRY.get(getattr(code, "code", None) or str(code))


# Set while a message is drawn again because its emoji markup made it too long for Discord: its
# cards in text then read as before the emoji, and the message fits (see :func:`text_only`).
_TEXT_ONLY: ContextVar[bool] = ContextVar("cards_as_text", default=False)


def card_markup(code: AnyCard | str, fallback: str) -> str:
    """``<:dk_qs_1a2b3c:123>`` in message text when the emoji is there, else ``fallback`` (also
    inside :func:`text_only`)."""
    e = None if _TEXT_ONLY.get() else card_emoji(code)
    return str(e) if e is not None else fallback


def cards_drawn() -> tuple[int, bool]:
    """What decides how :func:`card_markup` draws a card now (for text kept between draws): the
    registry's generation and whether cards are text only."""
    return REGISTRY.generation, _TEXT_ONLY.get()


@contextlib.contextmanager
def text_only() -> Iterator[None]:
    """Cards in message text as their text labels while inside (buttons and menus keep their
    emoji: those cost no characters of the message).  For a message that would not fit otherwise."""
    token = _TEXT_ONLY.set(True)
    try:
        yield
    finally:
        _TEXT_ONLY.reset(token)


class EmojiClient(Protocol):
    async def fetch_application_emojis(self) -> list[discord.Emoji]: ...

    async def create_application_emoji(self, *, name: str, image: bytes) -> discord.Emoji: ...


async def sync_card_emoji(
    client: EmojiClient,
    registry: EmojiRegistry = REGISTRY,
    *,
    take: Callable[[], Awaitable[object]] | None = None,
    draw: Callable[[], dict[str, bytes]] = faces.all_faces,
) -> str:
    """Make sure every face is an application emoji, then fill ``registry``.  Returns the final
    state (``ready`` or ``refused``); never raises (a failure only means text stays).  ``take``
    waits for a token of the bot's shared REST budget before each call."""
    try:
        t0 = time.perf_counter()
        drawn = await asyncio.to_thread(draw)  # CPU-bound: off the event loop
        registry.draw_seconds = time.perf_counter() - t0
        wanted = {code: faces.emoji_name(code, png) for code, png in drawn.items()}
        if take is not None:
            await take()
        registry.calls["list"] += 1
        existing = await client.fetch_application_emojis()
        by_name = {e.name: e for e in existing}
        have: dict[str, discord.PartialEmoji] = {}
        uploaded = 0
        for code, name in wanted.items():
            e = by_name.get(name)
            if e is not None:
                have[code] = discord.PartialEmoji(name=e.name, id=e.id)
        for code, name in wanted.items():
            if code in have:
                continue
            if name not in by_name:
                if take is not None:
                    await take()
                registry.calls["create"] += 1
                try:
                    by_name[name] = await client.create_application_emoji(name=name, image=drawn[code])
                    uploaded += 1
                except discord.HTTPException as err:
                    # Another process of this bot (a shard starting at the same time) uploads the
                    # same faces: a name it took is refused here.  Its faces are ours too.
                    if err.status != 400:
                        raise
                    registry.calls["list"] += 1
                    by_name = {e.name: e for e in await client.fetch_application_emojis()}
                    if name not in by_name:
                        raise
            made = by_name[name]
            have[code] = discord.PartialEmoji(name=made.name, id=made.id)
        registry.use(have)
        log.info("Card emoji ready: %d faces (%d uploaded), drawn in %.0f ms", len(have),
                 uploaded, registry.draw_seconds * 1000)
    except Exception as e:  # refused (limit, access, outage): text labels stay
        registry.clear("refused")
        log.warning("Card emoji unavailable, cards stay text: %s", e)
        return registry.state
    await _remove_stale(registry, existing, set(wanted.values()), set(wanted), take)
    return registry.state


async def _remove_stale(registry: EmojiRegistry, existing: list[discord.Emoji], current: set[str], codes: set[str],
                        take: Callable[[], Awaitable[object]] | None) -> None:
    """Delete the faces we made for art that has since changed: our prefix, a card we still draw,
    another hash.  Nothing else is ours to delete."""
    slugs = {faces.emoji_name(code, b"")[3:-7] for code in codes}
    for e in existing:
        m = OUR_NAME.match(e.name)
        if m is None or e.name in current or m.group(1) not in slugs:
            continue
        try:
            if take is not None:
                await take()
            registry.calls["delete"] += 1
            await e.delete()
        except Exception as err:  # an old face left behind costs nothing but a slot
            log.info("Could not remove the stale card emoji %s: %s", e.name, err)


def action_emoji(action: Action) -> discord.PartialEmoji | None:
    """The emoji on an action's button or menu option: the card it plays when it is one card, or
    copies of one card ("three 5s"); ``None`` for anything else (pass, a mixed set)."""
    cards = action.cards
    if not cards or action.args or len({c.code for c in cards}) != 1:
        return None
    return card_emoji(cards[0])
