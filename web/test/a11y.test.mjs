// What keyboard and screen-reader users get from the table (src/a11y.ts): names that never say
// a face this page doesn't hold, which objects take focus, the Tab order, the drop places.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cardName, cycle, dropPlaces, focusable, focusOrder, objLabel } from "../src/table/a11y.ts";

const base = { x: 0, y: 0, z: 1, rot: 0, locked: false, v: 1 };
const card = (id, extra) => ({ ...base, t: "card", id, back: "blue", up: false, parent: null, ...extra });
const stack = (id, cards, extra) => ({ ...base, t: "stack", id, cards, layout: "pile", holder: true, label: "", w: 110, h: 150, ...extra });
const hand = (seat, cards) => ({ ...base, t: "hand", id: `hand${seat}`, seat, n: cards ? cards.length : 2, ...(cards ? { cards } : {}) });
const view = (...objs) => new Map(objs.map((o) => [o.id, o]));

function table() {
  return view(
    stack("deck", ["c1", "c2"], { label: "Deck", x: 400, y: 300 }),
    card("c1", { parent: "deck" }),
    card("c2", { parent: "deck" }),
    stack("discard", ["c3"], { label: "Discard", x: 600, y: 300 }),
    card("c3", { parent: "discard", face: "H7", up: true }),
    card("loose", { x: 100, y: 700, face: "S12", up: true }),
    card("down", { x: 100, y: 60 }),
    { ...base, t: "chips", id: "k1", x: 1200, y: 60, count: 1, color: "#d33", value: 1, label: "" },
    hand(0, ["h1", "h2"]),
    card("h1", { parent: "hand0", face: "D1" }),
    card("h2", { parent: "hand0", face: "C10" }),
    hand(1),
  );
}

test("a card is named by its face only when the page holds it", () => {
  assert.equal(cardName(card("a", { face: "S12", up: true })), "queen of spades");
  assert.equal(cardName(card("b", {})), "face-down card");
  const v = table();
  assert.equal(objLabel(v, v.get("down"), 0), "face-down card");
  assert.equal(objLabel(v, v.get("h1"), 0), "ace of diamonds, in your hand");
  assert.equal(objLabel(v, v.get("c1"), 0), "face-down card, in Deck");
});

test("a pile says its name, its count and its top card as far as it is seen", () => {
  const v = table();
  assert.equal(objLabel(v, v.get("deck"), 0), "Deck: 2 cards, top card face down");
  assert.equal(objLabel(v, v.get("discard"), 0), "Discard: 1 card, top card 7 of hearts");
  assert.equal(objLabel(v, stack("z", [], { holder: true }), 0), "Zone: empty");
  assert.equal(objLabel(v, v.get("k1"), 0), "Chips: 1 chip");
});

test("focus: loose objects, piles and your own hand; not a card inside a pile", () => {
  const v = table();
  assert.ok(focusable(v, v.get("deck"), 0));
  assert.ok(!focusable(v, v.get("c1"), 0), "inside a pile: reached through the pile");
  assert.ok(focusable(v, v.get("h1"), 0));
  assert.ok(!focusable(v, v.get("h1"), null), "a spectator has no hand");
  assert.ok(!focusable(v, v.get("hand0"), 0));
  const row = view(stack("r", ["a", "b"], { layout: "row" }), card("a", { parent: "r" }), card("b", { parent: "r" }));
  assert.ok(focusable(row, row.get("a"), 0), "every card of a spread-out pile");
});

test("Tab order: the table top to bottom, left to right, then the hand in its order", () => {
  const v = table();
  assert.deepEqual(focusOrder(v, 0), ["down", "k1", "deck", "discard", "loose", "h1", "h2"]);
  assert.deepEqual(focusOrder(v, null), ["down", "k1", "deck", "discard", "loose"]);
  assert.equal(cycle(6, 7, 1), 0);
  assert.equal(cycle(0, 7, -1), 6);
  assert.equal(cycle(0, 0, 1), -1);
});

test("drop places: from the table your hand comes first; from your hand, the table", () => {
  const v = table();
  const others = [{ seat: 1, name: "Ben" }];
  const kinds = (ps) => ps.map((p) => (p.kind === "object" ? p.id : p.kind === "seat" ? `seat${p.seat}` : p.kind));
  const fromPile = dropPlaces({ view: v, seat: 0, carried: ["c2"], game: false, allowed: new Set(), others });
  assert.deepEqual(kinds(fromPile), ["hand", "down", "discard", "loose", "spot", "seat1"], "not back onto its own pile");
  const fromHand = dropPlaces({ view: v, seat: 0, carried: ["h1"], game: false, allowed: new Set(), others });
  assert.deepEqual(kinds(fromHand), ["down", "deck", "discard", "loose", "spot", "seat1"]);
  const chips = dropPlaces({ view: v, seat: 0, carried: ["k1"], game: false, allowed: new Set(), others });
  assert.deepEqual(kinds(chips), ["spot"], "a widget goes to a spot (or onto chips), never into a hand");
});

test("drop places in a rule room: piles and the hand only, the allowed ones first", () => {
  const v = table();
  const got = dropPlaces({
    view: v,
    seat: 0,
    carried: ["h2"],
    game: true,
    allowed: new Set(["discard"]),
    others: [{ seat: 1, name: "Ben" }],
  });
  assert.deepEqual(
    got.map((p) => (p.kind === "object" ? p.id : p.kind)),
    ["discard", "deck"],
  );
});
