// Operation ids (src/util.ts, docs/protocol.md "Operation ids"): what the page sends with every
// operation is a valid `opid` for the server (8-40 of A-Za-z0-9_-) and never repeats by chance.
import assert from "node:assert/strict";
import { test } from "node:test";
import { newOpid } from "../src/core/util.ts";

test("an opid is 16 characters the server accepts, and each one is new", () => {
  const seen = new Set();
  for (let i = 0; i < 5000; i++) {
    const id = newOpid();
    assert.match(id, /^[A-Za-z0-9_-]{16}$/);
    seen.add(id);
  }
  assert.equal(seen.size, 5000);
});
