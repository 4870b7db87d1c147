// Screen geometry: fixed table coordinates (1600 x 1000) scaled to fit the stage, with the
// player's hand strip along the bottom. Everything on the stage is positioned from this.

import { clamp } from "./util";
import { CARD_H, CARD_W, TABLE_H, TABLE_W } from "./types";

/** Zoom and pan: `zoom` 1 fits the whole table; (cx, cy) is the table point at the centre. */
export interface ViewPort {
  zoom: number;
  cx: number;
  cy: number;
}

export const FIT: ViewPort = { zoom: 1, cx: TABLE_W / 2, cy: TABLE_H / 2 };
export const MAX_ZOOM = 4;

export interface Geom {
  w: number;
  h: number;
  vp: ViewPort;
  /** The scale at zoom 1. */
  s0: number;
  /** table units -> stage pixels: px = ox + s * x */
  s: number;
  ox: number;
  oy: number;
  hand: { x: number; y: number; w: number; h: number; cw: number; ch: number; pad: number };
}

export function computeGeom(w: number, h: number, want: ViewPort = FIT): Geom {
  const handH = Math.round(clamp(h * 0.19, 90, 160));
  const pad = 8;
  const ch = handH - 2 * pad - 6;
  const cw = (ch * CARD_W) / CARD_H;
  const tableH = h - handH;
  const margin = 8;
  const s0 = Math.max(0.05, Math.min((w - 2 * margin) / TABLE_W, (tableH - 2 * margin) / TABLE_H));
  const zoom = clamp(want.zoom, 1, MAX_ZOOM);
  const s = s0 * zoom;
  // Keep the table covering the view once zoomed in: the centre can't wander off the edges.
  const fix = (c: number, size: number, avail: number) => {
    const half = (avail / 2 - margin) / s;
    return size * s <= avail - 2 * margin ? size / 2 : clamp(c, half, size - half);
  };
  const vp = { zoom, cx: fix(want.cx, TABLE_W, w), cy: fix(want.cy, TABLE_H, tableH) };
  const ox = w / 2 - vp.cx * s;
  const oy = tableH / 2 - vp.cy * s;
  return { w, h, vp, s0, s, ox, oy, hand: { x: 0, y: tableH, w, h: handH, cw, ch, pad } };
}

/** The viewport after zooming to `zoom` around stage point (px, py), which stays put. */
export function zoomAt(g: Geom, px: number, py: number, zoom: number): ViewPort {
  const z = clamp(zoom, 1, MAX_ZOOM);
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

/** Positions (stage px, top-left) of `n` cards in the hand strip. */
export function handSlots(g: Geom, n: number): { x: number; y: number; step: number } {
  const { x, w, cw, pad } = g.hand;
  const avail = w - 2 * pad - 90;
  const step = n > 1 ? Math.min(cw + 8, Math.max(6, (avail - cw) / (n - 1))) : 0;
  const total = cw + step * Math.max(0, n - 1);
  const start = x + 90 + pad + Math.max(0, (avail - total) / 2);
  return { x: start, y: g.hand.y + pad + 4, step };
}

/** The index a card dropped at stage x would take in a hand of `n` other cards. */
export function handIndexAt(g: Geom, n: number, px: number): number {
  const slots = handSlots(g, n + 1);
  if (slots.step <= 0) return n;
  const i = Math.round((px - g.hand.cw / 2 - slots.x) / slots.step);
  return clamp(i, 0, n);
}
