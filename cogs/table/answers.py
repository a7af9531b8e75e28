"""What the ``/game`` commands say at more length than a sentence: ``/game rules``' embed, a replay's final
standings, the answer about a game that is over and to a game Deckhand does not know.
"""

from __future__ import annotations

import discord

import engine
import words
from cogs.i18n import reading
from cogs.i18n.reading import drawn as _
from cogs.table import options as table_options
from cogs.table import render, renderers
from cogs.table.arguments import playable
from engine.core import Outcome
from tables.finished import AnyTable
from tables.history.replay import GameRecord, standings
from tables.ids import echo
from words import N_


def replay_standings(record: GameRecord, outcome: Outcome | None) -> list[str]:
    """A replay's final standings in the shape the table showed them: medals shared by ties, each
    score in the game's unit."""
    if outcome is None:
        return standings(record, outcome)
    r = renderers.renderer_for(record.game)
    order = sorted(range(len(outcome.scores)), key=lambda s: (outcome.places[s], s))
    table = record.stand_in()  # score_text reads no more of it
    marks = render.medals([outcome.places[s] for s in order])
    return [f"{m} {render.clean(record.names[s])} — {r.score_text(table, s, outcome.scores[s])}"
            f"{render.hints_mark(record.hint_count(s))}" for m, s in zip(marks, order, strict=True)]


def game_over(table: AnyTable) -> str:
    """What a player hears when they ask for their hand after the game: it is over, where to look."""
    # (a table, or the stub of one that left memory: tables/finished.py)
    if table.seed is None and getattr(table, "state", None) is None:
        return _("Table `{id}` was closed before its game started. Open a new one with `/game new`.", id=table.id)
    return _("The game at table `{id}` is over — the final standings are on its table message. "
             "Replay: `/game replay id:{id}`. Open a new table with `/game new`.", id=table.id)


#: The one place a player reads option keys: what a host types in ``/game new … options:``.
HOW_TO_SET = N_("How to set it")


def rules_embed(game: str, rules_url: str | None = None, locale: str = words.ENGLISH) -> discord.Embed:
    """``/game rules``: the game's rules, then what a host may change, in words; the whole rule book's
    page when the operator named one (``DECKHAND_RULES_URL``).  In ``locale`` (the asker's: the
    game's title and rules text are registry data, extracted by tools/catalogs.py; the option lines
    stay English until their slice of issue 31)."""
    g = engine.get(game).game
    _ = words.make_(locale)
    players = (words.ngettext(locale, "{n} player", "{n} players", g.min_players) if g.min_players == g.max_players
               else _(N_("{low}–{high} players"), low=g.min_players, high=g.max_players))
    rules = g.rules_text or g.summary
    embed = discord.Embed(title=f"{_(g.title)} — {players}", description=_(rules) if rules else rules,
                          colour=render.LOBBY_COLOUR)
    # One field per option: a field holds 1024 characters, and one game's options need more.
    with words.speaking(locale):  # the game's own option words, in the asker's language
        lines = table_options.rules_lines(g.name)
    for n, (_key, text) in enumerate(lines):
        embed.add_field(name=_(N_("What the host can change")) if n == 0 else "\u200b", value=text[:1024],
                        inline=False)
    embed.add_field(name=_(HOW_TO_SET), value=_(N_("`/game new game:{name} options:…` with any of {accepted}"),
                                                name=g.name, accepted=table_options.accepted_line(g.name))[:1024],
                    inline=False)
    if rules_url:
        embed.add_field(name=_(N_("More")), value=table_options.rule_book_link(
            rules_url, _(N_("The whole rule book: ")))[:1024], inline=False)
    return embed


def no_such_game(game: str) -> str:
    """The answer to a game name Deckhand does not know (every registered game has its screens:
    tests/test_spec.py)."""
    ready = words.join(reading.lang(), [f"**{_(spec.game.title)}**" for spec in playable().values()])
    return _("Deckhand has no game called “{game}”. You can play {games}.", game=echo(render.clean(game)), games=ready)
