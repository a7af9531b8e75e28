"""Discord's wire shapes and limits, as the fake server needs them.

Pure helpers: snowflakes, timestamps, user/member/channel payloads, the text a person sees in a
message (content, embeds, components), and :func:`message_problems`, which checks an outgoing
message body against the limits Discord enforces with a 400 (so a bot that would be refused in
production is refused here too, with the same error code).
"""

from __future__ import annotations

import datetime
import itertools
import time
from typing import Any

DISCORD_EPOCH_MS = 1_420_070_400_000

# Message flags
EPHEMERAL = 1 << 6
LOADING = 1 << 7

# Component types
ACTION_ROW, BUTTON, STRING_SELECT = 1, 2, 3
LINK_STYLE, PREMIUM_STYLE = 5, 6

# Interaction types and callback types
PING, APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 1, 2, 3, 4, 5
CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE, UPDATE_MESSAGE, AUTOCOMPLETE_RESULT, MODAL = (
    4, 5, 6, 7, 8, 9)
CALLBACK_NAMES = {1: "pong", 4: "message", 5: "deferred message", 6: "deferred update", 7: "update message",
                  8: "autocomplete result", 9: "modal"}

# Where a command is used (an interaction's ``context``) and how the app was installed there
# (``integration_types``; the keys of ``authorizing_integration_owners``).
GUILD_CONTEXT, BOT_DM_CONTEXT, PRIVATE_CHANNEL_CONTEXT = 0, 1, 2
GUILD_INSTALL, USER_INSTALL = 0, 1

# Option types
SUB_COMMAND, SUB_COMMAND_GROUP, STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = range(1, 11)

# Permissions the invite URL grants (README) plus Manage Server for members who have it.
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
EMBED_LINKS = 1 << 14
READ_MESSAGE_HISTORY = 1 << 16
USE_APPLICATION_COMMANDS = 1 << 31
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
MANAGE_GUILD = 1 << 5
ADMINISTRATOR = 1 << 3
ALL_PERMISSIONS = (1 << 51) - 1  # what the guild's owner and an Administrator have
MEMBER_PERMISSIONS = (VIEW_CHANNEL | SEND_MESSAGES | EMBED_LINKS | READ_MESSAGE_HISTORY | USE_APPLICATION_COMMANDS
                      | CREATE_PUBLIC_THREADS | SEND_MESSAGES_IN_THREADS | (1 << 50))  # 1 << 50: Use External Apps
ATTACH_FILES = 1 << 15
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
USE_EXTERNAL_APPS = 1 << 50
#: What an app installed to a person's account may do where it is not a member (a DM between people,
#: a group DM, a server without the bot): Discord's ``app_permissions`` there.
USER_APP_PERMISSIONS = ATTACH_FILES | EMBED_LINKS | MENTION_EVERYONE
BOT_PERMISSIONS = 377957239808  # the README's invite permissions (Attach Files; no Use External Emojis)


class Snowflakes:
    """Strictly increasing ids that carry their creation time, like Discord's."""

    def __init__(self) -> None:
        self._last = 0
        self._seq = itertools.count()

    @property
    def last(self) -> int:
        """The newest id handed out so far."""
        return self._last

    def next(self) -> int:
        ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        value = (ms << 22) | (next(self._seq) & 0xFFF)
        self._last = max(self._last + 1, value)
        return self._last


def iso(at: float | None = None) -> str:
    return datetime.datetime.fromtimestamp(time.time() if at is None else at, datetime.UTC).isoformat()


def user_payload(user_id: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    return {"id": str(user_id), "username": name.lower().replace(" ", "_"), "global_name": name,
            "discriminator": "0", "avatar": None, "bot": bot, "system": False, "public_flags": 0, "flags": 0,
            "avatar_decoration_data": None, "banner": None, "accent_color": None}


def member_payload(user: dict[str, Any], permissions: int | None = None, joined: float | None = None,
                   roles: list[int] | tuple[int, ...] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"user": user, "roles": [str(r) for r in roles], "joined_at": iso(joined),
                           "deaf": False, "mute": False, "flags": 0, "pending": False, "nick": None, "avatar": None,
                           "premium_since": None, "communication_disabled_until": None}
    if permissions is not None:
        out["permissions"] = str(permissions)
    return out


# ---- what a person sees -------------------------------------------------------------------------
def embed_text(embed: dict[str, Any]) -> str:
    parts = [embed.get("title") or "", embed.get("description") or ""]
    for f in embed.get("fields") or []:
        parts += [f.get("name") or "", f.get("value") or ""]
    parts += [(embed.get("footer") or {}).get("text") or "", (embed.get("author") or {}).get("name") or ""]
    return "\n".join(p for p in parts if p)


def walk_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every component, rows and their children flattened, in display order."""
    out: list[dict[str, Any]] = []
    for c in components or []:
        out.append(c)
        out.extend(walk_components(c.get("components") or []))
    return out


def component_text(components: list[dict[str, Any]]) -> str:
    """Labels, placeholders and options a person sees — and the custom ids a client holds."""
    parts: list[str] = []
    for c in walk_components(components):
        for key in ("label", "placeholder", "custom_id", "url"):
            if c.get(key):
                parts.append(str(c[key]))
        emoji = c.get("emoji") or {}
        if emoji.get("name"):
            parts.append(str(emoji["name"]))
        for o in c.get("options") or []:
            parts += [str(o.get(k)) for k in ("label", "value", "description") if o.get(k)]
    return "\n".join(parts)


def visible_text(content: str, embeds: list[dict[str, Any]], components: list[dict[str, Any]]) -> str:
    parts = [content or ""] + [embed_text(e) for e in embeds or []] + [component_text(components)]
    return "\n".join(p for p in parts if p)


# ---- Discord's limits ---------------------------------------------------------------------------
def message_problems(body: dict[str, Any]) -> list[str]:
    """What Discord would refuse in a message body (create, edit or interaction response)."""
    problems: list[str] = []
    content = body.get("content")
    if content is not None and len(str(content)) > 2000:
        problems.append(f"content is {len(str(content))} characters (max 2000)")
    embeds = body.get("embeds") or []
    if len(embeds) > 10:
        problems.append(f"{len(embeds)} embeds (max 10)")
    total = 0
    for e in embeds:
        for key, limit in (("title", 256), ("description", 4096)):
            n = len(e.get(key) or "")
            total += n
            if n > limit:
                problems.append(f"embed {key} is {n} characters (max {limit})")
        fields = e.get("fields") or []
        if len(fields) > 25:
            problems.append(f"{len(fields)} embed fields (max 25)")
        for f in fields:
            for key, limit in (("name", 256), ("value", 1024)):
                n = len(f.get(key) or "")
                total += n
                if n > limit:
                    problems.append(f"embed field {key} is {n} characters (max {limit})")
                if key == "value" and n == 0:
                    problems.append("embed field value is empty")
        footer = len((e.get("footer") or {}).get("text") or "")
        total += footer
        if footer > 2048:
            problems.append(f"embed footer is {footer} characters (max 2048)")
    if total > 6000:
        problems.append(f"embeds hold {total} characters (max 6000)")
    problems += component_problems(body.get("components") or [])
    return problems


def component_problems(rows: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    if len(rows) > 5:
        problems.append(f"{len(rows)} action rows (max 5)")
    seen: set[str] = set()
    for row in rows:
        if row.get("type") != ACTION_ROW:
            problems.append(f"top-level component of type {row.get('type')} (expected an action row)")
            continue
        children = row.get("components") or []
        selects = [c for c in children if c.get("type") != BUTTON]
        if not children:
            problems.append("an empty action row")
        if len(children) > 5:
            problems.append(f"{len(children)} components in one row (max 5)")
        if selects and len(children) > 1:
            problems.append("a select menu shares its row")
        for c in children:
            cid = c.get("custom_id")
            if c.get("type") == BUTTON and c.get("style") in (LINK_STYLE, PREMIUM_STYLE):
                pass
            elif not cid:
                problems.append(f"component of type {c.get('type')} without a custom_id")
            else:
                if len(cid) > 100:
                    problems.append(f"custom_id {cid!r} is {len(cid)} characters (max 100)")
                if cid in seen:
                    problems.append(f"duplicate custom_id {cid!r}")
                seen.add(cid)
            if c.get("type") == BUTTON:
                if len(c.get("label") or "") > 80:
                    problems.append(f"button label {c.get('label')!r} is over 80 characters")
                if not c.get("label") and not c.get("emoji"):
                    problems.append("a button with neither label nor emoji")
            elif c.get("type") == STRING_SELECT:
                options = c.get("options") or []
                if not 1 <= len(options) <= 25:
                    problems.append(f"select menu with {len(options)} options (1 to 25)")
                lo, hi = c.get("min_values", 1), c.get("max_values", 1)
                if not 0 <= lo <= hi <= 25 or hi > len(options):
                    problems.append(f"select menu min/max values {lo}/{hi} with {len(options)} options")
                if len(c.get("placeholder") or "") > 150:
                    problems.append("select placeholder over 150 characters")
                values = [o.get("value") for o in options]
                if len(set(values)) != len(values):
                    problems.append("select menu with duplicate option values")
                for o in options:
                    for key in ("label", "value", "description"):
                        if len(o.get(key) or "") > 100:
                            problems.append(f"select option {key} over 100 characters")
    return problems


def choice_problems(choices: list[dict[str, Any]]) -> list[str]:
    problems = []
    if len(choices) > 25:
        problems.append(f"{len(choices)} autocomplete choices (max 25)")
    for c in choices:
        if not 1 <= len(str(c.get("name", ""))) <= 100:
            problems.append(f"choice name {c.get('name')!r} must be 1 to 100 characters")
        if len(str(c.get("value", ""))) > 100:
            problems.append(f"choice value {c.get('value')!r} over 100 characters")
    return problems
