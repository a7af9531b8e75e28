#!/usr/bin/env python3
"""A plain Tricks player program: a starting point for your own.

It speaks the line protocol on stdin/stdout (see clients/README.md).  It keeps its hand, follows
suit when it can and otherwise plays any card, so it never plays a bad card.  The strategy is the
simplest legal one: the lowest card it may play.  Make it smarter in ``choose_card``.

Run it in a contest with the arena:

    python -m tables.programs.arena tricks "python3 clients/python_client.py" ai ai ai --target 50
"""

import sys

FACES = "23456789TJQKA"  # lowest to highest; suits are S C H D


def value(card):
    """How high a card is: 0 for a two up to 12 for an ace."""
    return FACES.index(card[0])


def choose_card(hand, trick):
    """Pick a legal card.  ``trick`` holds the cards already played to this trick, leader first."""
    if trick:
        led_suit = trick[0][1]
        same_suit = [c for c in hand if c[1] == led_suit]
        if same_suit:  # we must follow suit when we can
            return min(same_suit, key=value)
    return min(hand, key=value)


def send(*fields):
    sys.stdout.write("|" + "|".join(fields) + "|END|\n")
    sys.stdout.flush()  # the server waits for our answer: never leave it in a buffer


def main():
    name = sys.argv[1] if len(sys.argv) > 1 else "python_client"
    hand = []   # the cards we hold, like "QS"
    trick = []  # the cards played to the current trick so far
    for line in sys.stdin:
        parts = line.strip().split("|")
        # "|INFO|played|Ann|QS|END|" splits into ["", "INFO", "played", "Ann", "QS", "END", ""].
        if len(parts) < 5:
            continue
        kind, key, data = parts[1], parts[2], parts[3:-2]
        if kind == "INFO" and key == "cards":
            hand = data[0].split()
        elif kind == "INFO" and key == "start trick":
            trick = []
        elif kind == "INFO" and key == "played":
            player, card = data
            trick.append(card)
            if player == name and card in hand:
                hand.remove(card)
        elif kind == "QUERY" and key == "card":
            send("RESPONSE", "card", choose_card(hand, trick))
        # "start game", "start hand", "end trick", "end hand" and "bad card" need nothing from us:
        # after "bad card" and "end hand" a new "cards" message brings a fresh hand.


if __name__ == "__main__":
    main()
