"""A fake Discord on 127.0.0.1: enough of the REST API and the gateway for discord.py 2.x.

One :class:`FakeDiscord` is one Discord with one guild.  It speaks real HTTP and a real websocket,
so the bot under test runs unchanged (see :mod:`tests.fakediscord.botrunner`).  Besides answering,
it keeps a model of what each person can see — channel and thread messages are seen by everyone in
the guild, an ephemeral message only by its recipient, autocomplete choices only by whoever asked —
with every version of every message, so tests can read the product as a person would and check
privacy afterwards (:mod:`tests.fakediscord.privacy`).

What it enforces like Discord does (each breach is answered as Discord would and recorded in
:attr:`FakeDiscord.problems`, which :meth:`FakeDiscord.assert_clean` turns into a test failure):

* an interaction must be answered within ``answer_within`` seconds (3 s) and only once; a late
  answer gets ``10062 Unknown interaction``, a second one ``40060``;
* per-route rate limits in fixed windows with Discord's headers (``X-RateLimit-*``): going over
  one is a *provoked* 429; an optional global limit;
* message bodies within Discord's limits (2000 characters, 5 rows of 5 buttons, 25 options, ...);
* the interaction token (followups, ``@original``) lives 15 minutes (``token_lifetime``; a test
  ages the tokens with :meth:`FakeDiscord.age_tokens` instead of waiting);
* where the bot is not a member — a DM between people, a group DM (:meth:`add_group_dm`), a server
  that never added it (``add_guild(bot=False)``) — it is there only as an app a person installed to
  their account (:meth:`install_to_account`): it gets no gateway event from the conversation, every
  channel route there is refused (403 ``50001 Missing Access``), it may send at most 5 followups per
  interaction (``40094``), and where a person lacks Use External Apps every answer is ephemeral;
* a command is offered only where it is installed and in the contexts it declares
  (``integration_types``, ``contexts``: checked when a scripted person types it).

Faults a test can inject: :meth:`fail` (HTTP 500/502/...), :meth:`rate_limit` (a 429 with proper
headers and ``Via``), :meth:`slow` (a delayed answer), :meth:`hold` (an answer held until the test
releases it), :meth:`drop_gateway` (a disconnect the bot resumes from) and :meth:`request_reconnect`
(opcode 7).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
import logging
import math
import re
import secrets
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from . import payloads as P

log = logging.getLogger("fakediscord")

TOKEN_LIFETIME = 15 * 60.0
#: Followups an app installed to a person's account (not to the server) may send per interaction.
USER_APP_FOLLOWUPS = 5
GUILDS_INTENT, GUILD_MEMBERS_INTENT, GUILD_MESSAGES_INTENT = 1 << 0, 1 << 1, 1 << 9
INTENT_OF = {"GUILD_CREATE": GUILDS_INTENT, "CHANNEL_CREATE": GUILDS_INTENT, "THREAD_CREATE": GUILDS_INTENT,
             "THREAD_UPDATE": GUILDS_INTENT, "THREAD_DELETE": GUILDS_INTENT, "CHANNEL_UPDATE": GUILDS_INTENT,
             "GUILD_ROLE_CREATE": GUILDS_INTENT, "GUILD_MEMBER_UPDATE": GUILD_MEMBERS_INTENT,
             "MESSAGE_CREATE": GUILD_MESSAGES_INTENT, "MESSAGE_UPDATE": GUILD_MESSAGES_INTENT,
             "MESSAGE_DELETE": GUILD_MESSAGES_INTENT}
GRACE = 0.005  # a request this close to a window's reset counts in the next window
# The fake's own event loop running this late (a busy machine: a bench with a thousand tables) reads
# the requests sent meanwhile all at once.  They were sent over the longer time, so the global
# limit gives them a credit (Discord's servers do not stall); ``stalled`` reports the time.
STALL = 0.05


# When the request being handled arrived (time.time(), before the fake did anything with it): what a
# version it makes records as when the bot sent it, so a pace check reads the bot's own pace, not
# the fake's processing of the request.
_ARRIVED: contextvars.ContextVar[float | None] = contextvars.ContextVar("fakediscord_arrived", default=None)


def _arrival() -> float:
    at = _ARRIVED.get()
    return time.time() if at is None else at


# ==== the model ===================================================================================
@dataclass
class Version:
    at: float  # time.time() when Discord stored it
    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    flags: int
    source: str  # "create", "edit", "update" (interaction callback), "followup", ...
    by: int | None = None  # the interaction whose answer this is (its user typed what it echoes)
    # Who the mentions in this version's content would notify under the allowed_mentions it was
    # sent with (Discord notifies on a new message only, but an edit's body says what the bot allowed).
    pings: frozenset[int] = frozenset()
    # time.time() the request that made it arrived, before any processing (the fake's own changes:
    # when made): for checks of the bot's pace.
    sent: float = field(default_factory=_arrival)

    @property
    def text(self) -> str:
        return P.visible_text(self.content, self.embeds, self.components)


@dataclass
class Message:
    id: int
    channel_id: int
    author: dict[str, Any]
    created: float
    versions: list[Version]
    ephemeral_to: int | None = None  # the only user who sees it; None: everyone in the channel
    interaction_id: int | None = None
    webhook_id: int | None = None
    type: int = 0
    pinged: frozenset[int] = frozenset()
    deleted_at: float | None = None
    thread_id: int | None = None

    @property
    def current(self) -> Version:
        return self.versions[-1]

    @property
    def content(self) -> str:
        return self.current.content

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.current.embeds

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.current.components

    @property
    def flags(self) -> int:
        return self.current.flags

    @property
    def ephemeral(self) -> bool:
        return self.ephemeral_to is not None

    @property
    def loading(self) -> bool:
        return bool(self.flags & P.LOADING)

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None

    @property
    def text(self) -> str:
        """Everything a person sees in the current version (content, embeds, components)."""
        return self.current.text

    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in P.walk_components(self.components) if c.get("custom_id")]

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in P.walk_components(self.components) if c.get("type") == P.BUTTON]

    def selects(self) -> list[dict[str, Any]]:
        return [c for c in P.walk_components(self.components) if c.get("type") == P.STRING_SELECT]

    def __repr__(self) -> str:
        kind = f"ephemeral to {self.ephemeral_to}" if self.ephemeral else "public"
        return f"<Message {self.id} in {self.channel_id} {kind}: {self.text[:60]!r}>"


@dataclass
class Channel:
    id: int
    name: str
    type: int = 0  # 0 text, 11 public thread, 12 private thread
    parent_id: int | None = None
    threads_allowed: bool = True  # False: the bot lacks Create Public Threads here
    can_send: bool = True  # False: the bot lacks Send Messages (in Threads) here: posts get a 403
    # False: the bot lacks Attach Files here (uploads get a 403) / Use External Emojis (another
    # server's emojis show as ":name:" text, as Discord shows an emoji a bot may not use; its own
    # application emojis need no permission, Discord's emoji resource says). A thread has its parent's.
    can_attach: bool = True
    external_emojis: bool = True
    messages: list[int] = field(default_factory=list)
    owner_id: int | None = None
    auto_archive_duration: int = 1440
    guild_id: int | None = None  # None: the main guild (FakeDiscord.guild_id)
    archived: bool = False  # a thread: FakeDiscord.archive_thread (a post unarchives it unless locked)
    locked: bool = False  # a thread only moderators may post in or reopen (the bot is none)
    # Permission overwrites (FakeDiscord.overwrite): target id -> (0 role | 1 member, allow, deny).
    # A thread has none: it follows its parent's.
    overwrites: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    # False: a conversation the bot is not in (a DM between people, a group DM, a channel of a server
    # that never added it): no gateway event from it, every channel route refused.
    bot_member: bool = True
    recipients: tuple[int, ...] = ()  # a DM's or group DM's people (the bot's own DM: owner_id)
    # False: people here lack Use External Apps (a server's setting): a user-installed app's every
    # answer is shown to the person alone.
    external_apps: bool = True

    #: A private thread's members (type 12): only they (and moderators) see it; None elsewhere.
    members: set[int] | None = None

    @property
    def is_thread(self) -> bool:
        return self.type in (11, 12)

    @property
    def private(self) -> bool:
        """A DM or group DM (no guild)."""
        return self.type in (1, 3)


@dataclass
class Role:
    id: int
    name: str
    permissions: int = 0
    position: int = 1


@dataclass
class Member:
    id: int
    name: str
    manage_guild: bool = False
    bot: bool = False
    roles: list[int] = field(default_factory=list)  # role ids (FakeDiscord.give_role), @everyone aside
    locale: str = "en-GB"  # their client's language (Interaction.locale)

    @property
    def permissions(self) -> int:
        return P.MEMBER_PERMISSIONS | (P.MANAGE_GUILD if self.manage_guild else 0)

    def user(self) -> dict[str, Any]:
        return P.user_payload(self.id, self.name, bot=self.bot)


@dataclass
class Interaction:
    id: int
    token: str
    type: int
    user_id: int
    channel_id: int
    data: dict[str, Any]
    label: str  # "/game new", "click Join", ...
    created: float  # perf_counter()
    created_wall: float
    message_id: int | None = None  # the message a component was on
    sent_at: float | None = None  # when INTERACTION_CREATE went out on the websocket
    callback_at: float | None = None
    callback_type: int | None = None
    original_id: int | None = None  # the response message (or the component's message once updated)
    followups: list[int] = field(default_factory=list)
    choices: list[dict[str, Any]] | None = None
    failed: str | None = None  # why the user saw "This interaction failed"
    late_by: float | None = None
    # How the app was installed where this happened: "0" the guild's id (the bot is a member), "1" the
    # person's id (their own install); Discord's ``authorizing_integration_owners``.
    owners: dict[str, str] = field(default_factory=dict)
    context: int = 0  # 0 a server, 1 the bot's own DM, 2 a DM between people or a group DM
    followup_calls: int = 0
    token_born: float = 0.0  # perf_counter() the token's 15 minutes count from (age_tokens moves it)
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def typed(self) -> str:
        """What the person typed into the command's options (all values, subcommands flattened)."""
        out: list[str] = []

        def walk(options: list[dict[str, Any]]) -> None:
            for o in options or []:
                if "value" in o:
                    out.append(str(o["value"]))
                walk(o.get("options") or [])

        walk(self.data.get("options") or [])
        return " ".join(out)

    def options_text(self) -> str:
        """The options as a person typed them: ``game:hearts options:target=30``."""
        out: list[str] = []

        def walk(options: list[dict[str, Any]]) -> None:
            for o in options or []:
                if "value" in o:
                    out.append(f"{o['name']}:{o['value']}")
                walk(o.get("options") or [])

        walk(self.data.get("options") or [])
        return " ".join(out)

    @property
    def latency(self) -> float | None:
        """Seconds from INTERACTION_CREATE leaving the fake to the callback arriving."""
        if self.callback_at is None:
            return None
        return self.callback_at - (self.sent_at if self.sent_at is not None else self.created)

    @property
    def answered_in(self) -> float | None:
        """Seconds from the interaction's creation to its callback (what Discord's 3 s counts)."""
        return None if self.callback_at is None else self.callback_at - self.created


@dataclass
class Sighting:
    """One thing someone could see: a message version or an autocomplete answer."""

    at: float
    channel_id: int
    viewer: int | None  # None: everyone in the guild
    text: str
    what: str
    message_id: int | None = None
    by: int | None = None  # the interaction this answers


@dataclass
class RequestRecord:
    at: float  # perf_counter() when it arrived
    method: str
    route: str  # "PATCH /channels/{channel_id}/messages/{message_id}"
    path: str
    status: int = 0
    injected: str | None = None
    duration: float = 0.0
    agent: str = ""  # the client's User-Agent (a test's bot process adds its pid)
    wall: float = 0.0  # time.time() when it arrived

    @property
    def is_callback(self) -> bool:
        return self.route.endswith("/callback")


# ==== routes, buckets, faults =====================================================================
@dataclass(frozen=True)
class Route:
    method: str
    template: str
    handler: str
    limit: tuple[int, float] | None = None  # (requests, seconds) per window and major parameter
    auth: bool = True  # webhook and interaction routes are authorised by their token instead

    @property
    def key(self) -> str:
        return f"{self.method} {self.template}"


def _route_regex(template: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", re.escape(template).replace(r"\{", "{")
                                   .replace(r"\}", "}")) + "$")


ROUTES = [
    Route("GET", "/users/@me", "me"),
    Route("GET", "/oauth2/applications/@me", "application"),
    Route("GET", "/applications/@me", "application"),
    Route("GET", "/gateway", "gateway_url", auth=False),
    Route("GET", "/gateway/bot", "gateway_url"),
    Route("PUT", "/applications/{application_id}/commands", "sync_commands", (2, 20.0)),
    Route("GET", "/applications/{application_id}/commands", "get_commands"),
    Route("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", "sync_commands", (2, 20.0)),
    Route("GET", "/applications/{application_id}/guilds/{guild_id}/commands", "get_commands"),
    Route("POST", "/interactions/{interaction_id}/{interaction_token}/callback", "callback", auth=False),
    Route("POST", "/webhooks/{webhook_id}/{webhook_token}", "followup", (5, 2.0), auth=False),
    Route("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", "get_webhook_message",
          (5, 2.0), auth=False),
    Route("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", "edit_webhook_message",
          (5, 2.0), auth=False),
    Route("DELETE", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}", "delete_webhook_message",
          (5, 2.0), auth=False),
    Route("GET", "/channels/{channel_id}", "get_channel"),
    Route("POST", "/channels/{channel_id}/messages", "create_message", (5, 5.0)),
    Route("GET", "/channels/{channel_id}/messages", "channel_messages", (5, 1.0)),
    Route("GET", "/channels/{channel_id}/messages/{message_id}", "get_message", (5, 1.0)),
    Route("PATCH", "/channels/{channel_id}/messages/{message_id}", "edit_message", (5, 5.0)),
    Route("DELETE", "/channels/{channel_id}/messages/{message_id}", "delete_message", (5, 1.0)),
    Route("POST", "/channels/{channel_id}/messages/{message_id}/threads", "create_thread", (10, 10.0)),
    Route("POST", "/channels/{channel_id}/threads", "create_thread_alone", (10, 10.0)),
    Route("PUT", "/channels/{channel_id}/thread-members/{user_id}", "add_thread_member", (10, 10.0)),
    Route("POST", "/channels/{channel_id}/typing", "typing", (5, 5.0)),
    # Discord documents no figure for emoji routes ("limited ... to prevent abuse", its quota headers
    # "may be inaccurate"): these are assumed, a second's worth of the global limit.
    Route("GET", "/applications/{application_id}/emojis", "list_app_emojis"),
    Route("POST", "/applications/{application_id}/emojis", "create_app_emoji", (50, 1.0)),
    Route("DELETE", "/applications/{application_id}/emojis/{emoji_id}", "delete_app_emoji", (50, 1.0)),
]
_COMPILED = [(r, _route_regex(r.template)) for r in ROUTES]


def find_route(method: str, path: str) -> tuple[Route | None, dict[str, str]]:
    for route, rx in _COMPILED:
        if route.method == method:
            m = rx.match(path)
            if m:
                return route, m.groupdict()
    return None, {}


def major_of(params: dict[str, str]) -> str:
    for key in ("channel_id", "guild_id"):
        if key in params:
            return params[key]
    if "webhook_id" in params:
        return f"{params['webhook_id']}/{params.get('webhook_token', '')}"
    return ""


@dataclass
class Bucket:
    limit: int
    window: float
    start: float = -math.inf
    count: int = 0

    def reset_after(self, now: float) -> float:
        return max(0.0, self.start + self.window - now)


@dataclass
class Fault:
    route: str  # a route key ("PATCH /channels/{channel_id}/messages/{message_id}") or "*"
    times: int = 1
    status: int | None = None  # 500, 502, 429 ...
    delay: float = 0.0
    held: asyncio.Event | None = None  # answered only once the test sets it (see FakeDiscord.hold)
    retry_after: float = 0.1
    global_: bool = False
    shared: bool = False  # a 429 of a shared resource's limit (scope "shared": Cloudflare does not count it)
    when: Callable[[dict[str, str]], bool] | None = None
    hits: int = 0

    def matches(self, route: Route, params: dict[str, str]) -> bool:
        if self.hits >= self.times:
            return False
        if self.route not in ("*", route.key, route.template):
            return False
        return self.when is None or bool(self.when(params))


class HTTPError(Exception):
    def __init__(self, status: int, code: int, message: str, errors: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.errors = status, code, message, errors


def _json(status: int, data: Any, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py parses a body only when Content-Type is exactly application/json (no charset).
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    return web.Response(status=status, body=json.dumps(data).encode(), headers=h)


# ==== the gateway =================================================================================
@dataclass(eq=False)
class _Conn:
    ws: web.WebSocketResponse
    agent: str = ""  # the client's User-Agent (a test's bot process adds its pid)
    queue: asyncio.Queue[tuple[str, Callable[[], None] | None]] = field(default_factory=asyncio.Queue)
    session: _Session | None = None
    zombie: bool = False  # FakeDiscord.zombie: nothing reaches the bot on it any more, heartbeats unanswered


@dataclass(eq=False)
class _Session:
    id: str
    intents: int = 0
    seq: int = 0
    buffer: deque[tuple[int, str, str, Callable[[], None] | None]] = field(
        default_factory=lambda: deque(maxlen=50_000))
    conn: _Conn | None = None
    shard: int = 0


# ==== the server ==================================================================================
class FakeDiscord:
    def __init__(
        self,
        *,
        answer_within: float = 3.0,
        ratelimit_scale: float = 1.0,
        global_limit: int | None = None,
        heartbeat_interval: float = 41.25,
        token: str = "fake-bot-token",
        guild_name: str = "Card Club",
        token_lifetime: float = TOKEN_LIFETIME,
        shard_count: int = 1,
        invalid_limits: tuple[int, int, float] = (1_000, 10_000, 600.0),
    ) -> None:
        self.answer_within = answer_within
        # How long an interaction's token (followups, @original edits) lives: Discord's 15 minutes,
        # or a few seconds in a test of what happens after it ran out.
        self.token_lifetime = token_lifetime
        self.ratelimit_scale = ratelimit_scale
        self.global_limit = global_limit
        self.heartbeat_interval = heartbeat_interval
        self.token = token
        self.ids = P.Snowflakes()
        self.application_id = self.ids.next()
        self.bot = Member(self.application_id, "Deckhand", bot=True)
        self.owner = Member(self.ids.next(), "Owner")
        self.guild_id = self.ids.next()
        self.guild_locale = "en-US"  # the server's language (preferred_locale, an interaction's guild_locale)
        self.guild_name = guild_name
        # Discord's shards: a guild's events and interactions go to the session that identified
        # with its shard, ``(guild_id >> 22) % shard_count`` (DMs: shard 0).
        self.shard_count = shard_count
        self.guilds: dict[int, str] = {self.guild_id: guild_name}
        # Servers whose members use the app without the bot in them (it installed to their accounts).
        self.foreign_guilds: dict[int, str] = {}
        # People who added the app to their own account ("Add to my account").
        self.user_installs: set[int] = set()
        self.shard_sessions: dict[int, _Session] = {}
        self.overlaps: list[str] = []  # two live gateway sessions on one shard at once
        # Every IDENTIFY and RESUME that made a session live: (time.time(), "identify"|"resume",
        # shard, session id, the client's User-Agent) — a test names a bot process by the latter.
        self.session_log: list[tuple[float, str, int, str, str]] = []
        self.channels: dict[int, Channel] = {}
        self.members: dict[int, Member] = {}
        self.roles: dict[int, Role] = {}  # the main guild's roles but @everyone (FakeDiscord.add_role)
        self.messages: dict[int, Message] = {}
        self.interactions: dict[int, Interaction] = {}
        self._by_token: dict[str, Interaction] = {}
        self.commands: dict[int | None, dict[str, dict[str, Any]]] = {}
        self.requests: list[RequestRecord] = []
        self.problems: list[str] = []
        self.sightings: list[Sighting] = []
        self.faults: list[Fault] = []
        self._buckets: dict[str, Bucket] = {}
        self._global = Bucket(global_limit or 0, 1.0)
        self.ratelimited: list[str] = []  # provoked 429s (the bot went over a limit it was told)
        self.stalled = 0.0  # seconds the fake's own loop ran late (watched with a global limit only)
        self.stalls = 0
        #: The clock of the rate-limit windows and the stall watch: real time, unless a test that
        #: checks them drives its own (so a loaded machine's own stalls cannot change what it sees).
        self.now: Callable[[], float] = time.perf_counter
        self._tick_due = math.inf
        self._credited = math.inf
        self._credit, self._credit_until = 0.0, -math.inf
        self.injected: list[str] = []
        self.seq = 0  # bumps on every visible change
        self._waiters: list[asyncio.Future[None]] = []
        self._watchers: dict[tuple[str, int], list[asyncio.Future[None]]] = {}
        self.pinged: dict[int, list[Message]] = {}  # user id -> messages that notified them, oldest first
        self._sessions: dict[str, _Session] = {}
        self.session: _Session | None = None
        self.identifies = 0
        self.resumes = 0
        self.replayed: list[str] = []  # events sent again on RESUME (missed while disconnected)
        self.invalidations: list[bool] = []  # opcode 9s sent mid-session (their ``d``: resumable)
        self.unacked = 0  # heartbeats a zombie connection left unanswered
        self.refused_resumes = 0  # RESUMEs answered with opcode 9 (the session was over)
        # Cloudflare's invalid requests (401, 403, 429 but the shared-scope ones): a warning at the
        # first number within the window (seconds), a ban of every request at the second.
        self.invalid_limits = invalid_limits
        self.invalid: deque[float] = deque()  # perf_counter() of each, the last window's
        self.invalid_total = 0
        self.invalid_warned = False
        self.banned = False
        # Called with each interaction a person sends, once it is on its way to the bot (a test may
        # act at that moment, e.g. kill the bot while a click is in flight).
        self.interaction_hooks: list[Callable[[Interaction], None]] = []
        self.connections = 0
        self._conns: set[_Conn] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self.channel = self.add_channel("cards")
        # Application emojis (name -> payload) and the switch that makes Discord refuse them
        # (``emoji_refusal = (403, 50013, "Missing Permissions")``, or a full application).
        self.app_emojis: dict[str, dict[str, Any]] = {}
        self.emoji_refusal: tuple[int, int, str] | None = None
        self.files: dict[int, list[tuple[str, bytes]]] = {}  # message id -> its uploaded files
        # (message id, emoji name): emojis the bot used where it may not, shown as text instead.
        self.emoji_as_text: list[tuple[int, str]] = []

    # ---- life ----------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway"

    @property
    def resume_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/resume"

    async def start(self) -> FakeDiscord:
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_get("/gateway", self._gateway)
        app.router.add_get("/resume", self._gateway)
        app.router.add_route("*", "/api/v{version:\\d+}/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)  # loopback only
        await site.start()
        self.port = self._runner.addresses[0][1]
        if self.global_limit:
            task = asyncio.get_running_loop().create_task(self._watch_stalls())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return self

    async def _watch_stalls(self, tick: float = 0.02) -> None:
        while True:
            self._tick_due = self.now() + tick
            await asyncio.sleep(tick)
            self._note_stall(self.now())

    def _note_stall(self, now: float) -> None:
        """The first time a stall of the fake's own loop is seen (by its watch, or by a request read
        right after it), the requests sent meanwhile get a credit: as many as the global limit
        allows in that time, spent within a second after it."""
        late = now - self._tick_due
        if late <= STALL or self._credited == self._tick_due:
            return
        self._credited = self._tick_due
        self.stalled += late
        self.stalls += 1
        left = self._credit if now < self._credit_until else 0.0
        self._credit = left + (self.global_limit or 0) * late
        self._credit_until = now + 1.0

    async def close(self) -> None:
        for conn in list(self._conns):
            with contextlib.suppress(Exception):
                await conn.ws.close(code=1001)
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _spawn(self, coro: Awaitable[Any]) -> asyncio.Task[Any]:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ---- the world -----------------------------------------------------------------------------
    def add_channel(self, name: str, *, threads: bool = True, guild: int | None = None) -> Channel:
        ch = Channel(self.ids.next(), name, threads_allowed=threads,
                     guild_id=None if guild in (None, self.guild_id) else guild,
                     bot_member=guild not in self.foreign_guilds)
        self.channels[ch.id] = ch
        if ch.bot_member:
            self._dispatch("CHANNEL_CREATE", self._channel_payload(ch))
        return ch

    def add_guild(self, name: str, *, shard: int | None = None, bot: bool = True) -> int:
        """Another guild with the bot in it (``shard``: an id in that shard of ``shard_count``);
        returns its id.  Its channels: :meth:`add_channel` with ``guild=``.  Every member is in
        every guild, and the commands synced to the main guild are offered in all of them.
        ``bot=False``: a server that never added the bot; its members reach the app only through
        their own installs (:meth:`install_to_account`)."""
        gid = self.ids.next()
        if shard is not None:
            high = gid >> 22
            high += (shard - high) % self.shard_count
            gid = (high << 22) | (gid & ((1 << 22) - 1))
        if bot:
            self.guilds[gid] = name
        else:
            self.foreign_guilds[gid] = name
        return gid

    def install_to_account(self, *people: Any) -> None:
        """These people add the app to their own account ("Add to my account")."""
        self.user_installs.update(getattr(p, "id", p) for p in people)

    def add_group_dm(self, name: str, people: list[Any]) -> Channel:
        """A group DM of these people (up to ten), without the bot in it."""
        ids = tuple(getattr(p, "id", p) for p in people)
        assert 2 <= len(ids) <= 10, "a group DM has 2 to 10 people"
        ch = Channel(self.ids.next(), name, type=3, threads_allowed=False, bot_member=False, recipients=ids,
                     owner_id=ids[0])
        self.channels[ch.id] = ch
        return ch

    def add_private_dm(self, a: Any, b: Any) -> Channel:
        """The direct messages between two people (the bot is not in them)."""
        ids = (getattr(a, "id", a), getattr(b, "id", b))
        ch = Channel(self.ids.next(), "dm", type=1, threads_allowed=False, bot_member=False, recipients=ids)
        self.channels[ch.id] = ch
        return ch

    def age_tokens(self, seconds: float) -> None:
        """Every interaction token issued so far is ``seconds`` older (a driven clock for the
        15-minute lifetime: a test of an idle table does not wait a quarter of an hour)."""
        for i in self.interactions.values():
            i.token_born -= seconds

    def shard_of(self, guild_id: int | None) -> int:
        return (guild_id >> 22) % self.shard_count if guild_id else 0

    def guild_of(self, ch: Channel) -> int:
        return ch.guild_id or self.guild_id

    def add_member(self, name: str, *, manage_guild: bool = False, locale: str = "en-GB") -> Any:
        """A person in the guild, as a scripted user (:class:`tests.fakediscord.users.Person`);
        ``locale``: their client's language, sent on each of their interactions."""
        from .users import Person

        m = Member(self.ids.next(), name, manage_guild=manage_guild, locale=locale)
        self.members[m.id] = m
        return Person(self, m)

    def member(self, user_id: int) -> Member | None:
        if user_id == self.bot.id:
            return self.bot
        return self.members.get(user_id)

    # ---- roles and channel permission overwrites (Discord's documented computation) ------------
    def add_role(self, name: str, permissions: int = 0) -> Role:
        """A role of the main guild (GUILD_ROLE_CREATE reaches the bot: GUILDS intent)."""
        role = Role(self.ids.next(), name, permissions, position=len(self.roles) + 1)
        self.roles[role.id] = role
        self._dispatch("GUILD_ROLE_CREATE", {"guild_id": str(self.guild_id), "role": self._role_payload(role)})
        self._bump()
        return role

    def give_role(self, who: Any, role: Role) -> None:
        """A moderator gives someone a role.  The bot hears GUILD_MEMBER_UPDATE only with the
        privileged GUILD_MEMBERS intent; every interaction carries the member's roles anyway."""
        m = self.members[int(who.id)]
        if role.id not in m.roles:
            m.roles.append(role.id)
        self._member_update(m)

    def take_role(self, who: Any, role: Role) -> None:
        m = self.members[int(who.id)]
        if role.id in m.roles:
            m.roles.remove(role.id)
        self._member_update(m)

    def _member_update(self, m: Member) -> None:
        self._dispatch("GUILD_MEMBER_UPDATE", {"guild_id": str(self.guild_id), "user": m.user(),
                                               "roles": [str(r) for r in m.roles], "joined_at": P.iso()})
        self._bump()

    def overwrite(self, channel: Channel, target: Any, *, allow: int = 0, deny: int = 0) -> None:
        """Set a channel's permission overwrite for ``target`` — a :class:`Role`, ``"everyone"`` or
        a person — as a moderator does (CHANNEL_UPDATE reaches the bot: GUILDS intent).  A thread
        has none of its own (it follows its parent)."""
        if channel.is_thread:
            raise ValueError("a thread has no permission overwrites of its own: set its parent's")
        if target == "everyone":
            tid, kind = self.guild_of(channel), 0
        elif isinstance(target, Role):
            tid, kind = target.id, 0
        else:
            tid, kind = int(target.id), 1
        channel.overwrites[tid] = (kind, allow, deny)
        self._dispatch("CHANNEL_UPDATE", self._channel_payload(channel))
        self._bump()

    def _role_payload(self, role: Role) -> dict[str, Any]:
        return {"id": str(role.id), "name": role.name, "permissions": str(role.permissions),
                "position": role.position, "color": 0, "colors": {"primary_color": 0}, "hoist": False,
                "managed": False, "mentionable": False, "flags": 0, "icon": None, "unicode_emoji": None}

    def permissions_in(self, user_id: int, channel: Channel) -> int:
        """A member's permissions in a guild channel, as Discord computes them (its documentation,
        "Permission Overwrites"): the owner has all; else @everyone's and their roles' permissions
        (Administrator: all), then the channel's @everyone overwrite, their roles' overwrites
        together, their own overwrite — each deny before its allow.  Without View Channel nothing
        else of the channel counts.  A thread has its parent's."""
        if channel.type == 1 and not channel.recipients:
            return P.MEMBER_PERMISSIONS if channel.owner_id == user_id else 0
        if channel.private:
            return P.MEMBER_PERMISSIONS if user_id in channel.recipients else 0
        if channel.is_thread and channel.parent_id in self.channels:
            channel = self.channels[channel.parent_id]
        gid = self.guild_of(channel)
        member = self.member(user_id)
        if user_id == self.owner.id:
            return P.ALL_PERMISSIONS
        if member is None:
            return 0
        base = P.BOT_PERMISSIONS if member is self.bot else member.permissions
        roles = [r for r in member.roles if gid == self.guild_id and r in self.roles]
        for r in roles:
            base |= self.roles[r].permissions
        if base & P.ADMINISTRATOR:
            return P.ALL_PERMISSIONS
        perms = base
        kind, allow, deny = channel.overwrites.get(gid, (0, 0, 0))
        perms = (perms & ~deny) | allow
        allow = deny = 0
        for r in roles:
            _, a, d = channel.overwrites.get(r, (0, 0, 0))
            allow, deny = allow | a, deny | d
        perms = (perms & ~deny) | allow
        own = channel.overwrites.get(user_id)
        if own is not None and own[0] == 1:
            perms = (perms & ~own[2]) | own[1]
        if not perms & P.VIEW_CHANNEL:
            return 0
        if not channel.external_apps and member is not self.bot:
            perms &= ~P.USE_EXTERNAL_APPS
        return perms

    def can_view(self, user_id: int | None, channel_id: int) -> bool:
        """Whether someone may see a channel (and so its messages) now."""
        ch = self.channels.get(channel_id)
        if ch is None:
            return True  # (a channel deleted since: its messages are judged elsewhere)
        if user_id is None:
            return True
        return bool(self.permissions_in(user_id, ch) & P.VIEW_CHANNEL)

    def visible_to(self, user_id: int | None, channel_id: int | None = None) -> list[Message]:
        """Messages someone sees now, oldest first: the channel's and the ones only they were sent."""
        out = []
        for m in self.messages.values():
            if m.deleted or (channel_id is not None and m.channel_id != channel_id):
                continue
            if m.ephemeral_to is None and user_id is not None and not self.can_view(user_id, m.channel_id):
                continue  # a channel this person may not see
            if m.ephemeral_to is None or m.ephemeral_to == user_id:
                out.append(m)
        return sorted(out, key=lambda m: m.id)

    def public(self, channel_id: int | None = None) -> list[Message]:
        return [m for m in self.visible_to(None, channel_id)]

    def threads(self) -> list[Channel]:
        return [c for c in self.channels.values() if c.is_thread]

    # ---- waiting for things to happen ------------------------------------------------------------
    def _bump(self) -> None:
        self.seq += 1
        waiters, self._waiters = self._waiters, []
        for w in waiters:
            if not w.done():
                w.set_result(None)

    async def changed(self, timeout: float | None = None) -> bool:
        """Wait for the next visible change; False on timeout."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(fut)
        try:
            await asyncio.wait_for(fut, timeout)
            return True
        except TimeoutError:
            return False

    def _wake(self, key: tuple[str, int]) -> None:
        for w in self._watchers.pop(key, ()):
            if not w.done():
                w.set_result(None)

    async def news(self, *, user: int | None = None, message: int | None = None, timeout: float = 1.0,
                   also: int | None = None) -> bool:
        """Wait until ``user`` is pinged or ``message`` (or ``also``, another message) is edited
        (cheaper than :meth:`changed` when hundreds of people wait at once); False on timeout."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        keys = [k for k in (("user", user), ("message", message), ("message", also)) if k[1] is not None]
        for k in keys:
            self._watchers.setdefault(k, []).append(fut)  # type: ignore[arg-type]
        try:
            await asyncio.wait_for(fut, timeout)
            return True
        except TimeoutError:
            return False
        finally:
            for k in keys:
                lst = self._watchers.get(k)  # type: ignore[arg-type]
                if lst and fut in lst:
                    lst.remove(fut)

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = 5.0, what: str = "") -> Any:
        """Wait until ``predicate()`` is truthy (checked after every change); return its value."""
        deadline = time.perf_counter() + timeout
        while True:
            value = predicate()
            if value:
                return value
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"waited {timeout} s for {what or predicate}")
            await self.changed(min(left, 0.25))

    # ---- faults ----------------------------------------------------------------------------------
    def fail(self, route: str = "*", *, status: int = 500, times: int = 1,
             when: Callable[[dict[str, str]], bool] | None = None) -> Fault:
        f = Fault(route, times, status=status, when=when)
        self.faults.append(f)
        return f

    def rate_limit(self, route: str = "*", *, retry_after: float = 0.1, times: int = 1, global_: bool = False,
                   when: Callable[[dict[str, str]], bool] | None = None) -> Fault:
        f = Fault(route, times, status=429, retry_after=retry_after, global_=global_, when=when)
        self.faults.append(f)
        return f

    def slow(self, route: str = "*", *, seconds: float, times: int = 1,
             when: Callable[[dict[str, str]], bool] | None = None) -> Fault:
        f = Fault(route, times, delay=seconds, when=when)
        self.faults.append(f)
        return f

    def hold(self, route: str = "*", *, until: asyncio.Event | None = None, times: int = 1,
             when: Callable[[dict[str, str]], bool] | None = None) -> Fault:
        """Requests answered only once ``until`` (or the returned ``fault.held``) is set: a Discord
        that is slow for as long as the test needs, so that "X did not wait for it" is an ordering,
        not a bet on a delay being long enough."""
        f = Fault(route, times, held=until if until is not None else asyncio.Event(), when=when)
        self.faults.append(f)
        return f

    async def drop_gateway(self, code: int = 4000, *, shard: int | None = None, invalidate: bool = False) -> None:
        """Close the bot's websocket the way a network blip or a Discord restart does (``shard``:
        that shard's session, default shard 0's).  ``invalidate``: the blip lasted too long for a
        RESUME — Discord answers it with opcode 9 and the bot must IDENTIFY again."""
        session = self.session if shard is None else self.shard_sessions.get(shard)
        conn = session.conn if session is not None else None
        if conn is None:
            raise RuntimeError("the bot is not connected")
        session.conn = None  # type: ignore[union-attr]
        if invalidate:
            self._sessions.pop(session.id, None)  # type: ignore[union-attr]
        await conn.ws.close(code=code)

    async def request_reconnect(self) -> None:
        """Opcode 7: Discord asks the bot to reconnect and resume."""
        session = self.session
        if session is None or session.conn is None:
            raise RuntimeError("the bot is not connected")
        conn = session.conn
        session.conn = None
        conn.queue.put_nowait((json.dumps({"op": 7, "d": None}), None))

    # ---- gateway faults Discord really sends mid-game (tests/e2e/test_gateway_faults.py) --------
    def _live(self, shard: int | None) -> tuple[_Session, _Conn]:
        session = self.session if shard is None else self.shard_sessions.get(shard)
        if session is None or session.conn is None:
            raise RuntimeError("the bot is not connected")
        return session, session.conn

    def invalidate_session(self, *, resumable: bool, shard: int | None = None) -> None:
        """Opcode 9 on the live connection, as Discord sends it mid-session.  ``resumable``
        (``d: true``): the bot may RESUME, and what happened meanwhile is replayed; ``d: false``: the
        session is over, the bot must IDENTIFY again, and the events of the gap are lost (an
        interaction sent then fails for its user, as on Discord)."""
        session, conn = self._live(shard)
        session.conn = None  # from now on events wait in the session's buffer (or die with it)
        if not resumable:
            self._sessions.pop(session.id, None)
        self.invalidations.append(resumable)
        conn.queue.put_nowait((json.dumps({"op": 9, "d": resumable}), None))

    def zombie(self, shard: int | None = None) -> None:
        """The live connection goes silent both ways (a zombie: Discord's side lost it): heartbeats
        get no ACK, events stop arriving.  The bot must notice the missing ACKs, close and RESUME;
        the events of the gap are then replayed (the session itself is fine)."""
        session, conn = self._live(shard)
        session.conn = None
        conn.zombie = True

    async def session_timeout(self, *, shard: int | None = None, code: int = 4009) -> None:
        """Close 4009 "Session timed out" (or another ``code`` after which the session has expired):
        the session is gone, the bot's RESUME is answered with opcode 9 ``d: false``, it must IDENTIFY."""
        await self.drop_gateway(code=code, shard=shard, invalidate=True)

    # ---- a game thread archived, locked or deleted by a moderator ------------------------------
    def archive_thread(self, thread_id: int, *, locked: bool = False) -> Channel:
        """A moderator (or the auto-archive clock) closes a thread; ``locked``: and locks it.  An
        archived thread reopens when someone who may post there posts; a locked one only for
        moderators (the bot's posts get ``403 50083 Thread is archived``)."""
        th = self.channels[thread_id]
        th.archived, th.locked = True, th.locked or locked
        self._dispatch("THREAD_UPDATE", self._channel_payload(th))
        self._bump()
        return th

    def lock_thread(self, thread_id: int) -> Channel:
        """A moderator locks a thread and leaves it open: nobody else may post in it."""
        th = self.channels[thread_id]
        th.locked = True
        self._dispatch("THREAD_UPDATE", self._channel_payload(th))
        self._bump()
        return th

    def delete_thread(self, thread_id: int, *, dispatch: bool = True) -> Channel:
        """A moderator deletes a thread: it and every message in it are gone (``10003 Unknown
        Channel`` from then on; an ephemeral message in it is gone for its reader too).
        ``dispatch=False``: no THREAD_DELETE (Discord's event is late, or lost): the bot learns it
        from its next post there."""
        th = self.channels.pop(thread_id)
        for mid in th.messages:
            m = self.messages[mid]
            if m.deleted_at is None:
                m.deleted_at = time.time()
                self._wake(("message", m.id))
        if dispatch:
            self._dispatch("THREAD_DELETE", {"id": str(th.id), "guild_id": str(self.guild_of(th)),
                                             "parent_id": str(th.parent_id), "type": th.type})
        self._bump()
        return th

    def _thread_post(self, ch: Channel) -> None:
        if not ch.is_thread:
            return
        if ch.locked:
            raise HTTPError(403, 50083, "Thread is archived")
        if ch.archived:  # a post reopens it, as on Discord
            ch.archived = False
            self._dispatch("THREAD_UPDATE", self._channel_payload(ch))

    def _thread_edit(self, ch: Channel) -> None:
        if ch.is_thread and ch.archived:
            raise HTTPError(400, 50083, "Thread is archived")
        if ch.is_thread and ch.locked:
            raise HTTPError(403, 50083, "Thread is archived")

    def delete_message(self, message_id: int) -> Message:
        """Someone else deletes a message (a moderator, the channel's owner): it is gone for
        everyone, the bot hears MESSAGE_DELETE if it is connected, and editing it answers 404."""
        m = self.messages[message_id]
        if m.deleted or m.ephemeral:
            raise ValueError(f"message {message_id} is {'gone already' if m.deleted else 'ephemeral'}")
        self._delete(m)
        return m

    def dismiss(self, message_id: int, user_id: int) -> Message:
        """A person dismisses an ephemeral message sent to them ("Dismiss message"): it is gone, and
        editing it through its interaction's token answers 404 Unknown Message."""
        m = self.messages[message_id]
        if m.deleted or m.ephemeral_to != user_id:
            raise ValueError(f"message {message_id} is not an ephemeral message of user {user_id}")
        self._delete(m)
        return m

    def token_edits(self, *, since: float = 0.0) -> list[RequestRecord]:
        """Edits of interaction responses made through their tokens (not counted by Discord's
        global limit)."""
        return [r for r in self.requests if r.at >= since and r.method == "PATCH"
                and r.route.split()[-1].startswith("/webhooks/")]

    # ---- checks ----------------------------------------------------------------------------------
    def problem(self, text: str) -> None:
        log.warning("fake Discord: %s", text)
        self.problems.append(text)

    def unanswered(self) -> list[Interaction]:
        return [i for i in self.interactions.values() if i.callback_at is None and i.failed is None]

    async def settle_clicks(self) -> None:
        """Wait until every interaction is answered or has failed (Discord's 3 s): an answer on its
        way is not a click left unanswered, however slow the machine.  Before :meth:`assert_clean`."""
        await self.wait_for(lambda: not self.unanswered(), self.answer_within + 1, "the clicks in flight")

    def assert_clean(self, allow: tuple[str, ...] = ()) -> None:
        """Fail if anything went wrong that a user or Discord would have noticed (after
        :meth:`settle_clicks`: a click still unanswered then is one)."""
        problems = [p for p in self.problems if not any(re.search(a, p) for a in allow)]
        problems += [f"interaction {i.label} by {i.user_id} still unanswered" for i in self.unanswered()]
        if problems:
            raise AssertionError("fake Discord saw problems:\n" + "\n".join(f"- {p}" for p in problems[:30]))

    def latencies(self) -> list[float]:
        return [i.latency for i in self.interactions.values() if i.latency is not None]

    def rest_calls(self, *, since: float = 0.0) -> list[RequestRecord]:
        return [r for r in self.requests if r.at >= since and not r.is_callback]

    def edits_per_window(self, window: float = 5.0) -> tuple[int, int | None]:
        """The most REST edits one message got inside any ``window`` seconds, and which message."""
        best, which = 0, None
        for m in self.messages.values():
            times = [v.at for v in m.versions if v.source == "edit"]
            j = 0
            for i in range(len(times)):
                while times[i] - times[j] >= window:
                    j += 1
                if i - j + 1 > best:
                    best, which = i - j + 1, m.id
        return best, which

    def seen(self) -> Iterator[Sighting]:
        """Everything anyone could see, every version of every message (deleted ones included)."""
        for m in self.messages.values():
            for v in m.versions:
                yield Sighting(v.at, m.channel_id, m.ephemeral_to, v.text, v.source, m.id, v.by)
        yield from self.sightings

    # ==== gateway ==================================================================================
    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True, max_msg_size=0)
        await ws.prepare(request)
        conn = _Conn(ws, agent=request.headers.get("User-Agent", ""))
        self._conns.add(conn)
        self.connections += 1
        if request.query.get("encoding", "json") != "json":
            self.problem(f"gateway asked for encoding {request.query.get('encoding')}")
        writer = self._spawn(self._writer(conn))
        conn.queue.put_nowait((json.dumps({"op": 10, "d": {"heartbeat_interval": int(self.heartbeat_interval * 1000)}}),
                               None))
        try:
            async for msg in ws:
                if msg.type == WSMsgType.TEXT:
                    await self._on_gateway(conn, json.loads(msg.data))
                elif msg.type == WSMsgType.BINARY:
                    self.problem("the bot sent a binary gateway frame")
        finally:
            self._conns.discard(conn)
            if conn.session is not None and conn.session.conn is conn:
                conn.session.conn = None
            writer.cancel()
        return ws

    async def _writer(self, conn: _Conn) -> None:
        # Text frames only: discord.py decompresses binary frames, and sends us no zlib context.
        while True:
            text, on_sent = await conn.queue.get()
            if conn.ws.closed:
                return
            if on_sent is not None:
                on_sent()
            try:
                await conn.ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return

    async def _on_gateway(self, conn: _Conn, msg: dict[str, Any]) -> None:
        op, d = msg.get("op"), msg.get("d")
        if op == 1 and conn.zombie:
            self.unacked += 1  # a zombie connection: the ACK never comes
        elif op == 1:  # heartbeat
            conn.queue.put_nowait((json.dumps({"op": 11}), None))
        elif op == 2:  # identify
            if (d or {}).get("token") != self.token:
                await conn.ws.close(code=4004, message=b"Authentication failed.")
                return
            shard, count = (d or {}).get("shard") or [0, 1]
            if count != self.shard_count or not 0 <= shard < count:
                await conn.ws.close(code=4010, message=b"Invalid shard.")  # Discord's answer
                return
            self.identifies += 1
            session = _Session(secrets.token_hex(16), intents=int((d or {}).get("intents") or 0), shard=shard)
            self._sessions[session.id] = session
            old = self.shard_sessions.get(shard)
            if old is not None:
                # Discord: the newest session of a shard takes its events over, and the older one is
                # over — closed if it is live, and a RESUME of it is refused (opcode 9).
                self._sessions.pop(old.id, None)
                if old.conn is not None and old.conn is not conn:
                    if self.shard_count > 1:
                        # Two processes on one shard: each would have answered its events.
                        self.overlaps.append(f"shard {shard}: a second session identified while one was live "
                                             f"({old.conn.agent} then {conn.agent})")
                    with contextlib.suppress(Exception):
                        await old.conn.ws.close(code=4000)
            self._adopt(session, conn)
            self.session_log.append((time.time(), "identify", shard, session.id, conn.agent))
            guilds = [g for g in self.guilds if self.shard_of(g) == shard]
            self._dispatch("READY", {
                "v": 10, "user": self.bot.user(), "guilds": [{"id": str(g), "unavailable": True} for g in guilds],
                "session_id": session.id, "resume_gateway_url": self.resume_url, "session_type": "normal",
                "application": {"id": str(self.application_id), "flags": 0}, "private_channels": [],
                "relationships": [], "presences": [], "geo_ordered_rtc_regions": [], "user_settings": {},
                "guild_join_requests": [], "auth": {}, "shard": [shard, count],
            }, session=session)
            for g in guilds:
                self._dispatch("GUILD_CREATE", self._guild_payload(g), session=session)
        elif op == 6:  # resume
            session = self._sessions.get((d or {}).get("session_id", ""))
            if session is None or (d or {}).get("token") != self.token:
                self.refused_resumes += 1
                conn.queue.put_nowait((json.dumps({"op": 9, "d": False}), None))
                return
            self.resumes += 1
            after = int((d or {}).get("seq") or 0)
            for seq, event, text, on_sent in session.buffer:
                if seq > after:
                    self.replayed.append(event)
                    conn.queue.put_nowait((text, on_sent))
            self._adopt(session, conn)
            self.session_log.append((time.time(), "resume", session.shard, session.id, conn.agent))
            self._dispatch("RESUMED", {}, session=session)
        # presence updates (3), member requests (8) and the rest need no answer here

    def _adopt(self, session: _Session, conn: _Conn) -> None:
        session.conn = conn
        conn.session = session
        self.shard_sessions[session.shard] = session
        if session.shard == 0:
            self.session = session  # drop_gateway and request_reconnect act on shard 0's

    def _dispatch(self, event: str, data: dict[str, Any], on_sent: Callable[[], None] | None = None, *,
                  session: _Session | None = None) -> None:
        if session is None:  # the session of the guild's shard (events without a guild: shard 0)
            guild = data.get("guild_id")
            session = self.shard_sessions.get(self.shard_of(int(guild)) if guild else 0)
        if session is None:
            return
        needs = INTENT_OF.get(event)
        if needs is not None and not session.intents & needs:
            return  # Discord sends only what the bot's intents asked for
        session.seq += 1
        text = json.dumps({"op": 0, "t": event, "s": session.seq, "d": data})
        session.buffer.append((session.seq, event, text, on_sent))
        if session.conn is not None:
            session.conn.queue.put_nowait((text, on_sent))

    # ---- payloads ----------------------------------------------------------------------------------
    def _channel_payload(self, ch: Channel) -> dict[str, Any]:
        if ch.private:
            people = ch.recipients or ((ch.owner_id,) if ch.owner_id else ())
            out: dict[str, Any] = {"id": str(ch.id), "type": ch.type, "flags": 0,
                                   "last_message_id": str(ch.messages[-1]) if ch.messages else None,
                                   "recipients": [self.members[u].user() for u in people if u in self.members]}
            if ch.type == 3:
                out.update({"name": ch.name, "owner_id": str(ch.owner_id), "icon": None})
            return out
        base: dict[str, Any] = {"id": str(ch.id), "type": ch.type, "guild_id": str(self.guild_of(ch)), "name": ch.name,
                                "position": 0, "nsfw": False, "topic": None,
                                "permission_overwrites": [{"id": str(t), "type": kind, "allow": str(a), "deny": str(d)}
                                                          for t, (kind, a, d) in ch.overwrites.items()],
                                "rate_limit_per_user": 0, "flags": 0,
                                "last_message_id": str(ch.messages[-1]) if ch.messages else None}
        if ch.is_thread:
            base.update({
                "parent_id": str(ch.parent_id), "owner_id": str(ch.owner_id or self.bot.id),
                "message_count": len(ch.messages), "member_count": 1, "total_message_sent": len(ch.messages),
                "thread_metadata": {"archived": ch.archived, "auto_archive_duration": ch.auto_archive_duration,
                                    "archive_timestamp": P.iso(), "locked": ch.locked, "create_timestamp": P.iso()},
            })
            if ch.type == 12:
                base["thread_metadata"]["invitable"] = True
            del base["permission_overwrites"], base["position"]
        else:
            base["parent_id"] = None
        return base

    def _guild_payload(self, guild_id: int | None = None) -> dict[str, Any]:
        gid = guild_id or self.guild_id
        everyone = {"id": str(gid), "name": "@everyone", "permissions": str(P.MEMBER_PERMISSIONS),
                    "position": 0, "color": 0, "colors": {"primary_color": 0}, "hoist": False, "managed": False,
                    "mentionable": False, "flags": 0, "icon": None, "unicode_emoji": None}
        return {
            "id": str(gid), "name": self.guilds.get(gid, self.guild_name), "icon": None, "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner.id), "afk_channel_id": None, "afk_timeout": 300, "verification_level": 0,
            "default_message_notifications": 1, "explicit_content_filter": 0, "emojis": [],
            "roles": [everyone, *(self._role_payload(r) for r in self.roles.values() if gid == self.guild_id)],
            "stickers": [], "features": [], "mfa_level": 0, "system_channel_id": None, "system_channel_flags": 0,
            "rules_channel_id": None, "vanity_url_code": None, "description": None, "banner": None, "premium_tier": 0,
            "premium_subscription_count": 0, "preferred_locale": self.guild_locale, "public_updates_channel_id": None,
            "nsfw_level": 0, "premium_progress_bar_enabled": False, "joined_at": P.iso(), "large": False,
            "unavailable": False, "member_count": len(self.members) + 1, "voice_states": [],
            "members": [P.member_payload(self.bot.user())], "presences": [], "stage_instances": [],
            "guild_scheduled_events": [], "soundboard_sounds": [],
            "channels": [self._channel_payload(c) for c in self.channels.values()
                         if not c.is_thread and c.type != 1 and self.guild_of(c) == gid],
            "threads": [self._channel_payload(c) for c in self.channels.values()
                        if c.is_thread and self.guild_of(c) == gid],
        }

    def message_payload(self, m: Message, *, gateway: bool = False) -> dict[str, Any]:
        v = m.current
        out: dict[str, Any] = {
            "id": str(m.id), "channel_id": str(m.channel_id), "author": m.author, "content": v.content,
            "timestamp": P.iso(m.created), "edited_timestamp": P.iso(v.at) if len(m.versions) > 1 else None,
            "tts": False, "mention_everyone": False,
            "mentions": [self.members[u].user() for u in sorted(m.pinged) if u in self.members],
            "mention_roles": [], "attachments": [], "embeds": v.embeds, "pinned": False, "type": m.type,
            "flags": v.flags, "components": v.components,
        }
        if m.webhook_id is not None:
            out["webhook_id"] = str(m.webhook_id)
            out["application_id"] = str(self.application_id)
        if m.interaction_id is not None and m.interaction_id in self.interactions:
            i = self.interactions[m.interaction_id]
            user = self.members[i.user_id].user() if i.user_id in self.members else None
            out["interaction_metadata"] = {"id": str(i.id), "type": i.type, "user": user,
                                           "authorizing_integration_owners": dict(i.owners)}
        if m.thread_id is not None and m.thread_id in self.channels:
            out["thread"] = self._channel_payload(self.channels[m.thread_id])
        if gateway:
            ch = self.channels.get(m.channel_id)
            out["guild_id"] = str(self.guild_of(ch) if ch is not None else self.guild_id)
            out["member"] = {k: v for k, v in P.member_payload(m.author).items() if k != "user"}
        return out

    # ---- messages ----------------------------------------------------------------------------------
    def _pings(self, content: str, allowed: dict[str, Any] | None) -> frozenset[int]:
        ids = {int(x) for x in re.findall(r"<@!?(\d+)>", content or "")}
        if allowed is not None:
            parse = allowed.get("parse") or []
            if "users" not in parse:
                ids &= {int(x) for x in allowed.get("users") or []}
        return frozenset(i for i in ids if i in self.members)

    def _new_message(self, channel_id: int, body: dict[str, Any], *, source: str, ephemeral_to: int | None = None,
                     interaction: Interaction | None = None, flags: int = 0, type_: int = 0) -> Message:
        now = time.time()
        content = body.get("content") or ""
        pinged = self._pings(content, body.get("allowed_mentions"))
        mid = self.ids.next()
        content, embeds, components = self._as_shown(mid, channel_id, content, _embeds(body),
                                                      list(body.get("components") or []))
        m = Message(
            id=mid, channel_id=channel_id, author=self.bot.user(), created=now,
            versions=[Version(now, content, embeds, components, flags, source,
                              interaction.id if interaction else None, pinged)],
            ephemeral_to=ephemeral_to, interaction_id=interaction.id if interaction else None,
            webhook_id=self.application_id if interaction else None, type=type_,
            pinged=pinged,
        )
        self.messages[m.id] = m
        ch = self.channels.get(channel_id)
        if ch is not None:
            ch.messages.append(m.id)
        if ephemeral_to is None and self._bot_hears(channel_id):
            self._dispatch("MESSAGE_CREATE", self.message_payload(m, gateway=True))
        for uid in m.pinged:
            self.pinged.setdefault(uid, []).append(m)
            self._wake(("user", uid))
        self._bump()
        return m

    def _edit(self, m: Message, body: dict[str, Any], source: str, by: Interaction | None = None) -> Message:
        v = m.current
        content = v.content if "content" not in body else (body["content"] or "")
        embeds = v.embeds if "embeds" not in body else _embeds(body)
        components = v.components if "components" not in body else list(body["components"] or [])
        flags = v.flags & ~P.LOADING
        pings = self._pings(content, body.get("allowed_mentions")) if "content" in body else frozenset()
        if "content" in body or "embeds" in body or "components" in body:
            content, embeds, components = self._as_shown(m.id, m.channel_id, content, embeds, components)
        m.versions.append(Version(time.time(), content, embeds, components, flags, source, by.id if by else None,
                                  pings))
        if not m.ephemeral and self._bot_hears(m.channel_id):
            self._dispatch("MESSAGE_UPDATE", self.message_payload(m, gateway=True))
        self._wake(("message", m.id))
        self._bump()
        return m

    def _delete(self, m: Message) -> None:
        m.deleted_at = time.time()
        self._wake(("message", m.id))
        if not m.ephemeral and self._bot_hears(m.channel_id):
            ch = self.channels.get(m.channel_id)
            self._dispatch("MESSAGE_DELETE", {"id": str(m.id), "channel_id": str(m.channel_id),
                                              "guild_id": str(self.guild_of(ch) if ch else self.guild_id)})
        self._bump()

    def _bot_hears(self, channel_id: int) -> bool:
        """Whether the bot gets gateway events from this channel (it is a member there)."""
        ch = self.channels.get(channel_id)
        return ch is None or ch.bot_member

    def _check_body(self, body: dict[str, Any], *, creating: bool) -> None:
        problems = P.message_problems(body) + self._emoji_problems(body)
        if creating and not (body.get("content") or body.get("embeds") or body.get("components")):
            problems.append("an empty message")
        if problems:
            raise HTTPError(400, 50035, "Invalid Form Body", {"problems": problems})

    # ==== interactions (sent by scripted users) ====================================================
    def add_dm(self, user_id: int) -> Channel:
        """The direct-message channel between a person and the bot (interactions from it carry no
        guild, as Discord's do when a command is used in the bot's DMs)."""
        for ch in self.channels.values():
            if ch.type == 1 and ch.owner_id == user_id:
                return ch
        ch = Channel(self.ids.next(), "dm", type=1, owner_id=user_id)
        self.channels[ch.id] = ch
        return ch

    def bot_permissions(self, ch: Channel) -> int:
        """The bot's computed permissions in a guild channel (what interactions carry as
        ``app_permissions``): the invite's, less what this channel (a thread: its parent) denies."""
        parent = self.channels.get(ch.parent_id) if ch.parent_id is not None else None
        base = parent if parent is not None else ch
        perms = self.permissions_in(self.bot.id, ch) if base.overwrites else P.BOT_PERMISSIONS
        for allowed, flag in ((base.can_attach, P.ATTACH_FILES), (base.external_emojis, P.USE_EXTERNAL_EMOJIS),
                              (base.threads_allowed, P.CREATE_PUBLIC_THREADS),
                              (ch.can_send, P.SEND_MESSAGES_IN_THREADS if ch.is_thread else P.SEND_MESSAGES)):
            if not allowed:
                perms &= ~flag
        return perms

    def _allows(self, channel_id: int, attr: str) -> bool:
        ch = self.channels.get(channel_id)
        if ch is None:
            return True
        parent = self.channels.get(ch.parent_id) if ch.parent_id is not None else None
        return bool(getattr(parent if parent is not None else ch, attr))

    def _as_shown(self, message_id: int, channel_id: int, content: str, embeds: list[dict[str, Any]],
                  components: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
        """What people see of a message: where the bot may not use external emojis, the markup of
        an emoji that is not the application's own reads ":name:" and components lose such custom
        emoji (each recorded).  "The USE_EXTERNAL_EMOJIS permission is not required to use app
        emojis" (Discord's emoji resource): the application's own show everywhere."""
        if self._allows(channel_id, "external_emojis"):
            return content, embeds, components
        seen: list[str] = []
        own = {(name, str(e["id"])) for name, e in self.app_emojis.items()}

        def plain(match: re.Match[str]) -> str:
            if (match.group(1), match.group(2)) in own:
                return match.group(0)
            seen.append(match.group(1))
            return f":{match.group(1)}:"

        content = self._EMOJI_MARKUP.sub(plain, content)
        embeds = json.loads(self._EMOJI_MARKUP.sub(plain, json.dumps(embeds)))
        components = json.loads(json.dumps(components))
        for c in P.walk_components(components):
            for holder in [c, *(c.get("options") or [])]:
                e = holder.get("emoji")
                if e and e.get("id") and (str(e.get("name")), str(e["id"])) not in own:
                    seen.append(str(e.get("name")))
                    del holder["emoji"]
        self.emoji_as_text.extend((message_id, name) for name in seen)
        return content, embeds, components

    def interaction_payload(self, i: Interaction) -> dict[str, Any]:
        member = self.members[i.user_id]
        ch = self.channels[i.channel_id]
        if ch.private and not ch.bot_member:
            out = {
                "id": str(i.id), "application_id": str(self.application_id), "type": i.type, "token": i.token,
                "version": 1, "channel_id": str(ch.id), "channel": self._channel_payload(ch),
                "user": member.user(), "app_permissions": str(P.USER_APP_PERMISSIONS), "locale": member.locale,
                "entitlements": [], "authorizing_integration_owners": dict(i.owners), "context": i.context,
                "attachment_size_limit": 10 * 1024 * 1024, "data": i.data,
            }
            if i.message_id is not None:
                out["message"] = self.message_payload(self.messages[i.message_id])
            return out
        if ch.type == 1:
            return {
                "id": str(i.id), "application_id": str(self.application_id), "type": i.type, "token": i.token,
                "version": 1, "channel_id": str(ch.id),
                "channel": {"id": str(ch.id), "type": 1, "recipients": [member.user()], "flags": 0,
                            "last_message_id": None},
                "user": member.user(), "app_permissions": str(P.BOT_PERMISSIONS), "locale": member.locale,
                "entitlements": [], "authorizing_integration_owners": dict(i.owners), "context": 1,
                "attachment_size_limit": 10 * 1024 * 1024, "data": i.data,
            }
        gid = self.guild_of(ch)
        out: dict[str, Any] = {
            "id": str(i.id), "application_id": str(self.application_id), "type": i.type, "token": i.token,
            "version": 1, "guild_id": str(gid), "channel_id": str(ch.id),
            # The member's permissions in this channel, overwrites included (as Discord sends them).
            "channel": self._channel_payload(ch) | {"permissions": str(self.permissions_in(member.id, ch))},
            "guild": {"id": str(gid), "locale": self.guild_locale, "features": []},
            "member": P.member_payload(member.user(), self.permissions_in(member.id, ch),
                                       roles=member.roles if gid == self.guild_id else ()),
            "app_permissions": str(self.bot_permissions(ch) if ch.bot_member else P.USER_APP_PERMISSIONS),
            "locale": member.locale, "guild_locale": self.guild_locale,
            "entitlements": [], "authorizing_integration_owners": dict(i.owners), "context": 0,
            "attachment_size_limit": 10 * 1024 * 1024, "data": i.data,
        }
        if i.message_id is not None:
            out["message"] = self.message_payload(self.messages[i.message_id])
        return out

    def send_interaction(self, user_id: int, type_: int, data: dict[str, Any], channel_id: int, label: str,
                         message_id: int | None = None) -> Interaction:
        """Create an interaction as Discord does when a person acts, and send it to the bot."""
        i = Interaction(self.ids.next(), "aW50ZXJhY3Rpb24" + secrets.token_urlsafe(48), type_, user_id, channel_id,
                        data, label, time.perf_counter(), time.time(), message_id=message_id)
        i.token_born = i.created
        i.context, i.owners = self.installs_at(user_id, self.channels[channel_id])
        on = self.messages.get(message_id) if message_id is not None else None
        if on is not None and on.interaction_id in self.interactions:
            # A click on an app's message is answered through the install that posted it (anyone in
            # the conversation may press its buttons, installed or not).
            i.owners = dict(self.interactions[on.interaction_id].owners)
        self.interactions[i.id] = i
        self._by_token[i.token] = i

        def sent() -> None:
            if i.sent_at is None:
                i.sent_at = time.perf_counter()

        self._dispatch("INTERACTION_CREATE", self.interaction_payload(i), on_sent=sent)
        asyncio.get_running_loop().call_later(self.answer_within, self._expire, i)
        for hook in list(self.interaction_hooks):
            hook(i)
        return i

    def installs_at(self, user_id: int, ch: Channel) -> tuple[int, dict[str, str]]:
        """An interaction's ``context`` and ``authorizing_integration_owners`` for this person here:
        the server's install where the bot is a member, the person's own where they added the app."""
        owners: dict[str, str] = {}
        if ch.private:
            context = P.BOT_DM_CONTEXT if ch.bot_member else P.PRIVATE_CHANNEL_CONTEXT
            if ch.bot_member:
                owners[str(P.GUILD_INSTALL)] = "0"  # the bot's own DM: Discord's "0" for no guild
        else:
            context = P.GUILD_CONTEXT
            if ch.bot_member:
                owners[str(P.GUILD_INSTALL)] = str(self.guild_of(ch))
        if user_id in self.user_installs:
            owners[str(P.USER_INSTALL)] = str(user_id)
        return context, owners

    def user_installed_only(self, i: Interaction) -> bool:
        """Whether the app answers this interaction only as the person's own install (no server
        install there): Discord's follow-up limit and forced-ephemeral rules apply."""
        return str(P.GUILD_INSTALL) not in i.owners

    def _forced_ephemeral(self, i: Interaction) -> bool:
        """Discord shows a user-installed app's answers to the person alone where they lack Use
        External Apps."""
        ch = self.channels.get(i.channel_id)
        return (self.user_installed_only(i) and ch is not None and not ch.private
                and not self.permissions_in(i.user_id, ch) & P.USE_EXTERNAL_APPS)

    def _expire(self, i: Interaction) -> None:
        if i.callback_at is None and i.failed is None:
            i.failed = f"not answered within {self.answer_within:g} s"
            self.problem(f"interaction {i.label} by {self.members[i.user_id].name}: {i.failed} "
                         "(the user saw 'This interaction failed')")
            i.done.set()
            self._bump()
        elif i.callback_type in (P.DEFERRED_CHANNEL_MESSAGE, P.DEFERRED_UPDATE) and not i.done.is_set():
            pass  # deferred: a followup may take up to 15 minutes

    # ==== REST =====================================================================================
    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        route, params = find_route(request.method, path)
        rec = RequestRecord(time.perf_counter(), request.method, route.key if route else f"{request.method} {path}",
                            path, agent=request.headers.get("User-Agent", ""), wall=time.time())
        _ARRIVED.set(rec.wall)
        self.requests.append(rec)
        try:
            if self.banned:
                return self._finish(rec, self._cloudflare_ban())
            if route is None:
                self.problem(f"unknown route {request.method} {path}")
                return self._finish(rec, _json(404, {"message": "404: Not Found", "code": 0}))
            if route.auth and request.headers.get("Authorization") != f"Bot {self.token}":
                return self._finish(rec, _json(401, {"message": "401: Unauthorized", "code": 0}))
            fault = next((f for f in self.faults if f.matches(route, params)), None)
            if fault is not None:
                fault.hits += 1
                rec.injected = f"{fault.status or ''} delay {fault.delay:g}".strip()
                self.injected.append(f"{route.key}: {rec.injected}")
                if fault.delay:
                    await asyncio.sleep(fault.delay)
                if fault.held is not None:
                    rec.injected = "held"
                    await fault.held.wait()
                if fault.status == 429:
                    refused = self._too_many(route, params, fault.retry_after, fault.global_)
                    if fault.shared:
                        refused.headers["X-RateLimit-Scope"] = "shared"
                    return self._finish(rec, refused)
                if fault.status:
                    return self._finish(rec, _json(fault.status, {"message": f"{fault.status}: injected fault",
                                                                  "code": 0}))
            headers: dict[str, str] = {}
            limited = self._take_token(route, params, headers)
            if limited is not None:
                return self._finish(rec, limited)
            body: Any = None
            if request.can_read_body and request.content_type == "multipart/form-data":
                body = await self._multipart(request)  # a message with files
            elif request.can_read_body:
                raw = await request.read()
                if raw:
                    if request.content_type != "application/json":
                        raise HTTPError(400, 50035, f"unexpected body type {request.content_type}")
                    body = json.loads(raw)
            handler = getattr(self, "_h_" + route.handler)
            status, data = await handler(params, body or {}, request.query)
            if status == 204:
                return self._finish(rec, web.Response(status=204, headers=headers))
            return self._finish(rec, _json(status, data, headers))
        except HTTPError as e:
            if e.code in (50035, 50006) or e.status >= 500:
                self.problem(f"{rec.route}: {e.status} {e.message} {e.errors or ''}".strip())
            data = {"message": e.message, "code": e.code}
            if e.errors:
                data["errors"] = e.errors
            return self._finish(rec, _json(e.status, data))
        except Exception as e:  # the fake itself broke: say so loudly
            log.exception("fake Discord failed on %s %s", request.method, path)
            self.problem(f"fake Discord crashed on {request.method} {path}: {e!r}")
            return self._finish(rec, _json(500, {"message": "500: fake crashed", "code": 0}))

    def _finish(self, rec: RequestRecord, response: web.Response) -> web.Response:
        rec.status = response.status
        rec.duration = time.perf_counter() - rec.at
        self._count_invalid(rec, response)
        return response

    # ---- Cloudflare's invalid requests -----------------------------------------------------------
    def invalid_requests(self) -> int:
        """How many invalid requests (401, 403, 429 but shared-scope ones) the last window saw."""
        _, _, window = self.invalid_limits
        now = time.perf_counter()
        while self.invalid and self.invalid[0] <= now - window:
            self.invalid.popleft()
        return len(self.invalid)

    def _count_invalid(self, rec: RequestRecord, response: web.Response) -> None:
        if self.banned or not (rec.status in (401, 403) or rec.status == 429
                               and response.headers.get("X-RateLimit-Scope") != "shared"):
            return
        warn, ban, window = self.invalid_limits
        self.invalid.append(rec.at)
        self.invalid_total += 1
        count = self.invalid_requests()
        if count >= warn and not self.invalid_warned:
            self.invalid_warned = True
            self.problem(f"{count} invalid requests (401, 403, 429) within {window:g} s: Cloudflare bans at {ban}")
        if count >= ban:
            self.banned = True
            self.problem(f"banned by Cloudflare: {count} invalid requests within {window:g} s")

    def _cloudflare_ban(self) -> web.Response:
        # What a banned client gets: a 429 from Cloudflare itself, an HTML page without Discord's
        # headers (no Via): discord.py raises at once instead of retrying.
        return web.Response(status=429, text="<html><body>error code: 1015 (You are being rate limited)</body></html>",
                            content_type="text/html", headers={"Retry-After": "3600"})

    def _take_token(self, route: Route, params: dict[str, str], headers: dict[str, str]) -> web.Response | None:
        now = self.now()
        if self.global_limit and not route.template.startswith(("/interactions/", "/webhooks/")):
            g = self._global
            g.limit, g.window = self.global_limit, 1.0
            self._note_stall(now)
            if now >= g.start + g.window - GRACE:
                g.start, g.count = now, 0
            if g.count >= g.limit and self._credit >= 1 and now < self._credit_until:
                self._credit -= 1  # sent while the fake itself was stalled: read late, in a bunch
                g.count -= 1
            if g.count >= g.limit:
                self.ratelimited.append(f"global ({route.key})")
                self.problem(f"429 provoked: the global limit of {g.limit}/s ({route.key})")
                return self._too_many(route, params, g.reset_after(now), True, provoked=True)
            g.count += 1
        if route.limit is None:
            return None
        limit, window = route.limit
        window *= self.ratelimit_scale
        key = f"{route.key}:{major_of(params)}"
        b = self._buckets.get(key)
        if b is None:
            b = self._buckets[key] = Bucket(limit, window)
        if now >= b.start + b.window - GRACE:
            b.start, b.count = now, 0
        if b.count >= b.limit:
            self.ratelimited.append(key)
            self.problem(f"429 provoked: {route.key} for {major_of(params)} went over {limit} per {window:g} s")
            return self._too_many(route, params, b.reset_after(now), False, provoked=True)
        b.count += 1
        headers.update(self._limit_headers(route, b, now))
        return None

    def _limit_headers(self, route: Route, b: Bucket, now: float) -> dict[str, str]:
        after = math.ceil(b.reset_after(now) * 1000) / 1000
        return {"X-RateLimit-Limit": str(b.limit), "X-RateLimit-Remaining": str(max(0, b.limit - b.count)),
                "X-RateLimit-Reset": f"{time.time() + after:.3f}", "X-RateLimit-Reset-After": f"{after:.3f}",
                "X-RateLimit-Bucket": _bucket_hash(route)}

    def _too_many(self, route: Route, params: dict[str, str], retry_after: float, global_: bool,
                  provoked: bool = False) -> web.Response:
        retry_after = max(0.001, math.ceil(retry_after * 1000) / 1000)
        headers = {"Retry-After": str(math.ceil(retry_after)), "Via": "1.1 google",
                   "X-RateLimit-Scope": "global" if global_ else "user"}
        if global_:
            headers["X-RateLimit-Global"] = "true"
        elif route.limit is not None:
            limit, _ = route.limit
            headers.update({"X-RateLimit-Limit": str(limit), "X-RateLimit-Remaining": "0",
                            "X-RateLimit-Reset": f"{time.time() + retry_after:.3f}",
                            "X-RateLimit-Reset-After": f"{retry_after:.3f}",
                            "X-RateLimit-Bucket": _bucket_hash(route)})
        return _json(429, {"message": "You are being rate limited.", "retry_after": retry_after, "global": global_,
                           "code": 0}, headers)

    # ---- login, gateway, commands --------------------------------------------------------------
    async def _h_me(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        return 200, self.bot.user() | {"verified": True, "mfa_enabled": False, "locale": "en-US", "email": None}

    async def _h_application(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        return 200, {
            "id": str(self.application_id), "name": "Deckhand", "icon": None, "description": "Card games",
            "rpc_origins": [], "bot_public": True, "bot_require_code_grant": False, "owner": self.owner.user(),
            "team": None, "verify_key": secrets.token_hex(32), "flags": 0, "summary": "", "bot": self.bot.user(),
            "interactions_endpoint_url": None, "tags": [], "install_params": None, "custom_install_url": None,
            "approximate_guild_count": 1, "redirect_uris": [], "role_connections_verification_url": None,
            "integration_types_config": {},
        }

    async def _h_gateway_url(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        return 200, {"url": self.gateway_url, "shards": self.shard_count, "session_start_limit": {
            "total": 1000, "remaining": 1000, "reset_after": 0, "max_concurrency": 1}}

    async def _h_sync_commands(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        guild = int(params["guild_id"]) if "guild_id" in params else None
        if guild is not None and guild not in self.guilds:
            raise HTTPError(403, 50001, "Missing Access")
        self._check_commands(body)
        out = {}
        for cmd in body or []:
            c = dict(cmd)
            c.update({"id": str(self.ids.next()), "application_id": str(self.application_id),
                      "version": str(self.ids.next())})
            c.setdefault("type", 1)
            if guild is not None:
                c["guild_id"] = str(guild)
            out[c["name"]] = c
        self.commands[guild] = out
        self._bump()
        return 200, list(out.values())

    def _check_commands(self, body: Any) -> None:
        """Discord refuses the whole bulk overwrite if one command breaks its rules (commands.py)."""
        from .commands import command_errors

        errors, lines = command_errors([] if body == {} else body)  # (an empty list reads as {})
        if lines:
            raise HTTPError(400, 50035, "Invalid Form Body", errors)

    async def _h_get_commands(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        guild = int(params["guild_id"]) if "guild_id" in params else None
        return 200, list(self.commands.get(guild, {}).values())

    # ---- interaction callbacks --------------------------------------------------------------------
    async def _h_callback(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        now = time.perf_counter()
        i = self.interactions.get(int(params["interaction_id"]))
        if i is None or i.token != params["interaction_token"]:
            raise HTTPError(404, 10062, "Unknown interaction")
        if i.failed is not None:
            i.late_by = now - i.created
            self.problem(f"interaction {i.label}: answered after {i.late_by:.2f} s (Discord allows "
                         f"{self.answer_within:g} s)")
            raise HTTPError(404, 10062, "Unknown interaction")
        if i.callback_type is not None:
            self.problem(f"interaction {i.label}: answered twice")
            raise HTTPError(400, 40060, "Interaction has already been acknowledged.")
        kind = body.get("type")
        data = body.get("data") or {}
        if self._forced_ephemeral(i) and kind in (P.CHANNEL_MESSAGE, P.DEFERRED_CHANNEL_MESSAGE):
            data = {**data, "flags": (data.get("flags") or 0) | P.EPHEMERAL}
        files = body.pop("_files", None) or []  # a response with files (multipart)
        allowed = {P.APPLICATION_COMMAND: {4, 5, 9}, P.MESSAGE_COMPONENT: {4, 5, 6, 7, 9},
                   P.AUTOCOMPLETE: {8}, P.MODAL_SUBMIT: {4, 5, 6, 7}}.get(i.type, set())
        if kind not in allowed:
            self.problem(f"interaction {i.label}: callback type {kind} does not fit interaction type {i.type}")
            raise HTTPError(400, 50035, "Invalid interaction response type")
        resource: dict[str, Any] = {"type": kind}
        if kind in (P.CHANNEL_MESSAGE, P.UPDATE_MESSAGE):
            self._check_files(data, files or (self.files.get(i.message_id, []) if i.message_id else []))
        if kind == P.CHANNEL_MESSAGE:
            self._check_body(data, creating=True)
            ephemeral = bool((data.get("flags") or 0) & P.EPHEMERAL)
            if not ephemeral:
                self._thread_post(self.channels[i.channel_id])
            m = self._new_message(i.channel_id, data, source="response", interaction=i,
                                  ephemeral_to=i.user_id if ephemeral else None,
                                  flags=P.EPHEMERAL if ephemeral else 0,
                                  type_=20 if i.type == P.APPLICATION_COMMAND else 0)
            i.original_id = m.id
            if files:
                self.files[m.id] = files
            resource["message"] = self.message_payload(m)
        elif kind == P.DEFERRED_CHANNEL_MESSAGE:
            ephemeral = bool((data.get("flags") or 0) & P.EPHEMERAL)
            m = self._new_message(i.channel_id, {"content": ""}, source="loading", interaction=i,
                                  ephemeral_to=i.user_id if ephemeral else None,
                                  flags=P.LOADING | (P.EPHEMERAL if ephemeral else 0),
                                  type_=20 if i.type == P.APPLICATION_COMMAND else 0)
            i.original_id = m.id
            resource["message"] = self.message_payload(m)
        elif kind == P.UPDATE_MESSAGE:
            self._check_body(data, creating=False)
            m = self.messages.get(i.message_id)  # type: ignore[arg-type]
            if m is None or m.deleted:  # (deleted while the click was on its way)
                raise HTTPError(404, 10008, "Unknown Message")
            self._edit(m, data, "update", i)
            i.original_id = m.id
            if files:
                self.files[m.id] = files
            resource["message"] = self.message_payload(m)
        elif kind == P.DEFERRED_UPDATE:
            i.original_id = i.message_id
        elif kind == P.AUTOCOMPLETE_RESULT:
            choices = list(data.get("choices") or [])
            bad = P.choice_problems(choices)
            if bad:
                raise HTTPError(400, 50035, "Invalid Form Body", {"problems": bad})
            i.choices = choices
            text = "\n".join(f"{c.get('name')}\n{c.get('value')}" for c in choices)
            self.sightings.append(Sighting(time.time(), i.channel_id, i.user_id, text, "autocomplete", by=i.id))
        i.callback_at = now
        i.callback_type = kind
        if kind not in (P.DEFERRED_CHANNEL_MESSAGE, P.DEFERRED_UPDATE):
            i.done.set()
        self._bump()
        out = {"interaction": {"id": str(i.id), "type": i.type,
                               "response_message_loading": kind == P.DEFERRED_CHANNEL_MESSAGE,
                               "response_message_ephemeral": bool((data.get("flags") or 0) & P.EPHEMERAL)}}
        if i.original_id is not None and kind in (4, 5, 7):
            out["interaction"]["response_message_id"] = str(i.original_id)
        if kind != P.AUTOCOMPLETE_RESULT:
            out["resource"] = resource
        if query.get("with_response") in ("1", "true", "True"):
            return 200, out
        return 204, None

    def _token_interaction(self, params: dict[str, str]) -> Interaction:
        i = self._by_token.get(params["webhook_token"])
        if i is None or str(self.application_id) != params["webhook_id"]:
            raise HTTPError(404, 10015, "Unknown Webhook")
        if time.perf_counter() - i.token_born > self.token_lifetime:
            self.problem(f"interaction {i.label}: token used after {self.token_lifetime:g} s (it had run out)")
            raise HTTPError(401, 50027, "Invalid Webhook Token")
        if i.callback_type is None:
            self.problem(f"interaction {i.label}: followup or edit before the interaction was answered")
            raise HTTPError(404, 10015, "Unknown Webhook")
        return i

    def _token_message(self, i: Interaction, message_id: str) -> Message:
        if message_id == "@original":
            mid = i.original_id
        else:
            mid = int(message_id)
            if mid != i.original_id and mid not in i.followups:
                mid = None
        m = self.messages.get(mid) if mid is not None else None
        if m is None or m.deleted:
            raise HTTPError(404, 10008, "Unknown Message")
        return m

    async def _h_followup(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        i = self._token_interaction(params)
        if self.user_installed_only(i) and i.followup_calls >= USER_APP_FOLLOWUPS:
            self.problem(f"interaction {i.label}: more than {USER_APP_FOLLOWUPS} followups from an app installed "
                         "to a person's account")
            raise HTTPError(400, 40094, "This interaction has hit the maximum number of follow up messages")
        i.followup_calls += 1
        if self._forced_ephemeral(i):
            body = {**body, "flags": (body.get("flags") or 0) | P.EPHEMERAL}
        files = body.pop("_files", None) or []
        self._check_body(body, creating=True)
        self._check_files(body, files)
        original = self.messages.get(i.original_id) if i.original_id is not None else None
        if i.callback_type == P.DEFERRED_CHANNEL_MESSAGE and original is not None and original.loading:
            # The first followup after "thinking..." becomes that message (and keeps its visibility).
            m = self._edit(original, {"content": body.get("content") or "", "embeds": body.get("embeds") or [],
                                      "components": body.get("components") or []}, "followup", i)
        else:
            ephemeral = bool((body.get("flags") or 0) & P.EPHEMERAL)
            m = self._new_message(i.channel_id, body, source="followup", interaction=i,
                                  ephemeral_to=i.user_id if ephemeral else None,
                                  flags=P.EPHEMERAL if ephemeral else 0)
            i.followups.append(m.id)
        if files:
            self.files[m.id] = files
        i.done.set()
        self._bump()
        if query.get("wait") in ("1", "true", "True"):
            return 200, self.message_payload(m)
        return 204, None

    async def _h_get_webhook_message(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        i = self._token_interaction(params)
        return 200, self.message_payload(self._token_message(i, params["message_id"]))

    async def _h_edit_webhook_message(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        i = self._token_interaction(params)
        m = self._token_message(i, params["message_id"])
        files = body.pop("_files", None) or []
        self._check_body(body, creating=False)
        self._check_files(body, files or self.files.get(m.id, []))
        self._edit(m, body, "edit", i)
        if files:
            self.files[m.id] = files
        i.done.set()
        return 200, self.message_payload(m)

    async def _h_delete_webhook_message(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        i = self._token_interaction(params)
        self._delete(self._token_message(i, params["message_id"]))
        return 204, None

    # ---- channels ---------------------------------------------------------------------------------
    def _channel(self, params: dict[str, str]) -> Channel:
        ch = self.channels.get(int(params["channel_id"]))
        if ch is None:
            raise HTTPError(404, 10003, "Unknown Channel")
        if not ch.bot_member:
            self.problem(f"a channel route on #{ch.name}, a conversation the bot is not in (only interaction "
                         "answers and their tokens reach it)")
            raise HTTPError(403, 50001, "Missing Access")
        return ch

    def _message(self, ch: Channel, params: dict[str, str]) -> Message:
        m = self.messages.get(int(params["message_id"]))
        if m is None or m.deleted or m.channel_id != ch.id or m.ephemeral:
            raise HTTPError(404, 10008, "Unknown Message")
        return m

    async def _h_get_channel(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        return 200, self._channel_payload(self._channel(params))

    async def _h_create_message(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        ch = self._channel(params)
        if not self.can_view(self.bot.id, ch.id):
            raise HTTPError(403, 50001, "Missing Access")
        if not ch.can_send:
            raise HTTPError(403, 50013, "Missing Permissions")
        self._thread_post(ch)
        files = body.pop("_files", None) or []
        if files and not self._allows(ch.id, "can_attach"):
            raise HTTPError(403, 50013, "Missing Permissions")
        self._check_body(body, creating=True)
        self._check_files(body, files)
        m = self._new_message(ch.id, body, source="create")
        if files:
            self.files[m.id] = files
        return 200, self.message_payload(m)

    async def _h_channel_messages(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        """A channel's history, newest first (``limit`` 1-100, default 50; ``before`` a message id):
        what Read Message History shows — no ephemeral or deleted message."""
        ch = self._channel(params)
        limit = min(100, max(1, int(query.get("limit") or 50)))
        before = int(query["before"]) if query.get("before") else None
        out = []
        for mid in reversed(ch.messages):
            m = self.messages[mid]
            if m.deleted or m.ephemeral or (before is not None and mid >= before):
                continue
            out.append(self.message_payload(m))
            if len(out) == limit:
                break
        return 200, out

    async def _h_get_message(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        ch = self._channel(params)
        return 200, self.message_payload(self._message(ch, params))

    async def _h_edit_message(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        ch = self._channel(params)
        m = self._message(ch, params)
        if m.author.get("id") != str(self.bot.id):
            raise HTTPError(403, 50005, "Cannot edit a message authored by another user")
        self._thread_edit(ch)
        files = body.pop("_files", None) or []
        if files and not self._allows(ch.id, "can_attach"):
            raise HTTPError(403, 50013, "Missing Permissions")
        self._check_body(body, creating=False)
        self._check_files(body, files or self.files.get(m.id, []))
        self._edit(m, body, "edit")
        if files:
            self.files[m.id] = files
        return 200, self.message_payload(m)

    async def _h_delete_message(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        ch = self._channel(params)
        self._delete(self._message(ch, params))
        return 204, None

    async def _h_create_thread(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        ch = self._channel(params)
        m = self._message(ch, params)
        if ch.is_thread:
            raise HTTPError(400, 50024, "Cannot execute action on this channel type")
        if not ch.threads_allowed:
            raise HTTPError(403, 50013, "Missing Permissions")
        if m.thread_id is not None:
            raise HTTPError(400, 160004, "A thread has already been created for this message")
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            raise HTTPError(400, 50035, "Invalid Form Body", {"name": "1 to 100 characters"})
        # A thread started from a message has that message's id.
        thread = Channel(m.id, name, type=11, parent_id=ch.id, owner_id=self.bot.id,
                         auto_archive_duration=int(body.get("auto_archive_duration") or 1440), guild_id=ch.guild_id)
        self.channels[thread.id] = thread
        m.thread_id = thread.id
        self._dispatch("THREAD_CREATE", self._channel_payload(thread) | {"newly_created": True})
        self._bump()
        return 201, self._channel_payload(thread)

    async def _h_create_thread_alone(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        """A thread not started from a message: a private one (type 12) needs Create Private Threads
        and is seen only by its members — the bot, and whoever it adds (``add_thread_member``)."""
        ch = self._channel(params)
        if ch.is_thread:
            raise HTTPError(400, 50024, "Cannot execute action on this channel type")
        kind = int(body.get("type") or 12)  # Discord's default here is a private thread
        if kind not in (11, 12):
            raise HTTPError(400, 50035, "Invalid Form Body", {"type": "11 or 12"})
        need = P.CREATE_PRIVATE_THREADS if kind == 12 else P.CREATE_PUBLIC_THREADS
        if not self.bot_permissions(ch) & need:
            raise HTTPError(403, 50013, "Missing Permissions")
        name = str(body.get("name") or "")
        if not 1 <= len(name) <= 100:
            raise HTTPError(400, 50035, "Invalid Form Body", {"name": "1 to 100 characters"})
        thread = Channel(self.ids.next(), name, type=kind, parent_id=ch.id, owner_id=self.bot.id,
                         auto_archive_duration=int(body.get("auto_archive_duration") or 1440), guild_id=ch.guild_id,
                         members={self.bot.id} if kind == 12 else None)
        self.channels[thread.id] = thread
        self._dispatch("THREAD_CREATE", self._channel_payload(thread) | {"newly_created": True})
        self._bump()
        return 201, self._channel_payload(thread)

    async def _h_add_thread_member(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        ch = self._channel(params)
        if not ch.is_thread:
            raise HTTPError(400, 50024, "Cannot execute action on this channel type")
        if ch.archived:
            raise HTTPError(400, 50083, "Thread is archived")
        user = int(params["user_id"])
        if user not in self.members:
            raise HTTPError(404, 10013, "Unknown User")
        if ch.members is not None:
            ch.members.add(user)
        self._bump()
        return 204, None

    def can_see(self, user_id: int, channel_id: int) -> bool:
        """Whether ``user_id`` sees what is posted in ``channel_id``: everyone in the server does,
        except in a private thread, which only its members see."""
        ch = self.channels.get(channel_id)
        return ch is None or ch.members is None or user_id in ch.members

    async def _h_typing(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        self._channel(params)
        return 204, None


    # ---- files ------------------------------------------------------------------------------------
    FILE_BYTES = 10 * 1024 * 1024

    async def _multipart(self, request: web.Request) -> dict[str, Any]:
        """``payload_json`` and ``files[n]`` parts, as discord.py sends a message with files."""
        body: dict[str, Any] = {}
        files: list[tuple[str, bytes]] = []
        reader = await request.multipart()
        async for part in reader:
            if part.name == "payload_json":
                body = json.loads(await part.text())
            elif part.name and part.name.startswith("files["):
                files.append((part.filename or "", bytes(await part.read())))
        body["_files"] = files
        return body

    def _check_files(self, body: dict[str, Any], files: list[tuple[str, bytes]]) -> None:
        problems = [f"file {name} is {len(data)} bytes (max {self.FILE_BYTES})" for name, data in files
                    if len(data) > self.FILE_BYTES]
        names = {name for name, _ in files}
        for e in body.get("embeds") or []:
            url = (e.get("image") or {}).get("url") or ""
            if url.startswith("attachment://") and url[len("attachment://"):] not in names:
                problems.append(f"embed image {url} names no uploaded file")
        if problems:
            raise HTTPError(400, 50035, "Invalid Form Body", {"problems": problems})

    # ---- application emojis ----------------------------------------------------------------
    EMOJI_LIMIT = 2000
    EMOJI_BYTES = 256 * 1024
    _EMOJI_NAME = re.compile(r"^[A-Za-z0-9_]{2,32}$")
    _EMOJI_MARKUP = re.compile(r"<a?:(\w+):(\d+)>")

    def _emoji_payload(self, e: dict[str, Any]) -> dict[str, Any]:
        return {"id": e["id"], "name": e["name"], "roles": [], "user": self.owner.user(), "require_colons": True,
                "managed": False, "animated": False, "available": True}

    def _check_app(self, params: dict[str, str]) -> None:
        if params["application_id"] != str(self.application_id):
            raise HTTPError(403, 50001, "Missing Access")
        if self.emoji_refusal is not None:
            status, code, message = self.emoji_refusal
            raise HTTPError(status, code, message)

    async def _h_list_app_emojis(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        self._check_app(params)
        return 200, {"items": [self._emoji_payload(e) for e in self.app_emojis.values()]}

    async def _h_create_app_emoji(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        import base64
        import binascii

        self._check_app(params)
        name, image = str(body.get("name") or ""), str(body.get("image") or "")
        if not self._EMOJI_NAME.match(name):
            raise HTTPError(400, 50035, "Invalid Form Body", {"name": "2 to 32 characters of A-Z a-z 0-9 _"})
        if name in self.app_emojis:
            raise HTTPError(400, 50035, "Invalid Form Body", {"name": "an emoji with this name already exists"})
        m = re.match(r"^data:image/(png|jpeg|gif|webp);base64,(.*)$", image, re.S)
        try:
            raw = base64.b64decode(m.group(2), validate=True) if m else b""
        except binascii.Error:
            raw = b""
        if not raw:
            raise HTTPError(400, 50035, "Invalid Form Body", {"image": "not a data URI of an image"})
        if len(raw) > self.EMOJI_BYTES:
            raise HTTPError(400, 50045, "File uploaded exceeds the maximum size")
        if len(self.app_emojis) >= self.EMOJI_LIMIT:
            raise HTTPError(400, 30008, "Maximum number of emojis reached (2000)")
        e = {"id": str(self.ids.next()), "name": name, "image": raw}
        self.app_emojis[name] = e
        return 201, self._emoji_payload(e)

    async def _h_delete_app_emoji(self, params: dict[str, str], body: Any, query: Any) -> tuple[int, Any]:
        self._check_app(params)
        for name, e in list(self.app_emojis.items()):
            if e["id"] == params["emoji_id"]:
                del self.app_emojis[name]
                return 204, None
        raise HTTPError(404, 10014, "Unknown Emoji")

    def _emoji_problems(self, body: dict[str, Any]) -> list[str]:
        """Custom emoji a message uses must exist (Discord refuses a component with an unknown one
        and shows the raw markup in text)."""
        ids = {e["id"]: name for name, e in self.app_emojis.items()}
        used: list[tuple[str, str]] = []
        for row in body.get("components") or []:
            for c in row.get("components") or []:
                for emoji in [c.get("emoji")] + [o.get("emoji") for o in c.get("options") or []]:
                    if emoji and emoji.get("id"):
                        used.append((str(emoji.get("name")), str(emoji["id"])))
        text = json.dumps([body.get("content"), body.get("embeds")])
        used += self._EMOJI_MARKUP.findall(text)
        return [f"unknown emoji {name}:{id_}" for name, id_ in used if ids.get(id_) != name]


def _embeds(body: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for e in body.get("embeds") or []:
        e = dict(e)
        e.setdefault("type", "rich")
        out.append(e)
    return out


def _bucket_hash(route: Route) -> str:
    return format(abs(hash(route.key)) % (1 << 40), "x")
