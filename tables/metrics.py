"""What an operator sees of a running bot: Prometheus metrics and readiness (docs/deploy.md,
"Monitoring").  No Discord here: the bot's side (the HTTP endpoints, the gateway's events) is
:mod:`cogs.ops.health`.

The hot paths only bump plain numbers on the event loop: an interaction answered is one call that
adds to a few integers and one histogram bucket — no lock, no object kept per interaction, no
label looked up.  Everything else (tables by game and phase, the AI pool, the review line, the
shards) is read when Prometheus scrapes, by :class:`Metrics`' collector, on the same loop.

Nothing here names a game: the games come from the engine's registry.  No metric carries a card, a
person or a table id: labels are games, phases, shards and route groups only.
"""

from __future__ import annotations

import bisect
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from prometheus_client import CONTENT_TYPE_LATEST, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector, CollectorRegistry

import engine
from tables.table import Phase

if TYPE_CHECKING:
    from tables.ai.pool import AIPool
    from tables.runtime import Runtime
    from tables.shards import Shards
    from tables.shards.lease import Leases

P = ParamSpec("P")
R = TypeVar("R")

__all__ = ["CONTENT_TYPE_LATEST", "GROUPS", "Histogram", "Metrics", "parse_address", "route_group"]

DISCORD_EPOCH = 1420070400.0  # seconds: a snowflake's time is counted from here
ANSWER_WITHIN = 3.0  # Discord fails an interaction nobody answered within this (from its creation)
LATENCY_BUCKETS = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 5.0)
STORAGE_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
AI_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0)
#: Route groups of the REST calls, in the order :func:`route_group` tries them.
GROUPS = ("interaction", "followup", "thread", "message", "emoji", "commands", "other")
GATEWAY_STATES = ("connected", "disconnected", "connecting")


def route_group(path: str) -> str:
    """The group of a Discord REST path (``/api/v10/...``): what the operator reads the calls by."""
    if "/interactions/" in path:
        return "interaction"  # the answer to a click or a command (Discord's global limit skips it)
    if "/webhooks/" in path:
        return "followup"  # an interaction token's followups and edits (hand views, watchers)
    if "/threads" in path:
        return "thread"
    if "/messages" in path:
        return "message"  # table messages, pings, summaries
    if "/emojis" in path:
        return "emoji"
    if "/commands" in path:
        return "commands"
    return "other"


def parse_address(text: str | None) -> tuple[str, int] | None:
    """``METRICS_ADDRESS`` (``host:port``, e.g. ``127.0.0.1:9109``; ``[::1]:9109``) as ``(host,
    port)``; empty: ``None`` (off).  ``ValueError`` with a sentence."""
    raw = (text or "").strip()
    if not raw:
        return None
    host, sep, port_text = raw.rpartition(":")
    host = host.strip("[]")
    try:
        port = int(port_text)
        if not sep or not host or not 0 <= port <= 65535 or any(c.isspace() or c in "/@" for c in host):
            raise ValueError
    except ValueError:
        raise ValueError(f"METRICS_ADDRESS must be host:port (e.g. 127.0.0.1:9109; 0.0.0.0:9109 for every "
                         f"interface), not {raw!r}. Leave it empty to serve no metrics.") from None
    return host, port


class Histogram:
    """A histogram's buckets as plain numbers: :meth:`observe` is a bisect and two additions."""

    __slots__ = ("bounds", "counts", "total")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)  # the last: above every bound
        self.total = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.total += value

    def family(self, name: str, documentation: str) -> HistogramMetricFamily:
        buckets: list[tuple[str, float]] = []
        running = 0
        for bound, count in zip((*self.bounds, math.inf), self.counts, strict=True):
            running += count
            buckets.append(("+Inf" if bound == math.inf else repr(float(bound)), running))
        return HistogramMetricFamily(name, documentation, buckets=buckets, sum_value=self.total)


class Metrics:
    """The counters of one bot process, and the collector Prometheus reads them through.

    The bot fills in what it has once it has it (:attr:`runtime`, :attr:`ai_pool`, :attr:`shards`,
    :attr:`leases`, :attr:`latencies`); the gateway's events set :attr:`gateway`."""

    def __init__(self, now: Callable[[], float] = time.time) -> None:
        self.now = now
        self.interactions_received = 0
        self.interactions_answered = 0
        self.interactions_late = 0
        self.answer_latency = Histogram(LATENCY_BUCKETS)
        self.rest_calls = dict.fromkeys(GROUPS, 0)
        self.rest_429 = dict.fromkeys(GROUPS, 0)
        self.storage_writes = Histogram(STORAGE_BUCKETS)
        self.ai_decisions = Histogram(AI_BUCKETS)
        self.runtime: Runtime | None = None
        self.ai_pool: AIPool | None = None
        self.shards: Shards | None = None
        self.leases: Leases | None = None  # (PostgreSQL only)
        self.gateway: dict[int, str] = {}  # shard -> one of GATEWAY_STATES, from the gateway's events
        self.latencies: Callable[[], Iterable[tuple[int, float]]] = lambda: ()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_Collector(self))
        ProcessCollector(registry=self.registry)  # process_cpu_seconds_total, process_resident_memory_bytes, ...

    # ==== the hot paths ========================================================================
    def request_done(self, path: str, status: int) -> None:
        """A REST call came back (the bot's HTTP trace, cogs/live/sendgate.py): counted by route group;
        an interaction's answer also by its latency from the interaction's creation."""
        group = route_group(path)
        self.rest_calls[group] += 1
        if status == 429:
            self.rest_429[group] += 1
        if group != "interaction":
            return
        # /api/v10/interactions/{id}/{token}/callback: the id is a snowflake, its time the creation's.
        start = path.find("/interactions/") + 14
        end = path.find("/", start)
        try:
            created = (int(path[start:end]) >> 22) / 1000 + DISCORD_EPOCH
        except ValueError:
            return
        latency = self.now() - created
        if status < 400:
            self.interactions_answered += 1
            self.answer_latency.observe(latency)
        if latency >= ANSWER_WITHIN or status == 404:  # 404: Discord no longer knew it (it had failed)
            self.interactions_late += 1

    def time_calls(self, obj: object, names: Iterable[str], histogram: Histogram) -> None:
        """Time every call of ``obj``'s coroutine methods ``names`` (a storage's writes, the AI
        pool's decisions) into ``histogram``, failed ones too."""
        for name in names:
            method = getattr(obj, name)
            setattr(obj, name, _timed(method, histogram))

    # ==== read when scraped ====================================================================
    def render(self) -> bytes:
        """The text Prometheus scrapes (``/metrics``)."""
        return generate_latest(self.registry)

    def readiness(self) -> tuple[bool, str]:
        """Whether this process does what it is configured to (``/readyz``), and why, in words:
        every shard it holds connected to Discord and its tables restored; with leases, the lease
        connection up — a process holding no shard is a standby, ready to take one over."""
        shards, leases = self.shards, self.leases
        if shards is None:
            return False, "starting"
        if leases is not None and not leases.healthy():
            return False, "the shard leases are not held or watched (database connection down, or rejoining)"
        held = sorted(shards.held)
        if not held:
            if leases is None:
                return False, "starting"
            return True, f"standing by for shard(s) {_ids(shards.ids)}"
        if shards.restoring:
            return False, f"restoring the tables of shard(s) {_ids(sorted(shards.restoring))}"
        down = [s for s in held if self.gateway.get(s) != "connected"]
        if down:
            return False, f"shard(s) {_ids(down)} not connected to Discord"
        return True, f"running shard(s) {_ids(held)}"

    def families(self) -> Iterator[Metric]:
        yield from self._interactions()
        yield from self._rest()
        yield from self._tables()
        yield from self._shards()
        yield from self._ai()
        reviews = getattr(self.runtime, "reviews", None)
        line = GaugeMetricFamily("deckhand_review_queue", "Reviews of finished games waiting in line or running",
                                 labels=["state"])
        line.add_metric(["waiting"], float(reviews.waiting if reviews is not None else 0))
        line.add_metric(["running"], float(reviews.running if reviews is not None else 0))
        yield line
        yield self.storage_writes.family("deckhand_storage_write_seconds",
                                         "Time to store a table's change (one transaction), failed writes too")

    def _interactions(self) -> Iterator[Metric]:
        yield CounterMetricFamily("deckhand_interactions_received", "Interactions (commands, clicks) received",
                                  value=self.interactions_received)
        yield CounterMetricFamily("deckhand_interactions_answered", "Interactions answered (Discord accepted the "
                                  "answer)", value=self.interactions_answered)
        yield CounterMetricFamily("deckhand_interactions_late", "Interactions answered 3 s or more after they were "
                                  "made, or too late for Discord", value=self.interactions_late)
        yield self.answer_latency.family("deckhand_interaction_answer_seconds",
                                         "From an interaction's creation (its id's time) to Discord's reply to "
                                         "the answer")

    def _rest(self) -> Iterator[Metric]:
        calls = CounterMetricFamily("deckhand_rest_requests", "REST calls to Discord by route group", labels=["group"])
        limited = CounterMetricFamily("deckhand_rest_429", "REST calls Discord answered 429 (rate limited), by route "
                                      "group", labels=["group"])
        for group in GROUPS:
            calls.add_metric([group], self.rest_calls[group])
            limited.add_metric([group], self.rest_429[group])
        yield calls
        yield limited

    def _tables(self) -> Iterator[Metric]:
        counts = {(game, phase.value): 0 for game in engine.games() for phase in Phase}
        tables = getattr(self.runtime, "tables", None) or {}
        for t in list(tables.values()):
            key = (t.game, str(t.phase))
            counts[key] = counts.get(key, 0) + 1
        family = GaugeMetricFamily("deckhand_tables", "Tables in this process's memory, by game and phase",
                                   labels=["game", "phase"])
        for (game, phase), n in sorted(counts.items()):
            family.add_metric([game, phase], n)
        yield family

    def _shards(self) -> Iterator[Metric]:
        shards = self.shards
        ids = list(shards.ids) if shards is not None else sorted(self.gateway)
        held = set(shards.held) if shards is not None else set(ids)
        state = GaugeMetricFamily("deckhand_gateway_state", "1 for the state of each shard's gateway connection",
                                  labels=["shard", "state"])
        lease = GaugeMetricFamily("deckhand_shard_held", "1: this process holds the shard (runs its tables); 0: "
                                  "it stands by", labels=["shard"])
        for shard in ids:
            now = self.gateway.get(shard, "connecting") if shard in held else "disconnected"
            for name in GATEWAY_STATES:
                state.add_metric([str(shard), name], 1.0 if name == now else 0.0)
            lease.add_metric([str(shard)], 1.0 if shard in held else 0.0)
        yield state
        yield lease
        latency = GaugeMetricFamily("deckhand_gateway_latency_seconds", "Time between a gateway heartbeat and its "
                                    "acknowledgement, per shard", labels=["shard"])
        for shard, seconds in self.latencies():
            if shard in held and math.isfinite(seconds):
                latency.add_metric([str(shard)], seconds)
        yield latency

    def _ai(self) -> Iterator[Metric]:
        pool = self.ai_pool
        yield GaugeMetricFamily("deckhand_ai_searches_running", "Strong AI searches running in the worker processes",
                                value=float(pool.running if pool is not None else 0))
        yield GaugeMetricFamily("deckhand_ai_searches_max", "Strong AI searches that may run at once (more: the "
                                "normal AI's move)", value=float(pool.max_concurrent if pool is not None else 0))
        outcomes = CounterMetricFamily("deckhand_ai_searches", "Strong AI searches by outcome (busy, late, failed: "
                                       "the normal AI's move was played)", labels=["outcome"])
        counts = pool.counts if pool is not None else {}
        for outcome in ("searched", "busy", "late", "failed"):
            outcomes.add_metric([outcome], counts.get(outcome, 0))
        yield outcomes
        yield self.ai_decisions.family("deckhand_ai_decision_seconds", "Time the strong AI took for a decision "
                                       "(busy and late ones too)")


class _Collector(Collector):
    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        return self.metrics.families()


def _timed(method: Callable[P, Awaitable[R]], histogram: Histogram) -> Callable[P, Awaitable[R]]:
    async def timed(*args: P.args, **kwargs: P.kwargs) -> R:
        began = time.perf_counter()
        try:
            return await method(*args, **kwargs)
        finally:
            histogram.observe(time.perf_counter() - began)

    return timed


def _ids(shards: Iterable[int]) -> str:
    return ",".join(map(str, shards))
