"""The engine and the games' pure parts stay pure: no Discord, no asyncio, no I/O or clock, no
module-level random (a game's screens.py and faces.py are its Discord side)."""

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"
DISCORD_SIDE = ("screens", "faces")
PURE = sorted([*ENGINE.rglob("*.py"), *(p for p in (ROOT / "games").rglob("*.py") if p.stem not in DISCORD_SIDE)])
FORBIDDEN_MODULES = {"discord", "asyncio", "sqlite3", "aiosqlite", "time", "datetime", "os", "socket",
                     "subprocess", "threading", "aiohttp", "tables", "cogs"}
RANDOM_FUNCTIONS = {"random", "shuffle", "choice", "choices", "randint", "randrange", "sample", "uniform",
                    "getrandbits", "seed", "gauss"}


def problems_in(source: str) -> list[str]:
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FORBIDDEN_MODULES:
                    found.append(f"imports {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            if root in FORBIDDEN_MODULES:
                found.append(f"imports from {node.module}")
            if root == "random":
                for alias in node.names:
                    if alias.name in RANDOM_FUNCTIONS:
                        found.append(f"imports random.{alias.name}")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "random":
            if node.attr in RANDOM_FUNCTIONS:
                found.append(f"calls random.{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("open", "print",
                                                                                                "input"):
            found.append(f"calls {node.func.id}()")
    return found


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_module_is_pure(path):
    assert problems_in(path.read_text()) == []


@pytest.mark.parametrize(
    "bad",
    ["import discord", "import asyncio", "from time import time", "import sqlite3", "random.shuffle(x)",
     "from random import choice", "x = random.random()", "open('f')", "import time as t"],
)
def test_the_purity_check_catches_each_kind_of_slip(bad):
    assert problems_in(bad) != []


def test_the_purity_check_allows_an_injected_generator():
    assert problems_in("import random\nrng = random.Random(3)\nrng.shuffle(x)\n") == []
