"""Seeds and table ids come from ``secrets``: no product code makes them with ``random``.

The engine's generators are all seeded from a game's seed (deterministic replays); anything else
that wants chance — a new game's seed, a table id, even a retry's jitter — takes the operating
system's generator (``secrets.SystemRandom``), never a ``random.Random()`` seeded from nothing or the
module-level ``random`` functions that share one guessable state.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: Product code: what runs in the bot (tests, benches and example clients are not).
PRODUCT = ("engine", "games", "tables", "cogs", "tools")
MODULE_FUNCTIONS = {"random", "shuffle", "choice", "choices", "randint", "randrange", "sample", "uniform",
                    "getrandbits", "randbytes", "seed", "gauss", "betavariate", "expovariate", "triangular"}


def product_files() -> list[pathlib.Path]:
    files = [ROOT / "bot.py"]
    for folder in PRODUCT:
        files += sorted((ROOT / folder).rglob("*.py"))
    return files


def problems_in(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            found += [f"imports random.{a.name}" for a in node.names if a.name in MODULE_FUNCTIONS]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "random":
            if node.func.attr in MODULE_FUNCTIONS:
                found.append(f"line {node.lineno}: random.{node.func.attr}() (the shared module generator)")
            elif node.func.attr == "Random" and not node.args and not node.keywords:
                found.append(f"line {node.lineno}: random.Random() with no seed (use secrets)")
    return found


@pytest.mark.parametrize("path", product_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_product_code_makes_no_seed_or_id_with_random(path):
    assert problems_in(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("bad", ["rng = random.Random()", "seed = random.getrandbits(63)", "random.choice(x)",
                                 "from random import choice", "from random import getrandbits"])
def test_the_check_catches_each_kind_of_slip(bad):
    assert problems_in(bad) != []


@pytest.mark.parametrize("good", ["import secrets\nrng = secrets.SystemRandom()", "rng = random.Random(seed)",
                                  "x = rng.getrandbits(63)", "def f(rng: random.Random) -> None: ..."])
def test_the_check_allows_seeded_and_secure_generators(good):
    assert problems_in(good) == []
