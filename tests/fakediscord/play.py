"""Scripted play: people who open a table and play their seat from what their hand view shows.

Only what a person sees drives them: the lobby message, pings, the table message, and the
ephemeral hand view (opened with **My hand** or ``/hand``) whose buttons and menu are the legal
moves.  Nothing here reads the bot's runtime.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import engine
import words

from . import payloads as P
from .server import FakeDiscord, Message
from .users import Person, Reply

TABLE_ID = re.compile(r"`([A-Z0-9]{6})`")  # (the title's table id, in any language)


def said(person: Person, msgid: str, **fields: Any) -> str:
    """``msgid`` as this person's client reads it (their member's ``locale``, words.resolve)."""
    member = person.fd.members.get(person.id)
    return words.translate(words.resolve(getattr(member, "locale", None)), msgid, **fields)


def in_any_language(msgid: str) -> set[str]:
    """``msgid`` in every supported language (a table's words are in the table's)."""
    return {words.translate(lang, msgid) for lang in words.LOCALES}


def _hand_button(msg: Message) -> dict[str, Any] | None:
    """The **My hand** button on a message, whatever its language (found by its custom id)."""
    return next((b for b in msg.buttons() if str(b.get("custom_id", "")).startswith("dh:t:hand:")), None)


def table_id_of(message: Message) -> str:
    m = TABLE_ID.search(message.text)
    if m is None:
        raise AssertionError(f"no table id in {message.text[:200]!r}")
    return m.group(1)


def is_over(fd: FakeDiscord, table_message: Message) -> bool:
    """What a player sees when the game has ended: the table message says finished."""
    text = table_message.text
    return any(words.translate(lang, "{title} — finished").split("{title}")[1] in text for lang in words.LOCALES)


def table_controls(fd: FakeDiscord, table_message: Message) -> Message:
    """Where **My hand** and **I'm back** are during a game, as a person finds them: the game's
    first message in its thread (the table message, in the parent channel, links to the thread), or
    the table message itself when the game is played in the channel."""
    thread = fd.channels.get(table_message.thread_id) if table_message.thread_id else None
    links = [b["url"] for b in table_message.buttons() if b.get("url")]
    if links:  # (a table message posted again after a deletion is no thread's starter: it links to it)
        thread = fd.channels.get(int(links[0].rstrip("/").rsplit("/", 1)[1]))
    if thread is None:
        return table_message
    for mid in thread.messages:
        m = fd.messages[mid]
        if not m.ephemeral and not m.deleted and _hand_button(m) is not None:
            return m
    raise AssertionError(f"no My hand button in the thread of {table_message!r}")


def running_buttons_shown(fd: FakeDiscord, table_message: Message) -> bool:
    """The table message shows a running game's controls: a link to the thread, or My hand."""
    labels = {b.get("label") for b in table_message.buttons()}
    return bool(labels & (in_any_language("Play in the thread") | in_any_language("My hand")))


@dataclass
class SeatLog:
    person: Person
    moves: int = 0
    opened: int = 0  # hand views opened
    replies: list[Reply] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    lost: list[Reply] = field(default_factory=list)  # failed, and forgiven by ``tolerate`` (the bot died)
    why_opened: list[str] = field(default_factory=list)  # why the hand was opened (again) each time


class PlayError(AssertionError):
    pass


async def open_table(host: Person, guests: list[Person], *, game: str = "hearts", options: str | None = None,
                     speed: str | None = None, ai: bool = True, join_by: str = "id",
                     views: dict[int, Reply] | None = None) -> Message:
    """Host opens a table, guests take seats (``/game join id:`` or the Join button), AIs fill the
    rest, the host starts.  Returns the table message.  ``views`` (person id → reply) receives the
    answers that become each person's hand view when the game starts (their join, the host's
    start)."""
    kwargs = {"game": game}
    if options:
        kwargs["options"] = options
    if speed:
        kwargs["speed"] = speed
    new = await host.slash("game new", **kwargs)
    if new.failed or new.ephemeral or new.message is None:
        raise PlayError(f"/game new did not post a table: {new.text!r}")
    table_message = new.message
    tid = table_id_of(table_message)
    for g in guests:
        g.where = host.where
        if join_by == "button":
            r = await g.click(table_message, "Join")
        else:
            r = await g.slash("game join", id=tid)
        joined = said(g, "You joined table `{id}` ({game}). Your hand will show up here when the game starts.",
                      id=tid, game=words.Lazy(engine.get(game).game.title))
        if r.failed or joined not in r.text:
            raise PlayError(f"{g.name} could not join: {r.text!r}")
        if views is not None:
            views[g.id] = r
    if ai:
        r = await host.slash("game ai")
        if r.failed:
            raise PlayError(f"/game ai failed: {r.text!r}")
    r = await host.slash("game start")
    on = (said(host, "The game is on!"), said(host, "The game is on — play in {thread}.").split("{")[0])
    if r.failed or not any(o in r.text for o in on):
        raise PlayError(f"/game start failed: {r.text!r}")
    if views is not None:
        views[host.id] = r
    # The table message is redrawn (at most once a second) with the running game's buttons.
    await host.fd.wait_for(lambda: running_buttons_shown(host.fd, table_message), 5.0, "the running table message")
    return table_message


async def play_seat(
    person: Person,
    table_message: Message,
    *,
    rng: random.Random,
    open_with: str = "mix",
    think: float = 0.0,
    timeout: float = 60.0,
    over: Callable[[], bool] | None = None,
    use: str = "components",
    watch_table: bool = True,
    patience: float = 1.0,
    ready: Callable[[], Awaitable[Any]] | None = None,
    tolerate: Callable[[Reply], bool] | None = None,
    view: Reply | None = None,
) -> SeatLog:
    """Play one seat until the game is over: open the hand, take one of the offered moves (a random
    button, or a random pick in the menu), and when there is nothing to do wait for a ping or for
    the table message to change (``watch_table=False``: only for a ping), looking again anyway after
    ``patience`` seconds.  With ``use="play"`` the person types ``/play`` instead, choosing among
    the autocomplete suggestions (one card at a time for a pass).

    ``ready`` is awaited before every interaction the person sends (a test holds people back while
    the bot is down); a failed interaction for which ``tolerate(reply)`` is true (one the bot was
    killed before answering) goes to :attr:`SeatLog.lost` and the person looks again, instead of
    raising :class:`PlayError`.  ``view``: a reply the bot keeps current as this person's hand view
    (their join or start answer, see :func:`open_table`), used instead of opening the hand.

    The bot keeps an opened hand view current, so the person opens it once and then only clicks on
    it; they open it again only when a ping brings a **My hand** button (the view can no longer be
    kept current), when it is gone, or when it stays silent although they were pinged."""
    fd = person.fd
    done = over or (lambda: is_over(fd, table_message))
    log = SeatLog(person)
    deadline = time.perf_counter() + timeout
    idle = 0.0  # seconds the open hand view has shown nothing to do without changing
    reopen = ""  # why the next opening happens
    stale_after = max(4 * patience, 4.0)
    mark = 0  # the newest message id when the hand view was last drawn: later pings are news
    while not done():
        if time.perf_counter() > deadline:
            raise PlayError(f"{person.name} was still playing after {timeout} s")
        if use == "play":
            mark = fd.ids.last
            if think:
                await asyncio.sleep(think)
            if ready is not None:
                await ready()
            reply = await _play_by_text(person, table_message, rng)
            if reply is not None:
                log.replies.append(reply)
                if reply.failed and tolerate is not None and tolerate(reply):
                    log.lost.append(reply)
                    continue
                if reply.failed:
                    raise PlayError(f"{person.name}'s /play failed: {reply.text}")
                if reply.text.startswith("✅"):
                    log.moves += 1
                    continue
                log.refusals.append(reply.text)
            await _wait_for_news(person, table_message if watch_table else None, mark, done, patience)
            continue
        if view is None:
            mark = fd.ids.last
            if ready is not None:
                await ready()
            view = await _open_hand(person, table_message, rng, open_with)
            log.opened += 1
            log.why_opened.append(reopen or "first")
            log.replies.append(view)
            if view.failed and tolerate is not None and tolerate(view):
                log.lost.append(view)
                view = None
                continue
            if view.failed:
                raise PlayError(f"{person.name}'s hand did not open: {view.text}")
            if said(person, "Your hand") not in view.text:
                if done():
                    break
                log.refusals.append(view.text)
                view = None
                await fd.changed(0.2)
                continue
        msg = view.message
        assert msg is not None
        if msg.deleted:
            view, reopen = None, "view gone"
            continue
        if _has_controls(msg):
            if think:
                await asyncio.sleep(think)
                if not _has_controls(msg):
                    continue  # the view changed while they thought (the clock moved for them): look again
            mark = fd.ids.last
            if ready is not None:
                await ready()
            reply = await _use_controls(person, msg, rng)
            log.replies.append(reply)
            if reply.failed and tolerate is not None and tolerate(reply):
                log.lost.append(reply)
                view = None
                continue
            if reply.failed:
                raise PlayError(f"{person.name}'s move failed: {reply.text}")
            if reply.interaction.callback_type == P.UPDATE_MESSAGE:
                # The same hand view, redrawn: after a move (✅) or a step of a bigger choice.
                log.moves += reply.text.startswith("✅")
                view = reply
            else:
                log.refusals.append(reply.text)
                view, reopen = None, "refused: " + reply.text[:60]
            continue
        # Nothing to do: wait until pinged, the table moves on or the hand view changes (the bot
        # keeps it current), then look at it again.
        seen = len(msg.versions)
        began = time.perf_counter()
        await _wait_for_news(person, table_message if watch_table else None, mark, done, patience, view=msg)
        if done():
            break
        button = _ping_button(person, mark)
        if button is not None:
            # The hand view can no longer be kept current: the ping brings a fresh one.
            mark = fd.ids.last
            if ready is not None:
                await ready()
            view = await person.click(button, custom_id=_hand_button(button)["custom_id"])  # type: ignore[index]
            log.opened += 1
            log.why_opened.append("ping button")
            log.replies.append(view)
            if view.failed and tolerate is not None and tolerate(view):
                log.lost.append(view)
                view = None
            elif view.failed:
                raise PlayError(f"{person.name}'s hand did not open from the ping: {view.text}")
            continue
        # Pings read so far are no news any more (one may be for the move just clicked: a person
        # reacting to their view at once can be faster than the ping).
        mark = fd.ids.last
        if len(msg.versions) != seen or _has_controls(msg):
            idle = 0.0
            continue
        idle += time.perf_counter() - began
        if idle >= stale_after:
            # Silent for long although the bot keeps the view current: look again (a fallback the
            # figures count).
            view, reopen = None, "silent"
            idle = 0.0
    return log


def _ping_button(person: Person, mark: int) -> Message | None:
    """The newest ping to this person since ``mark`` that carries a **My hand** button."""
    for m in reversed(person.pings(mark)):
        if not m.deleted and _hand_button(m) is not None:
            return m
    return None


def _controls(msg: Message) -> dict[str, list[dict[str, Any]]]:
    """The hand view's controls by kind (see ``cogs/table/components.py`` for the custom ids)."""
    out: dict[str, list[dict[str, Any]]] = {"a": [], "m": [], "s": [], "p": [], "k": []}
    for c in P.walk_components(msg.components):
        cid = str(c.get("custom_id") or "")
        if cid.startswith("dh:") and cid[3:4] in out and cid[4:5] == ":":
            out[cid[3]].append(c)
    return out


def _has_controls(msg: Message) -> bool:
    """Whether the hand view offers a move now (Hearts and Tricks show unplayable cards disabled)."""
    c = _controls(msg)
    return bool([b for b in c["a"] if not b.get("disabled")] or c["m"] or c["s"] or c["p"])


async def _use_controls(person: Person, msg: Message, rng: random.Random) -> Reply:
    """One step with the controls a hand view offers: a legal action (a button, or an option of an
    action menu), a pick of exactly N cards, or one part of a pick over several menus then OK."""
    c = _controls(msg)
    if c["p"]:
        ok = next(b for b in c["k"] if b["custom_id"].endswith(":ok"))
        have, need = (int(x) for x in re.search(r"(\d+)/(\d+)", ok.get("label", "0/0")).groups())
        if have == need and not ok.get("disabled"):
            return await person.click(msg, custom_id=ok["custom_id"])
        if have > need:
            clear = next(b for b in c["k"] if b["custom_id"].endswith(":clear"))
            return await person.click(msg, custom_id=clear["custom_id"])
        for menu in c["p"]:
            options = menu.get("options") or []
            chosen = [o["value"] for o in options if o.get("default")]
            free = [o["value"] for o in options if not o.get("default")]
            room = min(len(free), menu.get("max_values", 1) - len(chosen), need - have)
            if room > 0:
                values = chosen + rng.sample(free, room)
                return await person.choose(msg, values, custom_id=menu["custom_id"])
        raise PlayError(f"{person.name} cannot complete the pick ({have}/{need})")
    if c["s"]:
        menu = c["s"][0]
        values = [o["value"] for o in menu.get("options") or []]
        return await person.choose(msg, rng.sample(values, menu.get("min_values", 1)), custom_id=menu["custom_id"])
    choices: list[tuple[dict[str, Any], str | None]] = [(b, None) for b in c["a"] if not b.get("disabled")]
    choices += [(m, o["value"]) for m in c["m"] for o in m.get("options") or []]
    control, value = rng.choice(choices)
    if value is None:
        return await person.click(msg, custom_id=control["custom_id"])
    return await person.choose(msg, [value], custom_id=control["custom_id"])


async def _wait_for_news(person: Person, table_message: Message | None, mark: int, done: Callable[[], bool],
                         patience: float = 1.0, view: Message | None = None) -> None:
    """Until a ping newer than ``mark``, a table message edit or a change of the hand view ``view``
    (at most ``patience`` seconds)."""
    versions = len(table_message.versions) if table_message is not None else 0
    mine = len(view.versions) if view is not None else 0
    end = time.perf_counter() + patience
    while not done():
        if person.pings(mark) or (table_message is not None and len(table_message.versions) != versions):
            return
        if view is not None and (len(view.versions) != mine or view.deleted):
            return
        left = end - time.perf_counter()
        if left <= 0:
            return
        await person.fd.news(user=person.id, message=table_message.id if table_message is not None else None,
                             timeout=min(left, 0.25), also=view.id if view is not None else None)


async def _play_by_text(person: Person, table_message: Message, rng: random.Random) -> Reply | None:
    """``/play cards:`` built from autocomplete suggestions; None when nothing is suggested."""
    where = person.fd.channels.get(table_message.thread_id or table_message.channel_id)
    current = ""
    for _ in range(30):
        choices = await person.autocomplete("play", "cards", current, where=where)
        if not choices:
            return None
        pick = rng.choice(choices)
        if "…" not in pick["name"]:  # (a pick still short of cards ends "… (2 more)", in any language)
            return await person.slash("play", cards=pick["value"], where=where)
        current = pick["value"] + " "
    raise PlayError(f"{person.name} never completed a /play from the suggestions")


async def _open_hand(person: Person, table_message: Message, rng: random.Random, open_with: str) -> Reply:
    use_button = open_with == "button" or (open_with == "mix" and rng.random() < 0.5)
    controls = table_controls(person.fd, table_message) if running_buttons_shown(person.fd, table_message) else None
    if use_button and controls is not None:
        return await person.click(controls, custom_id=_hand_button(controls)["custom_id"])  # type: ignore[index]
    where = person.fd.channels.get(table_message.thread_id or table_message.channel_id)
    return await person.slash("hand", where=where)


def move_of(reply: Reply) -> tuple[str, tuple[str, ...]] | None:
    """The move a click or menu choice asked for, as ``(kind, sorted card codes)`` (compare with a
    logged action code through :func:`move_of_code`); None for anything that is not a move
    (opening a hand, a slash command, a part of a bigger pick)."""
    data = reply.interaction.data
    cid = str(data.get("custom_id") or "")
    parts = cid.split(":")
    if cid.startswith("dh:a:") and len(parts) == 5:
        return move_of_code(parts[4].replace("_", " "))
    if cid.startswith("dh:m:") and data.get("values"):
        return move_of_code(str(data["values"][0]))
    if cid.startswith("dh:s:") and len(parts) == 5:
        return parts[4], tuple(sorted(str(v).split("#", 1)[0] for v in data.get("values") or ()))
    return None


def move_of_code(code: str) -> tuple[str, tuple[str, ...]]:
    """``"pass 4H 2C 3D"`` as ``("pass", ("2C", "3D", "4H"))``."""
    kind, *cards = code.split()
    return kind, tuple(sorted(cards))


def accepted_moves(log: SeatLog) -> list[tuple[str, tuple[str, ...]]]:
    """The moves the bot accepted from this person, in order: each answered with the hand view
    redrawn under a ✅."""
    out = []
    for r in log.replies:
        if r.failed or r.interaction.callback_type != P.UPDATE_MESSAGE or not r.text.startswith("✅"):
            continue
        move = move_of(r)
        if move is not None:
            out.append(move)
    return out
