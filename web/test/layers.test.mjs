// The page's import rules (tools/layers.mjs): web/src has no import cycle and no upward import;
// the checker does find both in the fixtures made to have them.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { check, LAYERS } from "../tools/layers.mjs";

// npm test runs from web/ (the test is bundled into a temporary directory first).
const web = process.cwd();

test("layers: web/src has no import cycle and no upward import", () => {
  assert.deepEqual(check(join(web, "src")), []);
});

test("layers: a cycle is found", () => {
  assert.deepEqual(check(join(web, "test", "fixtures", "cycle")), ["import cycle: table/a.ts -> table/b.ts"]);
});

test("layers: an upward import is found", () => {
  const problems = check(join(web, "test", "fixtures", "upward"));
  assert.equal(problems.length, 1);
  assert.match(problems[0], /^upward import: core\/low\.ts \(core\) imports table\/high\.ts \(table\)/);
  assert.equal(LAYERS[0], "core");
});

test("layers: the fair-deal verifier is pure, just above core, so any page part may use it", () => {
  assert.equal(LAYERS[1], "fair");
  const problems = check(join(web, "src")).filter((p) => p.includes("fair/"));
  assert.deepEqual(problems, []);
});
