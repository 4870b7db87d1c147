// The host's game controls in the players panel (src/panel.ts): where a computer may sit, and
// when a waiting game may be started before every seat is taken.
import assert from "node:assert/strict";
import { test } from "node:test";
import { computerMayTake, mayStart } from "../src/game/panel.ts";

const players = (...seats) => seats.map((seat, i) => ({ id: `p${i}`, name: `P${i}`, seat, host: i === 0 }));
const waiting = { name: "rummy", waiting: true, min_players: 2, max_players: 4, players: [] };
const started = {
  name: "gin_rummy",
  waiting: false,
  min_players: 2,
  max_players: 2,
  players: [
    { player: 0, seat: 0, name: "Ana" },
    { player: 1, seat: 2, name: "Ben" },
  ],
};

test("a computer may take a seat the game plays from, or any seat while the game fills up", () => {
  assert.equal(computerMayTake({ game: null, players: players(0) }, 1), false, "free play");
  assert.equal(computerMayTake({ game: waiting, players: players(0) }, 3), true);
  assert.equal(computerMayTake({ game: waiting, players: players(0, 1, 2, 3) }, 5), false, "the game is full");
  const s = { game: started, players: players(0, null) };
  assert.equal(computerMayTake(s, 2), true, "Ben's seat, now empty");
  assert.equal(computerMayTake(s, 1), false, "a seat the game does not play");
});

test("a waiting game may start with enough players seated, not too many", () => {
  assert.equal(mayStart({ game: waiting, players: players(0) }), false);
  assert.equal(mayStart({ game: waiting, players: players(0, null, 3) }), true);
  assert.equal(mayStart({ game: { ...waiting, max_players: 2 }, players: players(0, 1, 2) }), false);
  assert.equal(mayStart({ game: started, players: players(0, 2) }), false, "already started");
  assert.equal(mayStart({ game: null, players: players(0, 1) }), false);
});
