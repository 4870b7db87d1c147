// A button's steps as rows of menus (the pure half of the button builder, node-tested in
// test/buttonbuilder.test.mjs): the objects a step can name, shown by their names (an unnamed
// one by a readable default, "Pile 2", never its id); one row per step, made from and turned
// back into the server's step shapes (server/table/steps.py); adding, reordering and checking
// rows. Ids stay what a step stores; a name is only shown.

import type { Obj } from "../core/types";
import type { Step } from "../net/protocol.gen";

/** What kind of object a step's target must be. */
export type Role = "pile" | "counter" | "chips";

/** An object a step may name: its id, the name shown, and its role. */
export interface Named {
  id: string;
  name: string;
  role: Role;
}

const MAX_STEPS = 20;

/** What an object is called: its name, or "<Kind> <n>" (the n-th of its kind on the table). */
export function displayNames(objs: Iterable<Obj>): Map<string, string> {
  const counts = new Map<string, number>();
  const out = new Map<string, string>();
  const taken = new Map<string, number>();
  for (const o of objs) {
    const kind = kindWord(o);
    if (!kind) continue;
    const n = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, n);
    const given = "label" in o && typeof o.label === "string" ? o.label.trim() : "";
    let name = given || `${kind} ${n}`;
    const seen = (taken.get(name) ?? 0) + 1;
    taken.set(name, seen);
    if (seen > 1) name = `${name} (${seen})`;
    out.set(o.id, name);
  }
  return out;
}

function kindWord(o: Obj): string | null {
  switch (o.t) {
    case "stack":
      return o.holder ? "Zone" : "Pile";
    case "counter":
      return "Counter";
    case "chips":
      return "Chips";
    case "die":
      return "Die";
    case "button":
      return "Button";
    default:
      return null;
  }
}

/** The objects steps can name, in table order, with their names. */
export function namedTargets(objs: Iterable<Obj>): Named[] {
  const list = [...objs];
  const names = displayNames(list);
  const out: Named[] = [];
  for (const o of list) {
    const role: Role | null = o.t === "stack" ? "pile" : o.t === "counter" ? "counter" : o.t === "chips" ? "chips" : null;
    if (role) out.push({ id: o.id, name: names.get(o.id) ?? o.id, role });
  }
  return out;
}

/** The kinds of row "Add step" offers; several map onto one server step. */
export const ROW_KINDS = [
  { kind: "deal", label: "Deal cards to every player", step: "deal" },
  { kind: "move", label: "Move cards to a pile", step: "deal" },
  { kind: "shuffle", label: "Shuffle a pile", step: "shuffle" },
  { kind: "flip", label: "Flip a pile's top card", step: "flip" },
  { kind: "gather", label: "Gather cards into a pile", step: "gather" },
  { kind: "set", label: "Set a counter", step: "counter" },
  { kind: "add", label: "Add to a counter", step: "counter" },
  { kind: "chips", label: "Move chips", step: "chips" },
  { kind: "addchips", label: "Add or take chips", step: "chips" },
] as const;

export type RowKind = (typeof ROW_KINDS)[number]["kind"];

/** One step as the builder shows it: every field a row may use (each kind uses some). */
export interface Row {
  kind: RowKind;
  target: string;
  dest: string;
  n: number;
  face: "down" | "up" | "over";
  from: string[];
  hands: boolean;
  loose: boolean;
  all: boolean;
}

type FieldName = "target" | "dest" | "n" | "face" | "from" | "hands" | "loose" | "all";

export interface Field {
  name: FieldName;
  label: string;
  role?: Role;
  min?: number;
  max?: number;
}

const PILE = "pile" as const;

/** The fields each kind of row shows, in order, with their labels and bounds. */
export function fieldsOf(kind: RowKind): Field[] {
  switch (kind) {
    case "deal":
      return [
        { name: "target", label: "From", role: PILE },
        { name: "n", label: "Cards each", min: 1, max: 100 },
      ];
    case "move":
      return [
        { name: "target", label: "From", role: PILE },
        { name: "dest", label: "To", role: PILE },
        { name: "n", label: "Cards", min: 1, max: 100 },
        { name: "face", label: "Face" },
      ];
    case "shuffle":
      return [{ name: "target", label: "Pile", role: PILE }];
    case "flip":
      return [
        { name: "target", label: "Pile", role: PILE },
        { name: "face", label: "Turn it" },
      ];
    case "gather":
      return [
        { name: "dest", label: "Into", role: PILE },
        { name: "from", label: "From these piles", role: PILE },
        { name: "hands", label: "Every hand" },
        { name: "loose", label: "Loose cards" },
      ];
    case "set":
      return [
        { name: "target", label: "Counter", role: "counter" },
        { name: "n", label: "To", min: -1_000_000, max: 1_000_000 },
      ];
    case "add":
      return [
        { name: "target", label: "Counter", role: "counter" },
        { name: "n", label: "Steps (negative: down)", min: -100, max: 100 },
      ];
    case "chips":
      return [
        { name: "target", label: "From", role: "chips" },
        { name: "dest", label: "To", role: "chips" },
        { name: "n", label: "How many", min: 1, max: 1000 },
        { name: "all", label: "All of them" },
      ];
    case "addchips":
      return [
        { name: "target", label: "Chips", role: "chips" },
        { name: "n", label: "How many (negative: take)", min: -1000, max: 1000 },
      ];
  }
}

function defaultN(kind: RowKind): number {
  return kind === "set" ? 0 : kind === "chips" || kind === "addchips" ? 5 : 1;
}

/** A new row of `kind`, its targets the first (and for a destination, the second) fitting object. */
export function newRow(kind: RowKind, targets: Named[]): Row {
  const fields = fieldsOf(kind);
  const role = fields.find((f) => f.role)?.role ?? PILE;
  const fit = targets.filter((t) => t.role === role);
  const first = fit[0]?.id ?? "";
  const second = (fit.find((t) => t.id !== first) ?? fit[0])?.id ?? "";
  const hasTarget = fields.some((f) => f.name === "target");
  return {
    kind,
    target: hasTarget ? first : "",
    dest: hasTarget ? second : first,
    n: defaultN(kind),
    face: kind === "flip" ? "up" : "down",
    from: kind === "gather" ? fit.filter((t) => t.id !== first).map((t) => t.id) : [],
    hands: kind === "gather",
    loose: kind === "gather",
    all: false,
  };
}

/** The row a stored step is shown as. */
export function rowOf(step: Step): Row {
  const base: Row = { kind: "shuffle", target: "", dest: "", n: 1, face: "down", from: [], hands: false, loose: false, all: false };
  switch (step.do) {
    case "deal":
      if ((step.to ?? "hands") === "hands") return { ...base, kind: "deal", target: step.id, n: step.n };
      return { ...base, kind: "move", target: step.id, dest: step.to ?? "", n: step.n, face: step.up ? "up" : "down" };
    case "shuffle":
      return { ...base, kind: "shuffle", target: step.id };
    case "flip":
      return { ...base, kind: "flip", target: step.id, face: step.up === true ? "up" : step.up === false ? "down" : "over" };
    case "gather":
      return { ...base, kind: "gather", dest: step.to, from: [...(step.from ?? [])], hands: !!step.hands, loose: !!step.loose };
    case "counter":
      if (step.value !== undefined && step.value !== null) return { ...base, kind: "set", target: step.id, n: step.value };
      return { ...base, kind: "add", target: step.id, n: step.delta ?? 1 };
    case "chips":
      if (step.to) return { ...base, kind: "chips", target: step.id, dest: step.to, n: step.n ?? 1, all: !!step.all };
      return { ...base, kind: "addchips", target: step.id, n: step.n ?? 1 };
  }
}

/** The server's step for a row (only the fields its kind uses). */
export function stepOf(row: Row): Step {
  const n = Math.trunc(row.n);
  switch (row.kind) {
    case "deal":
      return { do: "deal", id: row.target, n, to: "hands" };
    case "move":
      return { do: "deal", id: row.target, n, to: row.dest, up: row.face === "up" };
    case "shuffle":
      return { do: "shuffle", id: row.target };
    case "flip":
      return row.face === "over" ? { do: "flip", id: row.target } : { do: "flip", id: row.target, up: row.face === "up" };
    case "gather":
      return { do: "gather", to: row.dest, from: row.from.filter((id) => id !== row.dest), hands: row.hands, loose: row.loose };
    case "set":
      return { do: "counter", id: row.target, value: n };
    case "add":
      return { do: "counter", id: row.target, delta: n };
    case "chips":
      return row.all ? { do: "chips", id: row.target, to: row.dest, all: true } : { do: "chips", id: row.target, to: row.dest, n };
    case "addchips":
      return { do: "chips", id: row.target, n };
  }
}

/** `rows` with row `from` moved to index `to` (clamped); a new array. */
export function moveRow<T>(rows: readonly T[], from: number, to: number): T[] {
  const out = [...rows];
  if (from < 0 || from >= out.length) return out;
  const [row] = out.splice(from, 1);
  out.splice(Math.max(0, Math.min(out.length, to)), 0, row);
  return out;
}

/** What is wrong with a row, in words that name objects by their names; null: nothing. */
function problemOf(row: Row, targets: Named[]): string | null {
  const byId = new Map(targets.map((t) => [t.id, t]));
  for (const f of fieldsOf(row.kind)) {
    if (f.name === "target" || f.name === "dest") {
      const id = row[f.name];
      const t = byId.get(id);
      if (!id || !t) return `${f.label}: pick a ${f.role === PILE ? "pile" : f.role}.`;
      if (t.role !== f.role) return `${f.label}: ${t.name} is not a ${f.role === PILE ? "pile" : f.role}.`;
    }
    if (f.name === "n" && !(row.kind === "chips" && row.all)) {
      if (!Number.isInteger(row.n) || row.n < (f.min ?? 0) || row.n > (f.max ?? 0))
        return `${f.label}: a whole number from ${f.min} to ${f.max}.`;
      if (row.kind === "addchips" && row.n === 0) return `${f.label}: not 0.`;
    }
    if (f.name === "from" && row.from.some((id) => byId.get(id)?.role !== PILE)) return "From: a pile is gone.";
  }
  if ((row.kind === "move" || row.kind === "chips") && row.target === row.dest) return "From and To must differ.";
  return null;
}

/** The problems of every row (null where a row is fine), and of the list as a whole. */
export function validate(rows: readonly Row[], targets: Named[]): { rows: (string | null)[]; list: string | null } {
  const list = !rows.length ? "Add a step." : rows.length > MAX_STEPS ? `At most ${MAX_STEPS} steps.` : null;
  return { rows: rows.map((r) => problemOf(r, targets)), list };
}

/** A row in a sentence: "Deal 2 cards from Red deck to every player". */
export function describe(row: Row, names: ReadonlyMap<string, string>): string {
  const name = (id: string) => names.get(id) ?? "?";
  const cards = (n: number) => `${n} card${n === 1 ? "" : "s"}`;
  switch (row.kind) {
    case "deal":
      return `Deal ${cards(row.n)} from ${name(row.target)} to every player`;
    case "move":
      return `Move ${cards(row.n)} from ${name(row.target)} to ${name(row.dest)}, face ${row.face === "up" ? "up" : "down"}`;
    case "shuffle":
      return `Shuffle ${name(row.target)}`;
    case "flip":
      return `Turn ${name(row.target)}'s top card ${row.face === "over" ? "over" : `face ${row.face}`}`;
    case "gather": {
      const from = [
        ...row.from.filter((id) => id !== row.dest).map(name),
        ...(row.hands ? ["every hand"] : []),
        ...(row.loose ? ["the table"] : []),
      ];
      return `Gather ${from.length ? `from ${from.join(", ")} ` : ""}into ${name(row.dest)}`;
    }
    case "set":
      return `Set ${name(row.target)} to ${row.n}`;
    case "add":
      return `Change ${name(row.target)} by ${row.n} step${Math.abs(row.n) === 1 ? "" : "s"}`;
    case "chips":
      return `Move ${row.all ? "all" : row.n} chips from ${name(row.target)} to ${name(row.dest)}`;
    case "addchips":
      return row.n < 0 ? `Take ${-row.n} chips from ${name(row.target)}` : `Add ${row.n} chips to ${name(row.target)}`;
  }
}
