"""The one small interface every game implements, and the values that cross it.

A game module defines a subclass of :class:`Game`.  An instance *is* the state of one game; it
changes only through :meth:`Game.apply`, which validates first and raises :class:`IllegalAction`
(changing nothing) when the action is not allowed.  Everything that leaves the engine — actions,
events, views, serialised state — is an immutable value or a JSON-safe dict, so the runtime can
log it, store it and replay it.
"""

from __future__ import annotations

import importlib
import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, NamedTuple, Protocol, Self, TypeVar

from engine.cards import Card, card
from engine.randomness import rng_for as rng_for
from engine.randomness import shuffled as shuffled
from engine.words import Phrase, said, said_n
from words import N_

#: The seat number of the table itself, for steps the rules make on a timer (dealing the next card,
#: closing a declaration window): see :meth:`Game.table_timer`.
TABLE = -1

_CARD_CODE = re.compile(r"^(?:[2-9TJQKA][CDHS]|~[BR])$")


class IllegalAction(Exception):
    """An action that the rules do not allow right now.  ``reason`` is a sentence for a person, in
    English (logs, tests, the programs' protocol); ``code`` a short machine tag (``not_your_turn``,
    ``must_follow``, ...).  The sentence is given as a msgid marked ``N_`` with its ``{fields}``
    (cards as cards, counts as numbers), or as a :class:`~engine.words.Phrase`: :attr:`phrase`
    keeps both, and the Discord side says it in the reader's language (``words.say``, with the
    game's domain), so the engine itself holds no catalog."""

    def __init__(self, reason: str, code: str = "illegal", /, **fields: Any) -> None:
        phrase = reason if isinstance(reason, Phrase) and not fields else said(reason, **fields)
        super().__init__(str(phrase))
        self.reason = str(phrase)
        self.phrase = phrase
        self.code = code


#: A view of a state (``state.view(seat)``, ``state.public_view()``): a JSON-safe dict whose keys
#: each game sets out (docs/interfaces.md); what the renderers read.
View = dict[str, Any]
#: A game's options by name (``Game.read_options`` checks them and fills in the defaults).  Each
#: value is its :class:`Option`'s (an :data:`OptionValue`), which the game reads as its own type.
Options = dict[str, Any]
#: The value of one option: a number, or a word of its choices.
OptionValue = int | float | str
#: A whole state as :meth:`Game.to_dict` writes it and :meth:`Game.from_dict` reads it back: a
#: JSON-safe dict whose keys each game sets out, its values JSON of every shape.
Saved = dict[str, Any]


class AnyCard(Protocol):
    """What the card of every game offers (:class:`~engine.cards.Card`, or a game's own card class):
    its strict code and the label a player reads."""

    @property
    def code(self) -> str: ...
    @property
    def label(self) -> str: ...


#: A game's own card class (``Game.all_cards``): covariant, so every game is a ``Game`` of some card.
CardT = TypeVar("CardT", bound=AnyCard, covariant=True)
#: A game's own public view (a ``TypedDict`` in its package, what ``public_view`` returns); a caller
#: that does not know the game reads it as a :data:`View`.
ViewT = TypeVar("ViewT", bound=Mapping[str, object], covariant=True)
#: The game class an :class:`AI` plays (``class MyAI(AI[MyGame])``).  Unbound: a game compiled by
#: mypyc is a virtual subclass of :class:`Game`, not a nominal one (tools/native.py).
G = TypeVar("G")


class Decides(Protocol):
    """What :class:`Game`'s shared turn helpers (:meth:`Game.legal_actions`, ``random_action``,
    ``parse_action``) need of a state: its decisions.  A compiled game, which cannot inherit
    :class:`Game`, calls them with itself (``Game.random_action(self, seat, rng)``)."""

    def decision(self, seat: int) -> Decision | None: ...


class Action(NamedTuple):
    """A move.  ``kind`` says what it is (``play``, ``pass``, ...), ``cards`` which cards it uses,
    ``args`` any other words.  Its text code (``play QS``, ``pass 2C 3D 4H``) is what logs,
    replays, autocomplete values and component ids carry."""

    kind: str
    cards: tuple[Any, ...] = ()  # Any: each game's own card class (Card, or its own); a game reads its own
    args: tuple[str, ...] = ()

    @property
    def code(self) -> str:
        parts = [self.kind]
        parts.extend(c.code for c in self.cards)
        parts.extend(self.args)
        return " ".join(parts)

    @classmethod
    def parse(cls, code: str) -> Action:
        """Read a strict code as written by :attr:`code`."""
        tokens = code.split()
        if not tokens:
            raise IllegalAction(N_("An empty action means nothing."), "bad_code")
        cs: list[Card] = []
        args: list[str] = []
        for tok in tokens[1:]:
            if _CARD_CODE.match(tok) and not args:
                cs.append(card(tok))
            else:
                args.append(tok)
        return cls(tokens[0], tuple(cs), tuple(args))

    def __str__(self) -> str:
        return self.code


class Event(NamedTuple):
    """Something that happened, for the runtime to turn into words.  ``to`` is ``None`` for a
    public event, or the one seat allowed to see it (a pass received, a card dealt)."""

    kind: str
    seat: int | None = None
    data: tuple = ()
    to: int | None = None

    @property
    def code(self) -> str:
        parts = [self.kind]
        if self.seat is not None:
            parts.append(str(self.seat))
        parts.extend(c.code if isinstance(c, Card) else str(c) for c in self.data)
        return " ".join(parts)

    def visible_to(self, seat: int | None) -> bool:
        return self.to is None or self.to == seat


class Decision(NamedTuple):
    """What one seat must decide now.  Either a list of explicit ``actions`` to choose from, or
    (``pick`` > 0) exactly ``pick`` cards out of ``cards``, which makes the action
    ``Action(kind, chosen_cards)``.  ``timer`` is the base number of seconds before the runtime
    makes the safe move; the table's speed scales it (see ``clock_key`` for a clock that spans
    several decisions)."""

    seat: int
    kind: str
    actions: tuple[Action, ...] = ()
    pick: int = 0
    cards: tuple[Any, ...] = ()  # Any: the game's own card class, as in Action.cards
    timer: float = 30.0
    prompt: str = ""
    #: Decisions of one seat with the same non-None key share one deadline: a turn of several
    #: actions against one clock.
    clock_key: str | None = None


class Outcome(NamedTuple):
    """The result of a finished game.  ``scores`` per seat; ``places`` per seat (1 = first, shared
    places for ties); ``winners`` the seats in first place."""

    scores: tuple[int, ...]
    places: tuple[int, ...]
    winners: tuple[int, ...]

    @classmethod
    def ranked(cls, scores: Sequence[int], *, lowest_wins: bool = False) -> Outcome:
        """Places from scores (equal scores share a place; the next place skips, as in 1, 1, 3)."""
        sc = tuple(scores)
        better = (lambda o, x: o < x) if lowest_wins else (lambda o, x: o > x)
        places = tuple(1 + sum(1 for o in sc if better(o, x)) for x in sc)
        return cls(sc, places, tuple(s for s, p in enumerate(places) if p == 1))


class Option(NamedTuple):
    """A table setting.  ``choices`` lists allowed values (the default first) or is empty when any
    integer between ``low`` and ``high`` is allowed."""

    name: str
    default: Any  # Any: the option's own type (an OptionValue), as the game and the cogs read it
    choices: tuple[OptionValue, ...] = ()
    low: int | None = None
    high: int | None = None
    help: str = ""

    def read(self, text: OptionValue) -> Any:  # Any: as ``default``
        """Validate a value given as text or as its own type; raise ``ValueError`` with a reason."""
        if self.choices:
            for c in self.choices:
                if str(c).lower() == str(text).strip().lower():
                    return c
            raise ValueError(f"{self.name} must be one of: {', '.join(map(str, self.choices))}.")
        try:
            value = int(text)
        except (TypeError, ValueError):
            raise ValueError(f"{self.name} must be a whole number.") from None
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise ValueError(f"{self.name} must be between {self.low} and {self.high}.")
        return value


class Game(ABC, Generic[CardT, ViewT]):
    """The state of one game.  Subclasses set the class attributes and implement the methods.
    Generic over the game's own card class and public view (``class MyGame(Game[MyCard,
    MyView])``, the view a ``TypedDict``); the runtime and the cogs, which do not know the game, use
    ``Game`` as it is."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options_spec: ClassVar[tuple[Option, ...]] = ()
    #: Option sets that keep a game short (one hand), for the conformance test and the bench.
    short_options: ClassVar[tuple[Options, ...]] = ({},)
    summary: ClassVar[str] = ""  # one line of rules for the lobby
    rules_text: ClassVar[str] = ""  # a short readable rules text for /game rules

    players: int
    seed: int | str
    options: Options
    #: The events :meth:`create` emitted (the first deal, an opening draw), which nobody was there
    #: to hear: every replay reads them before the log's (:func:`replay`).  Empty in a state read
    #: back by :meth:`from_dict` or copied.
    start_events: Sequence[Event] = ()

    # ---- creation -------------------------------------------------------------------------
    @classmethod
    def read_options(cls, given: Options | None) -> Options:
        """Fill defaults and validate; raise ``ValueError`` naming the bad option."""
        given = dict(given or {})
        out: Options = {}
        for opt in cls.options_spec:
            out[opt.name] = opt.read(given.pop(opt.name)) if opt.name in given else opt.default
        if given:
            known = ", ".join(o.name for o in cls.options_spec) or "none"
            raise ValueError(f"Unknown option {next(iter(given))!r} for {cls.title} (options: {known}).")
        return out

    @classmethod
    @abstractmethod
    def create(
        cls,
        players: int,
        options: Options | None = None,
        seed: int | str = 0,
        deal: Sequence[Sequence[Card]] | None = None,
    ) -> Self:
        """A new game.  ``seed`` drives every shuffle; ``deal`` (one card list per seat) replaces
        the first shuffle, for tests, replays and comparisons with other implementations."""

    @classmethod
    def action_from_code(cls, code: str) -> Action:
        """Read a strict action code as the log stores it.  Games whose cards are not standard
        playing cards override this."""
        return Action.parse(code)

    @classmethod
    @abstractmethod
    def from_dict(cls, data: Saved) -> Self:
        """Rebuild exactly the state that :meth:`to_dict` wrote."""

    @abstractmethod
    def to_dict(self) -> Saved:
        """The whole state as a JSON-safe dict."""

    # ---- turns ----------------------------------------------------------------------------
    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats that must decide now (several during a simultaneous step; none when over)."""

    @abstractmethod
    def decision(self, seat: int) -> Decision | None:
        """What ``seat`` must decide now, or ``None`` if it has nothing to do."""

    def table_timer(self) -> tuple[float, Action] | None:
        """A step the rules make by themselves after a delay, unless a player acts first: ``(base
        seconds, action)``; the runtime applies ``action`` with seat :data:`TABLE` when the
        (speed-scaled) delay runs out.  Most games have none."""
        return None

    def timeout_action(self, seat: int) -> Action | None:
        """The move the rules themselves make for ``seat`` when its deadline passes (King of the
        Hill's call: nobody is enlisted), or ``None`` when the runtime's safe move (the AI's
        choice) stands in for the rules' "on timeout"."""
        return None

    def legal_actions(self: Decides, seat: int) -> list[Action]:
        """Every legal action of ``seat`` (enumerates picks — meant for tests and small picks)."""
        d = self.decision(seat)
        if d is None:
            return []
        if not d.pick:
            return list(d.actions)
        from itertools import combinations

        return [Action(d.kind, combo) for combo in combinations(d.cards, d.pick)]

    def random_action(self: Decides, seat: int, rng: random.Random) -> Action:
        """A uniformly random legal action of ``seat`` (without enumerating big picks)."""
        d = self.decision(seat)
        if d is None:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        if d.pick:
            return Action(d.kind, tuple(rng.sample(d.cards, d.pick)))
        return rng.choice(d.actions)

    @abstractmethod
    def apply(self, seat: int, action: Action) -> list[Event]:
        """Validate, then carry out ``action`` for ``seat``; return what happened.  An illegal
        action raises :class:`IllegalAction` and leaves the state exactly as it was."""

    def parse_action(self: Decides, seat: int, text: str) -> Action:
        """Read what a person typed (``qs``, ``10h``, ``2c 3d 4h``) as an action of ``seat``.
        The default matches strict codes, then a card list against the current decision."""
        d = self.decision(seat)
        if d is None:
            raise IllegalAction(N_("You have nothing to decide right now."), "not_your_turn")
        text = text.strip()
        for a in d.actions:
            if a.code.lower() == text.lower():
                return a
        try:
            chosen = Action.parse(text) if text.split()[0] == d.kind else None
        except Exception:
            chosen = None
        if chosen is not None and chosen.kind == d.kind and not chosen.args:
            return chosen
        from engine.cards import CardError
        from engine.cards import cards as read_cards

        try:
            cs = read_cards(text)
        except CardError as e:
            raise IllegalAction(e.phrase, "bad_card") from None
        if d.pick:
            if len(cs) != d.pick:
                raise IllegalAction(said_n("Choose exactly {n} card.", "Choose exactly {n} cards.", d.pick),
                                    "wrong_count")
            return Action(d.kind, cs)
        for a in d.actions:
            if a.cards == cs:
                return a
        return Action(d.kind, cs)

    # ---- what people may see ------------------------------------------------------------
    @abstractmethod
    def view(self, seat: int) -> ViewT:
        """What ``seat`` may see: the public view plus its own hidden information (a game's own
        view may add keys to its public view's: a ``TypedDict`` that extends it)."""

    @abstractmethod
    def public_view(self) -> ViewT:
        """What everyone may see.  Holds nothing hidden."""

    @abstractmethod
    def hidden_from(self, seat: int | None) -> set[str]:
        """Card codes that ``seat`` (``None``: the public) must not be shown right now.  The
        conformance test checks every view against it."""

    # ---- the end --------------------------------------------------------------------------
    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The result once the game is over, else ``None``."""

    # ---- search ---------------------------------------------------------------------------
    def copy(self) -> Self:
        """An independent copy of the state (search copies a state per playout).  Games override
        this with a direct copy that costs microseconds; this default is the serialised round trip."""
        return type(self).from_dict(self.to_dict())

    def sample_world(self, seat: int, rng: random.Random) -> Self:
        """A random full state consistent with everything ``seat`` may know — its hand, everything
        public, its own passes, what play has shown (a seat that did not follow is void) — with the
        cards it cannot see dealt again (like OpenSpiel's ``resample_from_infostate``).
        ``sampled.view(seat) == state.view(seat)`` always holds; the world has a fresh seed, so its
        later deals are unknown too.  It depends only on what ``seat`` knows and on ``rng``: no
        hidden record (another seat's pass, tax, dead hand) is copied from the real state.  Games
        that support search override it."""
        raise NotImplementedError(f"{self.title} cannot sample worlds")

    @classmethod
    def trick_taken(cls, cards: Sequence[Card], leader: int = 0) -> TrickTaken:
        """Who takes a full trick of ``cards`` in play order, led by seat ``leader`` (play goes
        round in seat order), with which card, for how many points.  The trick-taking games with
        one card a play answer, so the Discord layer never re-derives the rule."""
        raise NotImplementedError(f"{cls.title} is not a trick-taking game")

    def all_cards(self) -> list[CardT]:
        """Every card the game holds, wherever it is (hands, piles, the table): the conformance
        test checks that none is lost or duplicated."""
        raise NotImplementedError


class AI(ABC, Generic[G]):
    """A computer player of the game class ``G`` (``class MyAI(AI[MyGame])``; a player of any
    game, as the runtime holds it, is ``AI``).  It must use only what ``state.view(seat)`` would show."""

    @abstractmethod
    def choose(self, state: G, seat: int, rng: random.Random) -> Action: ...

    def choose_optional(self, state: G, seat: int, rng: random.Random) -> Action | None:
        """While the table itself is acting (:meth:`Game.table_timer`), the other seats' decisions
        are optional: the move this AI wants to make now, or ``None`` to let the table go on."""
        return self.choose(state, seat, rng)


def refusal(state: Game, seat: int, action: Action | str) -> IllegalAction | None:
    """Why the rules refuse ``action`` (or what a person typed, read by the game) for ``seat`` now:
    the :class:`IllegalAction` applying it would raise, or ``None`` when the rules allow it.  It is
    tried on ``state.copy()``, so nothing changes whatever the copy answers; the one way every
    layer asks (a move not offered, a card shown as unplayable), so no layer re-derives a rule."""
    trial = state.copy()
    try:
        if isinstance(action, str):
            action = trial.parse_action(seat, action)
        trial.apply(seat, action)
    except IllegalAction as e:
        # An answer, not an error to trace: without its traceback (nor one it was raised from),
        # whose frames (this one's trial copy, each caller's through f_back) and a caller keeping
        # the refusal formed a cycle only the garbage collector frees, for every hand drawn.
        e.__context__ = e.__cause__ = None
        return e.with_traceback(None)
    return None


class TrickTaken(NamedTuple):
    """A finished trick as the rules score it: the seat that took it, the card that took it and
    the points it carries (:meth:`Game.trick_taken`)."""

    seat: int
    card: Card
    points: int


@dataclass(frozen=True)
class GameSpec:
    """Everything the engine layer knows of one game, registered once with :func:`register` (by its
    own package, ``games/<name>/__init__.py``): the rules and the normal AI, and the pure parts every list of games
    above the engine reads instead of keeping its own — search, hints, stats, program seats, and
    the short game the privacy test plays.  The Discord side (renderer, option words, chart, card
    faces) is the game's ``cogs.table.screens.Screens``; ``tests/test_spec.py`` fails when a registered
    game lacks a part of either."""

    game: type[Game]
    ai: type[AI]
    #: The search's knowledge of the game (an ``engine.search.Hooks``); None: it cannot be searched.
    search: Any = None  # Any: engine/search.py's strong level reads it unchecked once ``strong``

    #: Playouts per decision of the ``strong`` level (as measured by bench/ai.py).
    playouts: int = 400
    #: Whether the ``strong`` level is offered: only once bench/ai.py measures a clear gain over
    #: normal (a game's hooks may stay for the bench to try without one).
    strong: bool = False
    #: A hint's facts: ``explain(state, seat, action) -> [phrase, ...]`` (engine/hints.py); None: none.
    explain: Callable[[Any, int, Action], list[str]] | None = None
    #: What the search's mean result measures, in a hint ("fewer points this hand").
    hint_units: str = N_("better")
    #: How a hint names a move the search compared (``move_words(state, seat, action) -> str``);
    #: None: its cards' labels, or its code.
    move_words: Callable[[Any, int, Action], str] | None = None
    #: A review of a person's play (engine/review.py): what a decision's loss is counted in ("points",
    #: "places"), and the losses from which a decision is an inaccuracy and a mistake.
    review_units: str = "points"
    review_thresholds: tuple[float, float] = (1.0, 3.0)
    #: Stats figures counted from a replay's events: ``figures(events, players) -> [{figure: n}]``
    #: per seat (engine/figures.py), and what each figure is called on /stats.
    figures: Callable[[Sequence[Event], int], list[dict[str, int]]] | None = None
    figure_names: Mapping[str, str] = field(default_factory=dict)
    #: The lowest score wins: a player's best score is their lowest.
    lowest_wins: bool = False
    #: Program seats and the program arena can play it: what it tells the line protocol of
    #: tables/programs/protocol.py (an ``engine.programs.ProgramRules``, from ``engine/<game>_programs.py``).
    programs: Any = None  # Any: engine/programs.py imports this module (no import circle)
    #: A short, typical game: ``(players, options)``, played by the tests that run every game (the
    #: privacy test seats it at a runtime).
    sample: tuple[int, Options] | None = None
    #: What a replay shows of it step by step and its hand-by-hand recap (an
    #: ``engine.replays.ReplayHooks``, from the game's ``engine/<game>_replay.py``); None: only the
    #: hands and the public scores.
    replay: Any = None  # Any: as ``programs``
    #: What the benches measure of it (an ``engine.measure.Measure``); None: bench/ai.py cannot
    #: measure its AI.
    measure: Any = None  # Any: as ``programs``
    #: How to play, in four short rule-book lines: the goal, your turn, what wins, one key rule
    #: (the **How to play** button adds the way to the full rules; tests/test_spec.py requires them).
    quick_start: tuple[str, ...] = ()
    #: Where every list of games (``/game new``'s choices first) puts it: lower first, then by name.
    order: int = 100
    #: A trick game played one card at a time: a person may pick their card before their turn comes
    #: (docs/rules.md, "Play ahead"; tables/ahead.py), unless the table turned it off.
    play_ahead: bool = False
    #: Duplicate deals (docs/rules.md, "Tournaments and duplicate scoring"): each finished hand's score
    #: per seat, ``hand_scores(events, players) -> [[score by seat] by hand]``, counted the way its
    #: outcome counts (``lowest_wins``); None: it is not offered duplicate.  The same deals go to every
    #: table of a duplicate round, so a game offers it only when a hand's deal depends on the seed and
    #: the hand's number alone.
    hand_scores: Callable[[Sequence[Event], int], list[list[float]]] | None = None
    #: Where each hand's deal goes by rank, not by seat (a ladder game): which seat held each
    #: dealt hand, hand by hand (``hand_holders(events, players) -> [[seat by dealt hand] by hand]``),
    #: and ``hand_scores`` lists each hand's scores by dealt hand too; None: dealt hand ``i`` is seat ``i``'s.
    hand_holders: Callable[[Sequence[Event], int], list[list[int]]] | None = None

    @property
    def name(self) -> str:
        return self.game.name


_REGISTRY: dict[str, GameSpec] = {}

#: The package holding one subpackage per game (``games/<name>/``).  Importing it imports each of
#: them, and each registers itself; the registry imports it the first time it is read
#: (:func:`discover`), so the engine names no game and every reader sees every game.
GAMES_PACKAGE = "games"
_discovered = False


def discover() -> None:
    """Import every game (:data:`GAMES_PACKAGE`) once: each registers its ``GameSpec``."""
    global _discovered
    if _discovered:
        return
    _discovered = True  # first, so a registry read while the games are imported does not recurse
    try:
        importlib.import_module(GAMES_PACKAGE)
    except BaseException:
        _discovered = False
        raise


def register(spec: GameSpec) -> None:
    """Register a game: after this every list of games (the engine's, the runtime's, the tests')
    includes it."""
    _REGISTRY[spec.name] = spec


def unregister(name: str) -> None:
    """Forget a game and its AI levels (tests register throwaway games)."""
    _REGISTRY.pop(name, None)
    for key in [k for k in LEVELS if k[0] == name]:
        del LEVELS[key]


def games() -> dict[str, GameSpec]:
    """Registered games by name, in their ``order`` (every game of :data:`GAMES_PACKAGE`, and any
    registered by hand)."""
    discover()
    return dict(sorted(_REGISTRY.items(), key=lambda kv: (kv[1].order, kv[0])))


def get(name: str) -> GameSpec:
    discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"Unknown game {name!r}; games: {', '.join(sorted(_REGISTRY))}.") from None


#: AI levels beyond each game's registered AI (which is ``normal``): (game, level) -> what makes one
#: (engine/levels.py offers and reads them; kept here so that :func:`unregister` forgets them too).
LEVELS: dict[tuple[str, str], Callable[..., AI]] = {}


def replay(
    name: str,
    players: int,
    options: Options | None,
    seed: int | str,
    actions: Iterable[tuple[int, str]],
    deal: Sequence[Sequence[Card]] | None = None,
) -> tuple[Game, list[Event]]:
    """Rebuild a game from its creation arguments and its log of ``(seat, action code)``; the
    events are every one the game emitted, its creation's (:attr:`Game.start_events`) first."""
    cls = get(name).game
    g = cls.create(players, options, seed, deal)
    events: list[Event] = list(g.start_events)
    for seat, code in actions:
        events.extend(g.apply(seat, cls.action_from_code(code)))
    return g, events
