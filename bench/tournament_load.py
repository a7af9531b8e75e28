"""A tournament played alongside bench/discord.py's tables (``--tournament PEOPLE``, issue 34).

PEOPLE people sign up for a tournament of the bench's reference game in a channel of its own
(``/tournament new``, **Join** for each, **Start** by the organiser, as tests/e2e/test_tournament.py
does), and every round each of them finds their table the way a person would — the short message in
the tournament's channel that names them, the thread opened from it, the table's message there — and
plays their seat (``tests/fakediscord/play.play_seat``), thinking as the bench's people do.

What the tournament adds on Discord's budget per table (cogs/table/tournament.py): a starter message
in the tournament's channel, a thread opened from it (the table's own message, pings and summary are
then a table's ordinary calls, posted in that thread), and one edit of the standings message per
finished table, coalesced to at most one every 1.5 s (``REDRAW_EVERY``); plus one edit as each round
begins.  And its table's message, posted by the bot in the thread rather than as the answer to a
``/game new``, has no interaction token to be edited through: its paced edits (one a second at most)
are REST edits that Discord's global limit counts (``table_rest_calls_by_route``).

The tournament's people, channel and threads stay out of the bench's main figures (so that those
stay comparable with a run without it): :meth:`TournamentLoad.owns` tells its REST calls (by the
channel in their path, or the interaction token whose webhook they use), and
:meth:`TournamentLoad.figures` reports them apart, by kind.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tests.fakediscord.play import PlayError, _hand_button, is_over, play_seat

CHANNEL = re.compile(r"/channels/(\d+)")
WEBHOOK = re.compile(r"/webhooks/\d+/([^/]+)")


def kind_of(method: str, path: str, channel: int, message: int | None) -> str:
    """What a REST call of the tournament is, from its method and path: in the tournament's own
    channel (``channel``) ``standings edit`` (an edit of the tournament's message, ``message``),
    ``starter message`` (a table's message naming its people), ``thread`` (one opened from a
    starter); anything else — in the tables' threads, or through the people's interaction tokens —
    ``table``."""
    here = f"/channels/{channel}/"
    if here not in path:
        return "table"
    rest = path.split(here, 1)[1].rstrip("/")
    if method == "PATCH" and message is not None and rest == f"messages/{message}":
        return "standings edit"
    if method == "POST" and rest == "messages":
        return "starter message"
    if method == "POST" and (rest == "threads" or (rest.startswith("messages/") and rest.endswith("/threads"))):
        return "thread"
    return "other in the tournament's channel"


@dataclass
class TournamentLoad:
    """PEOPLE people playing a tournament of ``rounds`` rounds in a channel of their own."""

    fd: Any
    people: list[Any]
    channel: Any
    rounds: int
    game: str
    options: str | None
    message: Any = None  # the tournament's message (sign-ups, then standings)
    moves: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float | None = None
    started: float = 0.0

    @classmethod
    def make(cls, fd: Any, people: int, rounds: int, game: str, options: str | None, locale: str = "en-GB",
             ) -> TournamentLoad:
        channel = fd.add_channel("tournament")
        members = [fd.add_member(f"Entrant {n + 1}", locale=locale) for n in range(people)]
        for p in members:
            p.where = channel
        return cls(fd, members, channel, rounds, game, options)

    @property
    def ids(self) -> set[int]:
        return {p.id for p in self.people}

    def channels(self) -> set[int]:
        """The tournament's channel and the threads opened in it (one per table)."""
        return {self.channel.id} | {c.id for c in self.fd.channels.values() if c.parent_id == self.channel.id}

    def owns(self, request: Any, channels: set[int] | None = None, tokens: set[str] | None = None) -> bool:
        """Whether a REST call is the tournament's: in its channel or threads, or through an
        interaction token of one of its people."""
        channels = self.channels() if channels is None else channels
        m = CHANNEL.search(request.path)
        if m is not None:
            return int(m.group(1)) in channels
        w = WEBHOOK.search(request.path)
        if w is not None:
            return w.group(1) in (self.tokens() if tokens is None else tokens)
        return False

    def tokens(self) -> set[str]:
        ids = self.ids
        return {i.token for i in self.fd.interactions.values() if i.user_id in ids}

    def split(self, requests: list[Any]) -> tuple[list[Any], list[Any]]:
        """``requests`` as (the tournament's, the rest)."""
        channels, tokens = self.channels(), self.tokens()
        mine: list[Any] = []
        rest: list[Any] = []
        for r in requests:
            (mine if self.owns(r, channels, tokens) else rest).append(r)
        return mine, rest

    def in_its_channels(self, message: Any) -> bool:
        return message.channel_id in self.channels()

    # ---- playing ---------------------------------------------------------------------------------
    async def run(self, think: float, timeout: float, seed: int) -> None:
        """Open it, sign everyone up, start it and play every round; problems are kept, not raised
        (the tables' figures go on)."""
        self.started = time.perf_counter()
        try:
            await self._run(think, timeout, seed)
        except Exception as e:  # (a bench reports; it does not stop at a failed person)
            self.problems.append(f"tournament: {e!r}")
        self.seconds = round(time.perf_counter() - self.started, 1)

    async def _run(self, think: float, timeout: float, seed: int) -> None:
        organiser = self.people[0]
        kwargs: dict[str, Any] = {"game": self.game, "rounds": self.rounds}
        if self.options:
            kwargs["options"] = self.options
        opened = await organiser.slash("tournament new", **kwargs)
        if opened.failed or opened.ephemeral or opened.message is None:
            raise PlayError(f"/tournament new did not post a tournament: {opened.text!r}")
        self.message = opened.message
        for p in self.people[1:]:
            await self._press(p, "join", lambda p=p: p.mention in self.message.text)
        await self._press(organiser, "start", lambda: not self.message.buttons())
        rng = random.Random(seed)
        last: dict[int, int] = {p.id: 0 for p in self.people}  # the starter each person last played from
        for _ in range(self.rounds):
            seats = await asyncio.gather(*(self._seat(p, last, random.Random(rng.random()), think, timeout)
                                           for p in self.people), return_exceptions=True)
            for s in seats:
                if isinstance(s, BaseException):
                    self.problems.append(f"tournament: {s!r}")
                else:
                    self.moves += s
            if any(isinstance(s, BaseException) for s in seats):
                return

    async def _press(self, p: Any, op: str, done: Any, tries: int = 3) -> None:
        """Press Join or Start as a person would on a busy day: a click that failed ("This
        interaction failed", answered too late) is looked at again and pressed again if it did not
        take; each failure is a problem of the run all the same."""
        for _ in range(tries):
            reply = await p.click(self.message, custom_id=self._button(op))
            if not reply.failed and not (op == "join" and reply.ephemeral):
                return
            self.problems.append(f"tournament: {p.name}'s {op} click: {reply.text!r}")
            with contextlib.suppress(TimeoutError):
                await self.fd.wait_for(done, 5.0, f"{p.name}'s {op}")
            if done():
                return
        raise PlayError(f"{p.name} could not {op} the tournament")

    def _button(self, op: str) -> str:
        return next(b["custom_id"] for b in self.message.buttons() if str(b.get("custom_id", "")).endswith(f":{op}"))

    async def _seat(self, p: Any, last: dict[int, int], rng: random.Random, think: float, timeout: float) -> int:
        """This round's table of one person: the newest starter message naming them (its thread
        holds the table's message), played to its end; the moves they made."""
        fd = self.fd

        def starter() -> Any:
            return p.find(p.mention, channel=self.channel, ephemeral=False,
                          where=lambda m: m.id > last[p.id] and m.thread_id is not None and m.id != self.message.id)

        first = await fd.wait_for(starter, timeout, f"{p.name}'s table in the tournament")
        last[p.id] = first.id
        thread = fd.channels[first.thread_id]

        def table_message() -> Any:
            for mid in thread.messages:
                m = fd.messages[mid]
                if not m.ephemeral and not m.deleted:
                    return m if _hand_button(m) is not None else None
            return None

        table = await fd.wait_for(table_message, timeout, f"{p.name}'s tournament table's message")
        seat = await play_seat(p, table, rng=rng, think=think * (0.5 + rng.random()), timeout=timeout,
                               open_with="mix", use="components", watch_table=False, patience=5.0,
                               tolerate=lambda reply: True)
        # A click that failed (answered too late on a busy machine) is clicked again, so that the
        # tournament keeps its load on the bot; each is a problem of the run all the same.
        self.problems += [f"tournament: {p.name}'s {r.interaction.label}: {r.text!r}" for r in seat.lost]
        return seat.moves

    def table_messages(self) -> list[Any]:
        """Each of its tables' messages: the first message in each of its threads."""
        out = []
        for c in self.fd.channels.values():
            if c.parent_id == self.channel.id and c.messages:
                out.append(self.fd.messages[c.messages[0]])
        return out

    # ---- figures ---------------------------------------------------------------------------------
    def figures(self, requests: list[Any], hands: int) -> dict[str, Any]:
        """The tournament's own figures, from its REST calls (interaction callbacks excluded) and the
        hands its tables played."""
        ids = self.ids
        mid = self.message.id if self.message else None
        # The answers to /tournament new, Join and Start (the sign-ups' message, through their tokens).
        signups = {i.token for i in self.fd.interactions.values() if i.user_id in ids
                   and mid is not None and mid in (i.message_id, i.original_id)}
        by_kind: Counter[str] = Counter()
        by_route: Counter[str] = Counter()  # its tables' own calls
        webhooks = 0
        for r in requests:
            w = WEBHOOK.search(r.path)
            kind = "sign-up answers" if w is not None and w.group(1) in signups else kind_of(
                r.method, r.path, self.channel.id, mid)
            by_kind[kind] += 1
            webhooks += kind == "table" and w is not None
            by_route[r.route] += kind == "table"
        latencies = sorted(i.latency * 1000 for i in self.fd.interactions.values()
                           if i.user_id in ids and i.latency is not None)
        tables = self.table_messages()

        def pct(q: float) -> float | None:
            return round(latencies[min(len(latencies) - 1, int(round(q * (len(latencies) - 1))))], 2) \
                if latencies else None

        return {
            "people": len(self.people),
            "rounds": self.rounds,
            "tables_opened": len(tables),
            "tables_finished": sum(1 for m in tables if is_over(self.fd, m)),
            "hands": hands,
            "moves": self.moves,
            "seconds": self.seconds,
            "rest_calls": len(requests),
            "rest_calls_by_kind": dict(by_kind.most_common()),
            "standings_edits_per_table": round(by_kind["standings edit"] / len(tables), 2) if tables else None,
            # Its tables' own calls (their messages, pings, summaries, hand views), as the main figures count.
            "table_rest_calls_per_hand": round(by_kind["table"] / hands, 1) if hands else None,
            "table_non_interaction_rest_calls_per_hand": round((by_kind["table"] - webhooks) / hands, 1)
            if hands else None,
            "table_rest_calls_by_route": {k: round(v / hands, 1) for k, v in by_route.most_common() if v}
            if hands else {},
            "interaction_p50_ms": pct(0.50),
            "interaction_p99_ms": pct(0.99),
            "problems": self.problems[:20],
        }
