// The table's commands by name (flip, rotate, deal, split, gather, counters, labels, ...): what a
// context menu, a shortcut or edit mode asks of the table, turned into operations for the server.

import { isCard, isStack, spotNear, stackBox } from "./board";
import type { State } from "./state";
import { CARD_CODES, JOKERS } from "../net/protocol.gen";
import type { Op } from "../core/types";
import { prompt } from "../core/ui";

/** What the commands need from the room page. */
export interface CommandPorts {
  readonly s: State;
  /** Send an operation (refused for a spectator; a rule game may take it over). */
  send(op: Op): void;
  /** Send an operation as it is and wait for its outcome: true once applied. */
  settle(op: Op): Promise<boolean>;
  /** `ov` for an operation on `id` (see the room page). */
  ov(id: string): number | undefined;
  /** The object that has keyboard focus, if any. */
  focusedId(): string | null;
  /** The element drawn for an object. */
  el(id: string): HTMLElement | undefined;
  /** Ask, then delete an object. */
  confirmDelete(id: string): Promise<void>;
}

export class TableCommands {
  private readonly s: State;

  constructor(private readonly p: CommandPorts) {
    this.s = p.s;
  }

  private withOv<T extends Op>(op: T, id: string): T {
    const ov = this.p.ov(id);
    return ov === undefined ? op : ({ ...op, ov } as T);
  }

  /** What the letter keys act on: the object under the pointer, else the focused one (each with
   *  the selection it is part of), else the selection. Moving focus by key clears the pointer's
   *  object (keyboard.ts), so a keyboard player acts on what they went to. */
  targets(): string[] {
    const hv = this.s.hover && this.s.view.has(this.s.hover) ? this.s.hover : null;
    const f = hv ?? this.p.focusedId();
    if (f && !(this.s.selected.has(f) && this.s.selected.size > 1)) return [f];
    return [...this.s.selected].filter((id) => this.s.view.has(id));
  }

  pileOf(id: string): string | null {
    const o = this.s.view.get(id);
    if (isStack(o)) return o.id;
    if (isCard(o) && o.parent && isStack(this.s.view.get(o.parent))) return o.parent;
    return null;
  }

  targetPile(): string | null {
    for (const id of this.targets()) {
      const p = this.pileOf(id);
      if (p) return p;
    }
    return null;
  }

  /** F on a pile flips its top card; on a card, the card. */
  flipTarget(id: string): string {
    const o = this.s.view.get(id);
    if (isStack(o) && o.cards.length) return o.cards[o.cards.length - 1];
    return id;
  }

  flip(ids: string[]): void {
    for (const id of ids) {
      const o = this.s.view.get(id);
      if (!o || (o.t !== "card" && o.t !== "stack")) continue;
      if (isCard(o) && o.parent === `hand${this.s.me.seat}`) continue;
      this.p.send(this.withOv({ op: "flip", id }, id));
    }
  }

  rotate(ids: string[], by: number): void {
    for (const id of ids) {
      const o = this.s.view.get(id);
      if (!o || o.t === "hand" || (isCard(o) && o.parent && !isStack(this.s.view.get(o.parent)))) continue;
      const target = isCard(o) && o.parent ? o.parent : id;
      const cur = this.s.view.get(target);
      if (!cur) continue;
      this.p.send(this.withOv({ op: "rotate", id: target, rot: (((cur.rot + by) % 360) + 360) % 360 }, target));
    }
  }

  shuffle(id: string): void {
    this.p.send(this.withOv({ op: "shuffle", id }, id));
    this.p.el(id)?.classList.add("shuffling");
    window.setTimeout(() => this.p.el(id)?.classList.remove("shuffling"), 500);
  }

  take(id: string, n: number): void {
    this.p.send(this.withOv({ op: "take", id, n }, id));
  }

  async takeN(id: string): Promise<void> {
    const got = await prompt("Draw how many cards?", { type: "number", value: "2", min: 1, max: 1000, ok: "Draw" });
    const n = Number(got);
    if (got !== null && Number.isInteger(n) && n > 0) this.take(id, n);
  }

  async dealPrompt(id: string): Promise<void> {
    const seated = this.s.players.filter((p) => p.seat !== null).length;
    const pile = this.s.view.get(id);
    const count = isStack(pile) ? pile.cards.length : 0;
    const got = await prompt("Deal how many cards to each player?", {
      type: "number",
      value: String(Math.min(5, Math.floor(count / Math.max(1, seated)) || 1)),
      min: 1,
      max: 1000,
      ok: "Deal",
      hint: `${seated} seated player${seated === 1 ? "" : "s"}; the pile has ${count} cards.`,
    });
    const n = Number(got);
    if (got !== null && Number.isInteger(n) && n > 0) this.deal(id, n);
  }

  deal(id: string, n: number): void {
    this.p.send(this.withOv({ op: "deal", id, n }, id));
  }

  split(id: string, n: number): void {
    const o = this.s.view.get(id);
    if (!isStack(o)) return;
    const { x, y } = spotNear(this.s.view, stackBox(o));
    this.p.send(this.withOv({ op: "split", id, n, x, y }, id));
  }

  async splitPrompt(id: string): Promise<void> {
    const got = await prompt("Split off how many cards from the top?", { type: "number", value: "1", min: 1, max: 1000, ok: "Split" });
    const n = Number(got);
    if (got !== null && Number.isInteger(n) && n > 0) this.split(id, n);
  }

  toHand(id: string): void {
    if (this.s.me.seat === null) return;
    this.p.send(this.withOv({ op: "move", id, to: `hand${this.s.me.seat}` }, id));
  }

  play(id: string, up: boolean): void {
    const x = 750 + Math.round((Math.random() - 0.5) * 80);
    const y = 560 + Math.round((Math.random() - 0.5) * 40);
    this.p.send(this.withOv({ op: "move", id, x, y, up }, id));
  }

  async gather(cards: string[]): Promise<void> {
    const [first, ...rest] = cards;
    const fo = this.s.view.get(first);
    if (!isCard(fo)) return;
    let pile = fo.parent && isStack(this.s.view.get(fo.parent)) ? fo.parent : null;
    let others = rest;
    if (!pile) {
      const [second, ...more] = rest;
      if (!(await this.p.settle(this.withOv({ op: "move", id: second, to: first }, second)))) return;
      const now = this.s.server.get(first);
      pile = isCard(now) ? now.parent : null;
      others = more;
      if (!pile) return;
    }
    for (const id of others) this.p.send({ op: "move", id, to: pile });
    this.s.selected.clear();
  }

  roll(id: string): void {
    this.p.send({ op: "roll", id });
    const el = this.p.el(id);
    el?.classList.remove("rolled");
    void el?.offsetWidth;
    el?.classList.add("rolled");
  }

  counter(id: string, delta: number): void {
    this.p.send({ op: "counter", id, delta });
  }

  async counterSet(id: string, value: number): Promise<void> {
    const got = await prompt("Set the counter to", { type: "number", value: String(value), ok: "Set" });
    const n = Number(got);
    if (got !== null && got.trim() !== "" && Number.isInteger(n)) this.p.send({ op: "counter", id, value: n });
  }

  chips(id: string, n: number): void {
    this.p.send({ op: "chips_add", id, n });
  }

  lock(id: string, locked: boolean): void {
    this.p.send({ op: "update", id, locked });
  }

  remove(id: string): void {
    void this.p.confirmDelete(id);
  }

  async relabel(id: string, current: string): Promise<void> {
    const got = await prompt("Name", { value: current, maxLength: 200, ok: "Save" });
    if (got !== null) this.p.send({ op: "update", id, label: got.trim() });
  }

  async editLabel(id: string, current: string): Promise<void> {
    const got = await prompt("Label text", { value: current, maxLength: 200, ok: "Save" });
    if (got !== null && got.trim()) this.p.send({ op: "update", id, text: got.trim() });
  }

  create(op: Extract<Op, { op: "create" }>): void {
    this.p.send(op);
  }

  async addCustom({ x, y }: { x: number; y: number }): Promise<void> {
    const got = await prompt("Card faces, separated by commas", {
      value: "Yes, No, Maybe",
      hint: "Each card shows its text. The pile is made face up.",
      ok: "Add",
    });
    if (got === null) return;
    const faces = got
      .split(",")
      .map((f) => f.trim().slice(0, 40))
      .filter(Boolean)
      .slice(0, 500);
    if (faces.length === 1) this.p.send({ op: "create", kind: "card", x, y, faces, up: true });
    else if (faces.length) this.p.send({ op: "create", kind: "deck", x, y, faces, up: true });
  }

  async addLabel({ x, y }: { x: number; y: number }): Promise<void> {
    const got = await prompt("Label text", { value: "", maxLength: 200, ok: "Add" });
    if (got && got.trim()) this.p.send({ op: "create", kind: "label", x, y, text: got.trim() });
  }

  standardFaces(jokers: boolean): string[] {
    return [...CARD_CODES, ...(jokers ? JOKERS : [])];
  }

  undo(): void {
    this.p.send({ op: "undo" });
  }
}
