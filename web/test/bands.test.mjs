// A game with players at the sides on an upright phone (src/table/bands.ts, seating.ts): the
// table cut into bands across its width, each band's boxes packed into it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { packBand, rows, shelve, stackDown } from "../src/table/bands.ts";
import { handPlaces, PLATE_H, PLATE_W, seatView, viewPlaces } from "../src/table/seating.ts";
import { objBox } from "../src/table/board.ts";

const box = (id, x, y, w = 100, h = 140, flow = false) => ({ id, x, y, w, h, flow });
const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

test("shelve packs left to right and wraps into lines as deep as their deepest box", () => {
  const p = shelve([box("a", 0, 0, 300), box("b", 0, 0, 300, 100), box("c", 0, 0, 300)], 10, 700);
  assert.deepEqual(p.spots, [
    { id: "a", x: 10, y: 0 },
    { id: "b", x: 318, y: 0 },
    { id: "c", x: 10, y: 148 },
  ]);
  assert.equal(p.h, 288);
  assert.deepEqual(shelve([], 0, 100), { spots: [], h: 0 });
});

test("rows: boxes whose heights overlap share a row", () => {
  const r = rows([box("low", 0, 300), box("b", 200, 10), box("a", 0, 0), box("tall", 400, 100, 50, 220)]);
  assert.deepEqual(
    r.map((row) => row.map((b) => b.id)),
    [["a", "low", "b", "tall"]],
  );
  const apart = rows([box("a", 0, 0, 100, 40), box("b", 0, 60)]);
  assert.equal(apart.length, 2);
});

test("packBand keeps a row that fits (moved inside), wraps one that does not, rows of melds together", () => {
  // A label row that fits, moved in from the left edge; then two rows of melds, 1100 wide each.
  const items = [box("label", -50, 0, 200, 40)];
  for (let r = 0; r < 2; r++) for (let i = 0; i < 5; i++) items.push(box(`m${r}${i}`, 240 * i, 60 + 150 * r, 200, 140, true));
  const p = packBand(items, 10, 890);
  const at = new Map(p.spots.map((s) => [s.id, s]));
  assert.deepEqual(at.get("label"), { id: "label", x: 10, y: 0 });
  const placed = items.map((b) => ({ ...b, ...at.get(b.id) }));
  for (const b of placed) assert.ok(b.x >= 10 && b.x + b.w <= 890, `${b.id} inside`);
  for (let i = 0; i < placed.length; i++)
    for (let j = i + 1; j < placed.length; j++) assert.ok(!overlaps(placed[i], placed[j]), `${placed[i].id} and ${placed[j].id}`);
  // Ten melds of 200 in lines of 880: four a line, three lines (not four: the rows flow on).
  assert.equal(new Set(placed.filter((b) => b.flow).map((b) => b.y)).size, 3);
  // The rows 20 apart before: 16 now (as far as they were, at most twice the gap).
  assert.equal(p.h, 40 + 16 + 3 * 140 + 2 * 8);
});

test("packBand packs a row whose boxes overlap (a place's room laid over melds) into lines", () => {
  const items = [box("seat", 300, 0, 300, 165), box("m1", 100, 10, 190, 140, true), box("m2", 450, 10, 190, 140, true)];
  const p = packBand(items, 10, 890);
  const placed = items.map((b) => ({ ...b, ...p.spots.find((s) => s.id === b.id) }));
  for (let i = 0; i < placed.length; i++)
    for (let j = i + 1; j < placed.length; j++) assert.ok(!overlaps(placed[i], placed[j]), `${placed[i].id} and ${placed[j].id}`);
  assert.equal(p.h, 165);
});

test("stackDown: first at the top, last at the bottom, the room left shared", () => {
  assert.deepEqual(stackDown([100, 200, 100], 0, 1000), [0, 400, 900]);
  assert.deepEqual(stackDown([100], 0, 1000), [450]);
  assert.deepEqual(stackDown([], 0, 10), []);
});

// Pennies with 4 players as plugins/pennies/binding.py lays it out on the landscape table: two
// melds for each player round the table, the middle row (stock, discard, New meld, spent) and
// the contract; each player's pennies beside their place.
const SLOTS4 = [
  [800, 880, 0, -1],
  [130, 500, 1, 0],
  [800, 120, 0, 1],
  [1470, 500, -1, 0],
];
const at = ([x, y, fx, fy], forward, side) => [x + forward * fx - side * fy, y + forward * fy + side * fx];
const stack = (id, x, y, extra = {}) => ({
  id,
  t: "stack",
  x,
  y,
  w: 100,
  h: 140,
  z: 1,
  v: 1,
  rot: 0,
  cards: [],
  holder: true,
  layout: "pile",
  label: "",
  locked: true,
  owner: null,
  ...extra,
});
const widget = (id, t, x, y, owner = null) => ({
  id,
  t,
  x,
  y,
  z: 1,
  v: 1,
  rot: 0,
  owner,
  value: 8,
  step: 1,
  label: "",
  text: "Round 1",
  locked: true,
});

function pennies4() {
  const objs = new Map();
  const add = (o) => objs.set(o.id, o);
  add(stack("stock", 503, 462, { label: "Stock" }));
  add(stack("discard", 629, 462, { label: "Discard" }));
  add(stack("newmeld", 755, 462, { label: "New meld", layout: "row", w: 230 }));
  add(widget("spent", "chips", 1001, 489));
  add(widget("contract", "label", 700, 388));
  for (let p = 0; p < 4; p++) {
    for (const [i, side] of [-300, 300].entries()) {
      const [x, y] = at(SLOTS4[p], 200, side);
      add(stack(`m${p}x${i}`, x - 95, y - 70, { layout: "row", w: 190, owner: p, cards: ["H1", "S1", "C1", "D1"] }));
    }
    const [cx, cy] = at(SLOTS4[p], -70, 166);
    add(widget(`pennies${p}`, "chips", cx - 48, cy - 48, p));
    add({ id: `hand${p}`, t: "hand", seat: p, n: 8, x: 0, y: 0, z: 0, v: 1, rot: 0 });
  }
  return objs;
}

const game4 = (me) => ({
  name: "pennies",
  waiting: false,
  me,
  slots: SLOTS4,
  players: [0, 1, 2, 3].map((p) => ({ seat: p, player: p, name: `P${p}` })),
});

test("Pennies with 4 on a phone: bands across the table, nothing overlaps, all on it, the sides drawn as plates", () => {
  const t = { w: 900, h: 1290 };
  for (const me of [0, 1, null]) {
    const view = seatView(pennies4(), game4(me), t);
    const boxes = [];
    for (const o of view.values()) {
      const b = objBox(view, o);
      if (!b) continue;
      if (o.t === "stack" && o.label) {
        b.y -= 32;
        b.h += 32;
      }
      assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= t.w && b.y + b.h <= t.h, `me ${me}: ${o.id} off the table: ${JSON.stringify(b)}`);
      boxes.push([o.id, b]);
    }
    // The side places sit at their plates' room, which nothing covers.
    const st = { frames: [], n: 4, me, playerOf: new Map([0, 1, 2, 3].map((p) => [p, p])) };
    const places = viewPlaces(view, { ...st, frames: SLOTS4.map(([x, y, fx, fy]) => ({ x, y, fx, fy })) }, t);
    for (const r of [1, 3]) {
      const f = places[r];
      boxes.push([`plate${r}`, { x: f.x - PLATE_W / 2, y: f.y - PLATE_H / 2, w: PLATE_W, h: PLATE_H }]);
    }
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++)
        assert.ok(!overlaps(boxes[i][1], boxes[j][1]), `me ${me}: ${boxes[i][0]} on ${boxes[j][0]}`);
    // Top to bottom: the top player's melds, the right's, the middle, the left's, the viewer's.
    const rel = (p) => (((p - (me ?? 0)) % 4) + 4) % 4;
    const y = (r) => view.get(`m${[0, 1, 2, 3].find((p) => rel(p) === r)}x0`).y;
    assert.ok(y(2) < y(3) && y(3) < view.get("stock").y && view.get("stock").y < y(1) && y(1) < y(0), `me ${me}`);
    // Only the top player's hand is fanned: the sides shrink to their plates.
    assert.deepEqual(
      handPlaces(view, game4(me), t).map((h) => rel(h.player)),
      me === null ? [0, 2] : [2],
    );
  }
});

test("Pennies on a laptop keeps the server's layout", () => {
  const objs = pennies4();
  assert.equal(seatView(objs, game4(0), null), objs);
});

test("Pennies with 4 on a phone is in bands from the deal (no meld yet): the layout does not jump at the first meld", () => {
  const t = { w: 900, h: 1290 };
  const objs = pennies4();
  for (const id of [...objs.keys()]) if (/^m\dx/.test(id)) objs.delete(id);
  const view = seatView(objs, game4(0), t);
  assert.deepEqual(
    handPlaces(view, game4(0), t).map((h) => h.player),
    [2],
  );
});
