// Playing by keyboard: focus moves over the table's objects and your hand (Tab and the arrow
// keys, in reading order), Enter or Space picks the focused card up (Shift: the whole pile), the
// arrow keys then go through the places it may be dropped (a pile, a zone, your hand, another
// player, an empty spot), Enter drops it (Shift+Enter: face down) and Escape puts it back. A drop
// is made by drop.ts's resolveDrop, exactly as a mouse drag ending there, so a rule room's server
// decides the same way. Letter shortcuts (events.ts) act on the object under the pointer, else the
// focused one (moving focus by key forgets the pointer's); X selects the focused object;
// the menu key or Shift+F10 opens its menu. Feedback goes to a polite live region (announce.ts).

import { cycle, drawnText, dropPlaces, focusOrder, objLabel, type Place, stackName, cardName } from "./a11y";
import { announce, prepareAnnouncer } from "../core/announce";
import { cardIds, cardReachable, freeSpot, isCard, isHand, isStack, objBox, stackBox, topCardId, WIDGET_SIZE } from "./board";
import { h, setText } from "../core/dom";
import { type Drop, type DragItem, findTarget, resolveDrop } from "./drop";
import { inHandStrip, toStage } from "./geom";
import type { Renderer } from "./render";
import type { State } from "./state";
import { type CardObj, CARD_H, CARD_W, type Delta, type Obj, type Op } from "../core/types";
import { dialogOpen } from "../core/ui";

interface Grab {
  id: string;
  kind: "card" | "stack" | "widget";
}

interface Carry {
  grabs: Grab[];
  places: Place[];
  index: number;
  /** Focus order position of the object picked up (to land somewhere near after the drop). */
  from: number;
  allowed: Set<string>;
}

/** What keyboard play needs from the room page (room.ts passes itself). */
export interface KeyboardPorts {
  readonly s: State;
  readonly r: Renderer;
  readonly closed: boolean;
  /** The rule game's part: picking, a card's one move, where cards may go. */
  readonly game: {
    pick(id: string): boolean;
    oneMove(id: string): boolean;
    activate(id: string): boolean;
    dropsFor(ids: string[]): Set<string>;
  };
  send(op: Op): void;
  changed(): void;
  notice(text: string): void;
  ov(id: string): number | undefined;
  mayMove(id: string): boolean;
  dragHint(ids: string[] | null): void;
  openMenu(id: string | null, x: number, y: number): void;
}

export class Keyboard {
  private carry: Carry | null = null;
  private readonly hint: HTMLElement;
  private readonly spot: HTMLElement;
  /** Tab was pressed outside the table: a focus arriving on an object goes to the first/last. */
  private tabbing = 0;
  /** The object that had focus at the last render, and where it stood in the focus order. */
  private had: { id: string; index: number } | null = null;
  /** After a keyboard drop: where focus should go once the move shows. */
  private refocus: { find: () => HTMLElement | null; tries: number } | null = null;

  constructor(private room: KeyboardPorts) {
    prepareAnnouncer();
    this.hint = h("div", { class: "kbd-hint", "data-testid": "kbd-hint", "aria-hidden": "true", hidden: true });
    this.spot = h("div", { class: "kbd-spot", "data-testid": "kbd-spot", hidden: true });
    room.r.stage.append(this.hint, this.spot);
    document.addEventListener("keydown", (e) => this.keydown(e), true);
    room.r.layer.addEventListener("focusin", (e) => this.focusin(e));
    document.addEventListener(
      "pointerdown",
      () => {
        this.had = null;
        this.refocus = null;
        if (this.carry) this.cancel(false);
      },
      true,
    );
  }

  /** The object that has keyboard focus, if any (a homemade game's button included). */
  focusedId(): string | null {
    const a = document.activeElement;
    if (!(a instanceof HTMLElement) || !this.room.r.layer.contains(a)) return null;
    const el = a.closest<HTMLElement>("[data-id], [data-button]");
    const id = el?.dataset.id ?? el?.dataset.button;
    return id && this.room.s.view.has(id) ? id : null;
  }

  /** An object's element: drawn by render.ts, or a homemade game's button (homemade.ts). */
  private elOf(id: string): HTMLElement | undefined {
    return this.room.r.el(id) ?? this.room.r.layer.querySelector<HTMLElement>(`[data-button="${CSS.escape(id)}"]`) ?? undefined;
  }

  /** Ids in Tab order that are on the page and take focus now. */
  private order(): string[] {
    const s = this.room.s;
    return focusOrder(s.view, s.me.seat).filter((id) => this.elOf(id)?.getAttribute("tabindex") === "0");
  }

  private focusEl(el: HTMLElement | null | undefined): boolean {
    if (!el || !el.isConnected) return false;
    el.focus({ preventScroll: true });
    return document.activeElement === el;
  }

  private focusId(id: string): boolean {
    return this.focusEl(this.elOf(id));
  }

  // --- keys ----------------------------------------------------------------------------------------

  private keydown(e: KeyboardEvent): void {
    const room = this.room;
    if (room.closed || dialogOpen()) return;
    const t = e.target as HTMLElement | null;
    if (t && t.closest?.("input, textarea, select, [contenteditable], .menu")) return;
    if ((e.ctrlKey || e.altKey) && !e.metaKey && !e.shiftKey && (e.key === "ArrowLeft" || e.key === "ArrowRight") && !this.carry) {
      const f = this.focusedId();
      if (f && this.reorder(f, e.key === "ArrowLeft" ? -1 : 1)) {
        e.preventDefault();
        e.stopPropagation();
      }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (this.carry) {
      this.carryKey(e);
      return;
    }
    const id = this.focusedId();
    // Moving focus by key: the letter keys act on the focused object now, not the pointer's.
    if (e.key === "Tab" || e.key.startsWith("Arrow")) room.s.hover = null;
    if (e.key === "Tab") {
      if (id) this.tab(e, id);
      else {
        this.tabbing = e.shiftKey ? -1 : 1;
        window.setTimeout(() => (this.tabbing = 0), 0);
      }
      return;
    }
    // A button presses itself (homemade.ts); only moving on is ours.
    if (!id || (document.activeElement?.closest("[data-button]") && !e.key.startsWith("Arrow"))) return;
    switch (e.key) {
      case "Enter":
      case " ":
        this.pickUp(id, e.shiftKey, e.key === "Enter");
        break;
      case "ArrowRight":
      case "ArrowDown":
      case "ArrowLeft":
      case "ArrowUp": {
        const order = this.order();
        const i = order.indexOf(id);
        const step = e.key === "ArrowRight" || e.key === "ArrowDown" ? 1 : -1;
        if (i >= 0 && order.length) this.focusId(order[cycle(i, order.length, step)]);
        break;
      }
      case "ContextMenu":
        this.menu(id);
        break;
      case "F10":
        if (!e.shiftKey) return;
        this.menu(id);
        break;
      case "x":
      case "X":
        this.select(id);
        break;
      default:
        return; // the letter shortcuts (events.ts) act on the pointer's object, else the focused one
    }
    e.preventDefault();
    e.stopPropagation();
  }

  /** Tab within the table goes in reading order; past either end it leaves the table. */
  private tab(e: KeyboardEvent, id: string): void {
    const order = this.order();
    const i = order.indexOf(id);
    const j = i + (e.shiftKey ? -1 : 1);
    if (i >= 0 && j >= 0 && j < order.length) {
      e.preventDefault();
      e.stopPropagation();
      this.focusId(order[j]);
      return;
    }
    // Leaving: for this one key press, no other object is in the way of the browser's Tab.
    const active = document.activeElement;
    const others = [...this.room.r.layer.querySelectorAll<HTMLElement>("[tabindex='0']")].filter((el) => el !== active);
    for (const el of others) el.setAttribute("tabindex", "-1");
    window.setTimeout(() => {
      for (const el of others) if (el.getAttribute("tabindex") === "-1") el.setAttribute("tabindex", "0");
    }, 0);
  }

  /** Focus arriving on the table by Tab from outside starts at its first (or last) object. */
  private focusin(e: FocusEvent): void {
    const from = e.relatedTarget;
    if (!this.tabbing || (from instanceof Node && this.room.r.layer.contains(from))) return;
    const order = this.order();
    const want = this.tabbing > 0 ? order[0] : order[order.length - 1];
    this.tabbing = 0;
    if (want && (e.target as HTMLElement).dataset?.id !== want) this.focusId(want);
  }

  /** Alt/Ctrl+Left/Right on a card of your hand: it swaps places with its neighbour (focus stays
   *  on it). False when the focused object is not a card of your hand. */
  private reorder(id: string, step: number): boolean {
    const s = this.room.s;
    const hand = s.me.seat === null ? undefined : s.view.get(`hand${s.me.seat}`);
    const card = s.view.get(id);
    if (!isHand(hand) || !isCard(card) || card.parent !== hand.id) return false;
    const ids = cardIds(hand);
    const i = ids.indexOf(id);
    const j = i + step;
    if (j < 0 || j >= ids.length) {
      announce(`${cardName(card)} is already ${step < 0 ? "first" : "last"} in your hand`, "keys");
      return true;
    }
    // The server takes the card out before putting it back: `index` counts the other cards.
    const ov = this.room.ov(id);
    this.room.send({ op: "move", id, to: hand.id, index: j, ...(ov === undefined ? {} : { ov }) });
    this.room.changed();
    announce(`${cardName(card)}: place ${j + 1} of ${ids.length} in your hand`, "keys");
    return true;
  }

  /** The ids in your own hand, as the server last sent it (to tell the cards that come in). */
  private handSeen: Set<string> | null = null;

  /** A snapshot replaced the table: what your hand holds now is not news. */
  snapshot(): void {
    const s = this.room.s;
    const hand = s.me.seat === null ? undefined : s.server.get(`hand${s.me.seat}`);
    this.handSeen = new Set(isHand(hand) ? cardIds(hand) : []);
  }

  /** A delta was applied: cards your own move brought into your hand are named to you (your hand
   *  shows their faces); the others hear the room's log line (room.ts). */
  applied(d: Delta, mine: boolean): void {
    const seat = this.room.s.me.seat;
    if (this.handSeen === null || seat === null) {
      this.snapshot();
      return;
    }
    const seen = this.handSeen;
    const mineHand = `hand${seat}`;
    const came: CardObj[] = [];
    for (const o of d.set) {
      if (isCard(o) && o.parent === mineHand) {
        if (!seen.has(o.id)) came.push(o);
        seen.add(o.id);
      } else seen.delete(o.id);
    }
    for (const id of d.del) seen.delete(id);
    const undo = /\bundid\b|\bundo\b/i.test(d.log ?? "");
    const text = mine && !undo ? drawnText(came, /\bdealt\b/.test(d.log ?? "")) : null;
    if (text) announce(text, "keys");
  }

  private menu(id: string): void {
    const el = this.room.r.el(id);
    if (!el) return;
    const r = el.getBoundingClientRect();
    this.room.openMenu(id, r.left + r.width / 2, r.top + r.height / 2);
  }

  private select(id: string): void {
    const s = this.room.s;
    if (s.game && this.room.game.pick(id)) {
      announce(s.selected.has(id) ? "Chosen" : "Not chosen", "keys");
      return;
    }
    if (s.selected.has(id)) s.selected.delete(id);
    else s.selected.add(id);
    this.room.changed();
    announce(`${s.selected.has(id) ? "Selected" : "Unselected"}: ${s.selected.size} selected`, "keys");
  }

  // --- picking up and dropping ------------------------------------------------------------------------

  private grabOf(id: string, whole: boolean): Grab | null {
    const s = this.room.s;
    const o = s.view.get(id);
    if (!o || o.t === "hand") return null;
    if (isStack(o)) {
      const top = topCardId(o);
      const c = top ? s.view.get(top) : undefined;
      if (!whole && isCard(c) && cardReachable(s.view, c, s.me.seat)) return { id: c.id, kind: "card" };
      return o.cards.length || !o.holder ? { id, kind: "stack" } : null;
    }
    if (isCard(o)) {
      const p = o.parent ? s.view.get(o.parent) : undefined;
      if (isStack(p) && (whole || !cardReachable(s.view, o, s.me.seat))) return { id: p.id, kind: "stack" };
      return { id, kind: "card" };
    }
    return { id, kind: "widget" };
  }

  private pickUp(id: string, whole: boolean, enter: boolean): void {
    const room = this.room;
    const s = room.s;
    if (s.me.seat === null) {
      room.notice("Spectators can watch but not touch: take a seat to play.");
      return;
    }
    const grab = this.grabOf(id, whole);
    if (!grab) {
      announce("Nothing here to pick up", "keys");
      return;
    }
    const o = s.view.get(grab.id) as Obj;
    // In a rule room Enter makes a card's one move, when it has exactly one (as a double-click).
    if (s.game && enter && grab.kind === "card" && room.game.oneMove(grab.id)) {
      // A card going into your hand is named once it is there (`applied`), face and all.
      if (isCard(o) && o.face !== undefined) announce(`${this.what([grab])}: moved`, "keys");
      room.game.activate(grab.id);
      return;
    }
    if (o.locked && !(isCard(o) && o.parent)) {
      room.notice("That is locked in place.");
      return;
    }
    if (grab.kind === "stack" && !room.mayMove(grab.id)) {
      room.notice("Zones stay in place outside edit mode.");
      return;
    }
    let grabs: Grab[] = [grab];
    if (s.selected.has(grab.id) && s.selected.size > 1) {
      for (const sid of s.selected) {
        if (sid === grab.id) continue;
        const so = s.view.get(sid);
        if (!so || so.t === "hand") continue;
        if (isCard(so)) {
          if (cardReachable(s.view, so, s.me.seat)) grabs.push({ id: sid, kind: "card" });
        } else grabs.push({ id: sid, kind: so.t === "stack" ? "stack" : "widget" });
      }
    } else if (!s.selected.has(grab.id)) s.selected.clear();
    grabs = grabs.filter((g) => room.r.el(g.id));
    if (!grabs.length) return;
    const ids = grabs.map((g) => g.id);
    const allowed = s.game ? room.game.dropsFor(ids) : new Set<string>();
    const others = s.players.filter((p) => p.seat !== null && p.seat !== s.me.seat).map((p) => ({ seat: p.seat as number, name: p.name }));
    const draft: Carry = { grabs, places: [], index: 0, from: this.order().indexOf(id), allowed };
    const places = dropPlaces({ view: s.view, seat: s.me.seat, carried: ids, game: !!s.game, allowed, others }).filter((p) =>
      this.fits(draft, p),
    );
    if (!places.length) {
      announce(`${this.what(grabs)} can't go anywhere now`, "keys");
      room.notice("Nowhere to put that now.");
      return;
    }
    draft.places = places;
    this.carry = draft;
    for (const g of grabs) room.r.el(g.id)?.classList.add("kbd-carried");
    room.dragHint(ids);
    this.show();
    announce(
      `Picked up ${this.what(grabs)}. ${this.placeText(places[0])}, 1 of ${places.length}. Arrow keys choose where; Enter drops; Escape puts it back.`,
      "keys",
    );
  }

  private carryKey(e: KeyboardEvent): void {
    const c = this.carry as Carry;
    let step = 0;
    switch (e.key) {
      case "ArrowRight":
      case "ArrowDown":
        step = 1;
        break;
      case "ArrowLeft":
      case "ArrowUp":
        step = -1;
        break;
      case "Tab":
        step = e.shiftKey ? -1 : 1;
        break;
      case "Enter":
      case " ":
        this.drop(e.shiftKey);
        break;
      case "Escape":
        this.cancel(true);
        break;
      default:
        if (e.key.length !== 1) return;
    }
    e.preventDefault();
    e.stopPropagation();
    if (step && this.carry) {
      c.index = cycle(c.index, c.places.length, step);
      this.show();
      announce(`${this.placeText(c.places[c.index])}, ${c.index + 1} of ${c.places.length}`, "keys");
    }
  }

  private cancel(say: boolean): void {
    this.end();
    if (say) announce("Put back", "keys");
  }

  private end(): void {
    const c = this.carry;
    this.carry = null;
    if (!c) return;
    for (const g of c.grabs) this.room.r.el(g.id)?.classList.remove("kbd-carried");
    this.room.r.highlight(null);
    this.room.dragHint(null);
    this.hint.hidden = true;
    this.spot.hidden = true;
  }

  private drop(faceDown: boolean): void {
    const c = this.carry as Carry;
    const place = c.places[c.index];
    const d = this.resolve(c, place, faceDown);
    const what = this.what(c.grabs);
    const where = this.placeText(place);
    this.end();
    if (!d.ops.length) {
      announce("Nothing moved", "keys");
      return;
    }
    for (const op of d.ops) this.room.send(op);
    this.room.changed();
    announce(`${what} to ${where}`, "keys");
    this.land(c, place, d);
  }

  /** Where focus goes after a drop: the card itself if it can take focus where it landed, else
   *  the pile it joined, else what stands where it was picked up. */
  private land(c: Carry, place: Place, d: Drop): void {
    const room = this.room;
    const ids = c.grabs.map((g) => g.id);
    const spot = place.kind === "spot" ? d.ops.find((op) => op.op === "move" && "x" in op) : undefined;
    const find = (): HTMLElement | null => {
      const view = room.s.view;
      for (const id of ids) {
        const el = room.r.el(id);
        if (el?.getAttribute("tabindex") === "0") return el;
        const o = view.get(id);
        if (isCard(o) && o.parent && isStack(view.get(o.parent))) return room.r.el(o.parent) ?? null;
      }
      if (spot && "x" in spot) {
        for (const o of view.values())
          if (o.t !== "hand" && !(isCard(o) && o.parent) && o.x === spot.x && o.y === spot.y) return room.r.el(o.id) ?? null;
      }
      if (place.kind === "object") return room.r.el(place.id) ?? null;
      const order = this.order();
      return order.length ? (room.r.el(order[Math.max(0, Math.min(c.from, order.length - 1))]) ?? null) : null;
    };
    this.refocus = { find, tries: 0 };
  }

  /** Called after every render: put focus back where a keyboard user expects it. */
  afterRender(): void {
    const room = this.room;
    const active = document.activeElement;
    const lost = !active || active === document.body;
    if (this.refocus) {
      const r = this.refocus;
      const el = r.find();
      const settled = !room.s.pending.length;
      if (el && (lost || this.focusedId() !== null) && el !== active) this.focusEl(el);
      if (settled && ++r.tries >= 2) this.refocus = null;
    } else if (lost && this.had && !this.carry) {
      // The focused object went away (moved into a pile, taken by someone): stay on the table.
      const o = room.s.view.get(this.had.id);
      const parent = isCard(o) && o.parent ? room.r.el(o.parent) : undefined;
      if (!this.focusId(this.had.id) && !this.focusEl(parent)) {
        const order = this.order();
        if (order.length) this.focusId(order[Math.max(0, Math.min(this.had.index, order.length - 1))]);
      }
    }
    const id = this.focusedId();
    this.had = id ? { id, index: this.order().indexOf(id) } : lost ? this.had : null;
    if (this.carry) {
      if (this.carry.grabs.some((g) => !room.s.view.has(g.id))) this.cancel(true);
      else this.show();
    }
  }

  // --- places ------------------------------------------------------------------------------------

  private items(c: Carry): DragItem[] {
    const r = this.room.r;
    const g = r.geom;
    const view = this.room.s.view;
    return c.grabs.map((gr) => {
      const o = view.get(gr.id);
      let w = CARD_W;
      let hh = CARD_H;
      if (gr.kind !== "card" && o) {
        const b = isStack(o) ? stackBox(o) : WIDGET_SIZE[o.t];
        if (b) {
          w = b.w;
          hh = b.h;
        }
      }
      const at = r.stagePos(gr.id) ?? { x: 0, y: 0 };
      return { id: gr.id, kind: gr.kind, x0: at.x, y0: at.y, x: at.x, y: at.y, w: w * g.s, h: hh * g.s };
    });
  }

  /** The drop a mouse would make with the carried items over `place` (drop.ts decides). */
  private resolve(c: Carry, place: Place, faceDown: boolean): Drop {
    const room = this.room;
    const s = room.s;
    const g = room.r.geom;
    const items = this.items(c);
    let px = -1;
    let py = -1;
    let panelSeat: number | null = null;
    if (place.kind === "object") {
      const o = s.view.get(place.id);
      const b = o ? objBox(s.view, o) : null;
      if (b) {
        const ctr = toStage(g, b.x + b.w / 2, b.y + b.h / 2);
        px = ctr.x;
        py = ctr.y;
        for (const it of items) {
          it.x = px - it.w / 2;
          it.y = py - it.h / 2;
        }
      }
    } else if (place.kind === "hand") {
      px = g.hand.x + g.hand.w - g.hand.pad - 1;
      py = g.hand.y + g.hand.h / 2;
    } else if (place.kind === "seat") {
      panelSeat = place.seat;
    } else {
      const first = items[0];
      const at = this.spotFor(c);
      items.forEach((it, k) => {
        const p = toStage(g, at.x + k * 24, at.y + k * 24);
        it.x = p.x;
        it.y = p.y;
      });
      px = first.x + first.w / 2;
      py = first.y + first.h / 2;
    }
    return resolveDrop({ s, g, items, px, py, panelSeat, faceDown, ov: room.ov });
  }

  private spotFor(c: Carry): { x: number; y: number } {
    const g = this.room.r.geom;
    const first = this.items(c)[0];
    return freeSpot(this.room.s.view, first.w / g.s, first.h / g.s);
  }

  /** Would a drop over this place land there (nothing else on top of it, not under the hand)? */
  private fits(c: Carry, place: Place): boolean {
    const room = this.room;
    if (place.kind === "seat" || place.kind === "hand") return true;
    const g = room.r.geom;
    if (place.kind === "spot") return true;
    const o = room.s.view.get(place.id);
    const b = o ? objBox(room.s.view, o) : null;
    if (!b) return false;
    const ctr = toStage(g, b.x + b.w / 2, b.y + b.h / 2);
    if (inHandStrip(g, ctr.x, ctr.y)) return false;
    const items = this.items(c).map((it) => ({ ...it, x: ctr.x - it.w / 2, y: ctr.y - it.h / 2 }));
    return findTarget(room.s, g, items) === place.id;
  }

  private show(): void {
    const c = this.carry;
    if (!c) return;
    const room = this.room;
    const place = c.places[c.index];
    this.spot.hidden = place.kind !== "spot";
    if (place.kind === "object") room.r.highlight(room.r.el(place.id) ?? null);
    else if (place.kind === "hand") room.r.highlight(room.r.handBg);
    else if (place.kind === "seat") room.r.highlight(document.querySelector<HTMLElement>(`[data-drop-seat="${place.seat}"]`));
    else {
      room.r.highlight(null);
      const g = room.r.geom;
      const at = this.spotFor(c);
      const p = toStage(g, at.x, at.y);
      const first = this.items(c)[0];
      this.spot.style.width = `${first.w}px`;
      this.spot.style.height = `${first.h}px`;
      this.spot.style.transform = `translate(${p.x}px, ${p.y}px)`;
    }
    this.hint.hidden = false;
    this.hint.dataset.place = place.kind === "object" ? place.id : place.kind === "seat" ? `seat${place.seat}` : place.kind;
    setText(this.hint, `${this.what(c.grabs)} → ${this.placeText(place)}  ·  ←/→ choose  ·  Enter drop  ·  Esc cancel`);
  }

  // --- words ---------------------------------------------------------------------------------------

  private what(grabs: Grab[]): string {
    const view = this.room.s.view;
    if (grabs.length > 1) {
      const cards = grabs.every((g) => g.kind === "card");
      return cards ? `${grabs.length} cards` : `${grabs.length} things`;
    }
    const o = view.get(grabs[0].id);
    if (!o) return "it";
    if (isCard(o)) return cardName(o);
    if (isStack(o)) return `the whole ${stackName(o)} (${o.cards.length} card${o.cards.length === 1 ? "" : "s"})`;
    return objLabel(view, o, this.room.s.me.seat);
  }

  private placeText(place: Place): string {
    const c = this.carry;
    const s = this.room.s;
    let text: string;
    let key = "";
    if (place.kind === "hand") {
      text = "your hand";
      key = "hand";
    } else if (place.kind === "seat") text = `${place.name}'s hand`;
    else if (place.kind === "spot") text = "an empty spot on the table";
    else {
      const o = s.view.get(place.id);
      key = place.id;
      text = !o ? "?" : isCard(o) ? `onto ${cardName(o)} (a new pile)` : objLabel(s.view, o, s.me.seat);
    }
    if (s.game && c && c.allowed.has(key)) text += " (allowed)";
    return text;
  }
}
