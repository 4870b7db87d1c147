// Where a dragged card lands (src/table/drop.ts findTarget): the topmost object under it, except
// that an empty game zone ("New meld") never wins over a meld lying on or beside it (issue 20
// item 4: a card dropped on a meld over "New meld" was read as a new meld).
import assert from "node:assert/strict";
import { test } from "node:test";
import { findTarget } from "../src/table/drop.ts";
import { computeGeom } from "../src/table/geom.ts";

const g = computeGeom(1440, 900);
const px = (x, y) => ({ x: g.ox + x * g.s, y: g.oy + y * g.s });
const stack = (id, x, y, z, cards, extra = {}) => ({
  t: "stack",
  id,
  x,
  y,
  z,
  rot: 0,
  locked: true,
  v: 1,
  cards,
  layout: "row",
  holder: true,
  label: "",
  w: 200,
  h: 140,
  owner: null,
  ...extra,
});

/** A card of the hand dragged so that its centre is at table point (x, y). */
function dragAt(view, x, y) {
  const w = 100 * g.s;
  const h = 140 * g.s;
  const at = px(x, y);
  return findTarget({ view }, g, [{ id: "c9", kind: "card", x0: 0, y0: 0, x: at.x - w / 2, y: at.y - h / 2, w, h }]);
}

test("a drop on a meld lying over 'New meld' is a lay-off onto the meld", () => {
  const view = new Map([
    ["m0x0", stack("m0x0", 700, 400, 5, ["c1", "c2", "c3"])],
    ["newmeld", stack("newmeld", 650, 380, 9, [], { label: "New meld", w: 230, h: 150 })],
  ]);
  assert.equal(dragAt(view, 760, 470), "m0x0");
  // Beside the meld, New meld still takes the drop.
  assert.equal(dragAt(view, 665, 390), "newmeld");
});

test("on the free table the topmost object under the card still wins", () => {
  const view = new Map([
    ["pile", stack("pile", 700, 400, 5, ["c1", "c2"], { locked: false, holder: false, layout: "pile", w: 0, h: 0 })],
    ["zone", stack("zone", 650, 380, 9, [], { locked: false, w: 230, h: 150 })],
  ]);
  assert.equal(dragAt(view, 750, 470), "zone");
});
