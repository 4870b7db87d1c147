// The game view sent as a patch (src/gamepatch.ts, docs/protocol.md "Game"): applied to the
// view this seat held, it gives the new view, and leaves the old one as it was. With
// CARDTABLE_GAME_PATCH_CASES set (tests/server/test_game_patch.py does), it also applies the
// patches the server emitted over self-play of every game and checks it gets what Python got.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { applyGamePatch } from "../src/core/gamepatch.ts";

test("game patch: set, del and the view's own keys", () => {
  const old = { a: 1, b: [1], gone: 0, view: { x: 1, y: 2 } };
  const patch = { set: { b: [2], c: null }, del: ["gone"], view: { set: { z: 3 }, del: ["y"] } };
  assert.deepEqual(applyGamePatch(old, patch), { a: 1, b: [2], c: null, view: { x: 1, z: 3 } });
  assert.deepEqual(old, { a: 1, b: [1], gone: 0, view: { x: 1, y: 2 } });
  assert.deepEqual(applyGamePatch({ a: 1, view: null }, { set: { view: { x: 1 } } }), { a: 1, view: { x: 1 } });
  assert.deepEqual(applyGamePatch(old, {}), old);
});

const path = process.env.CARDTABLE_GAME_PATCH_CASES;
test("game patch: the cases emitted by the server", { skip: !path && "no cases given" }, () => {
  const cases = JSON.parse(readFileSync(path, "utf8"));
  assert.ok(cases.length > 0);
  for (const c of cases) {
    const base = structuredClone(c.base);
    assert.deepEqual(applyGamePatch(c.base, c.patch), c.expected);
    assert.deepEqual(c.base, base);
  }
  console.log(`${cases.length} cases emitted by the server`);
});
