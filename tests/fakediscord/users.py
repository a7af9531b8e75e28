"""Scripted users: people in the fake guild who type slash commands, ask for autocomplete, click
buttons and pick menu options on the messages they can see — and read what they can see.

    ali = fd.add_member("Ali")
    lobby = await ali.slash("game new", game="hearts", options="target=30")
    bob = fd.add_member("Bob")
    await bob.slash("game join", id=table_id)
    hand = await bob.click(table_message, "My hand")
    await bob.click(hand.message, "Q♠")

Everything goes through the fake Discord exactly as a client would send it: an interaction is
built from the *registered* commands (so an unknown option or a value outside the choices is
refused here, as Discord's client would), a click carries the message as the person sees it, and
a person can only use a message they can see.  Each call returns a :class:`Reply` once the person
sees the answer (or "This interaction failed").
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import payloads as P
from .server import Channel, FakeDiscord, Interaction, Member, Message

FOLLOWUP_WAIT = 10.0  # how long a person watches "Deckhand is thinking..."


class CannotDoThat(Exception):
    """The person tried something a Discord client would not let them do."""


@dataclass
class Reply:
    """What a person saw in answer to one interaction."""

    person: Person
    interaction: Interaction

    @property
    def fd(self) -> FakeDiscord:
        return self.person.fd

    @property
    def failed(self) -> bool:
        """The person saw "This interaction failed"."""
        return self.interaction.failed is not None

    @property
    def message(self) -> Message | None:
        """The answer: the response message (or the message a click updated), else the last followup.
        A click that updated a public message and then said something privately (a table where the
        bot is not a member: cogs/live/anchors.py): that private followup, the answer its person reads."""
        i = self.interaction
        if i.callback_type == P.UPDATE_MESSAGE and i.followups and i.original_id is not None \
                and not self.fd.messages[i.original_id].ephemeral:
            private = [self.fd.messages[x] for x in i.followups if self.fd.messages[x].ephemeral]
            if private:
                return private[-1]
        if i.original_id is not None:
            m = self.fd.messages[i.original_id]
            if not m.loading or not i.followups:
                return m
        if i.followups:
            return self.fd.messages[i.followups[-1]]
        return None

    @property
    def messages(self) -> list[Message]:
        i = self.interaction
        ids = ([i.original_id] if i.original_id is not None else []) + i.followups
        return [self.fd.messages[x] for x in ids]

    @property
    def ephemeral(self) -> bool:
        m = self.message
        return m is not None and m.ephemeral

    @property
    def text(self) -> str:
        """What the answer said when it came: the version of the message this interaction made (a
        hand view is edited later by the bot to keep it current; :attr:`message` shows it now)."""
        if self.failed:
            return "This interaction failed"
        m = self.message
        if m is None:
            return ""
        mine = next((v for v in m.versions if v.by == self.interaction.id
                     and v.source in ("response", "update", "followup")), None)
        return mine.text if mine is not None else m.text

    @property
    def choices(self) -> list[dict[str, Any]]:
        return list(self.interaction.choices or [])

    @property
    def latency(self) -> float | None:
        return self.interaction.latency

    def __repr__(self) -> str:
        kind = "failed" if self.failed else "ephemeral" if self.ephemeral else "public"
        return f"<Reply to {self.interaction.label} ({kind}): {self.text[:80]!r}>"


class Person:
    def __init__(self, fd: FakeDiscord, member: Member) -> None:
        self.fd = fd
        self.member = member
        self.where: Channel = fd.channel

    @property
    def id(self) -> int:
        return self.member.id

    @property
    def name(self) -> str:
        return self.member.name

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def __repr__(self) -> str:
        return f"<Person {self.name} ({self.id})>"

    # ---- reading -------------------------------------------------------------------------------
    def sees(self, channel: Channel | int | None = None) -> list[Message]:
        """The messages this person can see now (in one channel, or everywhere), oldest first."""
        cid = channel.id if isinstance(channel, Channel) else channel
        return self.fd.visible_to(self.id, cid)

    def find(
        self,
        contains: str | None = None,
        *,
        channel: Channel | int | None = None,
        ephemeral: bool | None = None,
        where: Callable[[Message], bool] | None = None,
    ) -> Message | None:
        """The newest visible message matching everything given."""
        for m in reversed(self.sees(channel)):
            if contains is not None and contains not in m.text:
                continue
            if ephemeral is not None and m.ephemeral != ephemeral:
                continue
            if where is not None and not where(m):
                continue
            return m
        return None

    def pings(self, after: int = 0) -> list[Message]:
        """Messages that notified this person (a mention Discord delivered, even if the message has
        been deleted since), newer than id ``after``."""
        out = []
        for m in reversed(self.fd.pinged.get(self.id, [])):
            if m.id <= after:
                break
            out.append(m)
        return out[::-1]

    # ---- doing ---------------------------------------------------------------------------------
    async def slash(self, command: str, *, where: Channel | None = None, **options: Any) -> Reply:
        """Run ``/command`` with options, e.g. ``slash("game new", game="hearts")``."""
        ch = self._enter(where or self.where)
        data = self._command_data(command, options, where=ch)
        i = self.fd.send_interaction(self.id, P.APPLICATION_COMMAND, data, ch.id, label=f"/{command}")
        return await self._wait(i)

    async def autocomplete(self, command: str, option: str, current: str = "", *, where: Channel | None = None,
                           **options: Any) -> list[dict[str, Any]]:
        """The choices Discord would show while typing ``current`` into ``option``."""
        ch = self._enter(where or self.where)
        data = self._command_data(command, {**options, option: current}, focused=option, where=ch)
        i = self.fd.send_interaction(self.id, P.AUTOCOMPLETE, data, ch.id, label=f"/{command} {option}:…")
        reply = await self._wait(i)
        if reply.failed:
            return []
        return reply.choices

    async def click(self, message: Message | int, label: str | None = None, *, custom_id: str | None = None) -> Reply:
        """Press a button (by its label, or its custom id) on a message this person sees."""
        m = self._usable(message)
        matches = [b for b in m.buttons() if (custom_id is not None and b.get("custom_id") == custom_id)
                   or (custom_id is None and label is not None and b.get("label") == label)]
        if len(matches) != 1:
            shown = [b.get("label") for b in m.buttons()]
            raise CannotDoThat(f"{self.name} sees {len(matches)} buttons {label or custom_id!r} on that message "
                               f"(buttons: {shown})")
        button = matches[0]
        if button.get("disabled"):
            raise CannotDoThat(f"the button {button.get('label')!r} is disabled")
        if button.get("style") in (P.LINK_STYLE, P.PREMIUM_STYLE):
            raise CannotDoThat("a link button sends no interaction")
        data = {"custom_id": button["custom_id"], "component_type": P.BUTTON}
        i = self.fd.send_interaction(self.id, P.MESSAGE_COMPONENT, data, m.channel_id,
                                     label=f"click {button.get('label') or button['custom_id']}", message_id=m.id)
        return await self._wait(i)

    async def choose(self, message: Message | int, values: list[str], *, custom_id: str | None = None) -> Reply:
        """Pick options (by value) in a select menu on a message this person sees."""
        m = self._usable(message)
        selects = [s for s in m.selects() if custom_id is None or s.get("custom_id") == custom_id]
        if len(selects) != 1:
            raise CannotDoThat(f"{self.name} sees {len(selects)} matching menus on that message")
        s = selects[0]
        offered = [o["value"] for o in s.get("options") or []]
        lo, hi = s.get("min_values", 1), s.get("max_values", 1)
        if any(v not in offered for v in values) or len(set(values)) != len(values):
            raise CannotDoThat(f"{values} are not all options of the menu ({offered})")
        if not lo <= len(values) <= hi:
            raise CannotDoThat(f"the menu takes {lo} to {hi} choices, not {len(values)}")
        if s.get("disabled"):
            raise CannotDoThat("the menu is disabled")
        data = {"custom_id": s["custom_id"], "component_type": P.STRING_SELECT, "values": list(values)}
        i = self.fd.send_interaction(self.id, P.MESSAGE_COMPONENT, data, m.channel_id,
                                     label=f"choose {' '.join(values)}", message_id=m.id)
        return await self._wait(i)

    def dismiss(self, message: Message | int) -> Message:
        """"Dismiss message" on an ephemeral message only this person sees."""
        m = self._usable(message)
        return self.fd.dismiss(m.id, self.id)

    # ---- plumbing ------------------------------------------------------------------------------
    def _usable(self, message: Message | int) -> Message:
        mid = message.id if isinstance(message, Message) else int(message)
        m = self.fd.messages.get(mid)
        if m is None or m.deleted:
            raise CannotDoThat(f"message {mid} is gone")
        if m.ephemeral_to is not None and m.ephemeral_to != self.id:
            raise CannotDoThat(f"{self.name} cannot see message {mid} (it was only for someone else)")
        if m.ephemeral_to is None and not self.fd.can_view(self.id, m.channel_id):
            # A link to it, or a reply quoting it, shows nothing to someone who may not see its channel.
            raise CannotDoThat(f"{self.name} may not see the channel of message {mid}")
        return m

    def _enter(self, ch: Channel) -> Channel:
        """A channel this person types in: one they may see (Discord's client shows no other)."""
        if not self.fd.can_view(self.id, ch.id):
            raise CannotDoThat(f"{self.name} may not see #{ch.name}")
        return ch

    async def _wait(self, i: Interaction) -> Reply:
        try:
            await asyncio.wait_for(i.done.wait(), self.fd.answer_within + FOLLOWUP_WAIT)
        except TimeoutError:
            self.fd.problem(f"interaction {i.label} by {self.name}: deferred and never followed up")
            i.failed = "deferred and never followed up"
        if i.callback_type == P.UPDATE_MESSAGE and i.message_id is not None and not i.followups:
            # A public message updated in a conversation the bot is not in: the bot's answer to this
            # person comes right after, as a followup (cogs/live/anchors.py); they watch for it.
            m = self.fd.messages.get(i.message_id)
            ch = self.fd.channels.get(m.channel_id) if m is not None else None
            if m is not None and not m.ephemeral and ch is not None and not ch.bot_member:
                with contextlib.suppress(TimeoutError):
                    await self.fd.wait_for(lambda: i.followups, FOLLOWUP_WAIT, "the answer after an update")
        return Reply(self, i)

    def _command_data(self, command: str, given: dict[str, Any], focused: str | None = None,
                      where: Channel | None = None) -> dict[str, Any]:
        parts = command.strip().lstrip("/").split()
        ch = where or self.where
        # A server's own commands only where the bot is a member of that server (the main guild's
        # synced commands stand for every server with the bot); global ones everywhere they are offered.
        here = {} if ch.private or not ch.bot_member else self.fd.commands.get(self.fd.guild_id, {})
        registered = {**self.fd.commands.get(None, {}), **here}
        top = registered.get(parts[0]) if parts else None
        if top is None:
            raise CannotDoThat(f"/{parts[0] if parts else ''} is not a registered command "
                               f"(registered: {sorted(registered)})")
        if not top.get("guild_id"):
            self._offered_here(top, ch)
        data: dict[str, Any] = {"id": top["id"], "name": top["name"], "type": top.get("type", 1)}
        if top.get("guild_id"):
            data["guild_id"] = top["guild_id"]
        node, spec = data, top
        for name in parts[1:]:
            sub = next((o for o in spec.get("options") or [] if o["name"] == name
                        and o["type"] in (P.SUB_COMMAND, P.SUB_COMMAND_GROUP)), None)
            if sub is None:
                raise CannotDoThat(f"/{command}: no subcommand {name!r}")
            child: dict[str, Any] = {"name": name, "type": sub["type"], "options": []}
            node.setdefault("options", []).append(child)
            node, spec = child, sub
        params = spec.get("options") or []
        if any(o["type"] in (P.SUB_COMMAND, P.SUB_COMMAND_GROUP) for o in params):
            raise CannotDoThat(f"/{command} needs a subcommand")
        out = node.setdefault("options", [])
        for name, value in given.items():
            if value is None:
                continue
            o = next((p for p in params if p["name"] == name), None)
            if o is None:
                raise CannotDoThat(f"/{command} has no option {name!r} (options: {[p['name'] for p in params]})")
            if o["type"] == P.USER and name != focused:
                value = self._resolve_user(data, value)
            elif o["type"] == P.CHANNEL and name != focused:
                value = self._resolve_channel(data, value)
            entry: dict[str, Any] = {"name": name, "type": o["type"], "value": value}
            if name == focused:
                if not o.get("autocomplete"):
                    raise CannotDoThat(f"/{command} {name} does not autocomplete")
                entry["focused"] = True
                entry["value"] = str(value)
            else:
                _check_value(command, o, value)
            out.append(entry)
        if focused is None:
            missing = [p["name"] for p in params if p.get("required") and p["name"] not in given]
            if missing:
                raise CannotDoThat(f"/{command} needs {missing}")
        return data


    def _offered_here(self, top: dict[str, Any], ch: Channel) -> None:
        """Discord's client lists a global command only where the app is installed in a way the
        command accepts (``integration_types``; default: the server install) and in a context it
        declares (``contexts``; default: all three)."""
        context, owners = self.fd.installs_at(self.id, ch)
        kinds = top.get("integration_types") or [P.GUILD_INSTALL]
        contexts = top.get("contexts")
        if contexts is None:
            contexts = [P.GUILD_CONTEXT] if top.get("dm_permission") is False else [0, 1, 2]
        if context not in contexts:
            raise CannotDoThat(f"/{top['name']} is not offered in this kind of conversation (context {context}; "
                               f"the command declares {contexts})")
        if not any(str(k) in owners for k in kinds):
            raise CannotDoThat(f"/{top['name']} is not installed here for {self.name} (installs {sorted(owners)}; "
                               f"the command declares {kinds})")

    def _resolve_channel(self, data: dict[str, Any], which: Any) -> str:
        """A CHANNEL option: its value is the id, and Discord adds the channel (with the asker's
        permissions there) under ``resolved``."""
        cid = which.id if isinstance(which, Channel) else int(which)
        ch = self.fd.channels.get(cid)
        if ch is None:
            raise CannotDoThat(f"there is no channel {which!r}")
        resolved = data.setdefault("resolved", {})
        resolved.setdefault("channels", {})[str(cid)] = {
            **{k: v for k, v in self.fd._channel_payload(ch).items() if k in ("id", "type", "name", "guild_id",
                                                                                "parent_id", "thread_metadata")},
            "permissions": str(self.member.permissions)}
        return str(cid)

    def _resolve_user(self, data: dict[str, Any], who: Any) -> str:
        """A USER option: its value is the id, and Discord adds the user and member under ``resolved``."""
        uid = who.id if isinstance(who, Person) else int(who)
        member = self.fd.member(uid)
        if member is None:
            raise CannotDoThat(f"there is no member {who!r} in the guild")
        resolved = data.setdefault("resolved", {"users": {}, "members": {}})
        resolved["users"][str(uid)] = member.user()
        resolved["members"][str(uid)] = {k: v for k, v in P.member_payload(member.user(), member.permissions).items()
                                         if k != "user"}
        return str(uid)


def _check_value(command: str, o: dict[str, Any], value: Any) -> None:
    kind = o["type"]
    ok = {P.STRING: isinstance(value, str), P.INTEGER: isinstance(value, int) and not isinstance(value, bool),
          P.BOOLEAN: isinstance(value, bool), P.NUMBER: isinstance(value, int | float),
          P.USER: isinstance(value, str) and value.isdigit(),
          P.CHANNEL: isinstance(value, str) and value.isdigit()}.get(kind, True)
    if not ok:
        raise CannotDoThat(f"/{command} {o['name']} takes option type {kind}, not {value!r}")
    choices = o.get("choices")
    if choices and value not in [c["value"] for c in choices]:
        raise CannotDoThat(f"/{command} {o['name']} must be one of {[c['value'] for c in choices]}")
    if kind in (P.INTEGER, P.NUMBER):
        if o.get("min_value") is not None and value < o["min_value"]:
            raise CannotDoThat(f"/{command} {o['name']} is at least {o['min_value']}")
        if o.get("max_value") is not None and value > o["max_value"]:
            raise CannotDoThat(f"/{command} {o['name']} is at most {o['max_value']}")
    if kind == P.STRING:
        if o.get("max_length") is not None and len(value) > o["max_length"]:
            raise CannotDoThat(f"/{command} {o['name']} is at most {o['max_length']} characters")
        if o.get("min_length") is not None and len(value) < o["min_length"]:
            raise CannotDoThat(f"/{command} {o['name']} is at least {o['min_length']} characters")
