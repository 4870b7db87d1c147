// Pure table logic: applying server deltas, predicting the result of our own operations
// (optimistic updates), visibility, and object geometry in table units. No DOM here.

import {
  CARD_H,
  CARD_W,
  type CardObj,
  type Container,
  type Delta,
  type HandObj,
  type Obj,
  type Op,
  type StackObj,
  TABLE_W,
} from "../core/types";

export type Objects = Map<string, Obj>;

/** Spacing of a fanned ("row") stack, in table units: enough to show each card's corner. */
const FAN = 32;
/** The closest a row's cards come when a long row has to fit the table. */
const FAN_MIN = 12;

export function applyDelta(objs: Objects, d: Delta): void {
  for (const o of d.set) objs.set(o.id, o);
  for (const id of d.del) objs.delete(id);
}

export function isCard(o: Obj | undefined | null): o is CardObj {
  return !!o && o.t === "card";
}
export function isStack(o: Obj | undefined | null): o is StackObj {
  return !!o && o.t === "stack";
}
export function isHand(o: Obj | undefined | null): o is HandObj {
  return !!o && o.t === "hand";
}

export function containerOf(objs: Objects, card: CardObj): Container | null {
  if (!card.parent) return null;
  const c = objs.get(card.parent);
  return c && (c.t === "stack" || c.t === "hand") ? c : null;
}

/** A container's card ids; empty for another seat's hand, which is sent as a count only. */
export function cardIds(c: Container): string[] {
  return c.cards ?? [];
}

/** How many cards a hand holds: its own list for your hand, the server's count for others. */
export function handCount(h: HandObj): number {
  return h.cards ? h.cards.length : h.n;
}

export function topCardId(s: Container): string | null {
  const cards = cardIds(s);
  return cards.length ? cards[cards.length - 1] : null;
}

/** The same rule as the server's view: may `seat` see this card's face? */
function cardVisible(objs: Objects, card: CardObj, seat: number | null): boolean {
  if (!card.parent) return card.up;
  const p = objs.get(card.parent);
  if (isHand(p)) return seat !== null && p.seat === seat;
  if (isStack(p)) return card.up && (p.layout === "row" || topCardId(p) === card.id);
  return false;
}

/** Can this seat pick the card up (loose, top of a pile, any card of a row, own hand)? */
export function cardReachable(objs: Objects, card: CardObj, seat: number | null): boolean {
  const c = containerOf(objs, card);
  if (!c) return !card.locked;
  if (isHand(c)) return c.seat === seat;
  return c.layout === "row" || topCardId(c) === card.id;
}

function maxZ(objs: Objects): number {
  let z = 0;
  for (const o of objs.values()) if (o.z > z) z = o.z;
  return z;
}

export function seatedSeats(players: { seat: number | null }[]): number[] {
  return players
    .map((p) => p.seat)
    .filter((s): s is number => s !== null)
    .sort((a, b) => a - b);
}

// --- geometry (table units) ----------------------------------------------------------------------

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export function stackBox(s: StackObj): Rect {
  const n = s.cards.length;
  const fanW = s.layout === "row" ? CARD_W + Math.max(0, n - 1) * fanStep(s) : CARD_W;
  return { x: s.x, y: s.y, w: Math.max(s.w || 0, fanW), h: Math.max(s.h || 0, CARD_H) };
}

function fanStep(s: StackObj): number {
  const n = s.cards.length;
  if (n < 2) return FAN;
  // A zone wide enough for the row keeps it inside; a pile (a deck is only a little wider than
  // a card) spreads towards the table's right edge, as close as it must to stay on the table.
  const inZone = s.w ? (s.w - CARD_W) / (n - 1) : 0;
  if (inZone >= FAN_MIN) return Math.min(FAN, inZone);
  const room = (TABLE_W - 16 - s.x - CARD_W) / (n - 1);
  return Math.max(FAN_MIN, Math.min(FAN, room));
}

/** Where the card at `index` of stack `s` lies (top-left, table units). */
export function cardInStack(s: StackObj, index: number): { x: number; y: number } {
  const ox = s.w && s.layout !== "row" ? (s.w - CARD_W) / 2 : s.layout === "row" && s.w ? 0 : 0;
  const oy = s.h ? (s.h - CARD_H) / 2 : 0;
  if (s.layout === "row") return { x: s.x + ox + index * fanStep(s), y: s.y + oy };
  const d = Math.min(index, 30) * 0.13;
  return { x: s.x + ox - d, y: s.y + oy - d };
}

export const WIDGET_SIZE: Record<string, { w: number; h: number }> = {
  chips: { w: 96, h: 96 },
  counter: { w: 150, h: 66 },
  die: { w: 64, h: 64 },
  label: { w: 200, h: 40 },
};

/** The box an object covers on the table, or null for objects that are not on it (hands). */
export function objBox(objs: Objects, o: Obj): Rect | null {
  switch (o.t) {
    case "card": {
      const c = containerOf(objs, o);
      if (!c) return { x: o.x, y: o.y, w: CARD_W, h: CARD_H };
      if (isHand(c)) return null;
      const p = cardInStack(c, c.cards.indexOf(o.id));
      return { x: p.x, y: p.y, w: CARD_W, h: CARD_H };
    }
    case "stack":
      return stackBox(o);
    case "hand":
      return null;
    default: {
      const s = WIDGET_SIZE[o.t];
      if (!s) return null; // a kind this page does not draw
      return { x: o.x, y: o.y, w: s.w, h: s.h };
    }
  }
}

export function inRect(r: Rect, x: number, y: number, pad = 0): boolean {
  return x >= r.x - pad && x <= r.x + r.w + pad && y >= r.y - pad && y <= r.y + r.h + pad;
}

function isFree(objs: Objects, w: number, h: number): (x: number, y: number) => boolean {
  const boxes: Rect[] = [];
  for (const o of objs.values()) {
    if (o.t === "hand" || (o.t === "card" && o.parent)) continue;
    const b = objBox(objs, o);
    if (b) boxes.push(b);
  }
  return (x, y) =>
    x >= 0 &&
    y >= 0 &&
    x + w <= 1600 &&
    y + h <= 1000 &&
    !boxes.some((b) => x < b.x + b.w + 16 && x + w + 16 > b.x && y < b.y + b.h + 16 && y + h + 16 > b.y);
}

/** A free spot for a card-sized pile next to `box` (right, left, below, above), else anywhere. */
export function spotNear(objs: Objects, box: Rect): { x: number; y: number } {
  const free = isFree(objs, CARD_W, CARD_H);
  for (let step = 1; step <= 4; step++) {
    const d = 24 * step;
    for (const [x, y] of [
      [box.x + box.w + d, box.y],
      [box.x - CARD_W - d, box.y],
      [box.x, box.y + box.h + d],
      [box.x, box.y - CARD_H - d],
    ])
      if (free(x, y)) return { x: Math.round(x), y: Math.round(y) };
  }
  return freeSpot(objs, CARD_W, CARD_H);
}

/** A free spot for a new object of size w x h, near the middle of the table. */
export function freeSpot(objs: Objects, w: number, h: number): { x: number; y: number } {
  const free = isFree(objs, w, h);
  const cx = 800 - w / 2;
  const cy = 500 - h / 2;
  for (let r = 0; r < 12; r++) {
    for (let i = -r; i <= r; i++) {
      for (const [dx, dy] of [
        [i, -r],
        [i, r],
        [-r, i],
        [r, i],
      ]) {
        const x = cx + dx * 130;
        const y = cy + dy * 110;
        if (x >= 10 && y >= 10 && x + w <= 1590 && y + h <= 990 && free(x, y)) return { x: Math.round(x), y: Math.round(y) };
      }
    }
  }
  return { x: Math.round(cx), y: Math.round(cy) };
}

// --- optimistic prediction -------------------------------------------------------------------------

/** A copy-on-write view over the server objects: `mut` clones an object before changing it. */
export class Draft {
  readonly objs: Objects;
  private owned = new Set<string>();
  readonly touched = new Set<string>();
  constructor(base: Objects) {
    this.objs = new Map(base);
  }
  get(id: string): Obj | undefined {
    return this.objs.get(id);
  }
  mut<T extends Obj>(o: T): T {
    this.touched.add(o.id);
    if (this.owned.has(o.id)) return o;
    const copy = { ...o } as T;
    const cards = (copy as Partial<Container>).cards;
    if (cards) (copy as Container).cards = [...cards];
    this.objs.set(o.id, copy);
    this.owned.add(o.id);
    return copy;
  }
  add(o: Obj): void {
    this.objs.set(o.id, o);
    this.owned.add(o.id);
    this.touched.add(o.id);
  }
  del(id: string): void {
    this.objs.delete(id);
    this.owned.delete(id);
    this.touched.add(id);
  }
}

export interface PredictCtx {
  seat: number | null;
  seated: number[];
  /** An id for objects the server will create (a new pile); replaced when the server answers. */
  tmpId: string;
}

function detach(d: Draft, card: CardObj): CardObj {
  const c = card.parent ? d.get(card.parent) : undefined;
  const mine = d.mut(card);
  if (c && (c.t === "stack" || c.t === "hand")) {
    const m = d.mut(c);
    m.cards = cardIds(m).filter((id) => id !== card.id);
    if (m.t === "hand") m.n = m.cards.length;
    if (m.t === "stack" && !m.cards.length && !m.holder) d.del(m.id);
  }
  mine.parent = null;
  return mine;
}

function attach(d: Draft, card: CardObj, dest: Container, index?: number): void {
  const m = d.mut(dest);
  if (m.t === "hand" && !m.cards) {
    // Another seat's hand: we will only see its count go up; the card leaves our view.
    m.n += 1;
    d.del(card.id);
    return;
  }
  const cards = (m.cards ??= []);
  if (index === undefined || index < 0 || index > cards.length) cards.push(card.id);
  else cards.splice(index, 0, card.id);
  if (m.t === "hand") m.n = cards.length;
  const c = d.mut(card);
  c.parent = m.id;
  c.x = m.x;
  c.y = m.y;
}

/**
 * Apply `op` to the draft as the server probably will. Returns false when the result can't be
 * predicted (shuffle, roll, create, undo) or the op looks invalid: the server's answer decides.
 */
export function predict(d: Draft, op: Op, ctx: PredictCtx): boolean {
  switch (op.op) {
    case "move":
      return predictMove(d, op, ctx);
    case "move_many":
      return op.ids.every((id) => predictMove(d, { op: "move", id, to: op.to }, ctx));
    case "flip": {
      const o = d.get(op.id);
      if (isCard(o)) {
        const c = d.mut(o);
        c.up = !c.up;
        const parent = containerOf(d.objs, c);
        if (parent) d.mut(parent);
        return true;
      }
      if (isStack(o)) {
        const s = d.mut(o);
        s.cards.reverse();
        for (const id of s.cards) {
          const c = d.get(id);
          if (isCard(c)) d.mut(c).up = !c.up;
        }
        return true;
      }
      return false;
    }
    case "rotate": {
      const o = d.get(op.id);
      if (!o || o.t === "hand") return false;
      d.mut(o).rot = ((op.rot % 360) + 360) % 360;
      return true;
    }
    case "take": {
      const s = d.get(op.id);
      const hand = ctx.seat === null ? undefined : d.get(`hand${ctx.seat}`);
      if (!isStack(s) || !isHand(hand)) return false;
      const n = op.n ?? 1;
      if (n > s.cards.length) return false;
      for (let i = 0; i < n; i++) {
        const cur = d.get(s.id) as StackObj | undefined;
        const top = cur && topCardId(cur);
        const card = top ? d.get(top) : undefined;
        if (!isCard(card)) return false;
        attach(d, detach(d, card), d.get(hand.id) as HandObj);
      }
      return true;
    }
    case "deal": {
      const s = d.get(op.id);
      if (!isStack(s)) return false;
      const order = op.seats ?? ctx.seated;
      if (!order.length || op.n * order.length > s.cards.length) return false;
      for (let i = 0; i < op.n; i++) {
        for (const seat of order) {
          const cur = d.get(s.id) as StackObj | undefined;
          const top = cur && topCardId(cur);
          const card = top ? d.get(top) : undefined;
          const hand = d.get(`hand${seat}`);
          if (!isCard(card) || !isHand(hand)) return false;
          const c = detach(d, card);
          c.up = false;
          attach(d, c, d.get(hand.id) as HandObj);
        }
      }
      return true;
    }
    case "split": {
      const s = d.get(op.id);
      if (!isStack(s) || op.n > s.cards.length) return false;
      const pile: StackObj = {
        t: "stack",
        id: ctx.tmpId,
        x: op.x,
        y: op.y,
        z: maxZ(d.objs) + 1,
        rot: s.rot,
        locked: false,
        v: 0,
        cards: [],
        layout: "pile",
        holder: false,
        label: "",
        w: 0,
        h: 0,
        owner: null,
      };
      d.add(pile);
      for (const id of s.cards.slice(-op.n)) {
        const card = d.get(id);
        if (isCard(card)) attach(d, detach(d, card), d.get(pile.id) as StackObj);
      }
      return true;
    }
    case "merge": {
      const src = d.get(op.id);
      const dest = d.get(op.into);
      if (!isStack(src) || !isStack(dest) || src.id === dest.id) return false;
      for (const id of [...src.cards]) {
        const card = d.get(id);
        if (isCard(card)) attach(d, detach(d, card), d.get(dest.id) as StackObj);
      }
      return true;
    }
    case "counter": {
      const o = d.get(op.id);
      if (!o || o.t !== "counter") return false;
      const c = d.mut(o);
      c.value = op.value !== undefined ? op.value : c.value + (op.delta ?? 0) * c.step;
      return true;
    }
    case "chips_add": {
      const o = d.get(op.id);
      if (!o || o.t !== "chips" || o.count + op.n < 0) return false;
      d.mut(o).count += op.n;
      return true;
    }
    case "chips_move": {
      const a = d.get(op.id);
      const b = d.get(op.to);
      if (!a || a.t !== "chips" || !b || b.t !== "chips" || op.n > a.count) return false;
      d.mut(a).count -= op.n;
      d.mut(b).count += op.n;
      return true;
    }
    case "delete": {
      const o = d.get(op.id);
      if (!o || o.t === "hand") return false;
      if (isStack(o)) for (const id of o.cards) d.del(id);
      if (isCard(o)) detach(d, o);
      d.del(o.id);
      return true;
    }
    case "update": {
      const o = d.get(op.id);
      if (!o) return false;
      const m = d.mut(o) as unknown as Record<string, unknown>;
      for (const k of ["label", "text", "locked", "layout"] as const) if (op[k] !== undefined) m[k] = op[k];
      return true;
    }
    default:
      return false;
  }
}

function predictMove(d: Draft, op: Extract<Op, { op: "move" }>, ctx: PredictCtx): boolean {
  const o = d.get(op.id);
  if (!o || o.t === "hand") return false;
  if (isCard(o)) {
    if (!cardReachable(d.objs, o, ctx.seat)) return false;
    if (op.to !== undefined) {
      let dest = d.get(op.to);
      if (isCard(dest)) {
        if (dest.parent || dest.id === o.id) return false;
        const pile: StackObj = {
          t: "stack",
          id: ctx.tmpId,
          x: dest.x,
          y: dest.y,
          z: maxZ(d.objs) + 1,
          rot: dest.rot,
          locked: false,
          v: 0,
          cards: [],
          layout: "pile",
          holder: false,
          label: "",
          w: 0,
          h: 0,
          owner: null,
        };
        d.add(pile);
        attach(d, detach(d, dest), pile);
        dest = d.get(pile.id);
      }
      if (!dest || (dest.t !== "stack" && dest.t !== "hand")) return false;
      const c = detach(d, o);
      if (op.up !== undefined) c.up = op.up;
      const live = d.get(dest.id);
      if (!live || (live.t !== "stack" && live.t !== "hand")) return false;
      attach(d, c, live, op.index);
      return true;
    }
    if (op.x === undefined || op.y === undefined) return false;
    const z = maxZ(d.objs) + 1;
    const c = detach(d, o);
    if (op.up !== undefined) c.up = op.up;
    c.x = op.x;
    c.y = op.y;
    c.z = z;
    return true;
  }
  if (op.to !== undefined) {
    if (!isStack(o)) return false;
    const dest = d.get(op.to);
    if (isStack(dest)) return predict(d, { op: "merge", id: o.id, into: dest.id }, ctx);
    if (isHand(dest) && dest.seat === ctx.seat) {
      for (const id of [...o.cards].reverse()) {
        const card = d.get(id);
        if (isCard(card)) attach(d, detach(d, card), d.get(dest.id) as HandObj);
      }
      return true;
    }
    return false;
  }
  if (op.x === undefined || op.y === undefined || o.locked) return false;
  const z = maxZ(d.objs) + 1;
  const m = d.mut(o);
  m.x = op.x;
  m.y = op.y;
  m.z = z;
  if (isStack(m))
    for (const id of m.cards) {
      const card = d.get(id);
      if (isCard(card)) {
        const c = d.mut(card);
        c.x = op.x;
        c.y = op.y;
      }
    }
  return true;
}

/**
 * After predictions, drop every face this seat would no longer see (a card we moved into
 * another hand, turned face down, or buried in a pile): predictions never keep hidden faces.
 */
export function stripHidden(d: Draft, seat: number | null): void {
  const check = new Set<string>();
  for (const id of d.touched) {
    const o = d.get(id);
    if (!o) continue;
    if (o.t === "card") check.add(id);
    else if (o.t === "stack" || o.t === "hand") for (const c of cardIds(o)) check.add(c);
  }
  for (const id of check) {
    const c = d.get(id);
    if (isCard(c) && c.face !== undefined && !cardVisible(d.objs, c, seat)) {
      const m = d.mut(c);
      delete m.face;
    }
  }
}
