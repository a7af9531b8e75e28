"""War (docs/rules.md §6): each player is dealt ``cards`` cards; the leader plays any card, then each
other player in turn; the highest rank takes the battle (the first played of equal ranks) and leads
the next one; a battle is a point; when the hands are empty the most points win.  It imports the
engine and the standard library only."""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import ALL_CARDS, Card, card
from engine.core import Action, Decision, Event, Game, IllegalAction, Option, Options, Outcome, Saved, rng_for
from games.war.view_types import WarView
from words import N_

NAME = "war"
RANKS = "23456789TJQKA"


def _order(c: Card) -> int:
    return c.index


class War(Game[Card, WarView]):
    name = NAME
    title = "War"
    min_players = 2
    max_players = 4
    options_spec = (Option("cards", 5, low=1, high=13, help="cards dealt to each player"),)
    summary = "Play a card; the highest takes the battle."
    rules_text = "Each player plays a card in turn; the highest rank wins the battle. Most battles wins."

    def __init__(self, players: int, options: Options, seed: int | str) -> None:
        self.players = players
        self.options = options
        self.seed = seed
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        self.trick: list[tuple[int, Card]] = []
        self.won: list[list[Card]] = [[] for _ in range(players)]
        self.leader = 0
        self.scores = [0] * players

    @classmethod
    def create(cls, players: int, options: Options | None = None, seed: int | str = 0,
               deal: Sequence[Sequence[Card]] | None = None) -> War:
        if not cls.min_players <= players <= cls.max_players:
            raise ValueError(f"War is played by {cls.min_players} to {cls.max_players} players.")
        opts = cls.read_options(options)
        g = cls(players, opts, seed)
        if deal is not None:
            g.hands = [sorted(h, key=_order) for h in deal]
        else:
            deck = [c for c in ALL_CARDS if c.code[0] in RANKS]  # no jokers
            rng_for(seed, "deal").shuffle(deck)
            n = opts["cards"]
            g.hands = [sorted(deck[s * n:(s + 1) * n], key=_order) for s in range(players)]
        return g

    # ---- turns ----------------------------------------------------------------------------
    @property
    def turn(self) -> int | None:
        if self.is_over:
            return None
        return (self.leader + len(self.trick)) % self.players

    def to_act(self) -> tuple[int, ...]:
        return () if self.turn is None else (self.turn,)

    def decision(self, seat: int) -> Decision | None:
        if seat != self.turn:
            return None
        return Decision(seat, "play", tuple(Action("play", (c,)) for c in self.hands[seat]),
                        prompt=N_("play a card"))

    def apply(self, seat: int, action: Action) -> list[Event]:
        if seat != self.turn:
            raise IllegalAction(N_("It is not your turn."), "not_your_turn")
        if action.kind != "play" or len(action.cards) != 1 or action.args:
            raise IllegalAction(N_("Play one card."), "bad_action")
        c = action.cards[0]
        if c not in self.hands[seat]:
            raise IllegalAction(N_("You do not hold that card."), "not_held")
        self.hands[seat].remove(c)
        self.trick.append((seat, c))
        events = [Event("play", seat, (c,))]
        if len(self.trick) == self.players:
            best = max(self.trick, key=lambda sc: (RANKS.index(sc[1].code[0]), -self.trick.index(sc)))[0]
            cards = tuple(x for _, x in self.trick)
            self.won[best].extend(cards)
            self.scores[best] += 1
            self.trick = []
            self.leader = best
            events.append(Event("trick", best, cards))
            if self.is_over:
                events.append(Event("game_end", None, tuple(self.scores)))
        return events

    # ---- views ----------------------------------------------------------------------------
    def public_view(self) -> WarView:
        return {"game": NAME, "phase": "over" if self.is_over else "play", "turn": self.turn,
                "leader": self.leader, "trick": [[s, c.code] for s, c in self.trick],
                "scores": list(self.scores), "cards_left": [len(h) for h in self.hands]}

    def view(self, seat: int) -> WarView:
        return {**self.public_view(), "seat": seat, "hand": [c.code for c in self.hands[seat]]}

    def hidden_from(self, seat: int | None) -> set[str]:
        return {c.code for s, h in enumerate(self.hands) if s != seat for c in h}

    def all_cards(self) -> list[Card]:
        return [c for h in self.hands for c in h] + [c for _, c in self.trick] + [c for w in self.won for c in w]

    # ---- the end --------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        return not self.trick and not any(self.hands)

    def outcome(self) -> Outcome | None:
        return Outcome.ranked(self.scores) if self.is_over else None

    # ---- storage --------------------------------------------------------------------------
    def to_dict(self) -> Saved:
        return {"game": NAME, "players": self.players, "options": dict(self.options), "seed": self.seed,
                "phase": "over" if self.is_over else "play",
                "hands": [[c.code for c in h] for h in self.hands],
                "trick": [[s, c.code] for s, c in self.trick],
                "won": [[c.code for c in w] for w in self.won], "leader": self.leader, "scores": list(self.scores)}

    @classmethod
    def from_dict(cls, data: Saved) -> War:
        g = cls(data["players"], dict(data["options"]), data["seed"])
        g.hands = [sorted((card(c) for c in h), key=_order) for h in data["hands"]]
        g.trick = [(s, card(c)) for s, c in data["trick"]]
        g.won = [[card(c) for c in w] for w in data["won"]]
        g.leader = data["leader"]
        g.scores = list(data["scores"])
        return g
