// Pointer presses that do not carry anything: a click selects (Ctrl/Cmd/Shift add to the
// selection), picks a card for a rule game, rolls a die; a double click or tap flips (or makes a
// card's one move in a rule room); a press on the empty table draws a rubber band that selects.

import { isStack, objBox } from "../board";
import { toTable } from "../geom";
import { type DragCtx, type Press, stageXY } from "./types";

const DOUBLE_MS = 380;

export function click(ctx: DragCtx, p: Press): void {
  const host = ctx.host;
  const s = host.s;
  const g = p.grab;
  if (!g) {
    if (!p.additive && s.selected.size) {
      s.selected.clear();
      host.changed();
    }
    return;
  }
  if (g.kind === "card" && !p.additive && (host.tap?.(g.id) || host.pick?.(g.id))) return;
  const now = performance.now();
  const o = s.view.get(g.id);
  const lastClick = ctx.lastClick;
  if (o?.t === "die" && !p.additive) {
    // A click rolls; a double click is one roll too (its second click rolled again before).
    const second = lastClick?.id === g.id && now - lastClick.at < DOUBLE_MS;
    ctx.lastClick = second ? null : { id: g.id, at: now };
    if (!second) host.cmd.roll(g.id);
    return;
  }
  if (lastClick && lastClick.id === g.id && now - lastClick.at < DOUBLE_MS) {
    ctx.lastClick = null;
    // In a rule room: the card's one move, if it has one.
    if (g.kind === "card" && host.activate?.(g.id)) return;
    // Double click/tap: flip the card (or the top card of a pile).
    const target = g.kind === "stack" && isStack(o) && o.cards.length ? o.cards[o.cards.length - 1] : g.id;
    const t = s.view.get(target);
    if (t && (t.t === "card" || t.t === "stack")) host.cmd.flip([target]);
    return;
  }
  ctx.lastClick = { id: g.id, at: now };
  if (p.additive) {
    if (s.selected.has(g.id)) s.selected.delete(g.id);
    else s.selected.add(g.id);
  } else {
    s.selected.clear();
    s.selected.add(g.id);
  }
  host.changed();
}

export function startBand(ctx: DragCtx, p: Press): void {
  const band = document.createElement("div");
  band.className = "band";
  ctx.host.r.layer.appendChild(band);
  p.band = band;
  p.started = true;
}

export function moveBand(ctx: DragCtx, p: Press, px: number, py: number): void {
  const st = stageXY(ctx, { clientX: p.cx, clientY: p.cy });
  const x = Math.min(st.x, px);
  const y = Math.min(st.y, py);
  const band = p.band as HTMLElement;
  band.style.transform = `translate(${x}px, ${y}px)`;
  band.style.width = `${Math.abs(px - st.x)}px`;
  band.style.height = `${Math.abs(py - st.y)}px`;
}

/** Select what the band covers (added to the selection when the press was additive). */
export function endBand(ctx: DragCtx, p: Press, e: PointerEvent): void {
  const host = ctx.host;
  const s = host.s;
  const g = host.r.geom;
  const st = stageXY(ctx, { clientX: p.cx, clientY: p.cy });
  const en = stageXY(ctx, e);
  const a = toTable(g, Math.min(st.x, en.x), Math.min(st.y, en.y));
  const b = toTable(g, Math.max(st.x, en.x), Math.max(st.y, en.y));
  p.band?.remove();
  if (!p.additive) s.selected.clear();
  for (const o of s.view.values()) {
    if (o.t === "hand" || (o.t === "card" && o.parent)) continue;
    const box = objBox(s.view, o);
    if (!box) continue;
    if (box.x < b.x && box.x + box.w > a.x && box.y < b.y && box.y + box.h > a.y) s.selected.add(o.id);
  }
  host.changed();
}
