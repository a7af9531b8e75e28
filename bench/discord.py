"""How the real bot behaves on the wire: tables of the benches' reference game (``Measure.reference``,
engine/measure.py: a game of 52 plays a hand) played through ``bot.Deckhand`` (in its own process,
real discord.py) against the fake Discord on 127.0.0.1 (``tests/fakediscord``).

Each table: two scripted people and two AIs play one hand (a target of 1).  The people think for
``--think`` seconds (±50 %) before each move; they open their hand once (**My hand** or ``/hand``)
and then click on it, since the bot keeps it current (a ping's **My hand** if it no longer can);
the bot runs in the production setting unless told otherwise: configured from its environment as
bot.py is, with its defaults (AI pause 1 s, one table edit per second, the AI worker pool), its
tables kept in a SQLite file (``--database-url``: another), Discord's real rate-limit windows and its
global limit of 50 requests a second (``--global-limit 0``: off).  It reports:

* ``interaction_p50_ms`` / ``interaction_p99_ms`` — from the fake sending INTERACTION_CREATE to
  the interaction callback arriving, over every interaction of the run; ``interaction_stages``
  splits the card clicks' answers (a card button or menu on a hand view) by stage inside the bot
  process (tests/fakediscord/botprocess.py ``time_stages``: ``queued`` from the gateway to the
  handler, ``act`` the move applied, of which ``commit`` its storage write, ``render`` the hand view
  drawn, ``answer`` the callback sent, ``click`` the whole handler), each its wall-clock p50 / p99 /
  max and its CPU p50 / p99 (the bot's main thread: what the loop ran meanwhile counts, other
  processes of a busy machine do not) in ms;
* ``rest_calls_per_hand`` — REST calls the bot made per hand of 52 plays, interaction
  callbacks excluded (the lobby, thread and summary included), and ``rest_calls_by_route``;
* ``non_interaction_rest_calls_per_hand`` — the same without interaction-token webhooks
  (followups and edits of hand views), i.e. what Discord's global 50/s limit counts;
* ``max_edits_per_message_5s`` — the most edits any one message got within 5 seconds;
* ``interactions_per_person_move`` — every interaction the people made (lobby included: ``/game
  new``, ``join``, ``ai``, ``start``, opening a hand) divided by the moves they made (target ≤ 1.2:
  a person who keeps their hand open plays each card with one click);
* ``live_view_edits_per_hand`` — edits of people's hand views through their interactions' tokens
  (not counted by Discord's global limit), per hand;
* ``public_edit_interval_s`` — the interval between paced edits of a table message the bot settled
  on, as seen on the wire: the median and 90th percentile gap between consecutive edits of the
  running tables' messages, and ``public_edits_per_hand`` (the lobby's and the final edit included);
* ``public_lag_s_p50`` / ``public_lag_s_p99`` — how late the public table message shows the plays:
  for every card played (people's and AIs', at the time the bot's runtime took it), the seconds
  until a version of the table message on the wire shows that many cards played (counted from
  its seat lines' cards left; the finished table shows them all), and ``public_plays_shown``, the
  share of plays some version showed before the next play (the rest were shown only together
  with a later one); with ``--processes`` or ``--database-url`` each process writes its
  tables' plays at exit and the bench reads them all;
* ``turn_pings_per_hand`` — turn pings posted (only people whose live view is closed get one);
* ``watcher_edits_per_hand`` — edits of watchers' views (**Watch**, through their interactions'
  tokens, not counted by Discord's global limit) per watched hand; ``--watchers`` is the fraction
  of tables where someone without a seat presses **Watch** once the game runs and follows it to its
  end (default 0.1: a tenth of the tables); ``watched_tables`` how many were;
* ``bot_cpu_percent`` — the bot process's CPU time over the run's wall time (100 = one core), with
  the machine's ``load_average`` at the end;
* ``tables`` — how many were playing at once;
* ``startup_emoji_calls`` — the application-emoji calls (list, upload, delete) of a first start
  (every card face uploaded) and of a second start with nothing changed (one list call); the
  tables are played after the second start has its emoji, so their calls are not in the per-hand
  figures;

with ``--viewer`` (issue 22), while the tables play a person clicks through finished games' replay
viewers (their own one-hand game, played before the tables open, and any bench table once it has
finished) with Next/Back/First/Last and the jump menu, about one click per ``--viewer-think``
seconds, and presses **Review my play** on their own game (the bot then runs with its production
AI workers, where reviews run): ``viewer_answer_ms_p50`` / ``viewer_answer_ms_p99`` /
``viewer_answer_ms_max`` (the fake sending the click to the bot's answer: the new picture, or a
deferral), ``viewer_answers_after_3s`` (target 0), ``viewer_clicks``, ``viewer_games_opened`` and
``viewer_review_s`` (the press to the review shown; it may run on for ``--review-wait`` seconds
after the tables end).  The viewer's clicks and game stay out of the tables' figures;

with ``--metrics`` (issue 33), the bot serves its Prometheus metrics (``METRICS_ADDRESS``) and the
bench scrapes ``/metrics`` every 5 s while the tables play, as Prometheus would: compare
``interaction_p99_ms`` with a run without; ``metrics`` has the scrapes, the slowest scrape and what
the bot itself counted (interactions answered, late ones);

with ``--tournament PEOPLE`` (issue 34), that many people also play a tournament of the reference
game (``--tournament-rounds``, default 2) in a channel of their own while the tables play
(bench/tournament_load.py: ``/tournament new``, **Join**, **Start**, then each seat played in its
table's thread).  On Discord's budget a tournament table costs, besides a table's ordinary calls, a
starter message in the tournament's channel, a thread opened from it, and one edit of the standings
message per finished table, coalesced to at most one every 1.5 s (and one as each round begins);
its table's message, posted by the bot in the thread, is edited through REST (no /game new token),
so its paced edits count against the global limit where an ordinary table's mostly do not.
Its people, channel and threads stay out of the figures above, so that they compare with a run
without it (the tournament's load still weighs on them: that is what is measured); ``tournament``
has its own: tables opened and finished, hands, its REST calls by kind (``standings edit``,
``starter message``, ``thread``, ``sign-up answers``, ``table``: its tables' own), the standings edits
per table, its tables' REST calls per hand, its people's interaction p50 / p99 and its problems (also
in ``problems``);

and, to explain those: the setting it ran, ``database`` (the URL's scheme: ``sqlite`` by default),
``global_limit`` (50 by default; 0: off) and ``ratelimit_scale`` (1: Discord's windows); ``hands``,
``seconds``, ``peak_rest_calls_per_s`` (Discord's default global limit is 50/s), ``provoked_429``
and ``problems`` (anything the fake would refuse), and ``fake_stalled_s`` (seconds the fake's own
loop ran late on a busy machine: requests sent meanwhile arrive at once, so its global window
leaves that time out).

Targets: p99 under 25 ms with 100 tables at once; at most 12 non-interaction REST calls per hand
(120 in all); never more than 5 edits to one message in 5 s; at most 1.2 interactions per move a
person makes; the public table message at most 3 s behind the plays at p99 up to 10 tables.  With
``--tables 1000`` (``--stagger`` so that the tables' fixed calls fit Discord's 50/s, which is
enforced) every hand must still finish with no problems.

    python bench/discord.py [--json] [--tables 100] [--think 1.0] [--ai-delay 1.0] [--quick]
                            [--same-process] [--global-limit 0] [--processes 2 [--database-url URL]]
                            [--viewer [--viewer-think 1.0] [--review-wait 120]]
                            [--tournament 20 [--tournament-rounds 2]]

``--processes N`` runs the bot as N shard processes on one PostgreSQL (bench/processes.py), the
tables spread over servers of every shard; ``bot_cpu_percent`` is then theirs together, and
``bot_cpu_percent_by_process`` each one's.

``BENCH_PROFILE=/tmp/bot.prof`` writes a cProfile of the bot process; ``BENCH_GC_LOG=1`` has it
report its heap every 20 s and its garbage-collector pauses at exit (on stderr); ``BENCH_SLOW_STEPS=1``
has it report at exit the event loop's steps that took 2 ms or more of its CPU, with what ran and
the oldest generation the garbage collector walked meanwhile (what held the loop while a click waited).
``BENCH_HEAP_WHO=1`` (with ``BENCH_GC_LOG=1``; a diagnosis: it holds the loop a second or so) adds,
at the first heap report and at exit, who holds a sample of each common kind of tracked object (the
chain of its referrers' types); ``BENCH_HEAP_WHO=list,Message,...`` names the kinds.
``BENCH_GC_THRESHOLD=2000,10,10`` sets the bot process's collector thresholds (an experiment).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import math
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# This file is named like the discord package: keep its folder off the path so `import discord`
# finds discord.py, and put the project root on it.
sys.path[:] = [ROOT] + [p for p in sys.path if os.path.abspath(p or os.curdir) != HERE]

from bench.processes import NoDatabase, ShardedBots, postgres  # noqa: E402
from bench.tournament_load import TournamentLoad  # noqa: E402
from engine.measure import reference_game  # noqa: E402
from tests.fakediscord.play import in_any_language, is_over, open_table, play_seat, table_id_of  # noqa: E402
from tests.fakediscord.server import FakeDiscord  # noqa: E402

BOT_CPU: list[float] = []  # CPU seconds the bot process used (Linux)
BOT_CONFIG: dict[str, Any] = {}  # bot.Config fields for the bot process (--viewer: its AI workers)
METRICS: dict[str, Any] = {}  # --metrics: the bot's METRICS_ADDRESS port, and what its scrapes said
#: The running game's controls on a table message, in any language (My hand, or the thread's link).
RUNNING_LABELS = tuple(sorted(in_any_language("My hand") | in_any_language("Play in the thread")))
SCRAPE_EVERY = 5.0  # seconds between two scrapes of /metrics while the tables play (Prometheus: 15 by default)
TABLE_MESSAGES: list[Any] = []  # every table's public message, as the fake keeps it
PLAY_LOG: dict[str, list[list[Any]]] = {}  # table message id -> the table's actions [[time, code], ...]
#: The bot process's card clicks, by stage of their answer: [[wall ms, CPU ms], ...] (botprocess.time_stages).
STAGES: dict[str, list[list[float]]] = {}
WATCH_VIEWS: list[Any] = []  # the watchers' views (answers to Watch), as the fake keeps them
#: The game the tables play: the benches' reference (engine/measure.py), to a target of 1 (one hand).
REFERENCE = reference_game()
GAME = REFERENCE.name
ONE_HAND = f"{REFERENCE.measure.length}=1" if REFERENCE.measure is not None and REFERENCE.measure.length else None
TARGETS = {"interaction_p99_ms": 25.0, "rest_calls_per_hand": 120, "max_edits_per_message_5s": 5,
           "interactions_per_person_move": 1.2, "non_interaction_rest_calls_per_hand": 12,
           "public_lag_s_p99": 3.0}
HAND_CARDS = 52


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


@contextlib.asynccontextmanager
async def bot_process(fd: FakeDiscord, runtime: dict[str, Any], database: str):
    import tempfile

    from tests.fakediscord.botrunner import production_env

    plays = tempfile.NamedTemporaryFile(prefix="bench-plays-", suffix=".json", delete=False)
    plays.close()
    stages = tempfile.NamedTemporaryFile(prefix="bench-stages-", suffix=".json", delete=False)
    stages.close()
    # Configured from its environment, as bot.py is (tests/fakediscord/botprocess.py).
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.fakediscord.botprocess", "--port", str(fd.port),
        "--runtime", json.dumps(runtime), "--play-log", plays.name, "--stages", stages.name,
        *(["--profile", os.environ["BENCH_PROFILE"]] if os.environ.get("BENCH_PROFILE") else []),
        *[f"--without-intent={x}" for x in os.environ.get("BENCH_WITHOUT_INTENTS", "").split(",") if x],
        *(["--gc-log"] if os.environ.get("BENCH_GC_LOG") else []),
        *(["--config", json.dumps(BOT_CONFIG)] if BOT_CONFIG else []),
        cwd=ROOT, stdout=subprocess.PIPE, stderr=None, env={
            **production_env(fd, database, base=os.environ),
            **({"METRICS_ADDRESS": f"127.0.0.1:{METRICS['port']}"} if METRICS else {})},
    )
    try:
        line = await asyncio.wait_for(proc.stdout.readline(), 30)  # type: ignore[union-attr]
        if line.strip() != b"ready":
            raise RuntimeError(f"the bot process did not start: {line!r}")
        yield proc
    finally:
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = open(f"/proc/{proc.pid}/stat").read().rsplit(")", 1)[1].split()
            tick = os.sysconf("SC_CLK_TCK")
            BOT_CPU.append((int(fields[11]) + int(fields[12])) / tick)
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
        with contextlib.suppress(OSError, ValueError):
            PLAY_LOG.update(json.loads(open(plays.name).read() or "{}"))
        with contextlib.suppress(OSError, ValueError):
            STAGES.clear()  # (the last process's: the one the tables played on)
            STAGES.update(json.loads(open(stages.name).read() or "{}"))
        with contextlib.suppress(OSError):
            os.unlink(plays.name)
            os.unlink(stages.name)


@contextlib.asynccontextmanager
async def bot_here(fd: FakeDiscord, runtime: dict[str, Any], database: str):
    from tests.fakediscord.botprocess import play_log, watch_tables
    from tests.fakediscord.botrunner import running_bot

    async with running_bot(fd, runtime_options=runtime, database_url=database) as bot:
        tables = watch_tables(bot)
        yield bot
    PLAY_LOG.update(play_log(tables))


async def one_table(fd: FakeDiscord, host: Any, guest: Any, seed: int, think: float, timeout: float,
                    stagger: float, watcher: Any = None) -> int:
    """One table played to its end; returns the moves its people made.  ``watcher``: someone
    without a seat who presses Watch once the game runs."""
    rng = random.Random(seed)
    await asyncio.sleep(rng.uniform(0, stagger))  # people do not all press Start in the same second
    views: dict[int, Any] = {}
    table_message = await open_table(host, [guest], game=GAME, options=ONE_HAND, views=views)
    TABLE_MESSAGES.append(table_message)
    if watcher is not None:
        watching = await watcher.click(table_message, custom_id=f"dh:t:watch:{table_id_of(table_message)}")
        if watching.failed or watching.message is None or not watching.text.startswith("👀"):
            raise RuntimeError(f"Watch did not open a view: {watching.text!r}")
        WATCH_VIEWS.append(watching.message)

    async def person(p: Any, use: str) -> int:
        r = random.Random(rng.random())
        # A person waits for their ping or their hand view to change, not for every table edit.
        seat = await play_seat(p, table_message, rng=r, think=think * (0.5 + r.random()), timeout=timeout,
                               open_with="mix", use=use, watch_table=False, patience=5.0, view=views.get(p.id))
        if os.environ.get("BENCH_WHY_OPENED") and seat.why_opened:
            print(f"{p.name} opened their hand: {seat.why_opened}", file=sys.stderr)
        return seat.moves

    moves = await asyncio.gather(person(host, "components"), person(guest, "components"))
    await fd.wait_for(lambda: is_over(fd, table_message), 10.0, "the finished table")
    return sum(moves)


VIEWER_INTERACTIONS: list[Any] = []  # every interaction the replay viewer's person made (issue 22)
#: The viewer's people and the tournament's (--tournament): their clicks and tables stay out of the tables' figures.
VIEWER_IDS: set[int] = set()
ANSWER_LIMIT = 3.0  # Discord's limit for a first answer to an interaction


async def viewer_table(host: Any, guest: Any, seed: int) -> Any:
    """The game the viewer's person reviews: one hand (blitz) played with a guest before
    the tables open; its finished table message."""
    rng = random.Random(seed)
    views: dict[int, Any] = {}
    table_message = await open_table(host, [guest], game=GAME, options=ONE_HAND, speed="blitz", views=views)
    await asyncio.gather(*(play_seat(p, table_message, rng=random.Random(rng.random()), think=0.05, timeout=300,
                                     open_with="mix", watch_table=False, patience=2.0, view=views.get(p.id))
                           for p in (host, guest)))
    await host.fd.wait_for(lambda: any(b.get("label") == "Replay" for b in table_message.buttons()), 30.0,
                           "the Replay button on the viewer's finished table")
    return table_message


async def replay_viewer(fd: FakeDiscord, person: Any, own: Any, stop: asyncio.Event, think: float,
                        seed: int, review_wait: float = 120.0) -> dict[str, Any]:
    """A person clicking through finished games' replay viewers while the tables play: their own
    game's (opened from its table message's **Replay**; **Review my play** pressed early on), and
    any of the bench's tables that has finished (as a stranger).  Every click waits for its answer,
    then the person looks at the picture for about ``think`` seconds."""
    from tests.fakediscord import payloads as P

    rng = random.Random(seed)
    review: dict[str, Any] = {"pressed": False, "answered_s": None, "review_s": None}
    opened_tables = {own.id}
    viewer = None

    async def open_replay(table_message: Any) -> Any:
        r = await person.click(table_message, "Replay")
        VIEWER_INTERACTIONS.append(r.interaction)
        return r.message if not r.failed else None

    async def press_review(m: Any) -> None:
        button = next((b for b in m.buttons() if b.get("label") == "Review my play"), None)
        if button is None:
            return
        # Sent by hand: the review's followup comes long after a person would stop watching
        # "thinking…" (Person.click would count that as a problem); it is awaited here instead.
        i = fd.send_interaction(person.id, P.MESSAGE_COMPONENT, {"custom_id": button["custom_id"],
                                                                  "component_type": P.BUTTON},
                                m.channel_id, label="click Review my play", message_id=m.id)
        VIEWER_INTERACTIONS.append(i)
        review["pressed"] = True
        t0 = time.perf_counter()
        def shown() -> bool:  # the "thinking…" answer edited into the review, or a followup
            m = fd.messages.get(i.original_id) if i.original_id is not None else None
            return bool(i.followups) or (m is not None and not m.loading)

        with contextlib.suppress(TimeoutError):
            await fd.wait_for(shown, 900.0, "the review")
            review["review_s"] = round(time.perf_counter() - t0, 1)

    reviewing: asyncio.Task[None] | None = None
    clicks = 0
    while not stop.is_set():
        if viewer is None or rng.random() < 0.03:  # now and then, another finished game
            done = [m for m in TABLE_MESSAGES if m.id not in opened_tables
                    and any(b.get("label") == "Replay" for b in m.buttons())]
            target = rng.choice(done) if done and viewer is not None else (own if viewer is None else None)
            if target is not None:
                opened_tables.add(target.id)
                viewer = await open_replay(target) or viewer
        if viewer is None:
            await asyncio.sleep(1.0)
            continue
        if reviewing is None and clicks >= 3 and viewer is not None and own.id in opened_tables:
            reviewing = asyncio.ensure_future(press_review(viewer))
        enabled = [b.get("label") for b in viewer.buttons() if not b.get("disabled") and b.get("label")
                   in ("Next", "Back", "First", "Last")]
        menu = viewer.selects()
        moves = enabled * 3 + (["jump"] if menu else [])
        move = rng.choice(moves or ["jump"])
        try:
            if move == "jump":
                values = [o["value"] for o in menu[0]["options"]]
                r = await person.choose(viewer, [rng.choice(values)])
            else:
                r = await person.click(viewer, move)
        except Exception as e:  # (a viewer gone, a disabled button): this person looks again
            print(f"replay viewer: {e!r}", file=sys.stderr)
            viewer = None
            continue
        VIEWER_INTERACTIONS.append(r.interaction)
        clicks += 1
        await asyncio.sleep(think * (0.5 + rng.random()))
    if reviewing is not None:  # the tables are done: the review may take a while longer
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(reviewing), review_wait)
        reviewing.cancel()
    return {"games_opened": len(opened_tables), "review": review}


def viewer_figures(viewer: dict[str, Any] | None) -> dict[str, Any]:
    """The replay viewer's answer times (issue 22): every click of the viewer's person, from the
    fake sending it to the bot's answer (a picture's update, or "thinking…" for a review)."""
    if viewer is None:
        return {}
    answers = [i.latency * 1000 for i in VIEWER_INTERACTIONS if i.latency is not None]
    late = sum(1 for i in VIEWER_INTERACTIONS if i.latency is None or i.latency > ANSWER_LIMIT or i.failed)
    return {
        "viewer_clicks": len(VIEWER_INTERACTIONS),
        "viewer_answer_ms_p50": round(percentile(answers, 0.50), 1),
        "viewer_answer_ms_p99": round(percentile(answers, 0.99), 1),
        "viewer_answer_ms_max": round(max(answers, default=float("nan")), 1),
        "viewer_answers_after_3s": late,
        "viewer_games_opened": viewer["games_opened"],
        "viewer_review_pressed": viewer["review"]["pressed"],
        "viewer_review_s": viewer["review"]["review_s"],
    }


EMOJI_ROUTE = "/applications/{application_id}/emojis"


def stage_figures(stages: dict[str, list[list[float]]]) -> dict[str, dict[str, float]] | None:
    """Each stage of the card clicks' answers (tests/fakediscord/botprocess.py ``time_stages``): its
    wall-clock p50 / p99 / max and its CPU p50 / p99 in ms — the CPU of the bot's main thread over the
    stage, which a busy machine's other processes do not inflate — and how many times it ran."""
    out = {}
    for stage, rows in stages.items():
        if rows:
            wall, cpu = [r[0] for r in rows], [r[1] for r in rows]
            out[stage] = {"n": len(rows), "wall_p50": round(percentile(wall, 0.5), 2),
                          "wall_p99": round(percentile(wall, 0.99), 2), "wall_max": round(max(wall), 2),
                          "cpu_p50": round(percentile(cpu, 0.5), 2), "cpu_p99": round(percentile(cpu, 0.99), 2)}
    return out or None


def emoji_calls(fd: FakeDiscord, since: int) -> dict[str, int]:
    calls = Counter(r.route.split()[0].lower() for r in fd.requests[since:] if EMOJI_ROUTE in r.route)
    return {"list": calls["get"], "upload": calls["post"], "delete": calls["delete"]}


async def emoji_synced(fd: FakeDiscord, since: int, lists: int = 1) -> dict[str, int]:
    """Wait until the bot's start-up sync has every face (or was refused), then count its calls
    (``lists``: list calls to wait for, one per process)."""
    from cogs.pictures.faces import face_codes

    want = len(face_codes())

    def done() -> bool:
        calls = emoji_calls(fd, since)
        ours = sum(1 for name in fd.app_emojis if name.startswith("dk_"))
        return calls["list"] >= lists and (ours >= want or any(r.status and r.status >= 400 for r in fd.requests[since:]
                                                              if EMOJI_ROUTE in r.route))

    await fd.wait_for(done, 60.0, "the card emoji sync")
    await asyncio.sleep(0.3)  # nothing more should come: count anything that does
    return emoji_calls(fd, since)


def summaries(fd: FakeDiscord) -> int:
    """Hands played, counted from the end-of-hand summaries posted."""
    return sum(1 for m in fd.messages.values() if not m.ephemeral and "End of hand" in m.text)


def tour_hands(fd: FakeDiscord, tour: TournamentLoad) -> int:
    """The hands the tournament's tables played (--tournament): their summaries, in its threads."""
    where = tour.channels()
    return sum(1 for m in fd.messages.values() if not m.ephemeral and "End of hand" in m.text and m.channel_id in where)


def public_edits(messages: list[Any]) -> tuple[list[float], float | None]:
    """Gaps between consecutive REST edits of the table messages while their game ran (from the
    first version with the running game's buttons), and the REST edits per message."""
    gaps: list[float] = []
    edits = 0
    for m in messages:
        times = [v.at for v in m.versions if v.source == "edit"]
        edits += len(times)
        # The running game's controls: My hand, or (when the game is in a thread) the link to it.
        running = next((v.at for v in m.versions
                        if any(w in str(v.components) for w in RUNNING_LABELS)), None)
        if running is None:
            continue
        during = [t for t in times if t >= running]
        gaps += [b - a for a, b in zip(during, during[1:], strict=False)]
    return gaps, (edits / len(messages) if messages else None)


def cards_played(text: str) -> int | None:
    """The cards a table message shows as played: the hands before this one, and this hand's
    52 less the cards its seat lines say are left (``None`` for a message with no seat lines: the
    lobby)."""
    if "— finished" in text:
        return 10 ** 9  # the end shows every play
    left = [int(n) for n in re.findall(r" · (\d+) cards?\b", text)]
    if not left:
        return None
    hand = re.search(r"\bHand (\d+)\b", text)
    before = (int(hand.group(1)) - 1) * HAND_CARDS if hand else 0
    return before + HAND_CARDS - sum(left)


def public_lag(messages: list[Any], log: dict[str, list[list[Any]]]) -> tuple[list[float], float | None]:
    """For every card played at the tables, the seconds until the table message on the wire showed
    it; and the share of plays shown on their own (before the next play came)."""
    lags: list[float] = []
    alone = total = 0
    for m in messages:
        plays = [float(at) for at, code in log.get(str(m.id), []) if str(code).startswith("play ")]
        shown = [(at, n) for at, n in ((v.at, cards_played(v.text)) for v in m.versions) if n is not None]
        for i, at in enumerate(plays):
            first = next((t for t, n in shown if t >= at and n >= i + 1), None)
            if first is None:
                continue
            lags.append(max(0.0, first - at))
            total += 1
            nxt = plays[i + 1] if i + 1 < len(plays) else math.inf
            alone += any(at <= t < nxt and n == i + 1 for t, n in shown)
    return lags, (alone / total if total else None)


def slow_seconds(fd: FakeDiscord, started: float, over_ms: float = 25.0) -> dict[int, int]:
    """Interactions slower than ``over_ms``, by second of the run: spread out, or a few stalls?"""
    out: Counter[int] = Counter()
    for i in fd.interactions.values():
        if i.latency is not None and i.latency * 1000 > over_ms and i.sent_at is not None:
            out[int(i.sent_at - started)] += 1
    return dict(sorted(out.items()))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    if args.processes > 1 or args.database_url:
        async with postgres(args.database_url) as pg:
            return await _run(args, pg, pg.url)
    import tempfile

    # As in production, the bot keeps its tables: a SQLite file, which its second start finds.
    with tempfile.TemporaryDirectory(prefix="bench-discord-") as scratch:
        return await _run(args, None, f"sqlite:///{scratch}/deckhand.db")


async def _run(args: argparse.Namespace, pg: Any, database: str) -> dict[str, Any]:
    fd = FakeDiscord(ratelimit_scale=args.ratelimit_scale, global_limit=args.global_limit or None,
                     shard_count=args.processes)
    await fd.start()
    if args.locale:  # the people's clients and the server in another language (issue 31)
        import words

        fd.guild_locale = words.DISCORD_LOCALES.get(words.resolve(args.locale), (args.locale,))[0]
    try:
        shards = ShardedBots(fd, args.processes, pg.url) if pg else None
        seats = []
        watchers: list[Any] = []
        for i in range(args.tables):
            ch = fd.add_channel(f"table-{i + 1}", guild=shards.guild_for(i) if shards else None)
            host, guest = (fd.add_member(f"Host {i + 1}", locale=fd.guild_locale if args.locale else "en-GB"),
                           fd.add_member(f"Guest {i + 1}", locale=fd.guild_locale if args.locale else "en-GB"))
            host.where = guest.where = ch
            seats.append((host, guest))
            watcher = None
            if int((i + 1) * args.watchers) > int(i * args.watchers):  # evenly spread: a tenth at 0.1
                watcher = fd.add_member(f"Watcher {i + 1}")
                watcher.where = ch
            watchers.append(watcher)
        if args.viewer:  # the replay viewer's person and the guest of the game they review (issue 22)
            from tables.ai.pool import default_workers

            viewers = (fd.add_member("Viewer"), fd.add_member("Viewer's guest"))
            viewers[0].where = viewers[1].where = fd.add_channel("replays")
            VIEWER_IDS.update(p.id for p in viewers)
            # As in production: reviews run in the AI workers (bot.load_config's default).
            BOT_CONFIG.setdefault("ai_workers", default_workers())
        tour = (TournamentLoad.make(fd, args.tournament, args.tournament_rounds, GAME, ONE_HAND,
                                    locale=fd.guild_locale if args.locale else "en-GB") if args.tournament else None)
        if tour is not None:
            VIEWER_IDS.update(tour.ids)
        # One fake server holds every table: the bot's per-server cap would stop the bench.
        runtime = {"ai_delay": args.ai_delay, "limits": {"running_per_server": 0}}
        bot = bot_here if args.same_process else bot_process
        startup: list[dict[str, int]] = []
        mark = len(fd.requests)
        first = (shards.running(runtime, one_by_one=lambda n: emoji_synced(fd, mark, lists=n)) if shards
                 else bot(fd, runtime, database))
        async with first:  # a first start: every card face is uploaded
            startup.append(await emoji_synced(fd, mark, lists=args.processes))
        mark = len(fd.requests)
        # The second start, nothing changed: one list call (a process).
        async with shards.running(runtime) if shards else bot(fd, runtime, database):
            startup.append(await emoji_synced(fd, mark, lists=args.processes))
            await asyncio.sleep(0.2)
            # The game the viewer reviews, played before the tables' figures start counting.
            reviewed = await viewer_table(*viewers, args.seed) if args.viewer else None
            # The fake keeps every version of every message; its garbage collector would pause for
            # 100+ ms and count against the bot.  (The bot's process keeps its normal collector.)
            gc.collect()
            gc.disable()
            first_request = len(fd.requests)
            pg_cpu = pg.cpu_seconds() if pg else None
            started = time.perf_counter()
            timeout = 120 + 60 * (args.think + args.ai_delay)
            stop = asyncio.Event()
            viewing = (asyncio.ensure_future(replay_viewer(fd, viewers[0], reviewed, stop, args.viewer_think,
                                                           args.seed, args.review_wait)) if args.viewer else None)
            scraping = asyncio.ensure_future(scrape_metrics(stop)) if METRICS else None
            touring = asyncio.ensure_future(tour.run(args.think, timeout, args.seed)) if tour else None
            results = await asyncio.gather(*(one_table(fd, h, g, args.seed + n, args.think, timeout, args.stagger,
                                                       watchers[n])
                                             for n, (h, g) in enumerate(seats)), return_exceptions=True)
            seconds = time.perf_counter() - started
            stop.set()
            viewer = await viewing if viewing is not None else None
            if scraping is not None:
                await scraping
            if touring is not None:  # (it may outlast the tables: its figures are its own)
                await touring
            if pg_cpu is not None:
                pg_cpu = (pg.cpu_seconds() or pg_cpu) - pg_cpu
            finished = sum(1 for r in results if not isinstance(r, BaseException))
            # Summaries come after the table is drawn finished, behind any notices still queued.
            end = time.perf_counter() + 30
            while summaries(fd) - (tour_hands(fd, tour) if tour else 0) < finished and time.perf_counter() < end:
                await asyncio.sleep(0.5)
            await asyncio.sleep(1.5)  # the last coalesced redraws
            gc.enable()
        failures = [repr(r) for r in results if isinstance(r, BaseException)]
        calls = [r for r in fd.requests[first_request:] if not r.is_callback]
        tour_calls, calls = tour.split(calls) if tour else ([], calls)
        own = [r for r in calls if not r.route.split()[-1].startswith("/webhooks/")]
        # (the table messages are edited through their /game new tokens too: those are not hand views)
        table_token_edits = sum(1 for m in TABLE_MESSAGES for v in m.versions if v.source == "edit" and v.by)
        watcher_edits = sum(1 for m in WATCH_VIEWS for v in m.versions if v.source == "edit")
        live_edits = len(fd.token_edits(since=started)) - table_token_edits - watcher_edits
        live_edits -= len(tour.split(fd.token_edits(since=started))[0]) if tour else 0
        ended = "The game at table `{id}` ({game}) is over: this is how it ended."
        over = {t.rsplit("}", 1)[-1] for t in in_any_language(ended)}
        watched = sum(1 for m in WATCH_VIEWS if any(o in m.text for o in over))  # followed to the end
        watch_clicks = len(WATCH_VIEWS)
        moves = sum(r for r in results if isinstance(r, int))
        hands = summaries(fd) - (1 if args.viewer else 0)  # (the viewer's own game is not the tables')
        hands -= tour_hands(fd, tour) if tour else 0
        # As Discord counts them for its global limit: interaction webhooks (followups) are exempt.
        per_second = Counter(int(r.at - started) for r in calls if not r.route.split()[-1].startswith("/webhooks/"))
        latencies = [i.latency * 1000 for i in fd.interactions.values()
                     if i.latency is not None and i.user_id not in VIEWER_IDS]
        edits, _ = fd.edits_per_window(5.0)
        by_route = Counter(r.route for r in calls)
        gaps, edits_per_table = public_edits(TABLE_MESSAGES)
        if shards:  # (the processes' play logs: without them no play could be timed)
            PLAY_LOG.update(shards.play_log)
        lags, alone = public_lag(TABLE_MESSAGES, PLAY_LOG)
        pings = sum(1 for m in fd.messages.values() if not m.ephemeral and "your turn" in m.text
                    and not (tour and tour.in_its_channels(m)))
        cpu = shards.cpu if shards else BOT_CPU[-1:]
        return {
            "interaction_p50_ms": round(percentile(latencies, 0.50), 2),
            "interaction_p99_ms": round(percentile(latencies, 0.99), 2),
            "interaction_p90_ms": round(percentile(latencies, 0.90), 2),
            "interaction_max_ms": round(max(latencies, default=float("nan")), 2),
            # Where a card click's answer spent its time in the bot (its own process only).
            "interaction_stages": stage_figures(STAGES),
            "slow_seconds": slow_seconds(fd, started),
            "rest_calls_per_hand": round(len(calls) / hands, 1) if hands else None,
            "non_interaction_rest_calls_per_hand": round(len(own) / hands, 1) if hands else None,
            "max_edits_per_message_5s": edits,
            "interactions_per_person_move": round(
                (sum(1 for i in fd.interactions.values() if i.user_id not in VIEWER_IDS) - watch_clicks) / moves, 3)
            if moves else None,
            "live_view_edits_per_hand": round(live_edits / hands, 1) if hands else None,
            "public_edit_interval_s": {"median": round(percentile(gaps, 0.5), 1),
                                       "p90": round(percentile(gaps, 0.9), 1)},
            "public_edits_per_hand": round(edits_per_table, 1) if edits_per_table is not None else None,
            "public_lag_s_p50": round(percentile(lags, 0.5), 2) if lags else None,
            "public_lag_s_p99": round(percentile(lags, 0.99), 2) if lags else None,
            "public_plays_shown": round(alone, 3) if alone is not None else None,
            "turn_pings_per_hand": round(pings / hands, 2) if hands else None,
            "watcher_edits_per_hand": round(watcher_edits / watch_clicks, 1) if watch_clicks else None,
            "watched_tables": watch_clicks,
            "watched_to_the_end": watched,
            "bot_cpu_percent": round(100 * sum(cpu) / seconds, 1) if cpu and seconds else None,
            "bot_cpu_percent_by_process": [round(100 * c / seconds, 1) for c in cpu] if seconds else [],
            "processes": args.processes,
            # --metrics: the bot served /metrics and was scraped; what it counted (None: off).
            "metrics": {k: v for k, v in METRICS.items() if k != "port"} or None,
            # The setting it ran: the database's URL scheme and Discord's global limit (0: off).
            "database": database.split(":", 1)[0],
            "global_limit": fd.global_limit or 0,
            "ratelimit_scale": fd.ratelimit_scale,
            "postgres_cpu_percent": round(100 * pg_cpu / seconds, 1) if pg_cpu is not None and seconds else None,
            "load_average": [round(x, 2) for x in os.getloadavg()],
            "person_moves": moves,
            "tables": args.tables,
            "startup_emoji_calls": {"first": startup[0], "second": startup[1]},
            "hands": hands,
            "interactions": len(latencies),
            "seconds": round(seconds, 1),
            "peak_rest_calls_per_s": max(per_second.values(), default=0),
            "bot_cpu_s": round(sum(cpu), 1) if cpu else None,
            "fake_cpu_s": round(time.process_time(), 1),
            "provoked_429": len(fd.ratelimited),
            # The fake's own loop running late (a busy machine): the global window leaves it out.
            "fake_stalled_s": round(fd.stalled, 2),
            "rest_calls_by_route": {k: round(v / hands, 1) for k, v in by_route.most_common()} if hands else {},
            "problems": fd.problems[:20] + failures[:20] + (tour.problems[:20] if tour else []),
            **viewer_figures(viewer),
            "tournament": {**tour.figures(tour_calls, tour_hands(fd, tour)),
                           # Discord's global limit counts the tables' calls and the tournament's together.
                           "peak_rest_calls_per_s_with_tables": max(Counter(
                               int(r.at - started) for r in calls + tour_calls
                               if not r.route.split()[-1].startswith("/webhooks/")).values(), default=0)}
            if tour else None,
        }
    finally:
        await fd.close()


async def scrape_metrics(stop: asyncio.Event) -> None:
    """--metrics: scrape the bot's /metrics every SCRAPE_EVERY seconds until ``stop``, as Prometheus
    would, and keep what the last scrape counted."""
    import aiohttp
    from prometheus_client.parser import text_string_to_metric_families

    url = f"http://127.0.0.1:{METRICS['port']}/metrics"
    scrapes, took = 0, []
    async with aiohttp.ClientSession() as session:
        while True:
            began = time.perf_counter()
            async with session.get(url) as r:
                text = await r.text()
            took.append(time.perf_counter() - began)
            scrapes += 1
            values = {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples if not s.labels}
            METRICS.update(scrapes=scrapes, scrape_ms_max=round(max(took) * 1000, 1),
                           answered=values.get("deckhand_interactions_answered_total"),
                           late=values.get("deckhand_interactions_late_total"))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), SCRAPE_EVERY)
            if stop.is_set():
                return


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print only a JSON object")
    p.add_argument("--tables", type=int, default=100, help="tables playing at once (default 100)")
    p.add_argument("--think", type=float, default=1.0, help="a person's mean think time per move, seconds")
    p.add_argument("--ai-delay", type=float, default=1.0, help="the runtime's AI pause (production: 1.0)")
    p.add_argument("--quick", action="store_true", help="think 0.25 s and AI pause 0.25 s (a shorter run)")
    p.add_argument("--same-process", action="store_true", help="run the bot in this process (default: its own)")
    p.add_argument("--ratelimit-scale", type=float, default=1.0, help="scale Discord's rate-limit windows")
    p.add_argument("--global-limit", type=int, default=50, help="enforce Discord's global limit, requests a second "
                                                                 "(default 50, Discord's; 0: off)")
    p.add_argument("--stagger", type=float, default=5.0, help="tables open within this many seconds (default 5)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--locale", default=None, help="the people's clients and the server in this language (e.g. de)")
    p.add_argument("--watchers", type=float, default=0.1, help="fraction of tables someone watches (default 0.1)")
    p.add_argument("--viewer", action="store_true", help="a person clicks through finished games' replay viewers "
                                                         "meanwhile and presses Review my play (issue 22)")
    p.add_argument("--viewer-think", type=float, default=1.0, help="the viewer's seconds per click (±50 %%)")
    p.add_argument("--review-wait", type=float, default=120.0, help="seconds the viewer still waits for their "
                                                                    "review once the tables are done")
    p.add_argument("--processes", type=int, default=1, help="run the bot as this many shard processes on one "
                                                            "PostgreSQL (default 1: one process on a SQLite file)")
    p.add_argument("--database-url", help="with --processes: this PostgreSQL (default: a throwaway one); alone: "
                                          "one process keeping its tables there (PostgreSQL or sqlite:///...)")
    p.add_argument("--metrics", action="store_true",
                   help=f"the bot serves its metrics (METRICS_ADDRESS) and the bench scrapes them every "
                        f"{SCRAPE_EVERY:g} s: compare its p99 with a run without")
    p.add_argument("--tournament", type=int, default=0, metavar="PEOPLE",
                   help="that many people also play a tournament of the reference game meanwhile, its figures "
                        "apart (default 0: none; issue 34)")
    p.add_argument("--tournament-rounds", type=int, default=2, help="the tournament's rounds (default 2)")
    args = p.parse_args(argv)
    if args.metrics:
        if args.same_process or args.processes > 1:
            p.error("--metrics measures the one bot process: leave out --same-process and --processes")
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            METRICS["port"] = sock.getsockname()[1]
    if args.quick:
        args.think, args.ai_delay = 0.25, 0.25
    if (args.processes > 1 or args.database_url) and args.same_process:
        p.error("--processes runs the bot in processes of its own: leave out --same-process")
    try:
        result = asyncio.run(run(args))
    except NoDatabase as e:
        print(e, file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result))
        return 0
    ok = {
        "interaction_p99_ms": result["interaction_p99_ms"] < TARGETS["interaction_p99_ms"],
        "rest_calls_per_hand": (result["rest_calls_per_hand"] or 1e9)
        <= TARGETS["rest_calls_per_hand"],
        "max_edits_per_message_5s": result["max_edits_per_message_5s"] <= TARGETS["max_edits_per_message_5s"],
        "interactions_per_person_move": (result["interactions_per_person_move"] or 1e9)
        <= TARGETS["interactions_per_person_move"],
        "non_interaction_rest_calls_per_hand": (result["non_interaction_rest_calls_per_hand"] or 1e9)
        <= TARGETS["non_interaction_rest_calls_per_hand"],
    }
    mark = {True: "ok", False: "MISSED"}
    if args.processes > 1 or args.database_url:
        print(f"the bot as {args.processes} shard process(es) on one {result['database']} database")
    print(f"setting                  database {result['database']} · global limit "
          f"{result['global_limit'] or 'off'}/s · rate-limit windows ×{result['ratelimit_scale']:g}")
    print(f"{result['tables']} {REFERENCE.game.title} tables at once, {result['hands']} hands, "
          f"{result['interactions']} interactions "
          f"in {result['seconds']} s (people think ~{args.think:g} s, AI pause {args.ai_delay:g} s)")
    print(f"interaction round trip   p50 {result['interaction_p50_ms']} ms · p99 {result['interaction_p99_ms']} ms "
          f"(target p99 < {TARGETS['interaction_p99_ms']:g} ms: {mark[ok['interaction_p99_ms']]})")
    print(f"                         p90 {result['interaction_p90_ms']} ms · max {result['interaction_max_ms']} ms · "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    for stage, f in (result["interaction_stages"] or {}).items():
        print(f"  {stage:<22} wall p50 {f['wall_p50']} · p99 {f['wall_p99']} · max {f['wall_max']} ms; "
              f"CPU p50 {f['cpu_p50']} · p99 {f['cpu_p99']} ms ({f['n']} card clicks)")
    if result["metrics"]:
        print(f"metrics on               {result['metrics']} (the bot's own counts, scraped every {SCRAPE_EVERY:g} s)")
    print(f"REST calls per hand      {result['rest_calls_per_hand']} (target ≤ "
          f"{TARGETS['rest_calls_per_hand']}: {mark[ok['rest_calls_per_hand']]})")
    for route, n in result["rest_calls_by_route"].items():
        print(f"    {n:6.1f}  {route}")
    print(f"  of which not interaction webhooks (Discord's global limit counts these) "
          f"{result['non_interaction_rest_calls_per_hand']} (target ≤ "
          f"{TARGETS['non_interaction_rest_calls_per_hand']}: {mark[ok['non_interaction_rest_calls_per_hand']]})")
    gap = result["public_edit_interval_s"]
    print(f"public table message     {result['public_edits_per_hand']} edits per hand; interval while running "
          f"median {gap['median']} s · p90 {gap['p90']} s; turn pings {result['turn_pings_per_hand']} per hand")
    if result["public_lag_s_p99"] is not None:
        target = ""
        if args.tables <= 10:  # (more tables may stretch the interval: that is the pace's job)
            ok["public_lag_s_p99"] = result["public_lag_s_p99"] <= TARGETS["public_lag_s_p99"]
            target = (f" (target p99 ≤ {TARGETS['public_lag_s_p99']:g} s up to 10 tables: "
                      f"{mark[ok['public_lag_s_p99']]})")
        print(f"  behind the plays       p50 {result['public_lag_s_p50']} s · p99 {result['public_lag_s_p99']} s"
              f"{target}; {result['public_plays_shown']:.0%} of the plays shown on their own")
    print(f"interactions per move    {result['interactions_per_person_move']} (every interaction people made, lobby "
          f"included, per move they made; target ≤ {TARGETS['interactions_per_person_move']:g}: "
          f"{mark[ok['interactions_per_person_move']]})")
    print(f"live hand view edits     {result['live_view_edits_per_hand']} per hand (through interaction tokens)")
    print(f"watcher view edits       {result['watcher_edits_per_hand']} per watched hand (through interaction "
          f"tokens); {result['watched_tables']} tables watched, {result['watched_to_the_end']} to the end")
    print(f"most edits of a message  {result['max_edits_per_message_5s']} in 5 s (target ≤ "
          f"{TARGETS['max_edits_per_message_5s']}: {mark[ok['max_edits_per_message_5s']]})")
    print(f"peak REST calls/s        {result['peak_rest_calls_per_s']} (Discord's default global limit: 50/s)")
    print(f"429s provoked            {result['provoked_429']}")
    print(f"fake Discord stalled     {result.get('fake_stalled_s', 0.0)} s")
    first, second = result["startup_emoji_calls"]["first"], result["startup_emoji_calls"]["second"]
    print(f"start-up emoji calls     first start {first} · second start {second}")
    print(f"CPU seconds              bot {result['bot_cpu_s']} ({result['bot_cpu_percent']} % of a core"
          + (f": {' + '.join(str(c) for c in result['bot_cpu_percent_by_process'])} by process" if args.processes > 1
             else "") + ")"
          + (f" · PostgreSQL {result['postgres_cpu_percent']} % while the tables played"
             if result["postgres_cpu_percent"] is not None else "") + " · "
          f"fake and people {result['fake_cpu_s']} (of {result['seconds']} s); load average "
          f"{' '.join(str(x) for x in result['load_average'])}")
    if args.viewer:
        ok["viewer_answers_after_3s"] = result["viewer_answers_after_3s"] == 0
        print(f"replay viewer            {result['viewer_clicks']} clicks in {result['viewer_games_opened']} games: "
              f"answered p50 {result['viewer_answer_ms_p50']} ms · p99 {result['viewer_answer_ms_p99']} ms · "
              f"max {result['viewer_answer_ms_max']} ms; after 3 s: {result['viewer_answers_after_3s']} "
              f"(target 0: {mark[ok['viewer_answers_after_3s']]}); its review "
              + (f"took {result['viewer_review_s']} s" if result["viewer_review_s"] is not None else "did not finish")
              + ("" if result["viewer_review_pressed"] else " (never pressed)"))
    if result["tournament"]:
        t = result["tournament"]
        print(f"tournament               {t['people']} people, {t['rounds']} rounds: {t['tables_finished']} of "
              f"{t['tables_opened']} tables finished, {t['hands']} hands in {t['seconds']} s; interaction p50 "
              f"{t['interaction_p50_ms']} ms · p99 {t['interaction_p99_ms']} ms (its people's, apart from the above)")
        print(f"  its REST calls         {t['rest_calls']}: {t['rest_calls_by_kind']}; standings edits per table "
              f"{t['standings_edits_per_table']}; its tables' calls per hand {t['table_rest_calls_per_hand']} "
              f"({t['table_non_interaction_rest_calls_per_hand']} not interaction webhooks); peak REST calls/s "
              f"with the tables' {t['peak_rest_calls_per_s_with_tables']}")
    for problem in result["problems"]:
        print(f"problem: {problem}")
    return 0 if all(ok.values()) and not result["problems"] else 1


if __name__ == "__main__":
    sys.exit(main())
