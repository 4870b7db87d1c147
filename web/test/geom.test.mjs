// Screen geometry (src/geom.ts) for the screen the table is on (issue 13): a phone shows part of
// the table with readable cards and no empty bands, a laptop uses its width, a long hand keeps
// each card's corner in sight and scrolls; and (src/board.ts) a spread pile really spreads.
import assert from "node:assert/strict";
import { test } from "node:test";
import { computeGeom, FIT, handIndexAt, handOverflow, handSlots } from "../src/table/geom.ts";
import { cardInStack, stackBox } from "../src/table/board.ts";
import { CARD_W, TABLE_H, TABLE_W } from "../src/core/types.ts";

const tableH = (g) => g.hand.y;

test("a phone held upright: readable cards, the table fills the stage and pans", () => {
  const g = computeGeom(390, 738);
  assert.ok(CARD_W * g.s >= 50, `cards ${CARD_W * g.s} px wide`);
  // No band above or below the table: it is at least as tall as the stage above the hand.
  assert.ok(TABLE_H * g.s >= tableH(g) - 16);
  assert.ok(g.oy <= 8 && g.oy + TABLE_H * g.s >= tableH(g) - 8);
  assert.equal(g.pannable, true);
  // A pinch out can still show the whole table.
  const whole = computeGeom(390, 738, { ...FIT, zoom: 0 });
  assert.ok(TABLE_W * whole.s <= 390);
});

test("a phone on its side and a laptop use their width", () => {
  for (const [w, h] of [
    [844, 346],
    [1086, 748],
    [1640, 1028],
  ]) {
    const g = computeGeom(w, h);
    assert.ok(TABLE_W * g.s >= w - 16 - 1, `${w}x${h}: table ${TABLE_W * g.s} px wide`);
    assert.ok(CARD_W * g.s >= 50);
  }
  assert.ok(CARD_W * computeGeom(1640, 1028).s >= 90);
});

test("a long hand keeps every corner in sight and scrolls to the rest", () => {
  const g = computeGeom(390, 738);
  const slots = handSlots(g, 16);
  assert.ok(slots.step >= 20);
  const over = handOverflow(g, 16);
  assert.ok(over > 0);
  assert.equal(handOverflow(g, 3), 0);
  const scrolled = computeGeom(390, 738, FIT, over);
  assert.ok(Math.abs(handSlots(scrolled, 16).x - (slots.x - over)) < 1e-6);
  // Drops land where the cards are drawn, scrolled or not.
  const s2 = handSlots(scrolled, 16);
  assert.equal(handIndexAt(scrolled, 15, s2.x + 5 * s2.step + g.hand.cw / 2), 5);
});

test("spreading a deck lays its cards apart, inside the table", () => {
  const deck = {
    t: "stack",
    id: "deck",
    x: 665,
    y: 425,
    w: 110,
    h: 150,
    layout: "row",
    cards: Array.from({ length: 52 }, (_, i) => `c${i}`),
  };
  const step = cardInStack(deck, 1).x - cardInStack(deck, 0).x;
  assert.ok(step >= 12, `step ${step}`);
  const box = stackBox(deck);
  assert.ok(box.x + box.w <= TABLE_W);
  const small = { ...deck, cards: ["a", "b", "c"] };
  assert.ok(cardInStack(small, 1).x - cardInStack(small, 0).x >= 30);
});

test("a rule game's table is shown whole where that is readable, not on a phone", () => {
  const laptop = computeGeom(1086, 748, FIT, 0, true);
  assert.ok(TABLE_W * laptop.s <= 1086 && TABLE_H * laptop.s <= tableH(laptop));
  assert.equal(laptop.pannable, false);
  const free = computeGeom(1086, 748);
  assert.ok(free.s > laptop.s);
  const phone = computeGeom(390, 738, FIT, 0, true);
  assert.ok(CARD_W * phone.s >= 50);
});
