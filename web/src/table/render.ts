// Rendering, driven from state: every object of the view gets one element on the stage,
// positioned with a CSS transform computed from the geometry (table scale, hand strip).
// Elements are created, updated in place (only what changed) and removed; position changes
// animate through CSS transitions, which is also how other players' moves glide into place.

import { focusable, objLabel } from "./a11y";
import { backUrl, faceUrl } from "./cards";
import { cardIds, cardInStack, containerOf, handCount, isCard, isHand, isStack, stackBox, topCardId, WIDGET_SIZE } from "./board";
import { h, setText, toggleClass } from "../core/dom";
import { computeGeom, FIT, type Geom, handOverflow, handSlots, type ViewPort } from "./geom";
import { handPlaces, type TableSize } from "./seating";
import { type Box, dealDelay, type Place, type Plan, plan, riffleStart, startTransform } from "./motion";
import type { Objects } from "./board";
import type { State } from "./state";
import {
  CARD_H,
  CARD_W,
  type CardObj,
  type ChipsObj,
  type CounterObj,
  type DieObj,
  type LabelObj,
  type Obj,
  type StackObj,
} from "../core/types";

interface Rec {
  el: HTMLElement;
  key: string;
  content: string;
  img?: HTMLImageElement;
}

export interface WidgetActions {
  counter(id: string, delta: number): void;
  chips(id: string, n: number): void;
  roll(id: string): void;
}

const Z_HAND = 4_000_000;
/** Other players' fanned hands (table units): at most this many backs, this far apart. */
const FAN_MAX = 13;
const FAN_STEP = 9;
const FAN_TURN = 4;
const FAN_W = 60;
const FAN_H = 84;

export class Renderer {
  readonly layer: HTMLElement;
  readonly felt: HTMLElement;
  readonly handBg: HTMLElement;
  readonly handLabel: HTMLElement;
  geom: Geom;
  /** Ids whose elements the drag code is moving: rendering leaves their position alone. */
  readonly dragging = new Set<string>();
  private els = new Map<string, Rec>();
  private badges = new Map<string, Rec>();
  private fanEls = new Map<string, Rec>();
  private highlighted: HTMLElement | null = null;
  /** The view drawn last, to see what moved since (motion.ts), and the elements made since. */
  private lastView: Objects | null = null;
  /** Whether the view drawn last was a rule game's (a game starting or ending jumps). */
  private lastGame = false;
  private fresh: string[] = [];
  /** Where each other player's fan of backs lies (stage px, its centre), by seat. */
  private fanAt = new Map<number, { x: number; y: number }>();

  constructor(
    readonly stage: HTMLElement,
    private actions: WidgetActions,
  ) {
    this.felt = h("div", { class: "felt", "data-testid": "table" });
    this.handBg = h("div", { class: "hand-strip", "data-testid": "my-hand", "data-drop": "hand" });
    this.handLabel = h("div", { class: "hand-label" });
    this.handBg.appendChild(this.handLabel);
    this.layer = h("div", { class: "layer" });
    stage.append(this.felt, this.handBg, this.layer);
    this.geom = computeGeom(stage.clientWidth || 800, stage.clientHeight || 600, FIT);
    this.zoomBox = h("div", { class: "zoom-box" });
    stage.appendChild(this.zoomBox);
  }

  readonly zoomBox: HTMLElement;
  /** A rule game is on: its table is shown whole when that is readable (see computeGeom). */
  private whole = false;
  /** The portrait table a game is drawn on (null: the landscape one). */
  private table: TableSize | null = null;
  /** Where a card dragged over the hand strip would land (index among the other cards). */
  handGap: number | null = null;
  private scrollBtns: HTMLElement[] = [];

  /** A long hand on a narrow screen scrolls: arrows at the strip's ends (and the wheel). */
  scrollHand(by: number): void {
    this.geom.hand.scroll = Math.max(0, this.geom.hand.scroll + by);
    this.onStale?.();
  }

  private handScroll(overflow: number): void {
    const hand = this.geom.hand;
    if (hand.scroll > overflow) hand.scroll = overflow;
    if (!this.scrollBtns.length) {
      for (const [dir, label] of [
        [-1, "Scroll your hand left"],
        [1, "Scroll your hand right"],
      ] as const) {
        const b = h(
          "button",
          {
            type: "button",
            class: `hand-scroll ${dir < 0 ? "left" : "right"}`,
            "data-testid": `hand-scroll-${dir < 0 ? "left" : "right"}`,
            "aria-label": label,
            title: label,
          },
          dir < 0 ? "‹" : "›",
        );
        b.addEventListener("click", () => this.scrollHand(dir * Math.max(60, (this.geom.w - this.geom.hand.label) * 0.6)));
        this.scrollBtns.push(b);
        this.layer.appendChild(b);
      }
    }
    const [left, right] = this.scrollBtns;
    left.hidden = !(overflow > 0 && hand.scroll > 0);
    right.hidden = !(overflow > 0 && hand.scroll < overflow);
    const y = hand.y + (hand.h - 64) / 2;
    left.style.transform = `translate(${hand.x + 2}px, ${y}px)`;
    right.style.transform = `translate(${hand.x + hand.w - 46}px, ${y}px)`;
  }

  /** Recompute the geometry from the stage size; returns true if it changed. */
  measure(): boolean {
    const w = this.stage.clientWidth;
    const hh = this.stage.clientHeight;
    if (w === this.geom.w && hh === this.geom.h) return false;
    this.geom = computeGeom(w, hh, this.geom.vp, this.geom.hand.scroll, this.whole, this.table);
    return true;
  }

  /** Zoom/pan the table view (a local view setting: nothing is sent). */
  setView(vp: ViewPort): void {
    this.geom = computeGeom(this.geom.w, this.geom.h, vp, this.geom.hand.scroll, this.whole, this.table);
    this.zoomBox.classList.toggle("zoomed", Math.abs(this.geom.vp.zoom - 1) > 0.001);
  }

  el(id: string): HTMLElement | undefined {
    return this.els.get(id)?.el;
  }

  badge(id: string): HTMLElement | undefined {
    return this.badges.get(id)?.el;
  }

  highlight(el: HTMLElement | null): void {
    if (this.highlighted === el) return;
    this.highlighted?.classList.remove("drop-target");
    this.highlighted = el;
    el?.classList.add("drop-target");
  }

  render(s: State): void {
    if ((s.game !== null) !== this.whole || s.table !== this.table) {
      const reshaped = s.table !== this.table;
      this.whole = s.game !== null;
      this.table = s.table;
      this.setView(this.geom.vp);
      // A new table shape: its middle in the middle of the view.
      if (reshaped) this.setView({ zoom: 1, cx: this.geom.tw / 2, cy: this.geom.th / 2 });
    }
    const g = this.geom;
    const view = s.view;
    place(this.felt, g.ox, g.oy, g.tw * g.s, g.th * g.s);
    // Widgets are drawn scaled: their buttons' touch areas are sized against this (app.css).
    this.stage.style.setProperty("--s", String(g.s));
    place(this.handBg, g.hand.x, g.hand.y, g.hand.w, g.hand.h);
    this.zoomBox.style.transform = `translate(${g.w - 12}px, ${g.hand.y - 12}px)`;
    // Zoomed out as far as it goes (a game on an upright phone always is): no "−" over the table.
    const out = this.zoomBox.querySelector<HTMLElement>("[data-testid=zoom-out]");
    if (out) out.hidden = g.vp.zoom <= g.minZoom + 1e-3;
    // A game on an upright phone is shown whole: no buttons over its corner until a pinch zooms.
    this.zoomBox.hidden = this.table !== null && Math.abs(g.vp.zoom - 1) < 1e-3;
    const seen = new Set<string>();
    const seenBadges = new Set<string>();
    const moves = this.moves(s);
    this.fresh = [];

    // z-order: rank the objects lying on the table by z (cards in a pile follow their pile).
    const top: Obj[] = [];
    for (const o of view.values()) {
      if (o.t === "hand") continue;
      if (o.t === "card" && o.parent && view.has(o.parent)) continue;
      top.push(o);
    }
    top.sort((a, b) => a.z - b.z || (a.id < b.id ? -1 : 1));

    top.forEach((o, rank) => {
      const zBase = 10 + rank * 1100;
      if (o.t === "card") {
        seen.add(o.id);
        this.card(o, g.ox + o.x * g.s, g.oy + o.y * g.s, CARD_W * g.s, CARD_H * g.s, zBase, "table", true);
      } else if (o.t === "stack") {
        seen.add(o.id);
        this.stack(o, zBase);
        seenBadges.add(o.id);
        this.stackBadge(o, zBase + 1090);
        const topId = topCardId(o);
        o.cards.forEach((cid, i) => {
          const c = view.get(cid);
          if (!isCard(c)) return;
          seen.add(cid);
          const p = cardInStack(o, i);
          const reach = o.layout === "row" || cid === topId;
          this.card(c, g.ox + p.x * g.s, g.oy + p.y * g.s, CARD_W * g.s, CARD_H * g.s, zBase + 1 + i, "stack", reach, o.rot);
        });
      } else if (WIDGET_SIZE[o.t]) {
        seen.add(o.id);
        this.widget(o as ChipsObj | CounterObj | DieObj | LabelObj, zBase);
      } // other kinds (a room's settings, newer objects) are not drawn here
    });

    // Hands: ours along the bottom, faces up. Another seat's hand is only a count (its cards
    // are never sent to us): in a game, a fan of that many backs at the player's place round
    // the table; in free play, the count in the players panel.
    this.fans(s);
    const mySeat = s.me.seat;
    for (const o of view.values()) {
      if (!isHand(o) || o.seat !== mySeat) continue;
      const all = cardIds(o);
      // While a card is dragged over the strip, the others make room where it would land.
      const gap = this.handGap;
      const mine = gap === null ? all : all.filter((cid) => !this.dragging.has(cid));
      const slots = handSlots(g, mine.length + (gap === null ? 0 : 1));
      this.handScroll(handOverflow(g, all.length));
      all.forEach((cid) => {
        const c = view.get(cid);
        if (!isCard(c)) return;
        seen.add(cid);
        const j = mine.indexOf(cid);
        const i = gap !== null && j >= gap ? j + 1 : Math.max(0, j);
        // Overlapping cards fan out a little, like a hand held in the fingers.
        const k = slots.step < g.hand.cw * 0.6 ? i - (all.length + (gap === null ? 0 : 1) - 1) / 2 : 0;
        const turn = Math.max(-9, Math.min(9, k * 0.7));
        this.card(c, slots.x + i * slots.step, slots.y + Math.abs(turn) * 0.6, g.hand.cw, g.hand.ch, Z_HAND + i, "hand", true, turn);
      });
    }
    const myHand = mySeat === null ? undefined : view.get(`hand${mySeat}`);
    setText(
      this.handLabel,
      mySeat === null
        ? s.game && !s.game.waiting
          ? "You are watching: the hands stay hidden; the seats show the cards held and the scores."
          : "You are watching. Take a seat in the players panel to play."
        : `Your hand${isHand(myHand) ? `\n${handCount(myHand)} card${handCount(myHand) === 1 ? "" : "s"}` : ""}`,
    );
    toggleClass(this.handBg, "spectating", mySeat === null);

    const left = new Map<string, { el: HTMLElement; box: Box }>();
    for (const [id, rec] of this.els) {
      if (!seen.has(id)) {
        const box = moves ? elBox(rec.el) : null;
        if (box && moves?.leave.has(id)) left.set(id, { el: rec.el, box });
        else {
          if (box) left.set(id, { el: rec.el, box });
          rec.el.remove();
        }
        this.els.delete(id);
      }
    }
    if (moves) this.animate(s, moves, left);
    // A copy: the server's objects are replaced, never changed, but its map is updated in place.
    this.lastView = new Map(s.view);
    this.lastGame = s.game !== null;
    for (const [id, rec] of this.badges) {
      if (!seenBadges.has(id)) {
        rec.el.remove();
        this.badges.delete(id);
      }
    }
    for (const [id, rec] of this.els) toggleClass(rec.el, "selected", s.selected.has(id));
    this.access(s);
  }

  /** Names for screen readers and keyboard focus (see a11y.ts): every object and every card of
   *  your hand takes focus, named in words; a card inside a pile is reached through its pile and
   *  is hidden from screen readers, which hear the pile's name, count and top card. */
  private access(s: State): void {
    const seat = s.me.seat;
    for (const [id, rec] of this.els) {
      const o = s.view.get(id);
      if (!o) continue;
      const el = rec.el;
      const tab = focusable(s.view, o, seat) && !el.classList.contains("away");
      setAttr(el, "tabindex", tab ? "0" : null);
      setAttr(el, "aria-hidden", tab || o.t !== "card" ? null : "true");
      setAttr(el, "aria-label", objLabel(s.view, o, seat));
    }
  }

  /** What moved since the last drawing, when the page may animate: not after a snapshot or a
   *  resize (the page jumps), nor as a game starts or ends, nor with `prefers-reduced-motion:
   *  reduce`. In free play only shuffles and deals (motion.ts). */
  private moves(s: State): Plan | null {
    const last = this.lastView;
    if (!last || last === s.view || this.lastGame !== (s.game !== null) || s.game?.waiting) return null;
    if (this.stage.classList.contains("instant") || reducedMotion()) return null;
    const p = plan(last, s.view, s.me.seat, !s.game);
    return p.arrive.size || p.leave.size || p.dealt.length || p.shuffled?.length ? p : null;
  }

  /**
   * Cards move like cards (see motion.ts): each new card glides in from where it came (a
   * player's place, your hand, the pile it was drawn from, the deck at a deal), cards that went
   * to a pile or a hand slide there and fade (a finished trick to its winner), and the pile they
   * join fades its new cards in behind them. `left`: the elements of the cards that went, with
   * where they were drawn.
   */
  private animate(s: State, m: Plan, left: Map<string, { el: HTMLElement; box: Box }>): void {
    const g = this.geom;
    const cw = CARD_W * g.s;
    const ch = CARD_H * g.s;
    const centreOf = (el: HTMLElement | undefined) => {
      const b = el ? elBox(el) : null;
      return b ? { x: b.x + b.w / 2, y: b.y + b.h / 2 } : undefined;
    };
    const where = (p: Place, w: number, hh: number): Box | null => {
      if ("card" in p) return left.get(p.card)?.box ?? null;
      let c: { x: number; y: number } | undefined;
      if ("hand" in p) {
        if (p.hand === s.me.seat) {
          c = { x: g.hand.x + g.hand.w / 2, y: g.hand.y + g.hand.h / 2 };
          w = g.hand.cw;
          hh = g.hand.ch;
        } else {
          c = this.fanAt.get(p.hand);
          w = FAN_W * g.s;
          hh = FAN_H * g.s;
        }
      } else if ("stack" in p) c = centreOf(this.el(p.stack));
      else c = centreOf(this.el(m.deck ?? "stock")) ?? { x: g.ox + (g.tw * g.s) / 2, y: g.oy + (g.th * g.s) / 2 };
      return c ? { x: c.x - w / 2, y: c.y - hh / 2, w, h: hh } : null;
    };
    const joined = new Set<string>();
    for (const to of m.leave.values()) if ("stack" in to) joined.add(to.stack);
    const dealt = this.fresh.filter((id) => {
      const p = m.arrive.get(id);
      return p !== undefined && "deck" in p;
    });
    // A pile's count waits for the cards gliding to it (it would say 1 before the card lands).
    const landing = new Map<string, number>();
    for (const id of this.fresh) {
      const el = this.els.get(id)?.el;
      const to = el ? elBox(el) : null;
      if (!el || !to) continue;
      const src = m.arrive.get(id);
      if (src) {
        const from = where(src, cw, ch);
        if (!from) continue;
        const rot = /rotate\(([-\d.e]+)deg\)/.exec(el.style.transform);
        const delay = "deck" in src ? dealDelay(dealt.indexOf(id), dealt.length) : 0;
        const parent = (s.view.get(id) as { parent?: string | null } | undefined)?.parent;
        if (parent) landing.set(parent, Math.max(landing.get(parent) ?? 0, delay + ARRIVE_MS));
        el.animate([{ transform: startTransform(from, to, rot ? Number(rot[1]) : 0) }, { transform: el.style.transform }], {
          duration: ARRIVE_MS,
          delay,
          easing: EASE,
          fill: "backwards",
          id: "arrive",
        });
      } else {
        const c = s.view.get(id);
        if (isCard(c) && c.parent && joined.has(c.parent))
          el.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 200, delay: LEAVE_MS - 150, fill: "backwards", id: "join" });
      }
    }
    for (const [stack, ms] of landing) this.badge(stack)?.animate([{ opacity: 0 }, { opacity: 0 }], { duration: ms, id: "badge-wait" });
    for (const [id, { el, box }] of left) {
      const to = m.leave.get(id);
      if (!to) continue;
      const dest = where(to, box.w, box.h);
      if (!dest) {
        el.remove();
        continue;
      }
      // No longer one of the table's cards: nothing finds it, points at it or reads it out.
      delete el.dataset.id;
      el.dataset.testid = "card-leaving";
      el.classList.add("leaving");
      el.setAttribute("aria-hidden", "true");
      el.removeAttribute("tabindex");
      const k = dest.w / Math.max(1, box.w);
      const a = el.animate(
        [
          { transform: el.style.transform, opacity: 1 },
          { transform: `translate(${dest.x + (dest.w - box.w) / 2}px, ${dest.y + (dest.h - box.h) / 2}px) scale(${k * 0.85})`, opacity: 0 },
        ],
        { duration: LEAVE_MS, easing: EASE, fill: "forwards", id: "leave" },
      );
      a.onfinish = a.oncancel = () => el.remove();
    }
    this.riffle(s, m.shuffled ?? []);
    if (!s.game) this.dealFlights(s, m, where({ deck: true }, cw, ch));
    // A deal: the other players' fans come from the deck too.
    const deck = where({ deck: true }, FAN_W, FAN_H);
    for (const seat of m.dealt) {
      const fan = this.layer.querySelector<HTMLElement>(`.other-hand[data-seat="${seat}"] > .fan-cards`);
      if (!fan || !deck || seat === s.me.seat) continue;
      fan.animate(
        [
          { transform: `translate(${deck.x}px, ${deck.y}px) scale(${g.s * 0.6})`, opacity: 0.3 },
          { transform: fan.style.transform, opacity: 1 },
        ],
        {
          duration: ARRIVE_MS + 300,
          easing: EASE,
          fill: "backwards",
          id: "arrive",
        },
      );
    }
  }

  /** A shuffled pile riffles: its two halves lie either side and fall back in, card by card (the
   *  top dozen; the ones below are hidden under them). */
  private riffle(s: State, piles: string[]): void {
    const cw = CARD_W * this.geom.s;
    for (const id of piles) {
      const pile = s.view.get(id);
      if (!isStack(pile)) continue;
      const cards = pile.cards.slice(-RIFFLE_MAX);
      cards.forEach((cid, i) => {
        const el = this.els.get(cid)?.el;
        if (!el) return;
        const st = riffleStart(i, cards.length, cw);
        const end = el.style.transform;
        el.animate(
          [
            { transform: `translate(${st.dx}px, ${st.dy}px) ${end} rotate(${st.rot}deg)` },
            { transform: `translate(${st.dx * 0.3}px, 0px) ${end} rotate(${st.rot / 2}deg)`, offset: 0.6 },
            { transform: end },
          ],
          { duration: RIFFLE_MS, delay: st.delay, easing: EASE, fill: "backwards", id: "shuffle" },
        );
      });
    }
  }

  /** Free play's deal: a card back flies from the deck to each other player's seat plate (the
   *  plates are drawn by game/plateview.ts; a seat without one gets none), one per card dealt,
   *  round the table in turn; your own cards glide into your hand. */
  private dealFlights(s: State, m: Plan, deck: Box | null): void {
    if (!deck || !m.dealt.length) return;
    const st = this.stage.getBoundingClientRect();
    const hs = new Map<number, number>();
    for (const o of s.view.values()) if (isHand(o) && o.seat !== s.me.seat) hs.set(o.seat, Math.min(handCount(o), DEAL_SHOWN));
    const flights: { seat: number; box: Box }[] = [];
    for (const seat of m.dealt) {
      const plate = this.layer.querySelector<HTMLElement>(`.seat-plate[data-seat="${seat}"]`);
      if (seat === s.me.seat || !plate) continue;
      const r = plate.getBoundingClientRect();
      const w = deck.w * 0.6;
      const hh = deck.h * 0.6;
      const box = { x: r.left - st.left + r.width / 2 - w / 2, y: r.top - st.top + r.height / 2 - hh / 2, w, h: hh };
      for (let k = 0; k < (hs.get(seat) ?? 1); k++) flights.push({ seat, box });
    }
    // Round the table: first card to each, then the second to each...
    const order = flights.map((f, i) => ({ f, k: flights.slice(0, i).filter((x) => x.seat === f.seat).length }));
    order.sort((a, b) => a.k - b.k || a.f.seat - b.f.seat);
    let back = "blue";
    for (const o of s.view.values())
      if (isCard(o)) {
        back = o.back;
        break;
      }
    order.forEach(({ f }, i) => {
      const img = h("img", {
        alt: "",
        src: backUrl(back),
        draggable: "false",
        class: "deal-flight",
        "data-testid": "card-dealt",
        "aria-hidden": "true",
      });
      img.style.width = `${deck.w}px`;
      img.style.height = `${deck.h}px`;
      this.layer.appendChild(img);
      const k = f.box.w / Math.max(1, deck.w);
      const a = img.animate(
        [
          { transform: `translate(${deck.x}px, ${deck.y}px)`, opacity: 1 },
          {
            transform: `translate(${f.box.x - (deck.w - f.box.w) / 2}px, ${f.box.y - (deck.h - f.box.h) / 2}px) scale(${k})`,
            opacity: 0.2,
          },
        ],
        { duration: ARRIVE_MS, delay: dealDelay(i, order.length), easing: EASE, fill: "both", id: "deal" },
      );
      a.onfinish = a.oncancel = () => img.remove();
    });
  }

  /** Other players' hands in a game: card backs fanned at their places. */
  private fans(s: State): void {
    const g = this.geom;
    const seen = new Set<string>();
    let back = "blue";
    for (const o of s.view.values())
      if (isCard(o)) {
        back = o.back;
        break;
      }
    this.fanAt.clear();
    for (const p of handPlaces(s.view, s.game, s.table)) {
      const id = `fan:${p.player}`;
      seen.add(id);
      this.fanAt.set(p.seat, { x: g.ox + p.x * g.s, y: g.oy + p.y * g.s });
      let rec = this.fanEls.get(id);
      if (!rec) {
        const el = h("div", { class: "other-hand", "data-testid": "other-hand", role: "group" }, h("div", { class: "fan-cards" }));
        rec = { el, key: "", content: "" };
        this.fanEls.set(id, rec);
        this.layer.appendChild(el);
      }
      const el = rec.el;
      el.dataset.player = String(p.player);
      el.dataset.seat = String(p.seat);
      el.dataset.n = String(p.n);
      const shown = Math.min(p.n, FAN_MAX);
      const content = `${shown}|${back}|${p.name}|${p.n}`;
      const cards = el.firstChild as HTMLElement;
      if (rec.content !== content) {
        rec.content = content;
        const src = backUrl(back);
        const imgs: HTMLElement[] = [];
        for (let i = 0; i < shown; i++) {
          const img = h("img", { alt: "", src, draggable: "false", class: "fan-card" });
          const mid = (shown - 1) / 2;
          img.style.transform = `translateX(${(i - mid) * FAN_STEP}px) rotate(${(i - mid) * FAN_TURN}deg)`;
          imgs.push(img);
        }
        cards.replaceChildren(...imgs);
        el.setAttribute("aria-label", `${p.name}'s hand: ${p.n} card${p.n === 1 ? "" : "s"}`);
      }
      // The fan turns to face the table centre (the name, cards held and the game's numbers are
      // on the player's seat plate: game/plateview.ts).
      const cx = g.ox + p.x * g.s;
      const cy = g.oy + p.y * g.s;
      const key = `${cx}|${cy}|${g.s}|${p.rot}|${g.w}|${content}`;
      if (rec.key === key) continue;
      rec.key = key;
      cards.style.transform = `translate(${cx - FAN_W / 2}px, ${cy - FAN_H / 2}px) scale(${g.s}) rotate(${p.rot}deg)`;
    }
    for (const [key, rec] of this.fanEls) {
      if (!seen.has(key)) {
        rec.el.remove();
        this.fanEls.delete(key);
      }
    }
  }

  private rec(id: string, make: () => HTMLElement): Rec {
    let rec = this.els.get(id);
    if (!rec) {
      const el = make();
      el.dataset.id = id;
      rec = { el, key: "", content: "" };
      this.els.set(id, rec);
      this.fresh.push(id);
      this.layer.appendChild(el);
    }
    return rec;
  }

  private card(
    c: CardObj,
    x: number,
    y: number,
    w: number,
    hgt: number,
    z: number,
    where: "table" | "stack" | "hand" | "away",
    reachable: boolean,
    extraRot = 0,
  ): void {
    const rec = this.rec(c.id, () => {
      const el = h("div", { class: "obj card", "data-testid": "card", role: "button", "aria-roledescription": "card" });
      const img = h("img", { alt: "", draggable: "false" });
      el.appendChild(img);
      return el;
    });
    if (!rec.img) rec.img = rec.el.querySelector("img") as HTMLImageElement;
    const el = rec.el;
    // The face only when the server sent it; otherwise the back. Never anything else.
    const content = c.face !== undefined ? `f:${c.face}` : `b:${c.back}`;
    if (rec.content !== content) {
      const hadFace = rec.content.startsWith("f:");
      const wasSet = rec.content !== "";
      rec.content = content;
      if (c.face !== undefined) {
        rec.img.src = faceUrl(c.face);
        el.dataset.face = c.face;
      } else {
        rec.img.src = backUrl(c.back);
        delete el.dataset.face;
      }
      if (wasSet && hadFace !== (c.face !== undefined)) flipAnim(rec.img);
    }
    // In a pile the pile's rotation counts; loose cards have their own.
    const rot = where === "table" ? c.rot % 360 : where === "stack" || where === "hand" ? extraRot % 360 : 0;
    const key = `${where}|${reachable}|${x.toFixed(1)}|${y.toFixed(1)}|${w.toFixed(1)}|${hgt.toFixed(1)}|${rot}|${z}|${c.up}|${c.parent}`;
    if (rec.key === key) return;
    rec.key = key;
    el.dataset.where = where;
    el.dataset.up = String(c.up);
    if (c.parent) el.dataset.parent = c.parent;
    else delete el.dataset.parent;
    toggleClass(el, "buried", !reachable);
    toggleClass(el, "in-hand", where === "hand");
    toggleClass(el, "away", where === "away");
    toggleClass(el, "face-down-in-hand", where === "hand" && !c.up);
    if (this.held(c.id)) return;
    el.style.width = `${w}px`;
    el.style.height = `${hgt}px`;
    el.style.zIndex = String(z);
    el.style.transform = `translate(${x}px, ${y}px)${rot ? ` rotate(${rot}deg)` : ""}`;
  }

  private stack(o: StackObj, z: number): void {
    const g = this.geom;
    const rec = this.rec(o.id, () =>
      h("div", { class: "obj stack", "data-testid": "stack", role: "button" }, h("span", { class: "stack-label", "aria-hidden": "true" })),
    );
    const el = rec.el;
    const box = stackBox(o);
    const content = `${o.label}|${o.holder}|${o.layout}|${o.locked}`;
    if (rec.content !== content) {
      rec.content = content;
      setText(el.firstChild as HTMLElement, o.label);
      toggleClass(el, "holder", o.holder);
      toggleClass(el, "row", o.layout === "row");
      toggleClass(el, "locked", o.locked);
    }
    el.dataset.count = String(o.cards.length);
    toggleClass(el, "empty", !o.cards.length);
    const key = `${box.x}|${box.y}|${box.w}|${box.h}|${o.rot}|${z}|${g.s}|${g.ox}|${g.oy}`;
    if (rec.key === key || this.held(o.id)) return;
    rec.key = key;
    el.style.width = `${box.w * g.s}px`;
    el.style.height = `${box.h * g.s}px`;
    el.style.fontSize = `${Math.max(12, 15 * g.s)}px`;
    el.style.zIndex = String(z);
    el.style.transform = `translate(${g.ox + box.x * g.s}px, ${g.oy + box.y * g.s}px)${o.rot ? ` rotate(${o.rot}deg)` : ""}`;
  }

  private stackBadge(o: StackObj, z: number): void {
    const g = this.geom;
    let rec = this.badges.get(o.id);
    if (!rec) {
      const el = h("div", {
        class: "obj stack-badge",
        "data-testid": "stack-count",
        "data-stack": o.id,
        title: "Drag here to move the whole pile; right-click for more",
      });
      rec = { el, key: "", content: "" };
      this.badges.set(o.id, rec);
      this.layer.appendChild(el);
    }
    setText(rec.el, String(o.cards.length));
    toggleClass(rec.el, "hidden", !o.cards.length && o.holder);
    const box = stackBox(o);
    const bs = Math.max(0.8, g.s);
    // At the bottom-right corner: the pile's label sits above it, and the two never meet.
    const x = g.ox + (box.x + box.w) * g.s - 14 * bs;
    const y = g.oy + (box.y + box.h) * g.s - 12 * bs;
    const key = `${x}|${y}|${z}|${bs}`;
    if (rec.key === key || this.held(o.id) || this.remoteHeld.has(`badge:${o.id}`)) return;
    rec.key = key;
    rec.el.style.zIndex = String(z);
    rec.el.style.transform = `translate(${x}px, ${y}px) scale(${bs})`;
  }

  private widget(o: ChipsObj | CounterObj | DieObj | LabelObj, z: number): void {
    const g = this.geom;
    const size = WIDGET_SIZE[o.t];
    const rec = this.rec(o.id, () => {
      const el = h("div", { class: `obj widget ${o.t}`, "data-testid": o.t, role: "group" });
      if (o.t !== "label") el.style.width = `${size.w}px`;
      el.style.height = `${size.h}px`;
      return el;
    });
    const el = rec.el;
    const content = widgetKey(o);
    if (rec.content !== content) {
      const first = rec.content === "";
      rec.content = content;
      this.fillWidget(el, o, first);
    }
    const x = g.ox + o.x * g.s;
    const y = g.oy + o.y * g.s;
    const key = `${x}|${y}|${g.s}|${o.rot}|${z}`;
    if (rec.key === key || this.held(o.id)) return;
    rec.key = key;
    el.style.zIndex = String(z);
    const r = o.rot ? ` translate(${size.w / 2}px, ${size.h / 2}px) rotate(${o.rot}deg) translate(${-size.w / 2}px, ${-size.h / 2}px)` : "";
    el.style.transform = `translate(${x}px, ${y}px) scale(${g.s})${r}`;
  }

  private fillWidget(el: HTMLElement, o: ChipsObj | CounterObj | DieObj | LabelObj, first: boolean): void {
    const btn = (label: string, testid: string, title: string, fn: () => void) => {
      const b = h("button", { type: "button", class: "wbtn", "data-testid": testid, title, "aria-label": title }, label);
      b.addEventListener("click", (e) => {
        e.stopPropagation();
        fn();
      });
      return b;
    };
    el.replaceChildren();
    toggleClass(el, "locked", o.locked);
    switch (o.t) {
      case "chips": {
        const discs = h("div", { class: "chip-discs" });
        const n = Math.min(o.count, 8);
        for (let i = 0; i < n; i++) {
          const d = h("div", { class: "chip-disc" });
          d.style.background = o.color;
          d.style.transform = `translateY(${-i * 4}px)`;
          discs.appendChild(d);
        }
        if (!n) discs.appendChild(h("div", { class: "chip-disc empty" }));
        el.append(
          discs,
          h("div", { class: "chip-count", "data-testid": "chips-count" }, String(o.count)),
          h("div", { class: "wlabel", hidden: !o.label }, o.label),
          h(
            "div",
            { class: "wbtns" },
            btn("−", "chips-minus", "Remove a chip", () => this.actions.chips(o.id, -1)),
            btn("+", "chips-plus", "Add a chip", () => this.actions.chips(o.id, 1)),
          ),
        );
        break;
      }
      case "counter":
        el.append(
          h("div", { class: "wlabel" }, o.label || "Counter"),
          h(
            "div",
            { class: "counter-row" },
            btn("−", "counter-minus", `Minus ${o.step}`, () => this.actions.counter(o.id, -1)),
            h("div", { class: "counter-value", "data-testid": "counter-value" }, String(o.value)),
            btn("+", "counter-plus", `Plus ${o.step}`, () => this.actions.counter(o.id, 1)),
          ),
        );
        break;
      case "die": {
        el.dataset.value = String(o.value);
        el.setAttribute("title", `d${o.sides}: click to roll`);
        if (o.sides === 6) {
          const face = h("div", { class: `pips p${o.value}`, "data-testid": "die-value", "data-value": o.value });
          for (let i = 0; i < o.value; i++) face.appendChild(h("span", { class: "pip" }));
          el.appendChild(face);
        } else {
          el.appendChild(h("div", { class: "die-num", "data-testid": "die-value", "data-value": o.value }, String(o.value)));
          el.appendChild(h("div", { class: "die-sides" }, `d${o.sides}`));
        }
        if (!first) {
          el.classList.remove("rolled");
          void el.offsetWidth;
          el.classList.add("rolled");
        }
        break;
      }
      case "label":
        el.appendChild(h("div", { class: "label-text" }, o.text));
        break;
    }
  }

  /**
   * Another player is dragging: glide their objects after the pointer (short linear transitions
   * between the throttled updates). Rendering takes over again when the move is committed, or
   * after a second without news.
   */
  remoteDrag(s: State, items: { id: string; x: number; y: number }[], by?: string): void {
    const g = this.geom;
    const who = s.players.find((p) => p.id === by)?.name;
    if (who && items.length) this.dragTag(items[0].id, who);
    for (const it of items) {
      const o = s.view.get(it.id);
      const el = this.el(it.id);
      if (!o || !el || o.t === "hand" || this.dragging.has(it.id) || !Number.isFinite(it.x) || !Number.isFinite(it.y)) continue;
      const cur = parseTranslate(el);
      if (!cur) continue;
      const dx = g.ox + it.x * g.s - cur.x;
      const dy = g.oy + it.y * g.s - cur.y;
      const els = [el];
      if (o.t === "stack") {
        const b = this.badge(o.id);
        if (b) els.push(b);
        for (const cid of o.cards) {
          const c = this.el(cid);
          if (c) els.push(c);
        }
      }
      const keys: string[] = [];
      for (const e of els) {
        const m = parseTranslate(e);
        if (!m) continue;
        e.classList.add("remote-drag");
        e.style.zIndex = String(8_000_000);
        e.style.transform = `translate(${m.x + dx}px, ${m.y + dy}px)${m.rest}`;
        const key = e.dataset.id || `badge:${e.dataset.stack}`;
        keys.push(key);
        this.remoteHeld.add(key);
      }
      window.clearTimeout(this.remoteTimers.get(it.id)?.timer);
      const timer = window.setTimeout(() => {
        this.release([it.id]);
        this.onStale?.();
      }, 1000);
      this.remoteTimers.set(it.id, { timer, keys });
    }
  }

  /** Hand objects held by a remote drag back to rendering from state. */
  release(ids: Iterable<string>): void {
    for (const id of ids) {
      const t = this.remoteTimers.get(id);
      if (!t) continue;
      window.clearTimeout(t.timer);
      this.remoteTimers.delete(id);
      for (const key of t.keys) {
        this.remoteHeld.delete(key);
        const el = key.startsWith("badge:") ? this.badge(key.slice(6)) : this.el(key);
        el?.classList.remove("remote-drag");
        el?.querySelector(":scope > .drag-tag")?.remove();
      }
      this.forget(t.keys);
    }
  }

  /** A name tag on what another player is dragging: who is moving it. */
  private dragTag(id: string, name: string): void {
    const el = this.el(id);
    if (!el) return;
    let tag = el.querySelector<HTMLElement>(":scope > .drag-tag");
    if (!tag) {
      tag = h("span", { class: "drag-tag", "data-testid": "drag-tag", "aria-hidden": "true" });
      el.appendChild(tag);
    }
    if (tag.textContent !== name) tag.textContent = name;
  }

  private held(key: string): boolean {
    return this.dragging.has(key) || this.remoteHeld.has(key);
  }

  private remoteTimers = new Map<string, { timer: number; keys: string[] }>();
  private remoteHeld = new Set<string>();
  /** Called when remote-drag positions expire and the state should be drawn again. */
  onStale?: () => void;

  /** Forget cached placements so the next render sets them again (after a drag). */
  forget(ids: string[]): void {
    for (const id of ids) {
      if (id.startsWith("badge:")) {
        const b = this.badges.get(id.slice(6));
        if (b) b.key = "";
      } else {
        const rec = this.els.get(id);
        if (rec) rec.key = "";
      }
    }
  }

  /** Make the next render jump rather than glide (resize, snapshot). */
  instant(): void {
    this.stage.classList.add("instant");
    requestAnimationFrame(() => requestAnimationFrame(() => this.stage.classList.remove("instant")));
  }

  /** Shake an element (a refused move). */
  shake(id: string): void {
    const el = this.el(id);
    if (!el) return;
    const img = el.querySelector("img") || el;
    img.classList.remove("shake");
    void (img as HTMLElement).offsetWidth;
    img.classList.add("shake");
  }

  /** Where an object currently is on the stage (px), e.g. to start a drag from. */
  stagePos(id: string): { x: number; y: number } | null {
    const el = this.el(id);
    if (!el) return null;
    const m = /translate\(([-\d.e]+)px, ([-\d.e]+)px\)/.exec(el.style.transform);
    return m ? { x: Number(m[1]), y: Number(m[2]) } : null;
  }

  cardSize(where: "table" | "hand"): { w: number; h: number } {
    const g = this.geom;
    return where === "hand" ? { w: g.hand.cw, h: g.hand.ch } : { w: CARD_W * g.s, h: CARD_H * g.s };
  }

  /** Is the card `id` in a container that the view has (for drag bookkeeping)? */
  containerOf(s: State, id: string): StackObj | null {
    const c = s.view.get(id);
    if (!isCard(c)) return null;
    const p = containerOf(s.view, c);
    return isStack(p) ? p : null;
  }
}

/** How long a card takes to arrive, and to slide away and fade (ms); the easing of both. */
const ARRIVE_MS = 420;
/** A riffle: how long each card takes to fall back in, and how many of the top cards move. */
const RIFFLE_MS = 380;
const RIFFLE_MAX = 12;
/** Free play's deal: at most this many backs fly to each player. */
const DEAL_SHOWN = 5;
const LEAVE_MS = 480;
const EASE = "cubic-bezier(0.2, 0.75, 0.3, 1)";

function reducedMotion(): boolean {
  return typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Where an element is drawn on the stage (px), from its own translate and size. */
function elBox(el: HTMLElement): Box | null {
  const m = parseTranslate(el);
  const w = Number.parseFloat(el.style.width);
  const hh = Number.parseFloat(el.style.height);
  return m && Number.isFinite(w) && Number.isFinite(hh) ? { x: m.x, y: m.y, w, h: hh } : null;
}

function widgetKey(o: ChipsObj | CounterObj | DieObj | LabelObj): string {
  switch (o.t) {
    case "chips":
      return `${o.count}|${o.color}|${o.label}|${o.locked}`;
    case "counter":
      return `${o.value}|${o.step}|${o.label}|${o.locked}`;
    case "die":
      return `${o.value}|${o.sides}|${o.v}|${o.locked}`;
    case "label":
      return `${o.text}|${o.locked}`;
  }
}

function setAttr(el: HTMLElement, name: string, value: string | null): void {
  if (el.getAttribute(name) === value) return;
  if (value === null) el.removeAttribute(name);
  else el.setAttribute(name, value);
}

function parseTranslate(el: HTMLElement): { x: number; y: number; rest: string } | null {
  const m = /^translate\(([-\d.e]+)px, ([-\d.e]+)px\)(.*)$/.exec(el.style.transform);
  return m ? { x: Number(m[1]), y: Number(m[2]), rest: m[3] } : null;
}

function place(el: HTMLElement, x: number, y: number, w: number, hgt: number): void {
  const t = `translate(${x}px, ${y}px)`;
  if (el.style.transform !== t) el.style.transform = t;
  el.style.width = `${w}px`;
  el.style.height = `${hgt}px`;
}

function flipAnim(img: HTMLImageElement): void {
  img.classList.remove("flip");
  void img.offsetWidth;
  img.classList.add("flip");
}
