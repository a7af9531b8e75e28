"""Who may do what, and the sentences that say no.

Pure checks over a :class:`~tables.table.Table` (no I/O, no tasks): the runtime calls them under
the table's lock before anything changes.  A refusal is a :class:`~tables.live.TableError` (or the
engine's :class:`~engine.core.IllegalAction`) whose sentence a person reads, so it may depend only
on what that person is allowed to know.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

import engine
from engine.core import TABLE, Action, Game, IllegalAction, Options, refusal
from engine.words import plural
from tables.live import TableError, and_join, md
from tables.table import SPEEDS, Phase, Table
from words import N_, Lazy

log = logging.getLogger("deckhand.tables")

WAIT_FOR_TABLE = N_("It is not your turn — wait a moment for the table.")


@dataclass(frozen=True)
class Limits:
    """How much one person, one server and the whole machine may start (``0``: no limit).

    A person who leaves a running game is free to sit elsewhere, so without a cap per person one
    user could keep any number of games (and their program processes) running."""

    tables_per_person: int = 3  # unfinished tables a person hosts or has left
    running_per_server: int = 50  # games running at once in one server
    programs: int = 16  # program seats at unfinished tables, on this machine


def read_new_table(game: str, options: Options | None, speed: str) -> tuple[str, Options, str]:
    """A new table's game name, validated options and speed, or a refusal that says what is wrong."""
    name = str(game).strip().lower()
    try:
        entry = engine.get(name)
    except KeyError:
        known = ", ".join(sorted(engine.games()))
        raise TableError(N_("There is no game called `{game}`. Games: {known}."), "unknown_game",
                         game=game, known=known) from None
    try:
        opts = entry.game.read_options(options)
    except ValueError as e:
        raise TableError(str(e), "bad_option") from None
    speed_key = str(speed).strip().lower()
    if speed_key not in SPEEDS:
        raise TableError(N_("Speed must be one of: {speeds}."), "bad_speed", speeds=", ".join(SPEEDS))
    return name, opts, speed_key


def ai_name(t: Table, level: str | None = None) -> str:
    used = {s.name.split(" (")[0] for s in t.seats}  # "AI 2 (strong)" takes number 2 too
    n = 1
    while f"AI {n}" in used:
        n += 1
    return f"AI {n}" if level is None else f"AI {n} ({level})"


def ai_level(t: Table, level: str | None) -> str | None:
    """The AI level a host asked for (None: ``normal``), or a refusal naming the levels offered."""
    if level is None or str(level).strip().lower() in ("", "normal"):
        return None
    wanted = str(level).strip().lower()
    offered = engine.levels(t.game)
    if wanted not in offered:
        raise TableError(N_("{game} has no AI level `{level}`; levels: {levels}."), "bad_level",
                         game=Lazy(t.spec.game.title), level=md(wanted[:20]),
                         levels=", ".join(f"`{lv}`" for lv in offered))
    return wanted


def table_ai_level(game: str, level: str | None) -> str | None:
    """A new table's default AI level (the option ``ai``; None: ``normal``), or a refusal for a
    game that has no such level."""
    wanted = str(level or "normal").strip().lower()
    if wanted == "normal":
        return None
    offered = engine.levels(game)
    if wanted not in offered:
        title = engine.get(game).game.title
        if len(offered) == 1:
            raise TableError(no_strong_ai(title), "bad_level")
        raise TableError(N_("{game} has no AI level `{level}`; levels: {levels}."), "bad_level",
                         game=Lazy(title), level=md(wanted[:20]), levels=", ".join(f"`{lv}`" for lv in offered))
    return wanted


def no_strong_ai(title: str) -> str:
    strong = ", ".join(engine.get(g).game.title for g in sorted(engine.games()) if "strong" in engine.levels(g))
    return (f"{title} has only the normal AI, so it has no `ai` option (a strong AI plays {strong}).")


def check_new_table(limits: Limits, tables: Iterable[Table], user_id: int) -> None:
    """Refuse a new table to a person who already hosts (or left) as many unfinished tables as allowed."""
    cap = limits.tables_per_person
    if cap <= 0:
        return
    mine = []
    for t in tables:
        if t.phase == Phase.FINISHED:
            continue
        s = t.seat_of(user_id)
        if t.host_id == user_id or (s is not None and t.seats[s].left):
            mine.append(t)
    if len(mine) >= cap:
        ids = ", ".join(f"`{t.id}`" for t in mine[:5])
        raise TableError(
            N_("You already have {count} unfinished tables ({ids}), the most one person may have. "
               "End one with `/game end`, or finish it, before you open another."),
            "too_many_tables", count=len(mine), ids=ids,
        )


def check_start(limits: Limits, tables: Iterable[Table], guild_id: int) -> None:
    cap = limits.running_per_server
    if cap <= 0:
        return
    running = sum(1 for t in tables if t.guild_id == guild_id and t.phase == Phase.RUNNING)
    if running >= cap:
        raise TableError(
            f"This server already has {plural(running, 'game')} running, the most Deckhand runs here at once. "
            "Try again when one of them ends.",
            "server_full",
        )


def check_programs(limits: Limits, tables: Iterable[Table], more: int) -> None:
    cap = limits.programs
    if cap <= 0:
        return
    seated = sum(1 for t in tables if t.phase != Phase.FINISHED for s in t.seats if s.program)
    room = cap - seated
    if more <= room:
        return
    # The sentence is about the host's request: the machine-wide figures alone read as nonsense
    # ("already running 15 programs, the most this machine allows (16)" to a host who asked for 3).
    if room <= 0:
        raise TableError(N_("This machine is already running as many programs as it can. Seat the built-in AI "
                            "instead, or try again when a game with programs ends."), "too_many_programs")
    if room == 1:
        raise TableError(N_("You asked for {more} program seats, but this machine can run only one more program "
                            "right now. Ask for 1, seat the built-in AI instead, or try again when a game with "
                            "programs ends."), "too_many_programs", more=more)
    raise TableError(N_("You asked for {more} program seats, but this machine can run only {room} more programs "
                        "right now. Ask for {room}, seat the built-in AI instead, or try again when a game with "
                        "programs ends."), "too_many_programs", more=more, room=room)


def require_host(t: Table, user_id: int, what: str) -> None:
    if user_id != t.host_id:
        raise TableError(N_("Only the host, {name}, can {what}."), "not_host", name=md(t.host_name), what=Lazy(what))


def require_running(t: Table) -> None:
    if t.phase == Phase.LOBBY:
        raise TableError(N_("The game has not started yet."), "not_running")
    if t.phase == Phase.FINISHED:
        raise TableError(N_("This game is over."), "finished")


def refuse_if_elsewhere(tables: Iterable[Table], guild_id: int, user_id: int, here: Table | None) -> None:
    """One table per person per server keeps /hand and /play unambiguous."""
    for other in tables:
        if other is here or other.guild_id != guild_id or other.phase == Phase.FINISHED:
            continue
        s = other.seat_of(user_id)
        if s is not None and not other.seats[s].left:
            raise TableError(
                N_("You are already seated at table `{id}` ({game}); leave it first with `/game leave`."),
                "elsewhere", id=other.id, game=Lazy(other.spec.game.title),
            )


def not_your_turn(t: Table) -> str:
    """The sentence for a move out of turn.  It names only seats that *must* act: while the table
    itself acts (a deal, a private look at the cards) the seats in ``to_act`` are those whose hidden
    cards allow an optional move (a declaration, a revolution), so naming them would tell who holds
    what — then it names nobody."""
    if t.state is not None and TABLE in t.state.to_act():
        return WAIT_FOR_TABLE
    acting = [md(t.seats[s].name) for s in t.to_act()]
    if not acting:
        return N_("Nobody can move right now.")
    if len(acting) == 1:
        return f"It is not your turn — {acting[0]} is playing."
    return f"It is not your turn — waiting for {and_join(acting)}."


def not_your_turn_error(t: Table) -> TableError:
    """:func:`not_your_turn` as a refusal said in the reader's language."""
    if t.state is not None and TABLE in t.state.to_act():
        return TableError(WAIT_FOR_TABLE, "not_your_turn")
    acting = [md(t.seats[s].name) for s in t.to_act()]
    if not acting:
        return TableError(N_("Nobody can move right now."), "not_your_turn")
    if len(acting) == 1:
        return TableError(N_("It is not your turn — {who} is playing."), "not_your_turn", who=acting[0])
    return TableError(N_("It is not your turn — waiting for {who}."), "not_your_turn", who=", ".join(acting))


def check_offered(state: Game, seat: int, action: Action) -> None:
    """A person may take only what their decision offers.  The engine would accept more from
    the runtime itself (the ``bad`` card of a game of programs, applied for a program), and a component's custom
    id arrives from the client, so a crafted click must not reach those."""
    decision = state.decision(seat)
    if decision is None:
        return
    if decision.pick:
        offered = action.kind == decision.kind
    else:
        # Compared by code too: a game may build equal actions as different objects.
        offered = action in decision.actions or action.code in {a.code for a in decision.actions}
    if offered:
        return
    # Not offered: say why in the game's own words ("You must follow suit"), which only the
    # engine knows (it tries the move on a copy, so nothing changes whatever it answers).
    try:
        refused = refusal(state, seat, action)
    except Exception:
        log.exception("Explaining a refused %r for seat %d failed", action.kind, seat)  # no cards in logs
        refused = None
    if refused is not None:
        raise IllegalAction(refused.phrase, refused.code)
    raise IllegalAction(N_("That is not something you can do right now."), "not_offered")
