// The browser's fair-deal verifier (src/fair/verify.ts) against the Python one (plugins/fair.py):
// fixtures/fair_cases.json holds records, good and tampered, with the Python verdicts, and
// known-answer vectors; it is emitted by tests/plugins/test_fair_fixture.py, which holds the
// committed file to what Python says now. Every verdict here must be the Python verdict, word for word.
import assert from "node:assert/strict";
import { test } from "node:test";
import { commitment, dealKey, shuffle, stream, validValue, verify } from "../src/fair/verify.ts";
import FIXTURE from "./fixtures/fair_cases.json";

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
const bytes = (text) => Uint8Array.from(text.match(/../g), (h) => Number.parseInt(h, 16));

test("fair: the known answers of the Python side", async () => {
  const v = FIXTURE.vectors;
  const seed = bytes(v.seed);
  assert.equal(await commitment(seed, "QRST", 1), v.commitment);
  const key = await dealKey(seed, "QRST", 1, ["01".repeat(16), null]);
  assert.equal(hex(key), v.deal_key);
  assert.deepEqual(await stream(key, "reshuffle:2", 20), v.stream_reshuffle_2);
  const thirty = Array.from({ length: 30 }, (_, i) => i);
  assert.deepEqual(await shuffle(thirty, key, "deal"), v.shuffle_30);
});

test("fair: the pinned 10-item shuffle of tests/plugins/test_fair.py", async () => {
  const ten = Array.from({ length: 10 }, (_, i) => i);
  assert.deepEqual(await shuffle(ten, new Uint8Array(32)), [7, 4, 1, 5, 8, 9, 0, 2, 3, 6]);
});

test("fair: every case gets the Python verdict", async () => {
  assert.ok(FIXTURE.cases.length >= 15);
  for (const c of FIXTURE.cases) {
    assert.deepEqual(await verify(c.record), { ok: c.ok, problems: c.problems }, c.name);
  }
});

test("fair: one changed card or one changed seed byte fails in the browser too", async () => {
  const good = FIXTURE.cases.find((c) => c.name === "spades").record;
  assert.equal((await verify(good)).ok, true);
  for (let i = 0; i < good.order.length - 1; i += 7) {
    const order = [...good.order];
    [order[i], order[i + 1]] = [order[i + 1], order[i]];
    assert.equal((await verify({ ...good, order })).ok, false, `cards ${i} and ${i + 1}`);
  }
  for (let i = 0; i < 64; i += 9) {
    const flipped = (Number.parseInt(good.seed[i], 16) ^ 1).toString(16);
    const seed = good.seed.slice(0, i) + flipped + good.seed.slice(i + 1);
    assert.equal((await verify({ ...good, seed })).ok, false, `seed hex digit ${i}`);
  }
});

test("fair: a player's value is 32 lowercase hex characters", () => {
  assert.equal(validValue("0123456789abcdef".repeat(2)), true);
  for (const bad of ["0".repeat(31), "A".repeat(32), null, 5]) assert.equal(validValue(bad), false);
});
