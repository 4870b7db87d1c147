// The button builder's pure half (src/edit/steprows.ts): names instead of ids, one row per
// step, adding and reordering rows, and every step it makes valid by the server's own schema
// (fixtures/steps.schema.json, held to server/table/steps.py by tests/table/test_step_schema_fixture.py).
import assert from "node:assert/strict";
import { test } from "node:test";
import { STEP_NAMES } from "../src/net/protocol.gen.ts";
import SCHEMA from "./fixtures/steps.schema.json";
import {
  describe,
  displayNames,
  fieldsOf,
  moveRow,
  namedTargets,
  newRow,
  ROW_KINDS,
  rowOf,
  stepOf,
  validate,
} from "../src/edit/steprows.ts";

/** The JSON-schema subset msgspec writes for the steps: objects, enums, strings, ints, bools, arrays. */
function check(schema, value, path = "step") {
  if (schema.$ref) return check(SCHEMA.$defs[schema.$ref.split("/").pop()], value, path);
  if (schema.anyOf) {
    const errs = schema.anyOf.map((s) => check(s, value, path));
    return errs.some((e) => !e.length) ? [] : [`${path}: matches no alternative (${errs.map((e) => e[0]).join("; ")})`];
  }
  if (schema.enum) return schema.enum.includes(value) ? [] : [`${path}: ${JSON.stringify(value)} not in ${schema.enum}`];
  const types = [schema.type].flat();
  const typeOk = types.some((t) =>
    t === "object"
      ? value !== null && typeof value === "object" && !Array.isArray(value)
      : t === "array"
        ? Array.isArray(value)
        : t === "integer"
          ? Number.isInteger(value)
          : t === "null"
            ? value === null
            : typeof value === t,
  );
  if (!typeOk) return [`${path}: ${JSON.stringify(value)} is not ${types}`];
  const out = [];
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength) out.push(`${path}: too short`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) out.push(`${path}: too long`);
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) out.push(`${path}: not ${schema.pattern}`);
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) out.push(`${path}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) out.push(`${path}: above ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.maxItems !== undefined && value.length > schema.maxItems) out.push(`${path}: too many`);
    value.forEach((v, i) => out.push(...check(schema.items, v, `${path}[${i}]`)));
  } else if (typeof value === "object" && value !== null) {
    for (const k of schema.required ?? []) if (!(k in value)) out.push(`${path}: needs ${k}`);
    for (const [k, v] of Object.entries(value)) {
      if (!schema.properties?.[k]) out.push(`${path}: no field ${k}`);
      else out.push(...check(schema.properties[k], v, `${path}.${k}`));
    }
  }
  return out;
}

const TABLE = [
  { t: "stack", id: "deck", holder: true, label: "Deck", cards: [] },
  { t: "stack", id: "s9x", holder: false, label: "", cards: [] },
  { t: "stack", id: "s2y", holder: false, label: "Red deck", cards: [] },
  { t: "stack", id: "z1", holder: true, label: "", cards: [] },
  { t: "card", id: "c1", face: "H1" },
  { t: "counter", id: "n7", label: "", value: 0, step: 1 },
  { t: "counter", id: "n8", label: "Score", value: 0, step: 1 },
  { t: "chips", id: "k1", label: "", count: 3 },
  { t: "chips", id: "k2", label: "Pot", count: 0 },
  { t: "die", id: "d1", label: "", sides: 6 },
  { t: "button", id: "b1", label: "", steps: [] },
];

test("objects show their names, and unnamed ones a readable default, never an id", () => {
  const names = displayNames(TABLE);
  assert.equal(names.get("deck"), "Deck");
  assert.equal(names.get("s9x"), "Pile 1");
  assert.equal(names.get("s2y"), "Red deck");
  assert.equal(names.get("z1"), "Zone 2");
  assert.equal(names.get("n7"), "Counter 1");
  assert.equal(names.get("k1"), "Chips 1");
  assert.equal(names.get("d1"), "Die 1");
  assert.equal(names.get("b1"), "Button 1");
  assert.equal(names.has("c1"), false);
  assert.equal(displayNames([TABLE[2], { ...TABLE[1], label: "Red deck" }]).get("s9x"), "Red deck (2)");
  assert.deepEqual(
    namedTargets(TABLE).map((t) => `${t.role}:${t.name}`),
    ["pile:Deck", "pile:Pile 1", "pile:Red deck", "pile:Zone 2", "counter:Counter 1", "counter:Score", "chips:Chips 1", "chips:Pot"],
  );
});

test("every server step can be made from a row kind, and every new row makes a valid step", () => {
  assert.deepEqual([...new Set(ROW_KINDS.map((k) => k.step))].sort(), [...STEP_NAMES].sort());
  const targets = namedTargets(TABLE);
  for (const { kind, step } of ROW_KINDS) {
    const row = newRow(kind, targets);
    const made = stepOf(row);
    assert.equal(made.do, step);
    assert.deepEqual(check(SCHEMA.items, made), [], `${kind}: ${JSON.stringify(made)}`);
    assert.deepEqual(check(SCHEMA, [made]), []);
    assert.equal(validate([row], targets).rows[0], null, kind);
    assert.equal(rowOf(made).kind, kind);
    assert.deepEqual(stepOf(rowOf(made)), made, kind);
  }
});

test("the checker itself refuses what the server refuses", () => {
  assert.notDeepEqual(check(SCHEMA.items, { do: "deal", id: "deck", n: 0 }), []);
  assert.notDeepEqual(check(SCHEMA.items, { do: "deal", id: "deck", n: 3, extra: 1 }), []);
  assert.notDeepEqual(check(SCHEMA.items, { do: "shuffle", id: "red deck" }), []);
  assert.notDeepEqual(check(SCHEMA.items, { do: "move", id: "deck" }), []);
  assert.notDeepEqual(check(SCHEMA, Array(21).fill({ do: "shuffle", id: "deck" })), []);
});

test("stored steps come back as the same rows and the same steps", () => {
  const stored = [
    { do: "gather", to: "deck", from: ["s9x"], hands: true, loose: false },
    { do: "shuffle", id: "deck" },
    { do: "deal", id: "deck", n: 2, to: "hands" },
    { do: "deal", id: "deck", n: 1, to: "z1", up: true },
    { do: "flip", id: "s2y" },
    { do: "flip", id: "s2y", up: false },
    { do: "counter", id: "n8", value: 0 },
    { do: "counter", id: "n8", delta: -2 },
    { do: "chips", id: "k1", to: "k2", all: true },
    { do: "chips", id: "k1", to: "k2", n: 4 },
    { do: "chips", id: "k2", n: -3 },
  ];
  const rows = stored.map(rowOf);
  assert.deepEqual(
    rows.map((r) => r.kind),
    ["gather", "shuffle", "deal", "move", "flip", "flip", "set", "add", "chips", "chips", "addchips"],
  );
  assert.deepEqual(rows.map(stepOf), stored);
  assert.deepEqual(check(SCHEMA, rows.map(stepOf)), []);
});

test("rows are added and reordered without touching the others", () => {
  const targets = namedTargets(TABLE);
  const a = newRow("deal", targets);
  const b = { ...newRow("deal", targets), target: "s2y", n: 2 };
  const c = newRow("shuffle", targets);
  assert.deepEqual(moveRow([a, b, c], 2, 0), [c, a, b]);
  assert.deepEqual(moveRow([a, b, c], 0, 1), [b, a, c]);
  assert.deepEqual(moveRow([a, b, c], 0, 99), [b, c, a]);
  assert.deepEqual(moveRow([a, b, c], 5, 0), [a, b, c]);
  const rows = [a, b, c];
  moveRow(rows, 0, 2);
  assert.deepEqual(rows, [a, b, c]);
  assert.equal(describe(b, displayNames(TABLE)), "Deal 2 cards from Red deck to every player");
  assert.equal(describe(c, displayNames(TABLE)), "Shuffle Deck");
});

test("a wrong row says what is wrong, by names", () => {
  const targets = namedTargets(TABLE);
  const deal = newRow("deal", targets);
  assert.equal(validate([], targets).list, "Add a step.");
  assert.match(validate(Array(21).fill(deal), targets).list, /At most 20/);
  assert.match(validate([{ ...deal, n: 0 }], targets).rows[0], /Cards each: a whole number from 1 to 100/);
  assert.match(validate([{ ...deal, n: 2.5 }], targets).rows[0], /whole number/);
  assert.match(validate([{ ...deal, target: "" }], targets).rows[0], /pick a pile/);
  assert.match(validate([{ ...deal, target: "n8" }], targets).rows[0], /Score is not a pile/);
  assert.match(validate([{ ...deal, target: "gone" }], targets).rows[0], /pick a pile/);
  const move = newRow("move", targets);
  assert.match(validate([{ ...move, dest: move.target }], targets).rows[0], /differ/);
  assert.match(validate([{ ...newRow("addchips", targets), n: 0 }], targets).rows[0], /not 0/);
  assert.equal(validate([{ ...newRow("chips", targets), all: true, n: 0 }], targets).rows[0], null);
  for (const { kind } of ROW_KINDS) assert.ok(fieldsOf(kind).length >= 1);
});
