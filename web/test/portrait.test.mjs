// A game on an upright phone (src/seating.ts, src/geom.ts): the server's landscape layout is
// drawn on a portrait table, whole, each place's things together in its part of the table.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fitSpan, handPlaces, portraitFrame, seatView } from "../src/table/seating.ts";
import { computeGeom, portraitTable } from "../src/table/geom.ts";
import { objBox } from "../src/table/board.ts";
import { CARD_W, TABLE_H, TABLE_W } from "../src/core/types.ts";

const SLOTS = {
  2: [
    [800, 880, 0, -1],
    [800, 120, 0, 1],
  ],
  4: [
    [800, 880, 0, -1],
    [130, 500, 1, 0],
    [800, 120, 0, 1],
    [1470, 500, -1, 0],
  ],
};
const at = ([x, y, fx, fy], forward, side) => [x + forward * fx - side * fy, y + forward * fy + side * fx];

const zone = (id, x, y, owner, extra = {}) => ({
  id,
  t: "stack",
  x,
  y,
  w: 110,
  h: 150,
  z: 1,
  v: 1,
  rot: 0,
  cards: [],
  holder: true,
  layout: "pile",
  label: "",
  locked: true,
  owner,
  ...extra,
});
const marker = (id, t, x, y, owner) => ({
  id,
  t,
  x,
  y,
  z: 1,
  v: 1,
  rot: 0,
  owner,
  value: 0,
  step: 1,
  label: "",
  text: "Bid 3",
  locked: true,
});

/** Spades as plugins/spades/binding.py lays it out: every bid made. */
function spades() {
  const objs = new Map();
  const add = (o) => objs.set(o.id, o);
  const S = SLOTS[4];
  for (let p = 0; p < 4; p++) {
    const [tx, ty] = at(S[p], 300, 0);
    add(zone(`trick${p}`, tx - 55, ty - 75, p));
    const [wx, wy] = at(S[p], 0, 330);
    add(zone(`won${p}`, wx - 55, wy - 75, p, { label: "Tricks" }));
    add(marker(`bid${p}`, "label", ...at(S[p], 120, -260), p));
    add(marker(`taken${p}`, "counter", ...at(S[p], 0, -400), p));
    add({ id: `hand${p}`, t: "hand", seat: p, n: 13, x: 0, y: 0, z: 0, v: 1, rot: 0 });
  }
  add(marker("bags0", "counter", ...at(S[0], 160, -420), 0));
  add(marker("bags1", "counter", ...at(S[1], 160, -420), 1));
  return objs;
}

/** Gin Rummy after a knock by player k (plugins/gin_rummy/binding.py): the melds laid out. */
function gin(k) {
  const objs = new Map();
  const add = (o) => objs.set(o.id, o);
  add(zone("stock", 560, 425, null, { holder: false }));
  add(zone("discard", 760, 425, null));
  add(zone("knockdiscard", 960, 425, null));
  const y = [600, 250];
  for (let i = 0; i < 4; i++) add(zone(`meld${i}`, 180 + 260 * i, y[k], k, { layout: "row", w: 230 }));
  add(zone(`deadwood${k}`, 1220, y[k], k, { layout: "row", w: 300 }));
  for (let p = 0; p < 2; p++) add({ id: `hand${p}`, t: "hand", seat: p, n: 10, x: 0, y: 0, z: 0, v: 1, rot: 0 });
  return objs;
}

const game = (n, me) => ({
  name: "g",
  waiting: false,
  me,
  slots: SLOTS[n],
  players: Array.from({ length: n }, (_, p) => ({ seat: p, player: p, name: `P${p}` })),
});

const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

function check(view, t, label, bounded = true) {
  const boxes = [];
  for (const o of view.values()) {
    const b = objBox(view, o);
    if (!b) continue;
    // A label is as wide as its text, drawn from its left: "Bid 3" takes 80 of its 200 units.
    if (o.t === "label") b.w = 80;
    // A zone's name is written over it.
    if (o.t === "stack" && o.label) {
      b.y -= 32;
      b.h += 32;
    }
    if (bounded)
      assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= t.w && b.y + b.h <= t.h, `${label}: ${o.id} off the table: ${JSON.stringify(b)}`);
    boxes.push([o.id, b]);
  }
  return boxes;
}

test("an upright phone calls for a portrait table that fills the stage; a laptop does not", () => {
  const t = portraitTable(390, 704);
  assert.ok(t && t.w < t.h, JSON.stringify(t));
  const g = computeGeom(390, 704, undefined, 0, true, t);
  assert.ok(CARD_W * g.s >= 40, `cards ${CARD_W * g.s} px`);
  assert.ok(t.w * g.s <= 390 && t.h * g.s <= g.hand.y, "the whole table in view");
  assert.ok(t.h * g.s >= g.hand.y - 30, "and no wide band under it");
  assert.equal(g.pannable, false);
  assert.equal(portraitTable(844, 346), null);
  assert.equal(portraitTable(1366, 700), null);
});

test("places keep their edge and their distance from it", () => {
  const t = { w: 900, h: 1300 };
  const f = SLOTS[4].map(([x, y, fx, fy]) => portraitFrame({ x, y, fx, fy }, t));
  assert.deepEqual(
    f.map((p) => [Math.round(p.x), Math.round(p.y)]),
    [
      [450, 1180],
      [130, 650],
      [450, 120],
      [770, 650],
    ],
  );
});

test("fitSpan moves boxes into range, and squeezes them only when they can't fit", () => {
  const same = fitSpan(
    [
      { c: 100, half: 10 },
      { c: 200, half: 10 },
    ],
    0,
    500,
  );
  assert.deepEqual([same(100), same(200)], [100, 200]);
  const moved = fitSpan(
    [
      { c: -20, half: 10 },
      { c: 100, half: 10 },
    ],
    0,
    500,
  );
  assert.deepEqual([moved(-20), moved(100)], [10, 130]);
  const squeezed = fitSpan(
    [
      { c: 0, half: 50 },
      { c: 1000, half: 50 },
    ],
    0,
    600,
  );
  assert.ok(Math.abs(squeezed(0) - 50) < 1e-6 && Math.abs(squeezed(1000) - 550) < 1e-6);
});

/** The pairs of objects lying on each other. */
function crossing(boxes) {
  const out = new Set();
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++)
      if (overlaps(boxes[i][1], boxes[j][1])) out.add([boxes[i][0], boxes[j][0]].sort().join(" on "));
  return out;
}

test("Spades on a portrait table: all on it, nothing on top of anything more than on a laptop, from every seat", () => {
  const t = portraitTable(390, 704);
  for (const me of [null, 0, 1, 2, 3]) {
    const view = seatView(spades(), game(4, me), t);
    const boxes = check(view, t, `me ${me}`);
    // (Turned a quarter, a marker the server placed by its corner can meet another one of the
    // same player: that is so on the landscape table too, and is all that is allowed here.)
    const wide = crossing(check(seatView(spades(), game(4, me), null), { w: TABLE_W, h: TABLE_H }, "landscape", false));
    const extra = [...crossing(boxes)].filter((pair) => !wide.has(pair));
    assert.deepEqual(extra, [], `me ${me}`);
    // The viewer's trick zone is the lowest of the four, and the others' hands are round it.
    const tricks = [0, 1, 2, 3].map((p) => view.get(`trick${p}`));
    const mine = tricks[me ?? 0];
    assert.ok(
      tricks.every((z) => z === mine || z.y < mine.y),
      `me ${me}`,
    );
    const hands = handPlaces(view, game(4, me), t);
    for (const h of hands) assert.ok(h.x > 0 && h.x < t.w && h.y > 0 && h.y < t.h);
  }
});

test("Gin on a portrait table: the knocker's melds stay on it (squeezed to fit)", () => {
  const t = portraitTable(390, 704);
  for (const k of [0, 1])
    for (const me of [0, 1]) {
      const view = seatView(gin(k), game(2, me), t);
      check(view, t, `knock ${k}, me ${me}`);
      const melds = [0, 1, 2, 3].map((i) => view.get(`meld${i}`));
      // Still in order along the row (a page that turns the table a half round sees it from
      // the other end), each a little further on, and on the knocker's side of the table.
      const xs = melds.map((m) => m.x);
      const dir = me === 0 ? 1 : -1;
      for (let i = 1; i < xs.length; i++) assert.ok((xs[i] - xs[i - 1]) * dir > 60, `knock ${k}, me ${me}: ${xs}`);
      assert.ok(k === me ? melds[0].y > t.h / 2 : melds[0].y < t.h / 2);
    }
});

test("a laptop's game keeps the server's landscape layout", () => {
  const objs = spades();
  assert.equal(seatView(objs, game(4, 0), null), objs);
  assert.ok(TABLE_W > TABLE_H);
});
