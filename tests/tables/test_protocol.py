"""The Tricks line protocol (docs/rules.md §2): message format, cards, the lines for each engine event,
what counts as a bad card, and a program player that cannot hang or crash its caller."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
import time
from pathlib import Path

import pytest

from engine.cards import card
from engine.core import Action, Event
from games.tricks.rules import Tricks
from tables.programs.process import MAX_PENDING, ProgramError, ProgramPlayer
from tables.programs.protocol import (
    CLOSED,
    EXIT,
    NOT_READING,
    QUERY_CARD,
    TIMEOUT,
    TOO_LONG,
    Answer,
    Message,
    ProtocolError,
    answer_action,
    event_lines,
    format_message,
    parse_card,
    parse_message,
    read_response,
    response,
    start_game,
)

NAMES = ["Jerry", "Mitch", "Cory", "Jimbo"]
QS, QH, TD, TWO_C = card("QS"), card("QH"), card("TD"), card("2C")


# ---- messages ----------------------------------------------------------------------------------
def test_messages_are_bar_separated_and_end_with_END():
    assert format_message("INFO", "start game", *NAMES) == "|INFO|start game|Jerry|Mitch|Cory|Jimbo|END|"
    assert format_message("QUERY", "card") == QUERY_CARD == "|QUERY|card|END|"
    assert parse_message("|INFO|end trick|11|Mitch|6|END|\n") == Message("INFO", "end trick", ("11", "Mitch", "6"))
    assert parse_message("|QUERY|card|END|\r\n") == Message("QUERY", "card", ())


@pytest.mark.parametrize("line", ["", "hello", "|INFO|cards|END", "INFO|cards|END|", "|INFO|END|",
                                  "|INFO|cards|2C|FIN|", "|RESPONSE|card|QS|END|x"])
def test_lines_that_are_not_messages_are_refused(line):
    with pytest.raises(ProtocolError):
        parse_message(line)


def test_a_field_cannot_hold_a_bar_or_a_line_break():
    for bad in ("a|b", "a\nb"):
        with pytest.raises(ValueError):
            format_message("INFO", "played", bad, "QS")


def test_cards_are_face_then_suit_in_23456789TJQKA_and_SCHD():
    for face in "23456789TJQKA":
        for suit in "SCHD":
            assert parse_card(face + suit).code == face + suit
    assert response(TD) == "|RESPONSE|card|TD|END|"


@pytest.mark.parametrize("text", ["10S", "1S", "qs", "QX", "Q", "QSS", "~R", "", " QS", "♠Q"])
def test_ten_and_one_and_anything_else_are_not_cards(text):
    with pytest.raises(ProtocolError):
        parse_card(text)


def test_a_response_is_exactly_RESPONSE_card_with_one_card():
    assert read_response("|RESPONSE|card|QS|END|\n") is QS
    for bad in ("|RESPONSE|cards|QS|END|", "|INFO|card|QS|END|", "|RESPONSE|card|QS|QH|END|",
                "|RESPONSE|card|END|", "QS"):
        with pytest.raises(ProtocolError):
            read_response(bad)


# ---- the lines for each event ------------------------------------------------------------------
def test_the_messages_of_a_hand_follow_the_rules_sequence():
    assert start_game(NAMES) == "|INFO|start game|Jerry|Mitch|Cory|Jimbo|END|"
    cases = [
        (Event("deal", None, (2, 2, 3, 0, 1)), [(None, "|INFO|start hand|2|END|")]),
        (Event("dealt", 1, (card("6H"), card("7D"), card("AC")), 1), [(1, "|INFO|cards|6H 7D AC|END|")]),
        (Event("trick_start", 2, (11, 2, 3, 0, 1)), [(None, "|INFO|start trick|11|Cory|Jimbo|Jerry|Mitch|END|")]),
        (Event("play", 3, (QS,)), [(None, "|INFO|played|Jimbo|QS|END|")]),
        (Event("trick", 1, (11, 6, QS, QH, TD, TWO_C)), [(None, "|INFO|end trick|11|Mitch|6|END|")]),
        (Event("bad_card", 3, ("floober", -97)), [(None, "|INFO|bad card|Jimbo|floober|END|")]),
        (Event("hand_end", None, (2, 0, 3, 4, 5, 1, 10, 20, 30, 40)), [(None, "|INFO|end hand|2|END|")]),
        (Event("game_end", None, (100, 20, 83, 3)),
         [(None, "|INFO|end game|Jerry 100|Mitch 20|Cory 83|Jimbo 3|END|")]),
    ]
    for event, lines in cases:
        assert event_lines(event, NAMES) == lines


def test_every_engine_event_of_a_game_has_its_line():
    g = Tricks.create(4, {"target": 5}, 3)
    events = g.opening_events()
    while not g.is_over:
        s = g.turn
        events += g.apply(s, Action("play", (g.legal_plays(s)[0],)))
    assert all(event_lines(e, NAMES) for e in events)
    keys = [parse_message(line).key for e in events for _, line in event_lines(e, NAMES)]
    assert keys[:7] == ["start hand", "cards", "cards", "cards", "cards", "start trick", "played"]
    assert keys[-2:] == ["end hand", "end game"] and keys.count("end trick") % 13 == 0


# ---- bad cards ------------------------------------------------------------------------------------
LEGAL = [card("2C"), card("9C")]


@pytest.mark.parametrize(("answer", "what"), [
    (Answer("|RESPONSE|card|floober|END|"), "floober"),
    (Answer("|RESPONSE|card|10C|END|"), "10C"),
    (Answer("|RESPONSE|card|1C|END|"), "1C"),
    (Answer("|RESPONSE|card|AS|END|"), "AS"),  # not in hand, or a revoke: not among the legal cards
    (Answer("hello there"), "hello there"),
    (Answer("|RESPONSE|card|2C|"), "|RESPONSE|card|2C|".replace("|", "?")),
    (Answer(None, TIMEOUT), "(timeout)"),
    (Answer(None, EXIT), "(exit)"),
    (Answer(None, CLOSED), "(closed)"),
    (Answer(None, TOO_LONG), "(too long)"),
])
def test_anything_but_a_legal_card_is_a_bad_card(answer, what):
    action = answer_action(answer, LEGAL)
    assert action.kind == "bad"
    g = Tricks.create(4, {}, 1)
    ev = g.apply(g.turn, Action.parse(action.code))  # the code replays to the same event
    assert ev[0].data[0] == what


def test_a_legal_card_is_played():
    assert answer_action(Answer("|RESPONSE|card|9C|END|"), LEGAL) == Action("play", (card("9C"),))


# ---- a program player -----------------------------------------------------------------------------
def program(code: str, *extra: str) -> str:
    """A shell-style command running ``code`` in a fresh Python."""
    return " ".join(shlex.quote(w) for w in (sys.executable, "-c", code, *extra))


def answering(script_body: str) -> str:
    """A program that runs ``script_body`` for each query, counting them in ``n``."""
    return program(
        "import os, sys, time\n"
        "n = 0\n"
        "for line in sys.stdin:\n"
        "    if not line.startswith('|QUERY|'):\n"
        "        continue\n"
        "    n += 1\n" + "".join("    " + ln + "\n" for ln in script_body.splitlines())
    )


ANSWER = "sys.stdout.write('|RESPONSE|card|' + ('QS' if n == 1 else 'QH') + '|END|\\n'); sys.stdout.flush()"


async def test_a_program_hears_the_lines_and_answers_the_query():
    async with ProgramPlayer(answering(ANSWER), "Ann", timeout=5) as p:
        p.send("|INFO|start game|Ann|Bob|Cy|Di|END|")
        assert await p.ask() == Answer("|RESPONSE|card|QS|END|")
        assert await p.ask() == Answer("|RESPONSE|card|QH|END|")
        assert p.dead is None


async def test_the_name_is_the_first_argument_and_no_shell_reads_the_command():
    code = ("import json, sys\nsys.stdin.readline()\n"
            "print(json.dumps(sys.argv[1:]), flush=True)\nsys.stdin.read()\n")
    async with ProgramPlayer(program(code, ";", "$HOME", "a b"), "Ann", timeout=5) as p:
        answer = await p.ask()
    assert json.loads(answer.line) == [";", "$HOME", "a b", "Ann"]


async def test_blank_lines_are_ignored_and_lines_after_the_answer_are_dropped():
    body = ("sys.stdout.write('\\n\\n|RESPONSE|card|' + ('QS' if n == 1 else 'QH') + '|END|\\nchatter\\n')\n"
            "sys.stdout.flush()")
    async with ProgramPlayer(answering(body), "Ann", timeout=5) as p:
        assert (await p.ask()).line == "|RESPONSE|card|QS|END|"
        assert (await p.ask()).line == "|RESPONSE|card|QH|END|"  # not "chatter"


async def test_a_silent_program_times_out_and_its_next_line_belongs_to_the_timed_out_query():
    # It never answers query 1: the line it prints for query 2 is taken as query 1's late answer
    # and dropped (docs/rules.md §2: the protocol cannot tell the two apart), so query 2 times out too.
    body = "if n > 1:\n    print(f'|RESPONSE|card|{n}S|END|', flush=True)"
    async with ProgramPlayer(answering(body), "Ann", timeout=0.3) as p:
        assert await p.ask() == Answer(None, TIMEOUT)
        assert p.dead is None
        assert await p.ask() == Answer(None, TIMEOUT)
        assert p.late == 1


def gated(gate: Path, when: str = "True") -> str:
    """A script line holding the program (while ``when``) until the test creates ``gate``: the test,
    not a race against the clock, decides that an answer comes after its deadline."""
    return f"while ({when}) and not os.path.exists({str(gate)!r}):\n    time.sleep(0.01)\n"


async def test_a_late_answer_is_dropped_and_never_answers_the_next_query(tmp_path: Path):
    # Stalls once (query 1 answered after its deadline), then answers every query at once: only
    # query 1 is lost, each later query gets its own answer, not the one before it.
    gate = tmp_path / "gate"
    body = gated(gate, "n == 1") + "print(f'|RESPONSE|card|{n + 1}S|END|', flush=True)"
    async with ProgramPlayer(answering(body), "Ann", timeout=0.3) as p:
        assert await p.ask() == Answer(None, TIMEOUT)
        gate.touch()
        p.timeout = 30  # (a deadline for "it answers at all")
        for n in (2, 3, 4, 5):
            assert await p.ask() == Answer(f"|RESPONSE|card|{n + 1}S|END|")
        assert p.late == 1 and p.owed == 0


async def test_a_query_given_up_by_its_caller_owns_the_next_line_too(tmp_path: Path):
    gate = tmp_path / "gate"
    body = gated(gate) + "print(f'|RESPONSE|card|{n + 1}S|END|', flush=True)"
    async with ProgramPlayer(answering(body), "Ann", timeout=30) as p:
        task = asyncio.ensure_future(p.ask())
        await asyncio.sleep(0)  # (the query is sent; the program cannot answer before the gate opens)
        task.cancel()  # the table moved on (the runtime cancels a query whose version is stale)
        with pytest.raises(asyncio.CancelledError):
            await task
        gate.touch()
        assert await p.ask() == Answer("|RESPONSE|card|3S|END|")


async def test_a_program_that_exits_is_dead():
    async with ProgramPlayer(answering("sys.exit(3)"), "Ann", timeout=5) as p:
        assert await p.ask() == Answer(None, EXIT)
        assert p.dead == EXIT
        p.send("|INFO|end hand|0|END|")  # dropped, no error
        assert await p.ask() == Answer(None, EXIT)


async def test_a_program_that_crashes_is_dead():
    async with ProgramPlayer(answering("raise RuntimeError('boom')"), "Ann", timeout=5) as p:
        assert await p.ask() == Answer(None, EXIT)


async def test_a_program_that_closes_its_output_but_runs_on_is_dead():
    async with ProgramPlayer(answering("os.close(1)"), "Ann", timeout=5) as p:
        assert await p.ask() == Answer(None, CLOSED)
        assert p.dead == CLOSED


async def test_an_over_long_line_is_refused_and_the_program_goes_on():
    body = "if n == 1:\n    print('x' * 10000, flush=True)\nelse:\n    " + ANSWER
    async with ProgramPlayer(answering(body), "Ann", timeout=5) as p:
        assert await p.ask() == Answer(None, TOO_LONG)
        assert await p.ask() == Answer("|RESPONSE|card|QH|END|")


async def test_an_endless_line_is_refused_without_waiting_for_its_end():
    body = "sys.stdout.write('y' * 100000); sys.stdout.flush(); time.sleep(60)"
    async with ProgramPlayer(answering(body), "Ann", timeout=30) as p:
        assert await p.ask() == Answer(None, TOO_LONG)


# A program that floods its output (issue 25: 6.5 s of the bot's CPU in a 10 s game) while reading
# its input, so that only its output is at fault.
FLOOD = ("import os, sys, threading\n"
         "threading.Thread(target=lambda: [None for _ in sys.stdin], daemon=True).start()\n"
         "chunk = {chunk!r}\n"
         "while True:\n"
         "    os.write(1, chunk)\n")


async def until_not_reading(p: ProgramPlayer) -> None:
    for _ in range(1000):
        if not p.reading:
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the bot still reads a program that floods it unasked")


async def test_a_program_that_never_ends_its_line_loses_every_turn_at_once_and_is_not_read_unasked():
    async with ProgramPlayer(program(FLOOD.format(chunk=b"x" * 65536)), "Ann", timeout=60) as p:
        for _ in range(3):
            # Each query ends on the over-long line, not at its 60 s deadline.
            assert await p.ask() == Answer(None, TOO_LONG)
            await until_not_reading(p)
        assert p.dead is None and p.owed == 0


async def test_a_program_that_chatters_unasked_is_read_again_when_asked():
    async with ProgramPlayer(program(FLOOD.format(chunk=b"chatter\n" * 8192)), "Ann", timeout=60) as p:
        await until_not_reading(p)
        assert await p.ask() == Answer("chatter")
        await until_not_reading(p)
        assert await p.ask() == Answer("chatter") and p.dead is None


async def test_a_line_written_a_byte_at_a_time_is_read_whole():
    body = "for b in '|RESPONSE|card|QS|END|\\n':\n    sys.stdout.write(b); sys.stdout.flush(); time.sleep(0.002)"
    async with ProgramPlayer(answering(body), "Ann", timeout=30) as p:
        assert await p.ask() == Answer("|RESPONSE|card|QS|END|")
        assert await p.ask() == Answer("|RESPONSE|card|QS|END|")


async def test_the_start_of_a_line_printed_unasked_is_kept():
    # After its first answer (one write), chatter that is dropped, then the start of its next answer.
    body = ("if n == 1:\n"
            "    sys.stdout.write('|RESPONSE|card|QS|END|\\nchatter\\nmore chatter\\n|RESPONSE|card|Q')\n"
            "else:\n"
            "    sys.stdout.write('H|END|\\n')\n"
            "sys.stdout.flush()")
    async with ProgramPlayer(answering(body), "Ann", timeout=30) as p:
        assert await p.ask() == Answer("|RESPONSE|card|QS|END|")
        assert await p.ask() == Answer("|RESPONSE|card|QH|END|")


async def test_a_program_that_stops_reading_is_dropped():
    async with ProgramPlayer(program("import time; time.sleep(60)"), "Ann", timeout=30) as p:
        line = "|INFO|played|Ann|QS|END|"
        for _ in range(2 * MAX_PENDING // len(line)):
            p.send(line)
        assert await p.ask() == Answer(None, NOT_READING)
        assert p.dead == NOT_READING


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"  # a zombie has stopped running
    except (FileNotFoundError, ProcessLookupError):  # gone before, or while, it was read
        return True


async def test_close_kills_the_programs_whole_process_group():
    code = ("import subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            "sys.stdin.readline()\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(60)\n")
    p = ProgramPlayer(program(code), "Ann", timeout=10)
    await p.start()
    child = int((await p.ask()).line)
    parent = p.pid
    await p.close(grace=0.1)
    # The kernel may take a moment to tear the processes down (10 s: "at all", not how soon).
    end = time.monotonic() + 10.0
    while not (_gone(child) and _gone(parent)) and time.monotonic() < end:
        await asyncio.sleep(0.01)
    assert _gone(child) and _gone(parent)


async def test_a_well_behaved_program_exits_by_itself_when_its_input_closes():
    async with ProgramPlayer(answering(ANSWER), "Ann", timeout=5) as p:
        await p.ask()
    p2 = ProgramPlayer(answering(ANSWER), "Bob", timeout=5)
    await p2.start()
    assert await p2.close() == 0


async def test_a_command_that_cannot_start_is_a_program_error():
    with pytest.raises(ProgramError):
        await ProgramPlayer("/nonexistent/program --x", "Ann").start()
    with pytest.raises(ProgramError):
        await ProgramPlayer("   ", "Ann").start()
