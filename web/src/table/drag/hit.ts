// Hit-testing for pointer input: what a press grabs (a card, a pile, a widget), the elements that
// move with it, whether it may move, the player a card is dropped on, what the pointer hovers.

import { cardReachable, isCard, isStack } from "../board";
import type { DragCtx, Grab, Press } from "./types";

export function grabOf(ctx: DragCtx, target: EventTarget | null, shift: boolean): Grab | null {
  const host = ctx.host;
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

/** The elements a grab moves: the object, and for a pile its badge and cards. */
export function elsFor(ctx: DragCtx, g: Grab): HTMLElement[] {
  const host = ctx.host;
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

export function posOf(el: HTMLElement): { x: number; y: number } {
  const m = /translate\(([-\d.e]+)px, ([-\d.e]+)px\)/.exec(el.style.transform);
  return m ? { x: Number(m[1]), y: Number(m[2]) } : { x: 0, y: 0 };
}

/** May this grab be dragged? (Says why not to the player when it may not.) */
export function draggable(ctx: DragCtx, g: Grab): boolean {
  const host = ctx.host;
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

/** A card in a hand: its drag is never shared. It lands under a new id, and sharing the old
 *  one just before would link the two for everyone. */
export function fromAHand(ctx: DragCtx, id: string): boolean {
  const o = ctx.host.s.view.get(id);
  return isCard(o) && !!o.parent && ctx.host.s.view.get(o.parent)?.t === "hand";
}

/** Another player's seat in the side panel under the pointer, when cards are dragged there. */
export function panelSeatAt(ctx: DragCtx, p: Press, px: number, py: number): number | null {
  if (!p.items.some((i) => i.kind === "card")) return null;
  const r = ctx.stage.getBoundingClientRect();
  const hit = document.elementsFromPoint(px + r.left, py + r.top);
  for (const el of hit) {
    const s = (el as HTMLElement).closest?.<HTMLElement>("[data-drop-seat]");
    if (s?.dataset.dropSeat !== undefined && s.dataset.dropSeat !== String(ctx.host.s.me.seat)) return Number(s.dataset.dropSeat);
  }
  return null;
}

/** What the pointer is over, for the letter keys: a card under it, else what a press would grab;
 *  a card inside a pile (not spread out) counts as its pile, which outlives the card (a shuffle
 *  gives every card a new id, and the pointer is still over the pile). */
export function hover(ctx: DragCtx, target: EventTarget | null): void {
  const g = grabOf(ctx, target, false);
  let id = g ? g.id : null;
  if (target instanceof Element) {
    const el = target.closest<HTMLElement>(".obj[data-id]");
    if (el?.dataset.id && ctx.host.s.view.get(el.dataset.id)?.t === "card" && !el.classList.contains("away")) id = el.dataset.id;
  }
  const o = id ? ctx.host.s.view.get(id) : undefined;
  const pile = isCard(o) && o.parent ? ctx.host.s.view.get(o.parent) : undefined;
  ctx.host.s.hover = isStack(pile) && pile.layout !== "row" ? pile.id : id;
}
