// The last trick (src/game/lasttrick.ts): read from the game view's public `last_trick`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { lastTrick } from "../src/game/lasttrick.ts";

const players = [0, 1, 2, 3].map((p) => ({ player: p, seat: p, name: `P${p}` }));

test("each card of the last trick with its player, the leader's first, and the winner", () => {
  const g = { players, view: { last_trick: { leader: 2, cards: ["H1", "H5", "S2", "H9"], winner: 0 } } };
  assert.deepEqual(lastTrick(g), {
    plays: [
      { player: 2, card: "H1" },
      { player: 3, card: "H5" },
      { player: 0, card: "S2" },
      { player: 1, card: "H9" },
    ],
    winner: 0,
  });
});

test("no last trick before the first one, nor in a game without tricks", () => {
  assert.equal(lastTrick({ players, view: { last_trick: null } }), null);
  assert.equal(lastTrick({ players, view: { stock_count: 3 } }), null);
  assert.equal(lastTrick(null), null);
});
