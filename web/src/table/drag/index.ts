// Pointer input on the stage (mouse, pen and touch alike): drag cards, piles and widgets,
// rubber-band multi-selection, click to select, double-click/double-tap to flip, long-press for
// the context menu on touch screens. Dropping hands over to drop.ts for the meaning.

import { cardReachable, isCard, isStack, objBox } from "./board";
import { type DragItem, findTarget, resolveDrop } from "./drop";
import { handIndexAt, inHandStrip, panBy, toTable, type ViewPort, zoomAt } from "./geom";
import type { Renderer } from "./render";
import type { State } from "./state";
import type { Op } from "../core/types";

export interface DragHost {
  s: State;
  r: Renderer;
  ov(id: string): number | undefined;
  send(op: Op): void;
  changed(): void;
  openMenu(id: string | null, clientX: number, clientY: number): void;
  closeMenus(): void;
  flip(ids: string[]): void;
  roll(id: string): void;
  notice(text: string): void;
  /** Zoom/pan the local view of the table. */
  setView(vp: ViewPort): void;
  /** Tell the others where our drag is (table coordinates). */
  shareDrag(items: { id: string; x: number; y: number }[]): void;
  /** A drag of these objects started (null: it ended), e.g. to light up legal targets. */
  dragHint?(ids: string[] | null): void;
  /** A click on an object: true when it was used (e.g. picking a card to knock with). */
  pick?(id: string): boolean;
  /** A double-click on a card: true when it was used (a rule room's move for that card). */
  activate?(id: string): boolean;
  /** May this object be moved now (outside edit mode zones keep their place)? */
  mayMove?(id: string): boolean;
}

interface Grab {
  id: string;
  kind: "card" | "stack" | "widget";
}

interface Moving {
  el: HTMLElement;
  x0: number;
  y0: number;
}

interface Item extends DragItem {
  main: HTMLElement;
  els: Moving[];
  /** Pointer offset inside the main element, as a fraction of its size. */
  fx: number;
  fy: number;
  resizable: boolean;
}

interface Press {
  pointerId: number;
  type: string;
  cx: number;
  cy: number;
  grab: Grab | null;
  started: boolean;
  items: Item[];
  band: HTMLElement | null;
  longTimer: number | null;
  additive: boolean;
  /** Dragging the table itself (middle button, or a finger on the empty table when zoomed). */
  pan: { x: number; y: number } | null;
  /** A finger swiping the hand sideways: the last x (client px) it scrolled the hand from. */
  swipe: number | null;
}

const DRAG_START_PX = { mouse: 4, pen: 6, touch: 8 } as Record<string, number>;
const DOUBLE_MS = 380;

export function bindDrag(host: DragHost): void {
  const stage = host.r.stage;
  let press: Press | null = null;
  let lastClick: { id: string; at: number } | null = null;
  // Touch points, for pinch-zoom with two fingers.
  const touches = new Map<number, { x: number; y: number }>();
  let pinch: { dist: number; zoom: number; mx: number; my: number } | null = null;

  const stageXY = (e: { clientX: number; clientY: number }) => {
    const r = stage.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };

  function grabOf(target: EventTarget | null, shift: boolean): Grab | null {
    if (!(target instanceof Element)) return null;
    if (target.closest("button, input, select, textarea")) return null;
    const badge = target.closest<HTMLElement>("[data-stack]");
    if (badge?.dataset.stack) return { id: badge.dataset.stack, kind: "stack" };
    const el = target.closest<HTMLElement>(".obj[data-id]");
    const id = el?.dataset.id;
    if (!el || !id) return null;
    const o = host.s.view.get(id);
    if (!o) return null;
    if (o.t === "card") {
      if (el.classList.contains("away")) return null;
      const parent = o.parent ? host.s.view.get(o.parent) : undefined;
      if (isStack(parent) && (shift || !cardReachable(host.s.view, o, host.s.me.seat))) return { id: parent.id, kind: "stack" };
      return { id, kind: "card" };
    }
    if (o.t === "stack") return { id, kind: "stack" };
    if (o.t === "hand") return null;
    return { id, kind: "widget" };
  }

  function elsFor(g: Grab): HTMLElement[] {
    const main = host.r.el(g.id);
    if (!main) return [];
    const out = [main];
    if (g.kind === "stack") {
      const st = host.s.view.get(g.id);
      const badge = host.r.badge(g.id);
      if (badge) out.push(badge);
      if (isStack(st))
        for (const cid of st.cards) {
          const el = host.r.el(cid);
          if (el) out.push(el);
        }
    }
    return out;
  }

  function posOf(el: HTMLElement): { x: number; y: number } {
    const m = /translate\(([-\d.e]+)px, ([-\d.e]+)px\)/.exec(el.style.transform);
    return m ? { x: Number(m[1]), y: Number(m[2]) } : { x: 0, y: 0 };
  }

  function draggable(g: Grab): boolean {
    const o = host.s.view.get(g.id);
    if (!o) return false;
    if (host.s.me.seat === null) {
      host.notice("Spectators can watch but not touch: take a seat to play.");
      return false;
    }
    if (o.locked && !(isCard(o) && o.parent)) {
      host.notice("That is locked in place.");
      return false;
    }
    if (g.kind === "stack" && host.mayMove && !host.mayMove(g.id)) return false;
    return true;
  }

  /** A layer over the whole page, lined up with the stage, for what is being dragged. */
  let overlay: HTMLElement | null = null;
  function lift(el: HTMLElement): void {
    if (!overlay || !overlay.isConnected) {
      overlay = document.createElement("div");
      overlay.className = "drag-layer";
      document.body.appendChild(overlay);
    }
    const r = stage.getBoundingClientRect();
    overlay.style.left = `${r.left}px`;
    overlay.style.top = `${r.top}px`;
    overlay.appendChild(el);
  }

  function startDrag(p: Press, e: PointerEvent): void {
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
    const pt = stageXY(e);
    const start = stageXY({ clientX: p.cx, clientY: p.cy });
    let k = 0;
    for (const gr of grabs) {
      const els = elsFor(gr);
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
        lift(m.el);
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
      moveItems(p, pt.x, pt.y);
    }
  }

  function moveItems(p: Press, px: number, py: number): void {
    const start = stageXY({ clientX: p.cx, clientY: p.cy });
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
          .filter((it) => !fromAHand(it.id))
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
    const seat = panelSeatAt(p, px, py);
    if (host.s.me.seat !== null && inHandStrip(g, px, py)) host.r.highlight(host.r.handBg);
    else if (seat !== null) host.r.highlight(document.querySelector<HTMLElement>(`[data-drop-seat="${seat}"]`));
    else {
      const t = findTarget(host.s, g, p.items);
      host.r.highlight(t ? host.r.el(t) || null : null);
    }
  }

  /** A card in a hand: its drag is never shared. It lands under a new id, and sharing the old
   *  one just before would link the two for everyone. */
  function fromAHand(id: string): boolean {
    const o = host.s.view.get(id);
    return isCard(o) && !!o.parent && host.s.view.get(o.parent)?.t === "hand";
  }

  function panelSeatAt(p: Press, px: number, py: number): number | null {
    if (!p.items.some((i) => i.kind === "card")) return null;
    const r = stage.getBoundingClientRect();
    const hit = document.elementsFromPoint(px + r.left, py + r.top);
    for (const el of hit) {
      const s = (el as HTMLElement).closest?.<HTMLElement>("[data-drop-seat]");
      if (s?.dataset.dropSeat !== undefined && s.dataset.dropSeat !== String(host.s.me.seat)) return Number(s.dataset.dropSeat);
    }
    return null;
  }

  function endDrag(p: Press, e: PointerEvent, cancelled: boolean): void {
    const pt = stageXY(e);
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
        panelSeat: panelSeatAt(p, pt.x, pt.y),
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

  function click(p: Press): void {
    const s = host.s;
    const g = p.grab;
    if (!g) {
      if (!p.additive && s.selected.size) {
        s.selected.clear();
        host.changed();
      }
      return;
    }
    if (g.kind === "card" && !p.additive && host.pick?.(g.id)) return;
    const now = performance.now();
    const o = s.view.get(g.id);
    if (o?.t === "die" && !p.additive) {
      host.roll(g.id);
      return;
    }
    if (lastClick && lastClick.id === g.id && now - lastClick.at < DOUBLE_MS) {
      lastClick = null;
      // In a rule room: the card's one move, if it has one.
      if (g.kind === "card" && host.activate?.(g.id)) return;
      // Double click/tap: flip the card (or the top card of a pile).
      const target = g.kind === "stack" && isStack(o) && o.cards.length ? o.cards[o.cards.length - 1] : g.id;
      const t = s.view.get(target);
      if (t && (t.t === "card" || t.t === "stack")) host.flip([target]);
      return;
    }
    lastClick = { id: g.id, at: now };
    if (p.additive) {
      if (s.selected.has(g.id)) s.selected.delete(g.id);
      else s.selected.add(g.id);
    } else {
      s.selected.clear();
      s.selected.add(g.id);
    }
    host.changed();
  }

  function startBand(p: Press): void {
    const band = document.createElement("div");
    band.className = "band";
    host.r.layer.appendChild(band);
    p.band = band;
    p.started = true;
  }

  function moveBand(p: Press, px: number, py: number): void {
    const st = stageXY({ clientX: p.cx, clientY: p.cy });
    const x = Math.min(st.x, px);
    const y = Math.min(st.y, py);
    const band = p.band as HTMLElement;
    band.style.transform = `translate(${x}px, ${y}px)`;
    band.style.width = `${Math.abs(px - st.x)}px`;
    band.style.height = `${Math.abs(py - st.y)}px`;
  }

  function endBand(p: Press, e: PointerEvent): void {
    const s = host.s;
    const g = host.r.geom;
    const st = stageXY({ clientX: p.cx, clientY: p.cy });
    const en = stageXY(e);
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

  /** Does this touch, just past the drag threshold, swipe the hand (started on the hand strip,
   *  on a card of our hand or between them, moving more sideways than up or down)? */
  function swipes(p: Press, e: PointerEvent): boolean {
    if (p.type !== "touch") return false;
    const st = stageXY({ clientX: p.cx, clientY: p.cy });
    if (!inHandStrip(host.r.geom, st.x, st.y)) return false;
    if (Math.abs(e.clientX - p.cx) <= Math.abs(e.clientY - p.cy)) return false;
    return !p.grab || fromAHand(p.grab.id);
  }

  const pinchInfo = () => {
    const [p1, p2] = [...touches.values()];
    return { dist: Math.hypot(p1.x - p2.x, p1.y - p2.y) || 1, mx: (p1.x + p2.x) / 2, my: (p1.y + p2.y) / 2 };
  };

  stage.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "touch") {
      touches.set(e.pointerId, stageXY(e));
      if (touches.size === 2) {
        // A second finger: stop whatever the first one started and pinch instead.
        if (press) {
          if (press.longTimer !== null) clearTimeout(press.longTimer);
          if (press.started && !press.band && !press.pan) endDrag(press, e, true);
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
        pan: stageXY(e),
        swipe: null,
      };
      return;
    }
    const grab = grabOf(target, e.shiftKey);
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
    if (e.pointerType === "touch" && touches.has(e.pointerId)) touches.set(e.pointerId, stageXY(e));
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
      const pt = stageXY(e);
      host.setView(panBy(host.r.geom, pt.x - press.pan.x, pt.y - press.pan.y));
      press.pan = pt;
      return;
    }
    if (!press || e.pointerId !== press.pointerId) {
      hover(e.target);
      return;
    }
    const p = press;
    const pt = stageXY(e);
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
        if (!draggable(p.grab)) {
          press = null;
          return;
        }
        startDrag(p, e);
        if (!p.started) press = null;
      } else if (p.type === "touch" && host.r.geom.pannable) {
        p.pan = pt;
        p.started = true;
      } else startBand(p);
      return;
    }
    if (p.band) moveBand(p, pt.x, pt.y);
    else moveItems(p, pt.x, pt.y);
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
    if (p.band) endBand(p, e);
    else if (p.started) endDrag(p, e, cancelled);
    else if (!cancelled) click(p);
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
    const g = grabOf(e.target, false);
    host.openMenu(g ? g.id : null, e.clientX, e.clientY);
  });

  stage.addEventListener(
    "wheel",
    (e) => {
      const pt = stageXY(e);
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

  function hover(target: EventTarget | null): void {
    const g = grabOf(target, false);
    let id = g ? g.id : null;
    if (target instanceof Element) {
      const el = target.closest<HTMLElement>(".obj[data-id]");
      if (el?.dataset.id && host.s.view.get(el.dataset.id)?.t === "card" && !el.classList.contains("away")) id = el.dataset.id;
    }
    host.s.hover = id;
  }
}
