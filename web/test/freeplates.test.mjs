// Free play's seat plates (src/game/plates.ts): every other seated player gets one, with the cards
// held and whether they are here; the places go round the table with yours at the bottom.
import assert from "node:assert/strict";
import { test } from "node:test";
import { freeFrames, freePlateInfos } from "../src/game/plates.ts";

const players = [
  { id: "a", name: "Ana", seat: 0, host: true, status: "online", bot: false },
  { id: "b", name: "Ben", seat: 2, host: false, status: "reconnecting", bot: false },
  { id: "c", name: "Cy", seat: null, host: false, status: "online", bot: false },
  { id: "d", name: "Dee", seat: 3, host: false, status: "online", bot: true, level: "easy" },
];
const objs = new Map([
  ["hand2", { id: "hand2", t: "hand", seat: 2, n: 5, x: 0, y: 0 }],
  ["hand3", { id: "hand3", t: "hand", seat: 3, n: 0, x: 0, y: 0 }],
]);

test("free plates: the other seated players, their cards, online or away, places relative to you", () => {
  const got = freePlateInfos(players, objs, 2, 4);
  assert.deepEqual(
    got.map((p) => [p.name, p.cards, p.status, p.place, p.bot, p.level]),
    [
      ["Ana", 0, "online", 2, false, null],
      ["Dee", 0, "online", 1, true, "easy"],
    ],
  );
  // A spectator sees every seated player, seat 0 at the bottom.
  assert.deepEqual(
    freePlateInfos(players, objs, null, 4).map((p) => [p.name, p.place, p.cards, p.status]),
    [
      ["Ana", 0, 0, "online"],
      ["Ben", 2, 5, "away"],
      ["Dee", 3, 0, "online"],
    ],
  );
});

test("free frames: yours at the bottom middle, the others round the table, each facing the middle", () => {
  const t = { w: 1600, h: 1000 };
  const f = freeFrames(4, t);
  assert.equal(f.length, 4);
  assert.ok(Math.abs(f[0].x - 800) < 1e-6 && f[0].y > 900 && f[0].fy < -0.99);
  assert.ok(f[1].x < 200 && Math.abs(f[1].y - 500) < 1e-6, "next on the left");
  assert.ok(f[2].y < 100 && Math.abs(f[2].x - 800) < 1e-6, "opposite at the top");
  assert.ok(f[3].x > 1400, "then on the right");
  for (const fr of f) {
    assert.ok(fr.x > 0 && fr.x < t.w && fr.y > 0 && fr.y < t.h);
    const [dx, dy] = [800 - fr.x, 500 - fr.y];
    assert.ok(fr.fx * dx + fr.fy * dy > 0, "faces the middle");
  }
});
