// Pointer input on the stage (mouse, pen and touch alike): drag cards, piles and widgets,
// rubber-band multi-selection, click to select, double-click/double-tap to flip, long-press for
// the context menu on touch screens, pinch and wheel to zoom, pan, swipe the hand. This file is
// the gesture state machine (which press becomes what); hit.ts finds what a press grabs,
// carry.ts moves what is dragged, select.ts handles clicks and the rubber band, and dropping
// hands over to drop.ts for the meaning.

import { inHandStrip, panBy, zoomAt } from "../geom";
import { endDrag, moveItems, startDrag } from "./carry";
import { draggable, fromAHand, grabOf, hover } from "./hit";
import { click, endBand, moveBand, startBand } from "./select";
import { type DragCtx, type DragHost, type Press, stageXY } from "./types";

export type { DragHost } from "./types";

const DRAG_START_PX = { mouse: 4, pen: 6, touch: 8 } as Record<string, number>;

export function bindDrag(host: DragHost): void {
  const stage = host.r.stage;
  const ctx: DragCtx = { host, stage, lastClick: null, overlay: null };
  let press: Press | null = null;
  // Touch points, for pinch-zoom with two fingers.
  const touches = new Map<number, { x: number; y: number }>();
  let pinch: { dist: number; zoom: number; mx: number; my: number } | null = null;

  /** Does this touch, just past the drag threshold, swipe the hand (started on the hand strip,
   *  on a card of our hand or between them, moving more sideways than up or down)? */
  function swipes(p: Press, e: PointerEvent): boolean {
    if (p.type !== "touch") return false;
    const st = stageXY(ctx, { clientX: p.cx, clientY: p.cy });
    if (!inHandStrip(host.r.geom, st.x, st.y)) return false;
    if (Math.abs(e.clientX - p.cx) <= Math.abs(e.clientY - p.cy)) return false;
    return !p.grab || fromAHand(ctx, p.grab.id);
  }

  const pinchInfo = () => {
    const [p1, p2] = [...touches.values()];
    return { dist: Math.hypot(p1.x - p2.x, p1.y - p2.y) || 1, mx: (p1.x + p2.x) / 2, my: (p1.y + p2.y) / 2 };
  };

  stage.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "touch") {
      touches.set(e.pointerId, stageXY(ctx, e));
      if (touches.size === 2) {
        // A second finger: stop whatever the first one started and pinch instead.
        if (press) {
          if (press.longTimer !== null) clearTimeout(press.longTimer);
          if (press.started && !press.band && !press.pan) endDrag(ctx, press, e, true);
          press.band?.remove();
          press = null;
        }
        const info = pinchInfo();
        pinch = { ...info, zoom: host.r.geom.vp.zoom };
        return;
      }
    }
    if (pinch) return;
    if ((e.button !== 0 && e.button !== 1) || press) return;
    host.closeMenus();
    const target = e.target as Element;
    if (target.closest("button, input, select, textarea, a")) return;
    if (e.button === 1) {
      e.preventDefault();
      press = {
        pointerId: e.pointerId,
        type: e.pointerType,
        cx: e.clientX,
        cy: e.clientY,
        grab: null,
        started: true,
        items: [],
        band: null,
        longTimer: null,
        additive: false,
        pan: stageXY(ctx, e),
        swipe: null,
      };
      return;
    }
    const grab = grabOf(ctx, target, e.shiftKey);
    press = {
      pointerId: e.pointerId,
      type: e.pointerType,
      cx: e.clientX,
      cy: e.clientY,
      grab,
      started: false,
      items: [],
      band: null,
      longTimer: null,
      additive: e.ctrlKey || e.metaKey || (e.shiftKey && !grab),
      pan: null,
      swipe: null,
    };
    if (e.shiftKey && grab?.kind === "card") press.additive = true;
    if (e.pointerType === "touch" || e.pointerType === "pen") {
      const p = press;
      p.longTimer = window.setTimeout(() => {
        if (press === p && !p.started) {
          press = null;
          host.openMenu(grab ? grab.id : null, p.cx, p.cy);
        }
      }, 550);
    }
    e.preventDefault();
  });

  stage.addEventListener("pointermove", (e) => {
    if (e.pointerType === "touch" && touches.has(e.pointerId)) touches.set(e.pointerId, stageXY(ctx, e));
    if (pinch && touches.size >= 2) {
      const info = pinchInfo();
      const g = host.r.geom;
      const zoomed = zoomAt(g, pinch.mx, pinch.my, (pinch.zoom * info.dist) / pinch.dist);
      host.r.setView(zoomed);
      host.setView(panBy(host.r.geom, info.mx - pinch.mx, info.my - pinch.my));
      pinch = { dist: info.dist, zoom: host.r.geom.vp.zoom, mx: info.mx, my: info.my };
      return;
    }
    if (press?.pan && e.pointerId === press.pointerId) {
      const pt = stageXY(ctx, e);
      host.setView(panBy(host.r.geom, pt.x - press.pan.x, pt.y - press.pan.y));
      press.pan = pt;
      return;
    }
    if (!press || e.pointerId !== press.pointerId) {
      hover(ctx, e.target);
      return;
    }
    const p = press;
    const pt = stageXY(ctx, e);
    if (p.swipe !== null) {
      host.r.scrollHand(p.swipe - e.clientX);
      p.swipe = e.clientX;
      return;
    }
    if (!p.started) {
      const dist = Math.hypot(e.clientX - p.cx, e.clientY - p.cy);
      if (dist < (DRAG_START_PX[p.type] ?? 4)) return;
      if (p.longTimer !== null) clearTimeout(p.longTimer);
      if (swipes(p, e)) {
        // A finger moving mostly sideways over the hand scrolls it; mostly upwards, it drags
        // the card out (below).
        p.started = true;
        p.swipe = e.clientX;
        host.r.scrollHand(p.cx - e.clientX);
        return;
      }
      if (p.grab) {
        if (!draggable(ctx, p.grab)) {
          press = null;
          return;
        }
        startDrag(ctx, p, e);
        if (!p.started) press = null;
      } else if (p.type === "touch" && host.r.geom.pannable) {
        p.pan = pt;
        p.started = true;
      } else startBand(ctx, p);
      return;
    }
    if (p.band) moveBand(ctx, p, pt.x, pt.y);
    else moveItems(ctx, p, pt.x, pt.y);
  });

  const finish = (e: PointerEvent, cancelled: boolean) => {
    if (e.pointerType === "touch") {
      touches.delete(e.pointerId);
      if (touches.size < 2) pinch = null;
    }
    if (!press || e.pointerId !== press.pointerId) return;
    const p = press;
    press = null;
    if (p.longTimer !== null) clearTimeout(p.longTimer);
    if (p.pan || p.swipe !== null) return;
    if (p.band) endBand(ctx, p, e);
    else if (p.started) endDrag(ctx, p, e, cancelled);
    else if (!cancelled) click(ctx, p);
  };
  stage.addEventListener("pointerup", (e) => finish(e, false));
  stage.addEventListener("pointercancel", (e) => finish(e, true));
  stage.addEventListener("lostpointercapture", (e) => {
    // Only the stage's own capture ending matters (a touched element's implicit capture moves
    // to the stage when a drag starts).
    if (e.target === stage && press && press.started && e.pointerId === press.pointerId) finish(e, false);
  });

  stage.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    if (press?.started) return;
    press = null;
    const g = grabOf(ctx, e.target, false);
    host.openMenu(g ? g.id : null, e.clientX, e.clientY);
  });

  stage.addEventListener(
    "wheel",
    (e) => {
      const pt = stageXY(ctx, e);
      const g = host.r.geom;
      if (inHandStrip(g, pt.x, pt.y)) {
        const d = Math.abs(e.deltaX) > Math.abs(e.deltaY) ? e.deltaX : e.deltaY;
        if (d) {
          e.preventDefault();
          host.r.scrollHand(d);
        }
        return;
      }
      e.preventDefault();
      if (e.ctrlKey || e.metaKey || Math.abs(e.deltaX) < 1) {
        const factor = Math.exp(-e.deltaY * (e.ctrlKey ? 0.01 : 0.0015));
        host.setView(zoomAt(g, pt.x, pt.y, g.vp.zoom * factor));
      } else {
        host.setView(panBy(g, -e.deltaX, -e.deltaY));
      }
    },
    { passive: false },
  );

  stage.addEventListener("pointerleave", () => {
    if (!press) host.s.hover = null;
  });
}
