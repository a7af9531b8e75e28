"""The Tricks arena: seeded games between programs and built-in AIs, message for message.

Golden transcripts live in ``tests/tables/golden/<case>/game0-seat{s}.txt``.  To regenerate them
after a deliberate change, run this file with ``DECKHAND_REGEN_GOLDEN=1`` (or the arena command
named in each case's docstring with ``--transcript``) and review the diff.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from tables.programs.arena import default_names, main, play_game, write_transcripts
from tables.programs.protocol import parse_message

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent / "golden"
REGEN = os.environ.get("DECKHAND_REGEN_GOLDEN") == "1"
PY = shlex.quote(sys.executable)
PY_CLIENT = f"{PY} {shlex.quote(str(ROOT / 'clients' / 'python_client.py'))}"
JS_CLIENT = f"node {shlex.quote(str(ROOT / 'clients' / 'js_client.js'))}"


def check_golden(case: str, result, tmp_path: Path) -> None:
    fresh = tmp_path / case
    write_transcripts(result, str(fresh), 0)
    golden = GOLDEN / case
    if REGEN:
        write_transcripts(result, str(golden), 0)
    names = sorted(p.name for p in fresh.iterdir())
    assert names == [f"game0-seat{s}.txt" for s in range(4)]
    assert sorted(p.name for p in golden.iterdir()) == names
    for name in names:
        assert (fresh / name).read_text() == (golden / name).read_text(), f"{case}/{name} differs from the golden file"


# ---- golden transcripts --------------------------------------------------------------------------
async def test_four_ai_game_transcript_matches_the_golden_file(tmp_path):
    """``python -m tables.programs.arena tricks ai ai ai ai --seed 7 --target 20 --transcript DIR``"""
    result = await play_game(["ai"] * 4, seed=7, target=20, record=True)
    assert result.hands >= 2  # the order rotates at least once
    check_golden("tricks-4ai-seed7-t20", result, tmp_path)


async def test_example_clients_game_transcript_matches_the_golden_file(tmp_path):
    """``python -m tables.programs.arena tricks "python3 clients/python_client.py" "node clients/js_client.js"
    "python3 clients/python_client.py" "node clients/js_client.js" --seed 3 --target 15 --transcript DIR``"""
    result = await play_game([PY_CLIENT, JS_CLIENT, PY_CLIENT, JS_CLIENT], seed=3, target=15, record=True)
    assert result.names == ["python_client1", "js_client1", "python_client2", "js_client2"]
    check_golden("tricks-clients-seed3-t15", result, tmp_path)


def test_a_transcript_is_every_line_in_protocol_order():
    text = (GOLDEN / "tricks-4ai-seed7-t20" / "game0-seat2.txt").read_text().splitlines()
    assert text[0] == "# seat 2: AI3"
    lines = [ln for ln in text[1:] if ln.startswith("|")]
    keys = [parse_message(ln).key for ln in lines]
    assert keys[0] == "start game" and keys[-1] == "end game"
    assert keys[1:4] == ["start hand", "cards", "start trick"]
    # Every query is answered right after it, and every answer is then announced as played.
    answers = [i for i, ln in enumerate(text) if ln.startswith("> ")]
    assert answers and all(text[i - 1] == "|QUERY|card|END|" for i in answers)
    assert all(text[i + 1].startswith("|INFO|played|AI3|") for i in answers)
    assert keys.count("end trick") == 13 * keys.count("end hand")
    # Hand h's first trick is led by seat h mod 4: the first player becomes the last.
    names = ["AI1", "AI2", "AI3", "AI4"]
    for i, ln in enumerate(lines):
        m = parse_message(ln)
        if m.key == "start hand":
            h = int(m.data[0])
            first_trick = parse_message(lines[i + 2])
            assert first_trick.data == ("0", *(names[(h + k) % 4] for k in range(4)))


# ---- the two example clients ---------------------------------------------------------------------
async def test_the_python_and_node_example_clients_finish_a_game():
    result = await play_game([JS_CLIENT, PY_CLIENT, JS_CLIENT, PY_CLIENT], seed=11, target=30)
    assert result.bad_cards == [0, 0, 0, 0] and result.retired == [None] * 4
    assert max(result.scores) >= 30 and result.winners
    assert sum(result.scores) == 13 * result.hands


# ---- bad cards of every kind ---------------------------------------------------------------------
MISBEHAVE = r'''
import os, sys
MODE, NAME = sys.argv[1], sys.argv[2]
FACES = "23456789TJQKA"
hand, trick, done = [], [], False

def send(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()

def answer(card):
    send("|RESPONSE|card|" + card + "|END|")

def legal():
    follow = [c for c in hand if trick and c[1] == trick[0][1]]
    return follow or hand

def misbehave():
    """Misbehave once, at the first query where MODE can; True when it did."""
    if MODE == "revoke":
        if trick and legal() != hand:
            answer(next(c for c in hand if c[1] != trick[0][1]))
            return True
        return False
    if MODE in ("unparseable", "always_garbage"):
        answer("floober")
    elif MODE == "ten":
        answer("10" + hand[0][1])
    elif MODE == "not_in_hand":
        answer(next(f + s for s in "SCHD" for f in FACES if f + s not in hand))
    elif MODE == "exit":
        sys.exit(0)
    elif MODE == "crash":
        raise RuntimeError("a bug")
    elif MODE == "closed":
        os.close(1)
        for _ in sys.stdin:
            pass
    elif MODE == "garbage":
        send("hello there")
    elif MODE == "too_long":
        send("x" * 10000)
    elif MODE == "hang":
        import time
        time.sleep(60)
    elif MODE == "timeout":
        # Stall past the deadline, then answer: the late answer must be dropped, not taken as the
        # answer to the next query (which would play a card of the abandoned hand: a second bad card).
        # Past the deadline for sure: it answers only once it hears the next line, which the table
        # sends only after giving up on this query (no sleep racing the deadline).
        global late
        late = min(legal(), key=lambda c: FACES.index(c[0]))
    return True

late = None
for line in sys.stdin:
    if late is not None:
        answer(late)
        late = None
    parts = line.strip().split("|")
    if len(parts) < 5:
        continue
    kind, key, data = parts[1], parts[2], parts[3:-2]
    if key == "cards":
        hand = data[0].split()
    elif key == "start trick":
        trick = []
    elif key == "played":
        trick.append(data[1])
        if data[0] == NAME and data[1] in hand:
            hand.remove(data[1])
    elif kind == "QUERY":
        if (not done or MODE == "always_garbage") and misbehave():
            done = True
            continue
        answer(min(legal(), key=lambda c: FACES.index(c[0])))
'''

NAMES = ["bad", "py", "AI1", "AI2"]


@pytest.fixture
def misbehave(tmp_path) -> str:
    path = tmp_path / "misbehave.py"
    path.write_text(MISBEHAVE)
    return f"{PY} {shlex.quote(str(path))}"


def _lines(result, seat: int) -> list[str]:
    return [ln for ln in result.transcripts[seat] if ln.startswith("|")]


def _hand_at(own: list[str], stop: int) -> set[str]:
    """The cards seat "bad" held after the first ``stop`` lines of its own transcript."""
    held: set[str] = set()
    for ln in own[:stop]:
        m = parse_message(ln)
        if m.key == "cards":
            held = set(m.data[0].split())
        elif m.key == "played" and m.data[0] == "bad":
            held.discard(m.data[1])
    return held


def _led_suit_at(lines: list[str], stop: int) -> str | None:
    led = None
    for ln in lines[:stop]:
        m = parse_message(ln)
        if m.key == "start trick":
            led = None
        elif m.key == "played" and led is None:
            led = m.data[1][1]
    return led


@pytest.mark.parametrize(("mode", "what", "retired"), [
    ("unparseable", "floober", None),
    ("ten", r"10[SCHD]", None),
    ("not_in_hand", "NOT_IN_HAND", None),
    ("revoke", "REVOKE", None),
    ("timeout", r"\(timeout\)", None),
    ("exit", r"\(exit\)", "exit"),
    ("crash", r"\(exit\)", "exit"),
    ("closed", r"\(closed\)", "closed"),
    ("garbage", "hello there", None),
    ("too_long", r"\(too long\)", None),
])
async def test_a_bad_card_costs_100_and_deals_afresh_leaving_the_others_undisturbed(misbehave, mode, what, retired):
    # (the production deadline: the well-behaved program is never bet to answer faster than that)
    result = await play_game([f"{misbehave} {mode}", PY_CLIENT, "ai", "ai"], seed=5, target=15,
                             names=NAMES, record=True)
    assert result.bad_cards == [1, 0, 0, 0]
    assert result.retired == [retired, None, None, None]
    other = _lines(result, 1)  # what the well-behaved program heard
    i = next(k for k, ln in enumerate(other) if ln.startswith("|INFO|bad card|"))
    bad_line = parse_message(other[i])
    assert bad_line.data[0] == "bad"
    shown = bad_line.data[1]
    # The card the program sent, judged against the hand it held and the suit led.
    own = _lines(result, 0)
    held = _hand_at(own, own.index(other[i]) if other[i] in own else len(own))
    if what == "NOT_IN_HAND":
        assert re.fullmatch(r"[2-9TJQKA][SCHD]", shown) and shown not in held
    elif what == "REVOKE":
        led = _led_suit_at(other, i)
        assert shown in held and shown[1] != led and any(c[1] == led for c in held)
    else:
        assert re.fullmatch(what, shown)
    # The hand is abandoned: end hand, then a fresh deal of the next hand, led by its first player.
    hand = int(parse_message(next(ln for ln in reversed(other[:i]) if ln.startswith("|INFO|start hand|"))).data[0])
    assert other[i + 1] == f"|INFO|end hand|{hand}|END|"
    assert other[i + 2] == f"|INFO|start hand|{hand + 1}|END|"
    assert other[i + 3].startswith("|INFO|cards|") and other[i + 3] != next(
        ln for ln in reversed(other[:i]) if ln.startswith("|INFO|cards|"))
    first = NAMES[(hand + 1) % 4]
    assert parse_message(other[i + 4]).data[:2] == ("0", first)
    # −100, and the tricks it had won before still count.
    won = sum(1 for ln in other if ln.startswith("|INFO|end trick|") and parse_message(ln).data[1] == "bad")
    assert result.scores[0] == won - 100
    # The others played on: every query to the good program was answered with a legal card.
    queries = result.transcripts[1].count("|QUERY|card|END|")
    assert queries == sum(1 for ln in other if ln.startswith("|INFO|played|py|"))
    assert max(result.scores) >= 15


async def test_a_program_that_keeps_answering_garbage_is_retired_after_the_strikes(misbehave):
    result = await play_game([PY_CLIENT, f"{misbehave} always_garbage", "ai", "ai"], seed=2, target=15,
                             strikes=3, names=NAMES, record=True)
    assert result.bad_cards == [0, 3, 0, 0] and result.retired == [None, "3 bad cards", None, None]
    assert any(ln.startswith("# retired (3 bad cards)") for ln in result.transcripts[1])
    assert max(result.scores) >= 15


async def test_a_program_that_hangs_is_retired_after_its_timeouts(misbehave):
    result = await play_game([f"{misbehave} hang", PY_CLIENT, "ai", "ai"], seed=4, target=10,
                             strikes=2, names=NAMES)
    assert result.bad_cards == [2, 0, 0, 0] and result.retired[0] == "2 bad cards"
    assert max(result.scores) >= 10


# ---- the command line ------------------------------------------------------------------------------
def test_names_come_from_the_commands_and_are_numbered_when_repeated():
    assert default_names(["ai", "python3 clients/python_client.py", "ai", "node ./js_client.js --fast"]) == [
        "AI1", "python_client", "AI2", "js_client"]


def test_the_command_line_plays_prints_standings_and_writes_transcripts(tmp_path, capsys):
    out_dir = tmp_path / "t"
    assert main(["tricks", "ai", "ai", "ai", "ai", "--games", "2", "--seed", "1", "--target", "5",
                 "--transcript", str(out_dir)]) == 0
    printed = capsys.readouterr().out
    assert "2 game(s)" in printed and "AI4" in printed
    assert sorted(p.name for p in out_dir.iterdir()) == [f"game{g}-seat{s}.txt" for g in (0, 1) for s in range(4)]


def test_the_command_line_refuses_a_program_that_cannot_start(capsys):
    assert main(["tricks", "ai", "/nonexistent/player", "ai", "ai", "--target", "5"]) == 2
    assert "Cannot start" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["tricks", "ai", "ai", "ai"], ["hearts", "ai", "ai", "ai", "ai"],
                                  ["tricks", "ai", "ai", "ai", "ai", "--names", "a,a,b,c"],
                                  ["tricks", "ai", "ai", "ai", "ai", "--timeout", "0"]])
def test_the_command_line_refuses_bad_arguments(args):
    with pytest.raises(SystemExit):
        main(args)
