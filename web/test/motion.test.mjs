// Cards move like cards (src/table/motion.ts): from two views, where each new card came from
// and where each card that went is going, although a card played, gathered or dealt comes out
// with a new id.
import assert from "node:assert/strict";
import { test } from "node:test";
import { dealDelay, plan, startTransform } from "../src/table/motion.ts";

const card = (id, parent, face) => ({
  t: "card",
  id,
  x: 0,
  y: 0,
  z: 0,
  rot: 0,
  locked: true,
  v: 1,
  back: "blue",
  up: face !== undefined,
  parent,
  ...(face ? { face } : {}),
});
const stack = (id, cards) => ({
  t: "stack",
  id,
  x: 0,
  y: 0,
  z: 0,
  rot: 0,
  locked: true,
  v: 1,
  cards,
  layout: "pile",
  holder: true,
  label: "",
  w: 110,
  h: 150,
});
const hand = (seat, n, cards) => ({
  t: "hand",
  id: `hand${seat}`,
  seat,
  x: 0,
  y: 0,
  z: 0,
  rot: 0,
  locked: true,
  v: 1,
  n,
  ...(cards ? { cards } : {}),
});
const view = (...objs) => new Map(objs.map((o) => [o.id, o]));

// Spades from seat 0's page: seat 0 holds a and b; the others hold 13 cards each, unseen.
const before = () =>
  view(
    hand(0, 2, ["a", "b"]),
    card("a", "hand0", "H1"),
    card("b", "hand0", "S2"),
    hand(1, 13),
    hand(2, 13),
    hand(3, 13),
    stack("trick0", []),
    stack("trick1", []),
    stack("won1", []),
  );

test("another player's card comes from their hand", () => {
  const prev = before();
  const next = new Map(prev);
  next.set("hand1", hand(1, 12));
  next.set("trick1", stack("trick1", ["x9"]));
  next.set("x9", card("x9", "trick1", "D5"));
  const p = plan(prev, next, 0);
  assert.deepEqual([...p.arrive], [["x9", { hand: 1 }]]);
  assert.equal(p.leave.size, 0);
});

test("your own card played from your hand is the card that went: same face, new id", () => {
  const prev = before();
  const next = new Map(prev);
  next.delete("a");
  next.set("hand0", hand(0, 1, ["b"]));
  next.set("trick0", stack("trick0", ["n1"]));
  next.set("n1", card("n1", "trick0", "H1"));
  assert.deepEqual([...plan(prev, next, 0).arrive], [["n1", { card: "a" }]]);
});

test("a finished trick goes to its winner's pile, which grew by as many cards", () => {
  const prev = before();
  prev.set("trick0", stack("trick0", ["t0"]));
  prev.set("t0", card("t0", "trick0", "H1"));
  prev.set("trick1", stack("trick1", ["t1"]));
  prev.set("t1", card("t1", "trick1", "H5"));
  const next = new Map(prev);
  for (const id of ["t0", "t1"]) next.delete(id);
  next.set("trick0", stack("trick0", []));
  next.set("trick1", stack("trick1", []));
  next.set("won1", stack("won1", ["w1", "w2"]));
  next.set("w1", card("w1", "won1"));
  next.set("w2", card("w2", "won1"));
  const p = plan(prev, next, 0);
  assert.deepEqual(
    [...p.leave],
    [
      ["t0", { stack: "won1" }],
      ["t1", { stack: "won1" }],
    ],
  );
  assert.equal(p.arrive.size, 0, "the pile's face-down cards came from nowhere one can see");
});

test("a card drawn into your hand comes from the pile that shrank; another's draw goes to their hand", () => {
  const prev = view(hand(0, 0, []), hand(1, 3), stack("stock", ["s1", "s2"]), card("s1", "stock"), card("s2", "stock"));
  const mine = new Map(prev);
  mine.delete("s2");
  mine.set("stock", stack("stock", ["s1"]));
  mine.set("hand0", hand(0, 1, ["d1"]));
  mine.set("d1", card("d1", "hand0", "C3"));
  const p = plan(prev, mine, 0);
  assert.deepEqual([...p.arrive], [["d1", { stack: "stock" }]]);
  const theirs = new Map(prev);
  theirs.delete("s2");
  theirs.set("stock", stack("stock", ["s1"]));
  theirs.set("hand1", hand(1, 4));
  assert.deepEqual([...plan(prev, theirs, 0).leave], [["s2", { hand: 1 }]]);
});

test("a deal: every new card of your hand from the deck, the hands that grew listed", () => {
  const prev = view(hand(0, 0, []), hand(1, 0), stack("won1", ["o1", "o2"]), card("o1", "won1"), card("o2", "won1"));
  const next = view(hand(0, 5, ["c1", "c2", "c3", "c4", "c5"]), hand(1, 5), stack("won1", []));
  for (const [i, id] of ["c1", "c2", "c3", "c4", "c5"].entries()) next.set(id, card(id, "hand0", `H${i + 1}`));
  const p = plan(prev, next, 0);
  assert.equal(p.arrive.size, 5);
  for (const src of p.arrive.values()) assert.deepEqual(src, { deck: true });
  assert.deepEqual(p.dealt.sort(), [0, 1]);
  assert.equal(p.leave.size, 0, "the old deal's piles just go");
  assert.ok(dealDelay(4, 5) > dealDelay(1, 5) && dealDelay(0, 5) === 0 && dealDelay(4, 5) <= 600);
});

test("nothing moves between the same views, or from an empty one (a first snapshot)", () => {
  const v = before();
  const p = plan(v, v, 0);
  assert.equal(p.arrive.size + p.leave.size + p.dealt.length, 0);
  assert.equal(plan(new Map(), v, 0).arrive.size, 0);
});

test("the start transform puts the element's centre on the source's, scaled to its width", () => {
  const to = { x: 500, y: 300, w: 50, h: 70 };
  const from = { x: 100, y: 600, w: 100, h: 140 };
  // centre (150, 670); the element 50 x 70 translated to (125, 635), scaled 2 about its centre
  assert.equal(startTransform(from, to), "translate(125.0px, 635.0px) scale(2.000)");
  assert.equal(startTransform({ x: 0, y: 0, w: 50, h: 70 }, to, 4), "translate(0.0px, 0.0px) rotate(4deg)");
});

test("two plays drawn at once: each pile's card from its owner's hand", () => {
  const prev = before();
  prev.set("trick2", { ...stack("trick2", []), owner: 2 });
  prev.set("trick1", { ...stack("trick1", []), owner: 1 });
  const next = new Map(prev);
  next.set("hand1", hand(1, 12));
  next.set("hand2", hand(2, 12));
  next.set("trick1", { ...stack("trick1", ["p1"]), owner: 1 });
  next.set("trick2", { ...stack("trick2", ["p2"]), owner: 2 });
  next.set("p1", card("p1", "trick1", "D5"));
  next.set("p2", card("p2", "trick2", "D7"));
  assert.deepEqual([...plan(prev, next, 0).arrive].sort(), [
    ["p1", { hand: 1 }],
    ["p2", { hand: 2 }],
  ]);
});

test("free play: a shuffle is a pile whose every card was replaced by as many; nothing else moves", () => {
  const prev = new Map([
    ["deck", stack("deck", ["a", "b", "c"])],
    ["a", card("a", "deck")],
    ["b", card("b", "deck")],
    ["c", card("c", "deck")],
    ["hand0", hand(0, 0, [])],
  ]);
  const next = new Map([
    ["deck", stack("deck", ["x", "y", "z"])],
    ["x", card("x", "deck")],
    ["y", card("y", "deck")],
    ["z", card("z", "deck")],
    ["hand0", hand(0, 0, [])],
  ]);
  const p = plan(prev, next, 0, true);
  assert.deepEqual(p.shuffled, ["deck"]);
  assert.deepEqual(p.dealt, []);
  assert.equal(p.arrive.size + p.leave.size, 0);
  // One card drawn from it: not a shuffle, and in free play no glide (the player dragged it).
  const drawn = new Map([
    ["deck", stack("deck", ["a", "b"])],
    ["a", card("a", "deck")],
    ["b", card("b", "deck")],
    ["c", card("c", "hand0", "H7")],
    ["hand0", hand(0, 1, ["c"])],
  ]);
  const q = plan(prev, drawn, 0, true);
  assert.deepEqual([q.shuffled, q.dealt, q.arrive.size, q.leave.size], [[], [], 0, 0]);
});

test("free play: a deal is hands growing by as many cards as one pile lost (two or more)", () => {
  const prev = new Map([
    ["deck", stack("deck", ["a", "b", "c", "d", "e"])],
    ...["a", "b", "c", "d", "e"].map((id) => [id, card(id, "deck")]),
    ["hand0", hand(0, 0, [])],
    ["hand1", hand(1, 0)],
    ["hand2", hand(2, 0)],
  ]);
  const next = new Map([
    ["deck", stack("deck", ["a"])],
    ["a", card("a", "deck")],
    ["e", card("e", "hand0", "S1")],
    ["c", card("c", "hand0", "S2")],
    ["hand0", hand(0, 2, ["e", "c"])],
    ["hand1", hand(1, 2)],
    ["hand2", hand(2, 0)],
  ]);
  const p = plan(prev, next, 0, true);
  assert.deepEqual(p.dealt, [0, 1]);
  assert.equal(p.deck, "deck");
  assert.deepEqual(p.shuffled, []);
  // The same in a rule game: fewer than DEAL cards to a hand is no deal there.
  assert.deepEqual(plan(prev, next, 0).dealt, []);
});
