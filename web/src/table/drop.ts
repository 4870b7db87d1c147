// Where a drag ends and what it means: the table operations a drop turns into.
// Pure: given the state, the geometry and the dragged items' final positions, returns ops.

import { isCard, isStack, objBox, inRect, type Rect } from "./board";
import { type Geom, handIndexAt, inHandStrip, toTable } from "./geom";
import type { State } from "./state";
import { CARD_H, CARD_W, type Op, TABLE_H, TABLE_W } from "../core/types";
import { clamp } from "../core/util";

export interface DragItem {
  id: string;
  kind: "card" | "stack" | "widget";
  /** Where the item's element(s) started and are now (stage px, top-left of the main element). */
  x0: number;
  y0: number;
  x: number;
  y: number;
  /** Width/height of the main element now (px). */
  w: number;
  h: number;
}

export interface DropInput {
  s: State;
  g: Geom;
  items: DragItem[];
  /** Pointer position (stage px). */
  px: number;
  py: number;
  /** A seat whose entry in the players panel is under the pointer (give a card). */
  panelSeat: number | null;
  /** Play cards from the hand face down (Shift held). */
  faceDown: boolean;
  ov(id: string): number | undefined;
}

export interface Drop {
  ops: Op[];
  /** The object highlighted as the target, for feedback while dragging. */
  target: string | "hand" | null;
}

/** The object under the dragged item's centre that it would land in, if any. */
export function findTarget(s: State, g: Geom, items: DragItem[]): string | null {
  const primary = items[0];
  if (!primary || primary.kind === "widget") {
    if (primary && primary.kind === "widget" && s.view.get(primary.id)?.t === "chips") return chipsTarget(s, g, items);
    return null;
  }
  const dragged = new Set(items.map((i) => i.id));
  const c = toTable(g, primary.x + primary.w / 2, primary.y + primary.h / 2);
  const src = s.view.get(primary.id);
  const srcParent = isCard(src) ? src.parent : null;
  let best: { id: string; z: number } | null = null;
  // An empty game zone (locked: "New meld") is the target only when nothing else is under the
  // card: a drop on a meld lying on or next to it is a lay-off, whatever lies on top.
  let empty: { id: string; z: number } | null = null;
  for (const o of s.view.values()) {
    if (dragged.has(o.id)) continue;
    let box: Rect | null = null;
    let pad = 0;
    if (o.t === "stack") {
      if (o.id === srcParent && o.cards.length <= 1 && !o.holder) continue;
      box = objBox(s.view, o);
      pad = o.holder ? 18 : 8;
    } else if (o.t === "card" && !o.parent && primary.kind === "card") {
      box = objBox(s.view, o);
      pad = -10;
    }
    if (!box || !inRect(box, c.x, c.y, pad)) continue;
    if (o.t === "stack" && o.locked && !o.cards.length) {
      if (!empty || o.z > empty.z) empty = { id: o.id, z: o.z };
    } else if (!best || o.z > best.z) best = { id: o.id, z: o.z };
  }
  const hit = best ?? empty;
  return hit ? hit.id : null;
}

function chipsTarget(s: State, g: Geom, items: DragItem[]): string | null {
  const p = items[0];
  const c = toTable(g, p.x + p.w / 2, p.y + p.h / 2);
  for (const o of s.view.values()) {
    if (o.t !== "chips" || o.id === p.id) continue;
    const box = objBox(s.view, o);
    if (box && inRect(box, c.x, c.y, 6)) return o.id;
  }
  return null;
}

export function resolveDrop(d: DropInput): Drop {
  const { s, g, items } = d;
  const ops: Op[] = [];
  const seat = s.me.seat;
  const view = s.view;
  const fromHand = (id: string) => {
    const o = view.get(id);
    return isCard(o) && o.parent === `hand${seat}`;
  };
  const upFor = (id: string): boolean | undefined => (fromHand(id) ? !d.faceDown : undefined);
  const withOv = <T extends Op>(op: T, id: string): T => {
    const ov = d.ov(id);
    return ov === undefined ? op : ({ ...op, ov } as T);
  };

  // 1. Into my hand (reorder, take, pick up a pile).
  if (seat !== null && inHandStrip(g, d.px, d.py)) {
    const hand = view.get(`hand${seat}`);
    const inHand = hand && hand.t === "hand" ? (hand.cards ?? []) : [];
    const cards = items.filter((i) => i.kind === "card");
    const others = inHand.filter((id) => !cards.some((c) => c.id === id));
    let index = handIndexAt(g, others.length, d.px);
    for (const it of cards) {
      // The server removes the card before inserting: index among the other cards.
      if (!(cards.length === 1 && inHand[index] === it.id)) ops.push(withOv({ op: "move", id: it.id, to: `hand${seat}`, index }, it.id));
      index++;
    }
    for (const it of items) if (it.kind === "stack") ops.push(withOv({ op: "move", id: it.id, to: `hand${seat}` }, it.id));
    return { ops, target: "hand" };
  }

  // 2. Onto another player's entry in the panel: give them the card(s).
  if (d.panelSeat !== null) {
    for (const it of items) if (it.kind === "card") ops.push(withOv({ op: "move", id: it.id, to: `hand${d.panelSeat}` }, it.id));
    return { ops, target: null };
  }

  // 3. On the table: into a pile/zone, onto a loose card (a new pile), chips onto chips, or a spot.
  const target = findTarget(s, g, items);
  const tobj = target ? view.get(target) : undefined;
  // In a rule room several cards dropped together onto a zone are one move (lay down a meld).
  const cards = items.filter((i) => i.kind === "card");
  if (s.game && isStack(tobj) && cards.length > 1 && cards.length === items.length) {
    const parents = new Set(
      cards.map((i) => {
        const o = view.get(i.id);
        return isCard(o) ? o.parent : null;
      }),
    );
    if (parents.size === 1 && !parents.has(null) && !parents.has(tobj.id))
      return { ops: [{ op: "move_many", ids: cards.map((i) => i.id), to: tobj.id }], target };
  }
  for (const it of items) {
    const o = view.get(it.id);
    if (!o) continue;
    if (tobj && it.kind === "card" && (isStack(tobj) || isCard(tobj))) {
      if (isCard(o) && o.parent === tobj.id) continue; // dropped back where it was
      const up = upFor(it.id);
      ops.push(withOv({ op: "move", id: it.id, to: tobj.id, ...(up === undefined ? {} : { up }) }, it.id));
      continue;
    }
    if (tobj && it.kind === "stack" && isStack(tobj)) {
      ops.push(withOv({ op: "move", id: it.id, to: tobj.id }, it.id));
      continue;
    }
    if (tobj && tobj.t === "chips" && o.t === "chips" && o.count > 0) {
      ops.push({ op: "chips_move", id: it.id, to: tobj.id, n: Math.min(o.count, 1000) });
      continue;
    }
    // A plain move: the item's new top-left in table units, kept on the table.
    const p = toTable(g, it.x, it.y);
    let w = CARD_W;
    let hh = CARD_H;
    if (it.kind !== "card") {
      const box = objBox(view, o);
      if (box) {
        w = box.w;
        hh = box.h;
      }
    }
    if (it.kind === "card" && it.w && g.s) {
      // A hand-sized card being dropped: centre the table-sized card where the pointer was.
      const tableW = CARD_W * g.s;
      if (Math.abs(it.w - tableW) > 1) {
        const c = toTable(g, it.x + it.w / 2, it.y + it.h / 2);
        p.x = c.x - CARD_W / 2;
        p.y = c.y - CARD_H / 2;
      }
    }
    const x = Math.round(clamp(p.x, 0, TABLE_W - Math.min(w, TABLE_W)));
    const y = Math.round(clamp(p.y, 0, TABLE_H - Math.min(hh, TABLE_H)));
    if (it.kind === "stack" && isStack(o)) {
      if (Math.abs(x - o.x) < 1 && Math.abs(y - o.y) < 1) continue;
    } else if (!(it.kind === "card" && isCard(o) && o.parent) && Math.abs(x - o.x) < 1 && Math.abs(y - o.y) < 1) continue;
    const up = upFor(it.id);
    ops.push(withOv({ op: "move", id: it.id, x, y, ...(up === undefined ? {} : { up }) }, it.id));
  }
  return { ops, target };
}
