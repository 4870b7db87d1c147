// The boardgame.io anchor of `python -m bench` (target `bgio`): boardgame.io's own server
// (Koa + socket.io, in memory, full state per update), running the bench's workload.
//
// A match per room, created on the first `sync`. G is a card table like cardtable's standard
// room: a face-down deck of 52 cards, a hand per seat and each player's own loose face-up card
// (`card0`..), which `moveCard(x, y)` moves. Every player may move at any time
// (activePlayers: ALL) and a move is applied whatever state it was sent from
// (ignoreStaleStateID), as cardtable takes a free-play move; boardgame.io still runs a
// match's moves one at a time (its per-match queue) and sends every client of the match the
// whole new state (`update`). Usage: NODE_ENV=production node server.js PORT (the bench waits
// for its socket.io handshake, GET /socket.io/?EIO=4&transport=polling).
"use strict";

const { Server } = require("boardgame.io/server");
const { ActivePlayers } = require("boardgame.io/core");

const SUITS = "CDHS";

function setup({ ctx }) {
  const deck = [];
  for (const s of SUITS) for (let r = 1; r <= 13; r++) deck.push(`${s}${r}`);
  const hands = {};
  const cards = {};
  for (let p = 0; p < ctx.numPlayers; p++) {
    hands[p] = [];
    cards[`card${p}`] = {
      id: `card${p}`,
      t: "card",
      faces: [`${"HSDC"[p % 4]}${Math.floor(p / 4) + 1}`],
      up: true,
      x: 100 + 40 * p,
      y: 100,
      z: p,
      rot: 0,
      v: 0,
    };
  }
  return { deck: { id: "deck", t: "stack", x: 60, y: 60, up: false, cards: deck }, hands, cards };
}

const CardBench = {
  name: "cardbench",
  setup,
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    moveCard: {
      move: ({ G, playerID }, x, y) => {
        const card = G.cards[`card${playerID}`];
        card.x = x;
        card.y = y;
        card.v += 1;
      },
      ignoreStaleStateID: true,
    },
  },
};

const port = Number(process.argv[2] || 8000);
const server = Server({ games: [CardBench], origins: [/.*/] });
server.run({ port, callback: () => console.log(`boardgame.io on ${port}`) });
for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => process.exit(0));
