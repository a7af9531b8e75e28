"""Small stand-ins for the parts of Discord the cog touches: channels, threads, messages,
interactions and the bot.  They record what was sent where, and every PUBLIC send or edit is
inspected the moment it happens against the cards hidden at that moment.

Requests the bot makes through an interaction's token (cogs/live/hand.py: ``@original`` edits, the
answer to a click) go through discord.py's own webhook adapter, as in production: a stand-in
interaction carries the id, token, state and session that adapter reads, and its session
(:class:`FakeWebhooks`) answers like Discord, a token included that lives ``World.token_lifetime``
(401 ``50027 Invalid Webhook Token`` once it ran out, recorded in ``World.dead_tokens``).

A later issue builds a full fake Discord server; these are deliberately light.
"""

from __future__ import annotations

import asyncio
import datetime
import itertools
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import discord
from discord.components import _component_factory
from discord.ui.view import _component_to_item

from cogs.table.components import DYNAMIC_ITEMS, TABLE_TEMPLATE
from cogs.table.custom_ids import REPLAY_TEMPLATE
from cogs.table.render import embed_text
from engine.cards import ALL_CARDS, card

ALL_CODES = {c.code for c in ALL_CARDS}
MISSING: Any = object()
APPLICATION_ID = 1
TOKEN_LIFETIME = 15 * 60.0  # Discord's


def _http_error(cls: type[discord.HTTPException], status: int, text: str) -> discord.HTTPException:
    return cls(SimpleNamespace(status=status, reason=text), text)


def custom_ids(view: discord.ui.View | None) -> list[str]:
    if view is None:
        return []
    # (a link button has a url and no custom id)
    return [cid for item in view.walk_children() if (cid := getattr(item, "custom_id", "")) is not None]


def game_controls(view: discord.ui.View | None) -> list[Any]:
    """A hand view's items for the decision itself: all but **Hint** and **How to play** (dh:t:hint:…,
    dh:t:howto:…)."""
    if view is None:
        return []
    return [i.item for i in view.children
            if not getattr(i.item, "custom_id", "").startswith(("dh:t:hint:", "dh:t:howto:"))]


def is_disabled(item: Any) -> bool:
    return bool(getattr(getattr(item, "item", item), "disabled", False))


def enabled_ids(view: discord.ui.View | None) -> list[str]:
    """The custom ids a person can use (Hearts and Tricks show unplayable cards disabled)."""
    if view is None:
        return []
    return [cid for item in view.walk_children()
            if not is_disabled(item) and (cid := getattr(item, "custom_id", "")) is not None]


class World:
    """The fake server: ids, channels, and the inspector of public output."""

    def __init__(self) -> None:
        self._ids = itertools.count(10_000)
        self.channels: dict[int, FakeChannel] = {}
        self.runtime: Any = None
        self.public: list[tuple[str, str]] = []  # (where, text) of every public send/edit
        self.violations: list[str] = []
        # Interaction tokens: their clock (a harness sets its fake clock), how long they live, and
        # the requests made with one that had run out (Discord counts them as invalid requests).
        self.now: Callable[[], float] = time.monotonic
        self.token_lifetime = TOKEN_LIFETIME
        self.tokens: dict[str, FakeInteraction] = {}
        self.dead_tokens: list[str] = []
        self.token_edits: list[tuple[float, int]] = []  # (when, message id) of each @original edit
        self.webhooks = FakeWebhooks(self)

    def new_id(self) -> int:
        return next(self._ids)

    def channel(self, name: str = "cards", *, threads: bool = True) -> FakeChannel:
        ch = FakeChannel(self, self.new_id(), name, threads=threads)
        self.channels[ch.id] = ch
        return ch

    def hidden_now(self) -> set[str]:
        hidden: set[str] = set()
        for t in (self.runtime.tables.values() if self.runtime is not None else ()):
            if t.state is not None:
                hidden |= t.state.hidden_from(None)
        return hidden

    def check_public(self, where: str, content: str | None, embed: discord.Embed | None, view: Any) -> None:
        """Nothing in any hand may show in public: neither as a label (Q♠) nor as a code (QS),
        and no public component id may carry a card at all."""
        text = "\n".join(p for p in (content or "", embed_text(embed) if embed is not None else "") if p)
        self.public.append((where, text))
        for code in sorted(self.hidden_now()):
            if card(code).label in text:
                self.violations.append(f"{where}: hidden {card(code).label} shown in {text!r}")
            if re.search(rf"(?<![A-Za-z0-9]){re.escape(code)}(?![A-Za-z0-9])", text):
                self.violations.append(f"{where}: hidden {code} shown in {text!r}")
        for cid in custom_ids(view if isinstance(view, discord.ui.View) else None):
            public = re.fullmatch(TABLE_TEMPLATE, cid) or re.fullmatch(REPLAY_TEMPLATE, cid)
            if not public or any(part in ALL_CODES for part in cid.split(":")):
                self.violations.append(f"{where}: public component id {cid!r}")


class FakeMessage:
    def __init__(
        self,
        world: World,
        channel: FakeChannel | None,
        content: str | None = None,
        embed: discord.Embed | None = None,
        view: discord.ui.View | None = None,
        *,
        ephemeral: bool = False,
    ) -> None:
        self.world = world
        self.id = world.new_id()
        self.channel = channel
        self.content = content
        self.embed = embed
        self.view = view
        self.ephemeral = ephemeral
        self.deleted = False
        self.edits = 0
        self.history: list[str | None] = []  # the content after each edit

    @property
    def text(self) -> str:
        return "\n".join(p for p in (self.content or "", embed_text(self.embed) if self.embed else "") if p)

    def apply_edit(self, content: Any = MISSING, embed: Any = MISSING, view: Any = MISSING) -> None:
        if content is not MISSING:
            self.content = content
        if embed is not MISSING:
            self.embed = embed
        if view is not MISSING:
            self.view = view
        self.edits += 1
        self.history.append(self.content)
        if not self.ephemeral:
            self.world.check_public(f"edit in #{self.channel.name if self.channel else '?'}", self.content,
                                    self.embed, self.view)

    async def edit(self, *, content: Any = MISSING, embed: Any = MISSING, view: Any = MISSING, **_: Any) -> None:
        if self.deleted:
            raise _http_error(discord.NotFound, 404, "Unknown Message")
        self.apply_edit(content, embed, _as_sent(view))

    async def delete(self) -> None:
        if self.deleted:
            raise _http_error(discord.NotFound, 404, "Unknown Message")
        self.deleted = True
        if self.channel is not None:
            self.channel.messages.pop(self.id, None)

    async def create_thread(self, *, name: str, auto_archive_duration: int | None = None, **_: Any) -> FakeThread:
        assert self.channel is not None
        if not self.channel.threads:
            raise _http_error(discord.Forbidden, 403, "Missing Permissions")
        thread = FakeThread(self.world, self.id, name, parent=self.channel)
        self.world.channels[thread.id] = thread
        return thread


class FakePartialMessage:
    def __init__(self, channel: FakeChannel, message_id: int) -> None:
        self.channel = channel
        self.id = message_id

    def _resolve(self) -> FakeMessage:
        msg = self.channel.messages.get(self.id)
        if msg is None:
            raise _http_error(discord.NotFound, 404, "Unknown Message")
        return msg

    async def edit(self, **kwargs: Any) -> None:
        await self._resolve().edit(**kwargs)

    async def delete(self) -> None:
        await self._resolve().delete()

    async def create_thread(self, **kwargs: Any) -> FakeThread:
        return await self._resolve().create_thread(**kwargs)


class FakeChannel:
    def __init__(self, world: World, channel_id: int, name: str, *, threads: bool = True) -> None:
        self.world = world
        self.id = channel_id
        self.name = name
        self.threads = threads  # False: the bot lacks Create Public Threads here
        self.messages: dict[int, FakeMessage] = {}
        self.sent: list[FakeMessage] = []

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def add(self, msg: FakeMessage) -> FakeMessage:
        self.messages[msg.id] = msg
        self.sent.append(msg)
        return msg

    async def send(
        self, content: str | None = None, *, embed: discord.Embed | None = None, view: Any = None, **_: Any
    ) -> FakeMessage:
        msg = self.add(FakeMessage(self.world, self, content, embed, _as_sent(view)))
        self.world.check_public(f"send in #{self.name}", content, embed, view)
        return msg

    def get_partial_message(self, message_id: int) -> FakePartialMessage:
        return FakePartialMessage(self, message_id)


class FakeThread(FakeChannel):
    def __init__(self, world: World, thread_id: int, name: str, *, parent: FakeChannel) -> None:
        super().__init__(world, thread_id, name, threads=False)
        self.parent = parent


@dataclass
class FakeUser:
    id: int
    display_name: str

    @property
    def name(self) -> str:
        return self.display_name.lower()

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"


class FakeBot:
    def __init__(self, world: World) -> None:
        self.world = world
        self.cogs: dict[str, Any] = {}
        self.user = FakeUser(1, "Deckhand")

    def get_channel(self, channel_id: int) -> FakeChannel | None:
        return self.world.channels.get(channel_id)

    def get_cog(self, name: str) -> Any:
        return self.cogs.get(name)


class FakeResponse:
    """``interaction.response``: exactly one answer per interaction, as Discord enforces."""

    def __init__(self, interaction: FakeInteraction) -> None:
        self._i = interaction
        self._done = False
        self.deferred: dict[str, bool] | None = None

    def is_done(self) -> bool:
        return self._done

    def _answer(self) -> None:
        if self._done:
            self._i.errors.append("answered twice")
            raise AssertionError("This interaction has already been responded to")
        self._done = True

    async def send_message(
        self,
        content: str | None = None,
        *,
        embed: discord.Embed | None = None,
        view: Any = None,
        ephemeral: bool = False,
        **_: Any,
    ) -> SimpleNamespace:
        self._answer()
        channel = self._i.channel
        msg = FakeMessage(self._i.world, channel, content, embed, _as_sent(view), ephemeral=ephemeral)
        if not ephemeral:
            channel.add(msg)
            self._i.world.check_public(f"response in #{channel.name}", content, embed, view)
        self._i.replies.append(msg)
        self._i.original = msg
        return SimpleNamespace(resource=msg, message_id=msg.id)

    async def defer(self, *, ephemeral: bool = False, thinking: bool = False) -> None:
        self._answer()
        self.deferred = {"ephemeral": ephemeral, "thinking": thinking}

    async def edit_message(
        self, *, content: Any = MISSING, embed: Any = MISSING, view: Any = MISSING, **_: Any
    ) -> None:
        self._answer()
        target = self._i.message
        if target is None:
            raise AssertionError("edit_message needs a component interaction")
        target.apply_edit(content, embed, _as_sent(view))
        self._i.edited.append(target)
        self._i.original = target  # as on Discord: @original is now the message the click updated


class FakeFollowup:
    def __init__(self, interaction: FakeInteraction) -> None:
        self._i = interaction

    async def send(
        self,
        content: str | None = None,
        *,
        embed: discord.Embed | None = None,
        view: Any = None,
        ephemeral: bool = False,
        **_: Any,
    ) -> FakeMessage:
        if not self._i.response.is_done():
            self._i.errors.append("followup before response")
            raise AssertionError("followup before the interaction was answered")
        channel = self._i.channel
        msg = FakeMessage(self._i.world, channel, content, embed, _as_sent(view), ephemeral=ephemeral)
        if not ephemeral:
            channel.add(msg)
            self._i.world.check_public(f"followup in #{channel.name}", content, embed, view)
        self._i.replies.append(msg)
        return msg


@dataclass
class FakeInteraction:
    world: World
    client: FakeBot
    user: FakeUser
    channel: FakeChannel
    guild_id: int | None = 1
    message: FakeMessage | None = None  # the message a component was on
    manage_guild: bool = False
    namespace: Any = field(default_factory=SimpleNamespace)
    data: dict[str, Any] = field(default_factory=dict)
    replies: list[FakeMessage] = field(default_factory=list)
    edited: list[FakeMessage] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    original: FakeMessage | None = None
    # When the person clicked (Discord stamps it in the interaction's id): now, as it reaches the cog.
    created_at: Any = field(default_factory=discord.utils.utcnow)
    # The person's client language and the server's (Discord sends both on every interaction).
    locale: discord.Locale = discord.Locale.british_english
    guild_locale: discord.Locale | None = discord.Locale.american_english
    extras: dict[str, Any] = field(default_factory=dict)  # (discord.Interaction's, for the bot's own use)

    def __post_init__(self) -> None:
        self.response = FakeResponse(self)
        self.followup = FakeFollowup(self)
        # What discord.py's webhook adapter reads of a real interaction (cogs/live/hand.py uses it).
        self.id = self.world.new_id()
        self.application_id = APPLICATION_ID
        self.token = f"token-{self.id}"
        self.born = self.world.now()  # when its token started to live
        self._session = self.world.webhooks
        self._state = SimpleNamespace(allowed_mentions=None, http=SimpleNamespace(proxy=None, proxy_auth=None))
        self.world.tokens[self.token] = self

    @property
    def channel_id(self) -> int:
        return self.channel.id

    @property
    def guild(self) -> Any:
        return None if self.guild_id is None else SimpleNamespace(id=self.guild_id)

    @property
    def permissions(self) -> discord.Permissions:
        return discord.Permissions(manage_guild=self.manage_guild, use_external_apps=True)

    def is_guild_integration(self) -> bool:
        """A server that added the bot (the only kind these tests model; tests/e2e has the others)."""
        return self.guild_id is not None

    async def original_response(self) -> FakeMessage:
        if self.original is None:
            raise _http_error(discord.NotFound, 404, "Unknown interaction")
        return self.original

    async def edit_original_response(self, *, content: Any = MISSING, embed: Any = MISSING, view: Any = MISSING,
                                     **_: Any) -> FakeMessage:
        msg = await self.original_response()
        if msg.deleted:  # as Discord: the token lives on, the message does not
            raise _http_error(discord.NotFound, 404, "Unknown Message")
        msg.apply_edit(content, embed, view)
        return msg

    # -- what the user saw --
    @property
    def last(self) -> FakeMessage:
        assert self.replies or self.edited, "the interaction got no answer"
        return self.edited[-1] if self.edited else self.replies[-1]


class _Answer:
    """What the webhook adapter reads of an aiohttp response."""

    def __init__(self, status: int, body: Any = None) -> None:
        self.status = status
        self.reason = {200: "OK", 204: "No Content", 400: "Bad Request", 401: "Unauthorized",
                       404: "Not Found"}.get(status, "")
        self.body = body
        self.headers = {"content-type": "application/json"} if body is not None else {}

    async def text(self, encoding: str = "utf-8") -> str:
        return "" if self.body is None else json.dumps(self.body)

    async def __aenter__(self) -> _Answer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


def _error(status: int, code: int, message: str) -> _Answer:
    return _Answer(status, {"code": code, "message": message})


class FakeWebhooks:
    """The session a stand-in interaction hands to discord.py's webhook adapter: Discord's answers
    to ``PATCH /webhooks/{app}/{token}/messages/@original`` and ``POST /interactions/{id}/{token}/
    callback``, applied to the fake messages.  ``faults``: exceptions the next requests raise (a
    connection the server had just closed)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.faults: list[BaseException] = []
        # While set and not yet released, Discord holds the token edits it receives: each is applied
        # (and answered) only once the event is set, as a request held up on the way lands late.
        self.hold_edits: asyncio.Event | None = None

    def request(self, method: str, url: str, *, data: Any = None, **_: Any) -> _Answer | _Failing | _Held:
        if self.faults:
            return _Failing(self.faults.pop(0))
        path = url.split("/api/v10", 1)[-1].split("/")
        body = json.loads(data) if isinstance(data, str) else {}
        if method == "PATCH" and path[1:2] == ["webhooks"] and path[4:] == ["messages", "@original"]:
            if self.hold_edits is not None and not self.hold_edits.is_set():
                return _Held(self.hold_edits, lambda: self._edit_original(path[2], path[3], body))
            return self._edit_original(path[2], path[3], body)
        if method == "POST" and path[1:2] == ["interactions"] and path[4:] == ["callback"]:
            return self._callback(path[2], path[3], body)
        return _error(404, 0, f"404: Not Found ({method} {url})")

    def _interaction(self, token: str) -> FakeInteraction | _Answer:
        i = self.world.tokens.get(token)
        if i is None:
            return _error(404, 10015, "Unknown Webhook")
        if self.world.now() - i.born > self.world.token_lifetime:
            self.world.dead_tokens.append(token)
            return _error(401, 50027, "Invalid Webhook Token")
        return i

    def _edit_original(self, app: str, token: str, body: dict[str, Any]) -> _Answer:
        i = self._interaction(token)
        if isinstance(i, _Answer):
            return i
        if app != str(i.application_id):
            return _error(404, 10015, "Unknown Webhook")
        msg = i.original
        if msg is None or msg.deleted:
            return _error(404, 10008, "Unknown Message")
        _apply(msg, body)
        self.world.token_edits.append((self.world.now(), msg.id))
        return _Answer(200, {"id": str(msg.id)})

    def _callback(self, interaction_id: str, token: str, body: dict[str, Any]) -> _Answer:
        i = self._interaction(token)
        if isinstance(i, _Answer):
            return i
        if interaction_id != str(i.id):
            return _error(404, 10062, "Unknown interaction")
        if i.response.is_done():
            i.errors.append("answered twice")
            return _error(400, 40060, "Interaction has already been acknowledged.")
        if body.get("type") != discord.InteractionResponseType.message_update.value or i.message is None:
            return _error(400, 50035, "Invalid Form Body")
        i.response._answer()
        _apply(i.message, body.get("data") or {})
        i.edited.append(i.message)
        i.original = i.message  # as on Discord: @original is now the message the click updated
        return _Answer(204)


class _Held:
    """A request Discord answers only once ``release`` is set (and applies then)."""

    def __init__(self, release: asyncio.Event, answer: Callable[[], _Answer]) -> None:
        self.release, self.answer = release, answer

    async def __aenter__(self) -> _Answer:
        await self.release.wait()
        return self.answer()

    async def __aexit__(self, *exc: object) -> None:
        return None


class _Failing:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    async def __aenter__(self) -> _Answer:
        raise self.exc

    async def __aexit__(self, *exc: object) -> None:
        return None


def _apply(msg: FakeMessage, body: dict[str, Any]) -> None:
    """An edit as Discord's JSON says it (the fields present change), the components read back
    the way discord.py dispatches them (a DynamicItem around the item as sent)."""
    content = body["content"] if "content" in body else MISSING
    embeds = body.get("embeds", MISSING)
    embed = MISSING if embeds is MISSING else (discord.Embed.from_dict(embeds[0]) if embeds else None)
    view = _view_from_wire(body["components"]) if "components" in body else MISSING
    msg.apply_edit(content, embed, view)


def _as_sent(view: Any) -> Any:
    """What Discord keeps of a view it is sent: its JSON (read back as discord.py would), never the
    bot's own object, which the bot empties once sent (cogs.table.custom_ids.let_go)."""
    if isinstance(view, discord.ui.View) and not getattr(view, "_from_wire", False):
        return _view_from_wire(view.to_components()) or discord.ui.View(timeout=None)
    return view


def _view_from_wire(rows: list[dict[str, Any]]) -> discord.ui.View | None:
    if not rows:
        return None
    view = discord.ui.View(timeout=None)
    for r, row in enumerate(rows):
        for wire in row.get("components") or ():
            base = _component_to_item(_component_factory(wire))
            item: Any = base
            cid = wire.get("custom_id")
            cls = next((c for c in DYNAMIC_ITEMS if cid and c.__discord_ui_compiled_template__.fullmatch(cid)), None)
            if cls is not None:
                item = cls.__new__(cls)
                discord.ui.DynamicItem.__init__(item, base, row=r)
            else:
                base.row = r
            view.add_item(item)
    view.stop()
    view._from_wire = True  # type: ignore[attr-defined]
    return view


async def click(
    world: World, bot: FakeBot, user: FakeUser, message: FakeMessage, custom_id: str,
    values: list[str] | None = None, *, age: float = 0.0,
) -> FakeInteraction:
    """Use a component the way discord.py dispatches it: rebuild the item from its wire form (as
    ``View.from_message`` does), find the DynamicItem whose template matches the id, let it rebuild
    itself from the id, refresh its state from the payload, then check and call it.  ``age``: the
    click was made that many seconds before it reaches the bot."""
    item = next((i for i in message.view.walk_children() if getattr(i, "custom_id", None) == custom_id), None)
    assert item is not None, f"no component {custom_id!r} on the message"
    wire = item.to_component_dict()
    # As discord.py's ViewStore does: a View of every component of the message (View.from_message),
    # the clicked one swapped for its DynamicItem, which is that view's item while it runs.
    view = discord.ui.View(timeout=None)
    base: Any = None
    for r, row in enumerate(message.view.to_components()):
        for each in row.get("components") or ():
            rebuilt = _component_to_item(_component_factory(each))
            rebuilt.row = r
            view.add_item(rebuilt)
            if each.get("custom_id") == custom_id:
                base = rebuilt
    interaction = FakeInteraction(world, bot, user, message.channel, message=message,
                                  created_at=discord.utils.utcnow() - datetime.timedelta(seconds=age))
    interaction.data = {"custom_id": custom_id, "component_type": wire["type"]}
    if values is not None:
        interaction.data["values"] = values
    for cls in DYNAMIC_ITEMS:
        match = cls.__discord_ui_compiled_template__.fullmatch(custom_id)
        if match is not None:
            break
    else:
        raise AssertionError(f"{custom_id!r} matches no registered DynamicItem")
    dynamic = await cls.from_custom_id(interaction, base, match)
    view._swap_item(base, dynamic, custom_id)
    dynamic._view = view
    dynamic._refresh_state(interaction, interaction.data)
    if await dynamic.interaction_check(interaction):
        await dynamic.callback(interaction)
    return interaction


class Time:
    """A clock that only moves when someone sleeps on it: no real time passes."""

    def __init__(self) -> None:
        self.t = 100.0

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.t += seconds
        await asyncio.sleep(0)
