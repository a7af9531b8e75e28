"""``make demo``: Deckhand at work, without a bot token.

Starts the fake Discord on 127.0.0.1, logs the real bot in to it, and has two scripted people play
one short table of each game Deckhand knows (Ali and Bob play Hearts; each game has its own pair,
since a person sits at one table per server), with AI players in the other seats.  The tables play
at the same time; as each ends, its channel is printed as the people saw it, in order: what each
person did, the table message at every edit, the turn notices, and each person's private
(ephemeral) views, marked as such.  King of the Hill deals its cards live (``--table-pace`` speeds
the deal up), so it ends last.

    python -m tests.fakediscord.demo [--game hearts] [--speed normal] [--seed 3] [--table-pace 0.1] [--brief]
                                     [--locale de]

``--locale`` (any language Deckhand speaks: de, fr, es, pt-BR, pl, zh-CN, ja) puts the people's
clients and the server in that language: the tables, the hand views and every answer read in it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import engine  # noqa: E402
import words  # noqa: E402
from tests.fakediscord import payloads as P  # noqa: E402
from tests.fakediscord.botrunner import running_bot  # noqa: E402
from tests.fakediscord.play import PlayError, is_over, open_table, play_seat  # noqa: E402
from tests.fakediscord.privacy import check_privacy  # noqa: E402
from tests.fakediscord.server import FakeDiscord, Message, Version  # noqa: E402

RULE = "─" * 72


def landed_games() -> dict[str, Any]:
    """The games a table can be opened for (engine and Discord screens both landed)."""
    try:
        from cogs.table.arguments import playable
    except ImportError:
        return engine.games()
    return playable()


def _options_text(options: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in options.items())


class Transcript:
    """The fake's record, turned back into what a person's screen showed."""

    def __init__(self, fd: FakeDiscord) -> None:
        self.fd = fd
        self.names = {m.id: m.name for m in fd.members.values()} | {fd.bot.id: fd.bot.name}

    def where(self, channel_id: int) -> str:
        ch = self.fd.channels.get(channel_id)
        if ch is None:
            return f"#{channel_id}"
        if ch.type == 3:
            return f"👥 {ch.name}"
        return f"🧵 {ch.name}" if ch.is_thread else f"#{ch.name}"

    def humanise(self, text: str, at: float) -> str:
        text = re.sub(r"<@!?(\d+)>", lambda m: "@" + self.names.get(int(m.group(1)), m.group(1)), text)
        text = re.sub(r"<#(\d+)>", lambda m: self.where(int(m.group(1))), text)

        def stamp(m: re.Match[str]) -> str:
            left = int(m.group(1)) - at
            return f"in {round(left)} seconds" if left >= 0 else f"{round(-left)} seconds ago"

        text = re.sub(r"<t:(\d+):R>", stamp, text)
        # A card emoji is a picture in Discord: in a terminal, its card in brackets.
        text = re.sub(r"<a?:(\w+):\d+>", lambda m: _card_of_emoji(m.group(1)), text)
        return text.replace("**", "").replace("`", "")

    def render(self, v: Version) -> list[str]:
        out = [self.humanise(line, v.at) for line in (v.content or "").splitlines()]
        for e in v.embeds:
            title = e.get("title")
            if title:
                out.append(f"┃ {self.humanise(title, v.at)}")
            for line in (e.get("description") or "").splitlines():
                out.append(f"┃ {self.humanise(line, v.at)}")
            for f in e.get("fields") or []:
                out.append(f"┃ {self.humanise(f.get('name', ''), v.at)}")
                out += [f"┃   {self.humanise(line, v.at)}" for line in (f.get("value") or "").splitlines()]
            footer = (e.get("footer") or {}).get("text")
            if footer:
                out.append(f"┃ · {self.humanise(footer, v.at)}")
        buttons = [c for c in P.walk_components(v.components) if c.get("type") == P.BUTTON]
        if buttons:
            # A custom (card) emoji is a picture beside the label, which names the card already.  A greyed
            # (disabled) button shows in Discord but cannot be pressed: marked so here.
            out.append(" ".join(f"[{(_unicode_emoji(c) + ' ').lstrip()}{c.get('label', '')}"
                                f"{' (greyed)' if c.get('disabled') else ''}]" for c in buttons))
        for c in P.walk_components(v.components):
            if c.get("type") == P.STRING_SELECT:
                options = ", ".join(o["label"] for o in c.get("options") or [])
                out.append(f"[▾ {c.get('placeholder', 'Choose')}: {options}"
                           f"{' (greyed)' if c.get('disabled') else ''}]")
        return out

    def lines(self, channels: set[int], brief: bool = False) -> list[str]:
        events: list[tuple[float, int, list[str]]] = []
        order = 0
        for i in self.fd.interactions.values():
            if i.channel_id not in channels or i.type == P.AUTOCOMPLETE:
                continue
            who = self.names.get(i.user_id, str(i.user_id))
            typed = i.options_text()
            what = i.label + (f" {typed}" if typed and i.label.startswith("/") else "")
            order += 1
            events.append((i.created_wall, order, [f"▸ {who}: {what}"]))
        for m in self.fd.messages.values():
            if m.channel_id not in channels:
                continue
            for n, v in enumerate(m.versions):
                if brief and m.ephemeral:
                    continue
                if brief and not m.ephemeral and n < len(m.versions) - 1 and "your turn" not in v.content:
                    continue
                order += 1
                events.append((v.at, order, self.block(m, n, v)))
            if m.deleted_at is not None and not brief:
                order += 1
                events.append((m.deleted_at, order, [f"  ✗ {self.where(m.channel_id)}: Deckhand deleted "
                                                     f"“{self.humanise(m.content, m.deleted_at)[:50]}”"]))
        events.sort(key=lambda e: (e[0], e[1]))
        out: list[str] = []
        for _, _, block in events:
            out += block
        return out

    def block(self, m: Message, n: int, v: Version) -> list[str]:
        if m.ephemeral:
            head = f"🔒 only {self.names.get(m.ephemeral_to or 0, '?')} sees this, in {self.where(m.channel_id)}"
        else:
            head = f"{self.where(m.channel_id)} · Deckhand"
        if n > 0:
            head += " (edited)" if v.source != "followup" else ""
        if v.flags & P.LOADING:
            return [f"  {head}", "    Deckhand is thinking…"]
        body = self.render(v)
        return [f"  {head}"] + [f"    {line}" for line in body]


def _unicode_emoji(component: dict[str, Any]) -> str:
    e = component.get("emoji") or {}
    return "" if e.get("id") else str(e.get("name") or "")


def _card_of_emoji(name: str) -> str:
    from cogs.pictures import emoji

    for code, e in emoji.REGISTRY.by_code.items():
        if e.name == name:
            return f"[{card_label(code)}]"
    return f":{name}:"


def card_label(code: str) -> str:
    """A card as the bot labels it in text: ``Q♠``, a Dalmuti ``12`` or ``Jester``, a Siege ``blank 5``
    (each game's own cards first: a Siege ``QS`` reads like the standard card anyway)."""
    from cogs.table import render
    from games.dalmuti.rules import dcard
    from games.siege.rules import BY_CODE

    if code in BY_CODE:
        return BY_CODE[code].label
    try:
        return dcard(code).label
    except (KeyError, ValueError):
        return render.label(code)


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


PAIRS = [("Ali", "Bob"), ("Cat", "Dev"), ("Eve", "Fin"), ("Gus", "Hal"), ("Ivy", "Jo"), ("Kit", "Lou")]


async def play_game(fd: FakeDiscord, game: str, pair: tuple[str, str], options: dict[str, Any], speed: str,
                    seed: int, where: str = "server", locale: str = "en-GB") -> set[int]:
    """One table from the lobby to the final standings; returns the channels it used.  ``where``:
    "server" (a channel of the demo server) or "group-dm" (a group DM of the two, without the bot:
    the host added Deckhand to their account, the guest plays with its buttons).  ``locale``: the
    people's clients' language (Discord's name for it)."""
    host, guest = fd.add_member(pair[0], locale=locale), fd.add_member(pair[1], locale=locale)
    if where == "group-dm":
        fd.install_to_account(host)
        channel = fd.add_group_dm(f"{game} night", [host, guest])
    else:
        channel = fd.add_channel(f"{game}-table")
    host.where = guest.where = channel
    table_message = await open_table(host, [guest], game=game, options=_options_text(options) or None, ai=False,
                                     speed=speed, join_by="button" if where == "group-dm" else "id")
    rng = random.Random(seed)
    await asyncio.gather(
        play_seat(host, table_message, rng=random.Random(rng.random()), open_with="mix", timeout=180),
        play_seat(guest, table_message, rng=random.Random(rng.random()),
                  **({"open_with": "button"} if where == "group-dm" else {"use": "play"}), timeout=180),
    )
    await fd.wait_for(lambda: is_over(fd, table_message), 5.0, "the finished table")
    channels = {channel.id, table_message.thread_id or channel.id}
    if where == "group-dm":
        return channels  # (nothing is posted there but answers: the table message holds the end)
    standings = words.translate(words.resolve(fd.guild_locale), "Final standings")
    # The final summary is posted after the table message is edited: wait for it, or the transcript
    # would end before what the players saw last.
    await fd.wait_for(lambda: any(m.id != table_message.id and not m.ephemeral and m.channel_id in channels
                                  and standings in m.text for m in list(fd.messages.values())),
                      10.0, "the final summary")
    return channels


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", help="a game to play (default: every game Deckhand has)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--speed", default="blitz", help="table speed (default blitz: half the usual timers)")
    parser.add_argument("--table-pace", type=float, default=0.1,
                        help="King of the Hill's live deal at this many times its real timers (default 0.1: a "
                             "deal in about 3 s; 1: as at a real table)")
    parser.add_argument("--brief", action="store_true", help="only the public messages as they ended, and pings")
    parser.add_argument("--where", choices=("server", "group-dm"), default="server",
                        help="where the tables are: a server's channels (default), or group DMs without the bot")
    parser.add_argument("--locale", default=None,
                        help="the people's clients and the server in this language: "
                             + ", ".join(loc for locs in words.DISCORD_LOCALES.values() for loc in locs)
                             + " (or a catalog's name: pt_BR, zh_CN)")
    args = parser.parse_args(argv)
    locale = "en-GB"
    if args.locale is not None:
        lang = words.resolve(args.locale)
        if lang == words.ENGLISH and not args.locale.lower().startswith("en"):
            print(f"Deckhand does not speak {args.locale!r}; it speaks {', '.join(words.LOCALES)}.")
            return 2
        locale = words.DISCORD_LOCALES.get(lang, ("en-GB",))[0]
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    games = args.game or sorted(landed_games(), key=lambda g: (g != "hearts", g))  # Ali and Bob play Hearts
    started = time.perf_counter()
    failures: list[str] = []
    async with FakeDiscord(ratelimit_scale=0.05, guild_name="Demo Server") as fd:
        fd.guild_locale = locale if locale != "en-GB" else fd.guild_locale
        options = {"ai_delay": 0, "rng": random.Random(args.seed), "table_pace": args.table_pace}
        # In group DMs only global commands exist (as in production).
        async with running_bot(fd, runtime_options=options, sync_to_guild=args.where == "server") as bot:
            landed = landed_games()
            unknown = [g for g in games if g not in landed]
            if unknown:
                print(f"There is no game called {unknown[0]!r}; Deckhand has: {', '.join(sorted(landed))}.")
                return 2

            async def one(n: int, game: str) -> tuple[str, set[int] | Exception]:
                short = dict((getattr(landed[game].game, "short_options", None) or ({},))[0])
                try:
                    return game, await play_game(fd, game, PAIRS[n % len(PAIRS)], short, args.speed, args.seed,
                                                 args.where, locale)
                except (PlayError, TimeoutError) as e:
                    return game, e

            for done in asyncio.as_completed([one(n, g) for n, g in enumerate(games)]):
                game, outcome = await done
                entry = landed[game]
                short = dict((getattr(entry.game, "short_options", None) or ({},))[0])
                # What the host typed to open it (the one place a player writes option keys).
                typed = f"options:{_options_text(short)} " if short else ""
                out = [RULE, f"{entry.game.title} · opened with /game new {typed}speed:{args.speed}", RULE]
                if isinstance(outcome, Exception):
                    failures.append(f"{game}: {outcome}")
                else:
                    out += Transcript(fd).lines(outcome, brief=args.brief) + [""]
                # Written from a thread: a slow terminal must not hold up the tables still playing.
                await asyncio.to_thread(_write, "\n".join(out) + "\n")
            problems = list(fd.problems) + bot.error_log.lines()
            problems += check_privacy(fd, list(bot.runtime.tables.values()))
    took = time.perf_counter() - started
    print(RULE)
    answered = sorted(i.answered_in for i in fd.interactions.values() if i.answered_in is not None)
    if answered:
        print(f"{len(answered)} interactions, each answered in at most {max(answered) * 1000:.0f} ms "
              f"(median {answered[len(answered) // 2] * 1000:.0f} ms); {took:.1f} s in all, no token needed.")
    for p in problems + failures:
        print(f"problem: {p}")
    return 1 if problems or failures else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
