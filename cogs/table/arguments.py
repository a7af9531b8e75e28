"""What the table commands take: where they work (installs and contexts), the game and speed choices, how
long each typed option may be, and a new table's options as typed (``key=value``) over the server's house
rules.  Shared by the commands of cogs/table (``/game``, ``/settings``, ``/stats``, ``/tournament``) and
cogs/privacy.py.
"""

from __future__ import annotations

import discord
from discord import app_commands

import engine
from cogs.table import options as table_options
from cogs.table import renderers
from tables.ids import echo
from tables.runtime import TableError
from tables.servers import Settings
from words import N_

# Every registered game by its title, in the order they were registered (engine/__init__.py).
GAMES = {name: spec.game.title for name, spec in engine.games().items()}
GAME_CHOICES = [app_commands.Choice(name=title, value=name) for name, title in GAMES.items()]
# What /game ai says of the games with program seats and of those without a strong level.
PROGRAM_GAMES = " and ".join(spec.game.title for spec in engine.games().values() if spec.programs) or "No game"
NOT_STRONG = " and ".join(spec.game.title for spec in engine.games().values() if not spec.strong)
SPEED_CHOICES = [app_commands.Choice(name=s, value=s) for s in table_options.SPEED_ORDER]

NOT_IN_A_SERVER = N_("Deckhand tables live in servers: use these commands in a server channel.")
#: Where the game commands work: installed to a server or to a person's account; in a server, a DM
#: or a group DM.
EVERY_INSTALL = app_commands.AppInstallationType(guild=True, user=True)
EVERYWHERE = app_commands.AppCommandContext(guild=True, dm_channel=True, private_channel=True)


def place_of(interaction: discord.Interaction) -> str:
    """Where a table opened by this interaction lives (``Table.place``): "server" where the bot is a
    member of the server, "app" in a server that never added it, "private" in a DM or group DM."""
    if interaction.guild_id is None:
        return "private"
    return "server" if interaction.is_guild_integration() else "app"


# What each typed option may hold at most, declared to Discord (which then refuses longer input
# before it reaches the bot): a table id with room for "#" and spaces pasted around it, options, a
# move typed with /play, a program's name, one of an option's choices (a game, a speed, a level).
TableId = app_commands.Range[str, 1, 20]
ChoiceText = app_commands.Range[str, 1, 20]
OptionsText = app_commands.Range[str, 1, 300]
Typed = app_commands.Range[str, 1, 200]
Program = app_commands.Range[str, 1, 40]


NOT_THIS_CHANNEL = N_("Tables are opened in {channels} in this server (a server manager chose them with "
                      "`/settings channels`).")


def house_options(settings: Settings, game: str, typed: dict[str, str], speed: str | None
                  ) -> tuple[dict[str, str], bool]:
    """What a new table of ``game`` is opened with: the server's speed, then its house rules for the
    game, then what the host typed (which wins); and whether house rules were used."""
    preset = dict(settings.house.get(game, {}))
    typed = {k.lower(): v for k, v in typed.items()}
    if speed is not None or "speed" in typed:
        preset.pop("speed", None)  # the host named one: theirs wins
    elif "speed" not in preset and settings.speed:
        preset["speed"] = settings.speed
    return {**preset, **typed}, bool(settings.house.get(game))


def parse_options(text: str | None) -> dict[str, str]:
    """``"rules=mcgill target=50"`` (spaces or commas between pairs) as a dict of raw strings."""
    out: dict[str, str] = {}
    for token in (text or "").replace(",", " ").split():
        key, eq, value = token.partition("=")
        if not eq or not key or not value:
            raise TableError(N_("I can't read `{token}`: options look like `key=value`, e.g. "
                                "`rules=mcgill target=50`."), token=echo(token))
        out[key.strip().lower()] = value.strip()
    return out


def playable() -> dict[str, engine.core.GameSpec]:
    """Games a table can be opened for: in the engine AND drawn by a renderer of their own (both
    parts are registered for every game: tests/test_spec.py)."""
    return {name: e for name, e in engine.games().items() if name in renderers.RENDERERS}
