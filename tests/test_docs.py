"""The project documents itself: the user docs stay inside the repository and say everything a
player can set, type or press."""

from __future__ import annotations

import re
from pathlib import Path

import discord
import pytest

import engine
from cogs.table import options
from cogs.table.components import _TABLE_BUTTONS
from cogs.table.game import GameCog
from cogs.table.stats import StatsCog
from tests import wargame

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules.md"
COMMANDS = ROOT / "docs" / "commands.md"


def user_docs() -> list[Path]:
    """What a user reads in their own clone: the README, everything in docs/, the clients' README."""
    return [ROOT / "README.md", ROOT / "clients" / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def sections(text: str) -> dict[str, str]:
    """``## Title`` (or ``## 3. Title``: a game's numbered section, which code cites as §3) → the text
    up to the next ``## ``."""
    parts = re.split(r"^## (?:\d+\. )?(.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def test_user_docs_never_point_outside_the_repository() -> None:
    docs = user_docs()
    assert len(docs) >= 5
    for path in docs:
        text = path.read_text()
        assert "../shared" not in text and "shared/RULES" not in text and "shared/DISCORD" not in text, path


def test_the_readme_and_the_clients_readme_link_the_docs() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "(docs/rules.md)" in readme and "(docs/commands.md)" in readme
    clients = (ROOT / "clients" / "README.md").read_text()
    assert "(../docs/rules.md" in clients
    for path in user_docs():  # every relative link leads to a file of the repository
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", path.read_text()):
            assert (path.parent / target).resolve().exists(), (path, target)


@pytest.mark.parametrize("game", wargame.every_game())
def test_every_option_a_game_accepts_is_in_the_rule_book(game: str) -> None:
    with wargame.registered():  # War (games/war/), the sixth game, too
        _options_in_the_rule_book(game)


def _options_in_the_rule_book(game: str) -> None:
    by_title = sections(RULES.read_text())
    title = engine.get(game).game.title
    assert title in by_title, f"docs/rules.md has no section '## {title}'"
    text = by_title[title]
    for opt in options.spec(game):
        where = text if opt.name not in ("speed", "ai", "ahead") else RULES.read_text()
        row = next((line for line in where.splitlines() if line.startswith(f"| `{opt.name}` |")), None)
        assert row is not None, f"{title}: option {opt.name} is not described in docs/rules.md"
        if opt.choices:
            for v in opt.choices:
                assert f"`{options.number(v)}`" in row, (title, opt.name, v)
            assert f"`{options.number(opt.default)}` (default)" in row, (title, opt.name)
        else:
            assert f"from {opt.low} to {opt.high}" in row, (title, opt.name, row)
            assert f"default `{options.number(opt.default)}`" in row, (title, opt.name, row)


def test_the_rule_book_states_the_newest_rulings() -> None:
    by_title = sections(RULES.read_text())
    dalmuti, koth, siege, tricks = (by_title[t] for t in ("The Great Dalmuti", "King of the Hill", "Siege", "Tricks"))
    g = engine.get("dalmuti").game
    assert f"{g.min_players} to {g.max_players} players" in dalmuti
    assert "private look" in dalmuti and "revolution" in dalmuti
    assert "15 s to call a card" in koth and "nobody is enlisted" in koth.lower()
    assert "5 s to choose the trump suit" in koth
    assert "5 cards, on top of any cards you already hold" in siege
    assert "one late line is dropped" in tricks
    assert "50" in tricks and "1000" in tricks


def _commands(cog: type) -> list[tuple[str, list[str]]]:
    """``(/path, [option names])`` of every slash command a cog defines."""
    out = []
    for cmd in cog.__cog_app_commands__:
        subs = cmd.commands if isinstance(cmd, discord.app_commands.Group) else [cmd]
        for sub in subs:
            out.append((f"/{sub.qualified_name}", [p.name for p in sub.parameters]))
    return out


def test_the_command_guide_has_every_command_option_and_button() -> None:
    text = COMMANDS.read_text()
    found = _commands(GameCog) + _commands(StatsCog)
    assert len(found) >= 13
    for path, params in found:
        assert f"`{path}" in text, path
        for p in params:
            assert f"{p}:" in text, (path, p)
    for label, _, _ in _TABLE_BUTTONS.values():
        assert f"**{label}**" in text, label
    for game in engine.games():
        assert f"`{game}`" in text
        for opt in options.spec(game):
            assert f"`{opt.name}=" in text, (game, opt.name)


def test_code_cites_the_repositorys_own_rule_book() -> None:
    """Comments cite ``docs/rules.md §n`` (its numbered game sections), never a rules file the
    repository does not have."""
    numbered = set(re.findall(r"^## (\d+)\. ", RULES.read_text(), flags=re.M))
    assert numbered == {"1", "2", "3", "4", "5", "6"}
    cited: set[str] = set()
    for path in Path(__file__).resolve().parent.parent.glob("*/**/*.py"):
        if ".venv" in path.parts or "build" in path.parts or path == Path(__file__).resolve():
            continue
        text = path.read_text()
        assert "RULES.md" not in text, f"{path} cites a rules file the repository does not have"
        cited |= set(re.findall(r"docs/rules\.md §(\d+)", text))
    assert cited and cited <= numbered, cited - numbered
