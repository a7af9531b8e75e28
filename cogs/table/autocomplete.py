"""Autocomplete for slash commands (pure): the legal choices of ``/play`` matching what was typed,
the suggestions for ``/game new options`` and the running tables for ``/game watch``.  The cog's
autocomplete callbacks call these."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from discord import app_commands

import engine
import words as catalog
from cogs.i18n.reading import lang
from cogs.table import options as table_options
from cogs.table import render, renderers
from cogs.table.renderer import GENERIC, Renderer
from engine.cards import Card, CardError, card
from engine.core import AnyCard, Decision
from tables.live import SeatView
from tables.table import Table
from words import ENGLISH, speaking
from words import cards as card_words

MAX_CHOICES = 25


def legal_choices(
    decision: Decision, current: str, hand: Sequence[str] | None = None, renderer: Renderer | None = None,
    sv: SeatView | None = None, locale: str = ENGLISH,
) -> list[app_commands.Choice[str]]:
    """Exactly the legal choices of ``decision`` matching what was typed, at most 25.

    Explicit actions are offered as they are (value: the action code; name: the game renderer's
    words, ``three 5s``).  A "choose N cards" decision is completed one card at a time: after
    ``2C 3D`` come ``2C 3D 4H``, ``2C 3D 5S``… (values are card codes; names use card labels); a
    card the decision holds several times (three 5s) may be chosen that many times.

    In ``locale`` (the person's): the names read in it, and a card typed in it is read (``dame pik``,
    ``Pik-Dame``, ``d♠`` beside ``q♠`` and ``qs``: words/cards.py)."""
    with speaking(locale):
        return _legal_choices(decision, current, hand, renderer or GENERIC, sv, locale)


def _legal_choices(decision: Decision, current: str, hand: Sequence[str] | None, r: Renderer,
                   sv: SeatView | None, locale: str) -> list[app_commands.Choice[str]]:
    typed = current.strip().lower()
    if not decision.pick:
        out = []
        for a in render.in_hand_order(decision.actions, hand):
            name = r.action_label(a, sv)
            words = [a.code.lower(), name.lower(), *(str(getattr(c, "name", "")).lower() for c in a.cards)]
            one = len(a.cards) == 1 and not a.args and isinstance(a.cards[0], Card)
            if not typed or any(typed in w for w in words) or (one and card_words.matches(a.cards[0], typed, locale)):
                spoken = f" · {card_words.name(a.cards[0], locale)}" if one else ""
                out.append(app_commands.Choice(name=f"{name}{spoken}"[:100], value=a.code))
        return out[:MAX_CHOICES]
    allowed = list(decision.cards)
    have = Counter(c.code for c in allowed)
    tokens = current.split()
    if tokens and tokens[0].lower() == decision.kind:
        tokens = tokens[1:]
    tokens = card_words.join_cards(tokens, locale)  # "dame pik": one card said in two words
    finished = current.endswith(" ") or not tokens
    chosen: list[AnyCard] = []
    partial = ""
    marked = _marked_cards(sv, allowed)[: decision.pick]
    if not tokens and marked:
        # Nothing typed yet, cards marked in the menus: carry on from them (a big pick).
        if len(marked) == decision.pick:
            labels = " ".join(c.label for c in marked)
            said = catalog.translate(lang(), "{kind} the {n} marked: {cards}",
                                     kind=catalog.translate(lang(), decision.kind.capitalize()), n=decision.pick,
                                     cards=labels)
            return [app_commands.Choice(name=said[:100], value=decision.kind)]
        chosen = marked
    for i, tok in enumerate(tokens):
        last = i == len(tokens) - 1
        c = _read_card(tok, allowed, locale)
        free = c is not None and sum(1 for x in chosen if x.code == c.code) < have[c.code]
        if c is not None and free and (not last or finished or _exact(tok, c, allowed)):
            chosen.append(c)
        elif last and not finished:
            partial = tok.lower()
        # Unreadable words in the middle are dropped: the suggestions show what will be sent.
    if len(chosen) >= decision.pick:
        chosen = chosen[: decision.pick]
        return [_pick_choice(chosen, decision.pick)]
    left = have - Counter(c.code for c in chosen)
    out = []
    offered: set[str] = set()
    for c in allowed:
        if left[c.code] <= 0 or c.code in offered:
            continue
        words = [c.code.lower(), render.label(c).lower(), str(getattr(c, "name", "")).lower()]
        if partial and not any(w.startswith(partial) for w in words):
            continue
        offered.add(c.code)
        out.append(_pick_choice([*chosen, c], decision.pick))
    return out[:MAX_CHOICES]


def _marked_cards(sv: SeatView | None, allowed: Sequence[AnyCard]) -> list[AnyCard]:
    """The cards the seat has marked for a pick so far (``view["marked"]``), one per marked copy."""
    pool = list(allowed)
    out = []
    for code in ((getattr(sv, "view", None) or {}).get("marked") or []):
        c = next((x for x in pool if x.code == code), None)
        if c is not None:
            pool.remove(c)
            out.append(c)
    return out


def _read_card(tok: str, allowed: Sequence[AnyCard], locale: str = ENGLISH) -> AnyCard | None:
    """The card among ``allowed`` that ``tok`` names: its code, label or name, else a standard card
    read forgivingly (``10h``, or in the person's language: ``dame pik``)."""
    t = tok.strip().lower()
    for c in allowed:
        if t in (c.code.lower(), render.label(c).lower(), str(getattr(c, "name", "")).lower()):
            return c
    try:
        code = card(tok).code
    except CardError:
        read = card_words.read(tok, locale)
        if read is None:
            return None
        code = read.code
    return next((c for c in allowed if c.code == code), None)


def _exact(tok: str, c: AnyCard, allowed: Sequence[AnyCard] = ()) -> bool:
    # "q" is the start of several cards, "qs" already means one: accept it without a trailing space.
    # A "1" may be a card but also the start of 10, 11 and 12: wait for more.
    t = tok.lower()
    if any(c2.code != c.code and (render.label(c2).lower().startswith(t) or c2.code.lower().startswith(t))
           for c2 in allowed):
        return False
    return tok.upper() in (c.code, render.label(c).upper()) or (
        isinstance(c, Card) and len(tok) >= 2 and tok[-1].lower() in "cdhs♣♦♥♠")


def _pick_choice(cs: Sequence[AnyCard], pick: int) -> app_commands.Choice[str]:
    more = pick - len(cs)
    name = " ".join(c.label for c in cs) + (" " + catalog.ngettext(lang(), "… ({n} more)", "… ({n} more)", more)
                                             if more > 0 else "")
    return app_commands.Choice(name=name[:100], value=" ".join(c.code for c in cs)[:100])


def option_choices(game: str | None, current: str) -> list[app_commands.Choice[str]]:
    """Suggestions for ``/game new options``: the typed pairs kept, plus each remaining option (none
    before a game is chosen)."""
    entry = engine.games().get(str(game or "").lower())
    if entry is None:
        return []
    spec = table_options.spec(entry.game.name)
    tokens = current.replace(",", " ").split()
    finished = current.endswith(" ") or not tokens
    done = tokens if finished else tokens[:-1]
    partial = "" if finished else tokens[-1].lower()
    given = {t.partition("=")[0].lower() for t in done}
    prefix = " ".join(done)
    out: list[app_commands.Choice[str]] = []
    for opt in spec:
        if opt.name in given:
            continue
        suggested = renderers.renderer_for(entry.game.name).lobby_values.get(opt.name)
        if suggested:
            # The game's own suggestions first (targets for people before those for programs).
            values = [table_options.number(v) for v in dict.fromkeys([*suggested, *(opt.choices or (opt.default,))])]
        elif opt.choices:
            values = [table_options.number(c) for c in table_options.values(opt)]
        else:
            values = [str(v) for v in dict.fromkeys([opt.default, *_round_numbers(opt.low, opt.high)])]
        for v in values:
            pair = f"{opt.name}={v}"
            if partial and not pair.lower().startswith(partial):
                continue
            value = f"{prefix} {pair}".strip()
            if len(value) <= 100:
                # The name says what the last pair means ("moon=others_plus_26 — moon: the others get 26").
                name = f"{value} — {table_options.say(entry.game.name, opt.name, opt.read(v))}"
                out.append(app_commands.Choice(name=name if len(name) <= 100 else value, value=value))
    if not out and current.strip():
        out.append(app_commands.Choice(name=current.strip()[:100], value=current.strip()[:100]))
    return out[:MAX_CHOICES]


def _round_numbers(low: int | None, high: int | None) -> list[int]:
    return [n for n in (25, 50, 100) if (low is None or n >= low) and (high is None or n <= high)]


def table_choices(tables: Sequence[Table], channel_id: int | None, current: str) -> list[app_commands.Choice[str]]:
    """Suggestions for ``/game watch table:``: the running tables given (one server's), those of
    this channel (or its thread) first, newest first, matching what was typed in their id, game or
    players' names.  Only what the table message shows publicly."""
    typed = current.strip().lower()
    out: list[tuple[bool, float, app_commands.Choice[str]]] = []
    for t in tables:
        if render.phase_of(t) != "running":
            continue
        names = ", ".join(s.name for s in t.seats)
        name = f"{t.id} · {render.game_title(t)} · {names}"
        if typed and typed not in name.lower():
            continue
        here = channel_id is not None and channel_id in t.channel_ids
        out.append((not here, -float(t.created_at or 0.0), app_commands.Choice(name=name[:100], value=t.id)))
    out.sort(key=lambda x: (x[0], x[1]))
    return [c for _, _, c in out[:MAX_CHOICES]]
