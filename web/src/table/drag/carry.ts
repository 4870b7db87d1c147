// Carrying what a press grabbed: lift the elements above the page, move them with the pointer
// (a single card takes the size of where it is over: table or hand), show where they would land,
// share the drag with the others, and on release hand the drop to drop.ts for its operations.

import type { Op } from "../../core/types";
import { cardReachable } from "../board";
import { findTarget, resolveDrop } from "../drop";
import { handIndexAt, inHandStrip, toTable } from "../geom";
import { elsFor, fromAHand, panelSeatAt, posOf } from "./hit";
import { type DragCtx, type Grab, type Item, type Press, stageXY } from "./types";

/** Put an element on the page-wide drag layer. */
function lift(ctx: DragCtx, el: HTMLElement): void {
  if (!ctx.overlay || !ctx.overlay.isConnected) {
    ctx.overlay = document.createElement("div");
    ctx.overlay.className = "drag-layer";
    document.body.appendChild(ctx.overlay);
  }
  const r = ctx.stage.getBoundingClientRect();
  ctx.overlay.style.left = `${r.left}px`;
  ctx.overlay.style.top = `${r.top}px`;
  ctx.overlay.appendChild(el);
}

/** The press has moved far enough: pick up what it grabbed (and the rest of the selection). */
export function startDrag(ctx: DragCtx, p: Press, e: PointerEvent): void {
  const { host, stage } = ctx;
  const s = host.s;
  const g = p.grab as Grab;
  let grabs: Grab[] = [g];
  if (s.selected.has(g.id) && s.selected.size > 1) {
    grabs = [g];
    for (const id of s.selected) {
      if (id === g.id) continue;
      const o = s.view.get(id);
      if (!o || o.t === "hand") continue;
      if (o.t === "card") {
        if (!cardReachable(s.view, o, s.me.seat)) continue;
        grabs.push({ id, kind: "card" });
      } else grabs.push({ id, kind: o.t === "stack" ? "stack" : "widget" });
    }
  } else if (!s.selected.has(g.id)) {
    s.selected.clear();
  }
  const pt = stageXY(ctx, e);
  const start = stageXY(ctx, { clientX: p.cx, clientY: p.cy });
  let k = 0;
  for (const gr of grabs) {
    const els = elsFor(ctx, gr);
    if (!els.length) continue;
    const main = els[0];
    const pos = posOf(main);
    const w = parseFloat(main.style.width) || main.offsetWidth;
    const hh = parseFloat(main.style.height) || main.offsetHeight;
    const item: Item = {
      id: gr.id,
      kind: gr.kind,
      x0: pos.x,
      y0: pos.y,
      x: pos.x,
      y: pos.y,
      w,
      h: hh,
      main,
      els: els.map((el) => {
        const at = posOf(el);
        return { el, x0: at.x, y0: at.y };
      }),
      fx: w ? (start.x - pos.x) / w : 0.5,
      fy: hh ? (start.y - pos.y) / hh : 0.5,
      resizable: gr.kind === "card" && grabs.length === 1,
    };
    for (const m of item.els) {
      // Above everything on the page (the side panel too) while it moves.
      lift(ctx, m.el);
      m.el.classList.add("dragging");
      m.el.style.zIndex = String(9_000_000 + k++);
      const id = m.el.dataset.id || (m.el.dataset.stack ? `badge:${m.el.dataset.stack}` : "");
      if (id) host.r.dragging.add(id);
    }
    p.items.push(item);
  }
  p.started = p.items.length > 0;
  if (p.started) {
    host.dragHint?.(p.items.map((it) => it.id));
    stage.classList.add("is-dragging");
    try {
      stage.setPointerCapture(p.pointerId);
    } catch {
      /* the pointer may be gone already */
    }
    moveItems(ctx, p, pt.x, pt.y);
  }
}

/** Move the carried items to the pointer at (px, py) (stage pixels) and light up the target. */
export function moveItems(ctx: DragCtx, p: Press, px: number, py: number): void {
  const host = ctx.host;
  const start = stageXY(ctx, { clientX: p.cx, clientY: p.cy });
  const dx = px - start.x;
  const dy = py - start.y;
  const g = host.r.geom;
  for (const it of p.items) {
    if (it.resizable) {
      const want = host.r.cardSize(inHandStrip(g, px, py) ? "hand" : "table");
      if (Math.abs(want.w - it.w) > 0.5) {
        it.w = want.w;
        it.h = want.h;
        it.main.style.width = `${want.w}px`;
        it.main.style.height = `${want.h}px`;
      }
      it.x = px - it.fx * it.w;
      it.y = py - it.fy * it.h;
      const rot = /rotate\([^)]*\)/.exec(it.main.style.transform);
      it.main.style.transform = `translate(${it.x}px, ${it.y}px)${rot ? " " + rot[0] : ""}`;
      continue;
    }
    it.x = it.x0 + dx;
    it.y = it.y0 + dy;
    for (const m of it.els) {
      // Keep whatever follows the translation (rotation, scale).
      const rest = m.el.style.transform.replace(/^translate\([^)]*\)/, "");
      m.el.style.transform = `translate(${m.x0 + dx}px, ${m.y0 + dy}px)${rest}`;
    }
  }
  if (!inHandStrip(g, px, py)) {
    host.shareDrag(
      p.items
        .filter((it) => !fromAHand(ctx, it.id))
        .filter((it) => it.kind !== "card" || !it.resizable || Math.abs(it.w - host.r.cardSize("table").w) < 1)
        .map((it) => {
          const t = toTable(g, it.x, it.y);
          return { id: it.id, x: Math.round(t.x), y: Math.round(t.y) };
        }),
    );
  }
  // Feedback: highlight where it would land; in the hand, the cards open a gap there.
  const overHand = host.s.me.seat !== null && inHandStrip(g, px, py);
  const cards = p.items.filter((it) => it.kind === "card");
  let gap: number | null = null;
  if (overHand && cards.length) {
    const hand = host.s.view.get(`hand${host.s.me.seat}`);
    const inHand = hand && hand.t === "hand" ? (hand.cards ?? []) : [];
    gap = handIndexAt(g, inHand.filter((id) => !cards.some((c) => c.id === id)).length, px);
  }
  if (gap !== host.r.handGap) {
    host.r.handGap = gap;
    host.changed();
  }
  const seat = panelSeatAt(ctx, p, px, py);
  if (host.s.me.seat !== null && inHandStrip(g, px, py)) host.r.highlight(host.r.handBg);
  else if (seat !== null) host.r.highlight(document.querySelector<HTMLElement>(`[data-drop-seat="${seat}"]`));
  else {
    const t = findTarget(host.s, g, p.items);
    host.r.highlight(t ? host.r.el(t) || null : null);
  }
}

/** Put the items down: the drop's operations are sent unless the drag was cancelled. */
export function endDrag(ctx: DragCtx, p: Press, e: PointerEvent, cancelled: boolean): void {
  const { host, stage } = ctx;
  const pt = stageXY(ctx, e);
  host.r.highlight(null);
  stage.classList.remove("is-dragging");
  let ops: Op[] = [];
  if (!cancelled) {
    ops = resolveDrop({
      s: host.s,
      g: host.r.geom,
      items: p.items,
      px: pt.x,
      py: pt.y,
      panelSeat: panelSeatAt(ctx, p, pt.x, pt.y),
      faceDown: e.shiftKey,
      ov: host.ov,
    }).ops;
  }
  host.shareDrag([]);
  host.dragHint?.(null);
  host.r.handGap = null;
  for (const it of p.items)
    for (const m of it.els) {
      m.el.classList.remove("dragging");
      host.r.layer.appendChild(m.el);
    }
  host.r.dragging.clear();
  host.r.forget(p.items.flatMap((it) => it.els.map((m) => m.el.dataset.id || `badge:${m.el.dataset.stack}`)));
  for (const op of ops) host.send(op);
  host.changed();
}
