// Stepping through a finished hand's record (src/fair/steps.ts): forwards, back and to either
// end without leaving the record; what each step says; cards named; and when a seated page sends
// its value for the deal waiting for values (once per commitment, never for a spectator).
import assert from "node:assert/strict";
import { test } from "node:test";
import { cardLabel, handsAt, stepCaption, stepTo, valueFor } from "../src/fair/steps.ts";

const record = {
  room: "ABCD",
  game: "spades",
  deal: 2,
  players: [
    { seat: 0, name: "Ana", computer: false },
    { seat: 1, name: "Computer 2", computer: true },
  ],
  values: ["0".repeat(32), null],
  steps: [
    { text: "Deal 2 dealt", hands: { 0: ["S1", "H10"], 1: ["C12"] }, zones: [] },
    { text: "Ana played the ace of spades", hands: { 0: ["H10"], 1: ["C12"] }, zones: [{ id: "trick", label: "Trick", faces: ["S1"] }] },
    {
      text: "Computer 2 played the queen of clubs",
      hands: { 0: ["H10"], 1: [] },
      zones: [{ id: "trick", label: "Trick", faces: ["S1", "C12"] }],
    },
  ],
};

test("replay: steps forwards and back, never past either end", () => {
  const n = record.steps.length;
  assert.equal(stepTo(0, n, "back"), 0);
  assert.equal(stepTo(0, n, "next"), 1);
  assert.equal(stepTo(1, n, "next"), 2);
  assert.equal(stepTo(2, n, "next"), 2);
  assert.equal(stepTo(2, n, "back"), 1);
  assert.equal(stepTo(1, n, "first"), 0);
  assert.equal(stepTo(0, n, "last"), 2);
  assert.equal(stepTo(5, 0, "next"), 0);
});

test("replay: each step says what happened, and shows every hand face up", () => {
  assert.equal(stepCaption(record, 0), "The deal (before move 1 of 2)");
  assert.equal(stepCaption(record, 2), "Move 2 of 2: Computer 2 played the queen of clubs");
  assert.deepEqual(handsAt(record, 0), [
    { name: "Ana", cards: ["A♠", "10♥"] },
    { name: "Computer 2 (computer)", cards: ["Q♣"] },
  ]);
  assert.deepEqual(handsAt(record, 2)[1].cards, []);
  assert.deepEqual(handsAt(record, 9), []);
  const shuffle = { ...record, game: "free", players: [], steps: [{ text: "Shuffled", hands: {}, zones: [] }] };
  assert.equal(stepCaption(shuffle, 0), "Shuffled");
});

test("replay: card labels", () => {
  assert.deepEqual(["S1", "H10", "D11", "C13", "JK1", "X"].map(cardLabel), ["A♠", "10♥", "J♦", "K♣", "JK1", "X"]);
});

test("fair value: once per commitment, only from a seat that has not sent one", () => {
  const fair = { deal: 3, commitment: "c3", sent: [1] };
  assert.equal(valueFor(fair, 0, new Set()), 3);
  assert.equal(valueFor(fair, 1, new Set()), null); // its seat sent one already
  assert.equal(valueFor(fair, null, new Set()), null); // a spectator
  assert.equal(valueFor(fair, 0, new Set(["c3"])), null); // this page answered it
  assert.equal(valueFor({ deal: 1, commitment: "c1-next-game", sent: [] }, 0, new Set(["c3"])), 1);
  assert.equal(valueFor(null, 0, new Set()), null);
});
