// Screen geometry: fixed table coordinates (1600 x 1000) scaled to fit the stage, with the
// player's hand strip along the bottom. Everything on the stage is positioned from this.

import { clamp } from "../core/util";
import { CARD_H, CARD_W, TABLE_H, TABLE_W } from "../core/types";

/** Zoom and pan: `zoom` 1 fits the whole table; (cx, cy) is the table point at the centre. */
export interface ViewPort {
  zoom: number;
  cx: number;
  cy: number;
}

export const FIT: ViewPort = { zoom: 1, cx: TABLE_W / 2, cy: TABLE_H / 2 };
const MAX_ZOOM = 4;
/** Table cards at least this wide (px) at zoom 1 when the table can't fit whole at that size:
 *  a phone shows part of the table, readable, and the rest is a finger's pan away. */
const MIN_CARD_PX = 50;
/** The hand strip's caption column: beside the cards on a wide screen, a thin band on a phone. */
const LABEL_W = 90;
const LABEL_W_NARROW = 22;

export interface Geom {
  w: number;
  h: number;
  vp: ViewPort;
  /** The scale at zoom 1. */
  s0: number;
  /** The smallest zoom: the whole table in view. */
  minZoom: number;
  /** table units -> stage pixels: px = ox + s * x */
  s: number;
  ox: number;
  oy: number;
  /** Part of the table is out of view (a finger on the empty table pans it). */
  pannable: boolean;
  /** The table's size in table units: TABLE_W x TABLE_H, or a game's portrait table. */
  tw: number;
  th: number;
  hand: { x: number; y: number; w: number; h: number; cw: number; ch: number; pad: number; label: number; scroll: number };
}

/** The hand strip's height on a stage `h` px tall. */
function handHeight(h: number): number {
  return Math.round(clamp(h * 0.19, 90, 160));
}

/** A portrait table's width (table units): cards (100 wide) at least 40 px on a 390 px phone. */
const PORTRAIT_W = 900;

/**
 * The portrait table a game is drawn on when the stage (w x h px, the hand strip included) is
 * upright (clearly taller than wide above the hand), else null: PORTRAIT_W wide, as tall as
 * the stage's shape makes it (so that it fills the stage at the scale that fits its width).
 */
export function portraitTable(w: number, h: number): { w: number; h: number } | null {
  const tw = w - 16;
  const th = h - handHeight(h) - 16;
  if (tw <= 0 || th < tw * 1.15) return null;
  return { w: PORTRAIT_W, h: Math.round(clamp((th * PORTRAIT_W) / tw, 1000, 1800)) };
}

/**
 * `whole`: the table must fit whole when it can at a readable size (a rule game lays its places
 * out to the edges); otherwise a free-play table may lose a little of its rim to use the width.
 */
export function computeGeom(
  w: number,
  h: number,
  want: ViewPort = FIT,
  handScroll = 0,
  whole = false,
  table: { w: number; h: number } | null = null,
): Geom {
  // A game's portrait table (see portraitTable) is always shown whole.
  const TW = table ? table.w : TABLE_W;
  const TH = table ? table.h : TABLE_H;
  const handH = handHeight(h);
  const pad = 8;
  const ch = handH - 2 * pad - 6;
  const cw = (ch * CARD_W) / CARD_H;
  const tableH = h - handH;
  const margin = 8;
  // Fit the whole table ("contain"), a little more where the stage's shape leaves bands beside
  // it (its rim is rarely used), and on a small screen enough for readable cards ("cover" at
  // most: then the table fills the stage and pans).
  const fitW = (w - 2 * margin) / TW;
  const fitH = (tableH - 2 * margin) / TH;
  const contain = Math.max(0.05, Math.min(fitW, fitH));
  const cover = Math.max(0.05, fitW, fitH);
  const wish = Math.max(contain * 1.15, MIN_CARD_PX / CARD_W);
  // Close to filling the stage anyway: fill it (no thin empty bands above and below).
  const readable = contain * CARD_W >= MIN_CARD_PX;
  const s0 = table || (whole && readable) ? contain : wish >= cover * 0.75 ? cover : wish;
  const minZoom = Math.min(1, contain / s0);
  const zoom = clamp(want.zoom, minZoom, MAX_ZOOM);
  const s = s0 * zoom;
  // Keep the table covering the view once zoomed in: the centre can't wander off the edges.
  const fix = (c: number, size: number, avail: number) => {
    const half = (avail / 2 - margin) / s;
    return size * s <= avail - 2 * margin ? size / 2 : clamp(c, half, size - half);
  };
  const vp = { zoom, cx: fix(want.cx, TW, w), cy: fix(want.cy, TH, tableH) };
  const ox = w / 2 - vp.cx * s;
  const oy = tableH / 2 - vp.cy * s;
  const pannable = TW * s > w - 2 * margin + 0.5 || TH * s > tableH - 2 * margin + 0.5;
  const label = w < 600 ? LABEL_W_NARROW : LABEL_W;
  return {
    w,
    h,
    vp,
    s0,
    minZoom,
    s,
    ox,
    oy,
    pannable,
    tw: TW,
    th: TH,
    hand: { x: 0, y: tableH, w, h: handH, cw, ch, pad, label, scroll: Math.max(0, handScroll) },
  };
}

/** The viewport after zooming to `zoom` around stage point (px, py), which stays put. */
export function zoomAt(g: Geom, px: number, py: number, zoom: number): ViewPort {
  const z = clamp(zoom, g.minZoom, MAX_ZOOM);
  const t = toTable(g, px, py);
  const s = g.s0 * z;
  return { zoom: z, cx: t.x - (px - g.w / 2) / s, cy: t.y - (py - g.hand.y / 2) / s };
}

/** The viewport after dragging the table by (dx, dy) stage pixels. */
export function panBy(g: Geom, dx: number, dy: number): ViewPort {
  return { zoom: g.vp.zoom, cx: g.vp.cx - dx / g.s, cy: g.vp.cy - dy / g.s };
}

export function toTable(g: Geom, px: number, py: number): { x: number; y: number } {
  return { x: (px - g.ox) / g.s, y: (py - g.oy) / g.s };
}

export function toStage(g: Geom, x: number, y: number): { x: number; y: number } {
  return { x: g.ox + x * g.s, y: g.oy + y * g.s };
}

export function inHandStrip(g: Geom, px: number, py: number): boolean {
  return py >= g.hand.y && py <= g.hand.y + g.hand.h && px >= g.hand.x && px <= g.hand.x + g.hand.w;
}

/** The closest hand cards come: enough to read each card's corner (rank and suit). */
function minStep(g: Geom): number {
  return Math.max(20, g.hand.cw * 0.24);
}

/** How far the hand can scroll (px): a long hand on a narrow screen runs past the strip. */
export function handOverflow(g: Geom, n: number): number {
  const { w, cw, pad, label } = g.hand;
  const avail = w - 2 * pad - label;
  return Math.max(0, cw + minStep(g) * Math.max(0, n - 1) - avail);
}

/** Positions (stage px, top-left) of `n` cards in the hand strip. */
export function handSlots(g: Geom, n: number): { x: number; y: number; step: number } {
  const { x, w, cw, pad, label } = g.hand;
  const avail = w - 2 * pad - label;
  const step = n > 1 ? Math.min(cw + 8, Math.max(minStep(g), (avail - cw) / (n - 1))) : 0;
  const total = cw + step * Math.max(0, n - 1);
  const scroll = Math.min(g.hand.scroll, Math.max(0, total - avail));
  const start = x + label + pad + Math.max(0, (avail - total) / 2) - scroll;
  return { x: start, y: g.hand.y + pad + 4, step };
}

/** The index a card dropped at stage x would take in a hand of `n` other cards. */
export function handIndexAt(g: Geom, n: number, px: number): number {
  const slots = handSlots(g, n + 1);
  if (slots.step <= 0) return n;
  const i = Math.round((px - g.hand.cw / 2 - slots.x) / slots.step);
  return clamp(i, 0, n);
}
