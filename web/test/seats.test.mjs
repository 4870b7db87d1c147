// Seats people left (src/state.ts): whose a free seat is, which seats are open to sit at
// without taking over anyone's cards, and the question asked before taking a seat over.
import assert from "node:assert/strict";
import { test } from "node:test";
import { openSeats, takeOverQuestion, vacatedBy } from "../src/table/state.ts";

const room = {
  seats: 4,
  players: [{ id: "p1", name: "Cy", seat: 0, host: true }],
  former: [
    { id: "p0", name: "Ana", seat: 0 },
    { id: "p2", name: "Ben", seat: 1 },
    { id: "p3", name: "Dee", seat: 1 },
  ],
};

test("a free seat belongs to the last person who left it; a taken one to nobody else", () => {
  assert.equal(vacatedBy(room, 1)?.name, "Dee");
  assert.equal(vacatedBy(room, 0), null, "Cy sits there now");
  assert.equal(vacatedBy(room, 2), null);
});

test("open seats are free and hold no cards", () => {
  assert.deepEqual(openSeats(room, [0, 7, 0, 3]), [2]);
  assert.deepEqual(openSeats(room, []), [1, 2, 3]);
});

test("taking over a seat with cards is asked, with whose it is and how many cards", () => {
  assert.equal(takeOverQuestion(room, 1, 7), "Take over Dee's seat, 7 cards?");
  assert.equal(takeOverQuestion(room, 3, 1), "Take over Seat 4, 1 card?");
  assert.equal(takeOverQuestion(room, 2, 0), null, "an empty seat: sit at once");
});
