"""The line protocol for players that are programs (docs/rules.md, "Programs as players").

It speaks of one game: the registered game whose spec carries program rules
(``GameSpec.programs``, engine/programs.py), which :func:`program_rules` finds.

A program player is a process that talks on stdin/stdout, one message a line::

    |MESSAGE_TYPE|MESSAGE_KEY|DATA...|END|

Faces are ``23456789TJQKA``, suits ``SCHD`` (so ``10S`` and ``1S`` are bad cards).  What a player
hears, in order (hands and the trick numbers count from 0; names are the seats' names)::

    |INFO|start game|n1|n2|n3|n4|END|              seat order
    |INFO|start hand|h|END|                         per hand
    |INFO|cards|6H 7D AC ...|END|                   privately, the 13 cards dealt
    |INFO|start trick|t|leader|n|n|n|END|           per trick: players in order, leader first
    |QUERY|card|END|                                to each player in turn, answered by
    |RESPONSE|card|QS|END|                          ... this
    |INFO|played|name|QS|END|                       each valid card
    |INFO|end trick|t|winner|running total|END|     the winner's game score after the trick
    |INFO|end hand|h|END|                          after the hand's last trick
    |INFO|bad card|name|what|END|                   a bad answer, then end hand and a fresh deal
    |INFO|end game|n1 s1|n2 s2|n3 s3|n4 s4|END|     seat order

``bad card`` carries what the program answered, as the seed's example does (the card field of a
well-formed response, else the whole line, cut to 40 characters and without ``|``), or, when it
answered nothing, ``(timeout)``, ``(exit)``, ``(closed)`` (it closed its output but still runs),
``(too long)`` (a line over :data:`MAX_LINE` bytes) or ``(not reading)`` (it stopped reading its
input).

:class:`ProgramPlayer` runs one program: never through a shell (``shlex.split(command)`` plus the
player's name as its first argument), in its own process group, below a leash (Linux,
:mod:`tables.programs.leash`) that kills its whole process tree when the bot closes it or dies, even by
SIGKILL; close also sweeps the tree by its mark (see :mod:`tables.programs.procs`).  A program can be slow,
silent, noisy, dead or hostile; none of it can hang or crash the caller, nor keep it busy: every
answer has a deadline; output is looked at once per byte, lines are bounded and an over-long one
ends the query at once; unsolicited output is discarded, and past :data:`MAX_UNASKED` bytes of it
the program is not read at all until its next query (it waits on its full pipe, at no cost to the
bot); a program that stops reading its input is dropped before its pending output can fill memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import engine
from engine.cards import Card, card
from engine.core import Action, Event
from engine.programs import ProgramRules

FACES = "23456789TJQKA"
SUITS = "SCHD"
END = "END"
QUERY_CARD = "|QUERY|card|END|"
DEFAULT_TIMEOUT = 2.0
TIMEOUT, EXIT, CLOSED, TOO_LONG, NOT_READING = "timeout", "exit", "closed", "too long", "not reading"
#: Problems after which the program can never answer again.
FATAL = frozenset({EXIT, CLOSED, NOT_READING})


class ProtocolError(ValueError):
    """A line that does not follow the protocol.  ``text`` is what a ``bad card`` line reports."""

    def __init__(self, reason: str, text: str) -> None:
        super().__init__(reason)
        self.text = text


class Message(NamedTuple):
    type: str
    key: str
    data: tuple[str, ...] = ()


# ---- messages ----------------------------------------------------------------------------------
def format_message(type_: str, key: str, *data: object) -> str:
    """One protocol line, without its newline.  Fields must not hold ``|`` or line breaks."""
    fields = [type_, key, *(str(d) for d in data)]
    for f in fields:
        if "|" in f or "\n" in f or "\r" in f:
            raise ValueError(f"A protocol field cannot hold '|' or a line break: {f!r}.")
    return "|" + "|".join(fields) + "|" + END + "|"


def program_game() -> engine.GameSpec:
    """The game programs play: the registered game whose spec offers program seats."""
    for spec in engine.games().values():
        if spec.programs is not None:
            return spec
    raise LookupError("No registered game offers program seats.")


def program_rules() -> ProgramRules:
    """What the game programs play tells the protocol (engine/programs.py)."""
    rules = program_game().programs
    assert rules is not None
    return rules


def clean_bad_text(text: str) -> str:
    """What a bad answer said, as the game carries it (safe to show and to log)."""
    return program_rules().clean(text)


def parse_message(line: str) -> Message:
    """Read one line (a trailing newline or carriage return is allowed)."""
    text = line.rstrip("\r\n")
    parts = text.split("|")
    # "|A|B|END|" splits into ["", "A", "B", "END", ""].
    if len(parts) < 5 or parts[0] or parts[-1] or parts[-2] != END:
        raise ProtocolError(f"Not a protocol message: {text!r}.", clean_bad_text(text))
    return Message(parts[1], parts[2], tuple(parts[3:-2]))


def parse_card(text: str) -> Card:
    """A card exactly as the protocol writes it: face then suit, ``QS``, ``TD``."""
    if len(text) != 2 or text[0] not in FACES or text[1] not in SUITS:
        raise ProtocolError(f"{text!r} is not a card (faces {FACES}, suits {SUITS}).", clean_bad_text(text))
    return card(text)


def card_text(c: Card) -> str:
    return c.code


def response(c: Card) -> str:
    """A program's answer to ``|QUERY|card|END|``."""
    return format_message("RESPONSE", "card", card_text(c))


def read_response(line: str) -> Card:
    """The card in a ``|RESPONSE|card|XX|END|`` line; :class:`ProtocolError` for anything else."""
    msg = parse_message(line)
    if msg.type != "RESPONSE" or msg.key != "card" or len(msg.data) != 1:
        raise ProtocolError(f"Expected |RESPONSE|card|XX|END|, got {line.strip()!r}.", clean_bad_text(line))
    return parse_card(msg.data[0])


def start_game(names: Sequence[str]) -> str:
    return format_message("INFO", "start game", *names)


def _who(names: Sequence[str], event: Event) -> str:
    """The name of the seat an event is about (a play, a trick's winner, a bad card: always a seat)."""
    if event.seat is None:
        raise ValueError(f"a {event.kind!r} event names no seat")
    return names[event.seat]


def event_lines(event: Event, names: Sequence[str]) -> list[tuple[int | None, str]]:
    """The protocol lines for one engine event: ``(seat, line)`` with ``seat`` ``None`` for
    every player.  Events the protocol does not speak of give no line."""
    k, d = event.kind, event.data
    if k == "deal":
        return [(None, format_message("INFO", "start hand", d[0]))]
    if k == "dealt":
        return [(event.to, format_message("INFO", "cards", " ".join(card_text(c) for c in d)))]
    if k == "trick_start":
        return [(None, format_message("INFO", "start trick", d[0], *(names[s] for s in d[1:])))]
    if k == "play":
        return [(None, format_message("INFO", "played", _who(names, event), card_text(d[0])))]
    if k == "trick":
        return [(None, format_message("INFO", "end trick", d[0], _who(names, event), d[1]))]
    if k == "bad_card":
        return [(None, format_message("INFO", "bad card", _who(names, event), d[0]))]
    if k == "hand_end":
        return [(None, format_message("INFO", "end hand", d[0]))]
    if k == "game_end":
        return [(None, format_message("INFO", "end game", *(f"{names[s]} {d[s]}" for s in range(len(names)))))]
    return []


class Answer(NamedTuple):
    """What a program said to a query: its ``line``, or ``None`` and the ``problem``."""

    line: str | None
    problem: str | None = None


def answer_action(answer: Answer, legal: Sequence[Card]) -> Action:
    """The engine action for a program's answer: ``play`` for a legal card, else ``bad`` carrying
    what it said (unreadable, ``10S``, not in its hand, not following suit, nothing at all)."""
    rules = program_rules()
    if answer.line is None:
        return Action(rules.bad, (), (f"({answer.problem})",))
    try:
        c = read_response(answer.line)
    except ProtocolError as e:
        return Action(rules.bad, (), tuple(e.text.split()))
    if c not in legal:
        return Action(rules.bad, (), (c.code,))
    return rules.play(c)
