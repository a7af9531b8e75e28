"""The invite link and the word to someone who has no token yet, with nothing but the standard library.

``make run`` runs ``python3 -m tools.invite --check-token`` before it makes the venv or compiles
anything, so a first run without a token stops at once with a few lines that say what to do; bot.py
prints the same lines when it is started without one.  The permissions are the bot's whole need in
a channel: the integer is checked against ``discord.Permissions`` by tests/test_invite.py.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV_FILE = ROOT / ".env"  # the one bot.py reads: the .env beside it

# discord.Permissions attribute -> the name Discord's server settings show, in that order.
PERMISSIONS: dict[str, str] = {
    "view_channel": "View Channels",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "create_public_threads": "Create Public Threads",
    "create_private_threads": "Create Private Threads",  # a duplicate tournament's tables
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",  # the end-of-game chart is a file
    "read_message_history": "Read Message History",
    # Not Use External Emojis: the card faces are the application's own emojis, which need no
    # permission ("The USE_EXTERNAL_EMOJIS permission is not required to use app emojis").
}
PERMISSIONS_VALUE = 377957239808  # the bits of PERMISSIONS (tests/test_invite.py computes them)
SCOPES = ("bot", "applications.commands")
DEVELOPER_PORTAL = "https://discord.com/developers/applications"


def invite_url(application_id: int | str = "APP_ID") -> str:
    """The link that adds the bot to a server with its scopes and permissions."""
    return (f"https://discord.com/oauth2/authorize?client_id={application_id}&scope={'+'.join(SCOPES)}"
            f"&permissions={PERMISSIONS_VALUE}")


def user_install_url(application_id: int | str = "APP_ID") -> str:
    """The link that adds the app to a person's own account ("Add to my account"): its commands then
    work in their DMs, group DMs and servers that never added the bot.  Only the commands scope: an
    app installed to a person has no bot member anywhere."""
    return f"https://discord.com/oauth2/authorize?client_id={application_id}&integration_type=1&scope=applications.commands"


def no_token_message() -> str:
    """What to do without a token, on a few lines."""
    return "\n".join([
        "Deckhand needs a Discord bot token, and none was found (DISCORD_TOKEN in .env or the environment).",
        f"  1. At {DEVELOPER_PORTAL}: New Application, then Bot, Reset Token.",
        "  2. cp .env.example .env, and paste the token after DISCORD_TOKEN= in .env (next to bot.py).",
        "  3. Invite the bot to your server (APP_ID: the Application ID on its General Information page):",
        f"     {invite_url()}",
        f"     or add it to your own account, to play in DMs and group DMs: {user_install_url()}",
        "Then `make run` again. The README has every step; `make demo` plays a game without a token.",
    ])


def env_file_value(path: Path, key: str) -> str | None:
    """``key``'s value in a dotenv file (``KEY=value``, optionally quoted or after ``export``), or
    ``None``.  Just enough to tell whether a token is there; bot.py reads the file with python-dotenv."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    value = None
    for line in lines:
        line = line.strip()
        if line.startswith("export "):
            line = line[len("export "):].lstrip()
        name, eq, rest = line.partition("=")
        if not eq or name.strip() != key:
            continue
        rest = rest.strip()
        if rest[:1] in ("'", '"') and rest[-1:] == rest[:1] and len(rest) >= 2:
            rest = rest[1:-1]
        elif " #" in rest:
            rest = rest.split(" #", 1)[0].rstrip()
        value = rest
    return value


def has_token(env: Mapping[str, str] | None = None, env_file: Path = ENV_FILE) -> bool:
    """Whether bot.py will find a token: in the environment, else in the .env beside it."""
    env = os.environ if env is None else env
    token = (env.get("DISCORD_TOKEN") or "").strip()
    if not token:
        token = (env_file_value(env_file, "DISCORD_TOKEN") or "").strip()
    return bool(token)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--check-token"]:
        if has_token():
            return 0
        print(no_token_message(), file=sys.stderr)
        return 2
    print(invite_url())
    return 0


if __name__ == "__main__":
    sys.exit(main())
