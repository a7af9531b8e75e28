"""The invite link asks for every permission the bot uses, and `make run` without a token says what
to do before it makes a venv or compiles anything."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import discord

from tools import invite

ROOT = Path(__file__).resolve().parents[1]


def test_the_permission_integer_is_the_listed_permissions() -> None:
    perms = discord.Permissions(**{name: True for name in invite.PERMISSIONS})
    assert invite.PERMISSIONS_VALUE == perms.value
    # The chart is a file; the card faces are the application's own emojis, which need no
    # Use External Emojis (Discord's emoji resource), so it is not asked for.
    assert perms.attach_files and perms.send_messages_in_threads and not perms.use_external_emojis
    url = invite.invite_url(1234)
    assert url == discord.utils.oauth_url(1234, permissions=perms, scopes=invite.SCOPES)


def test_the_readme_invites_with_the_same_permissions() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert invite.invite_url() in readme
    for label in invite.PERMISSIONS.values():
        assert label in readme
    # ... and says why Use External Emojis is not among them.
    assert "Use External Emojis is not asked for" in readme


def test_a_token_is_found_in_the_environment_or_the_env_file(tmp_path: Path) -> None:
    env_file = tmp_path / ".env"
    assert not invite.has_token({}, env_file)  # no file
    env_file.write_text("# DISCORD_TOKEN=commented\nDISCORD_TOKEN=\nLOG_LEVEL=INFO\n")
    assert not invite.has_token({}, env_file)
    assert not invite.has_token({"DISCORD_TOKEN": "  "}, env_file)
    assert invite.has_token({"DISCORD_TOKEN": "abc"}, env_file)
    for line in ("DISCORD_TOKEN=abc", "export DISCORD_TOKEN='abc'", 'DISCORD_TOKEN = "abc"'):
        env_file.write_text(line + "\n")
        assert invite.has_token({}, env_file), line
    env_file.write_text('DISCORD_TOKEN=""\n')
    assert not invite.has_token({}, env_file)


def test_make_run_without_a_token_stops_before_anything_is_built(tmp_path: Path) -> None:
    # (make is what runs this suite: the README's two commands need it)
    assert shutil.which("make") is not None, "make is not installed"
    # The Makefile and the tool alone, in a folder with no .env and no venv.
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "tools").mkdir()
    for name in ("__init__.py", "invite.py"):
        shutil.copy(ROOT / "tools" / name, tmp_path / "tools" / name)
    done = subprocess.run(["make", "run", f"PYTHON={sys.executable}"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode != 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Makefile", "tools"]  # no .venv, no build/
    lines = done.stderr.strip().splitlines()
    assert lines[0].startswith("Deckhand needs a Discord bot token") and len(lines) <= 8
    assert invite.invite_url() in done.stderr and "DISCORD_TOKEN=" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
