#!/usr/bin/env node
// A plain Tricks player program in Node.js: a starting point for your own.
//
// It speaks the line protocol on stdin/stdout (see clients/README.md). It keeps its hand, follows
// suit when it can and otherwise plays any card, so it never plays a bad card. The strategy is the
// simplest legal one: the lowest card it may play. Make it smarter in chooseCard.
//
// Run it in a contest with the arena:
//
//     python -m tables.programs.arena tricks "node clients/js_client.js" ai ai ai --target 50
'use strict';

const readline = require('readline');

const FACES = '23456789TJQKA'; // lowest to highest; suits are S C H D
const name = process.argv[2] || 'js_client';

let hand = []; // the cards we hold, like "QS"
let trick = []; // the cards played to the current trick so far, leader first

// How high a card is: 0 for a two up to 12 for an ace.
const value = (card) => FACES.indexOf(card[0]);
const lowest = (cards) => cards.reduce((a, b) => (value(b) < value(a) ? b : a));

function chooseCard() {
  if (trick.length > 0) {
    const ledSuit = trick[0][1];
    const sameSuit = hand.filter((c) => c[1] === ledSuit);
    if (sameSuit.length > 0) return lowest(sameSuit); // we must follow suit when we can
  }
  return lowest(hand);
}

function send(...fields) {
  process.stdout.write('|' + fields.join('|') + '|END|\n');
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on('line', (line) => {
  // "|INFO|played|Ann|QS|END|" splits into ["", "INFO", "played", "Ann", "QS", "END", ""].
  const parts = line.trim().split('|');
  if (parts.length < 5) return;
  const [kind, key] = [parts[1], parts[2]];
  const data = parts.slice(3, -2);
  if (kind === 'INFO' && key === 'cards') {
    hand = data[0].split(' ');
  } else if (kind === 'INFO' && key === 'start trick') {
    trick = [];
  } else if (kind === 'INFO' && key === 'played') {
    const [player, card] = data;
    trick.push(card);
    if (player === name) hand = hand.filter((c) => c !== card);
  } else if (kind === 'QUERY' && key === 'card') {
    send('RESPONSE', 'card', chooseCard());
  }
  // "start game", "start hand", "end trick", "end hand" and "bad card" need nothing from us:
  // after "bad card" and "end hand" a new "cards" message brings a fresh hand.
});
input.on('close', () => process.exit(0));
