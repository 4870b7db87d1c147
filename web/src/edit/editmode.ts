// Edit mode: editors (the host, or everyone once the host lets them) switch it on to change the
// layout: add decks, zones, chips, counters, dice, labels and automation buttons, move and resize
// zones, configure and delete things (destructive steps ask first). Outside edit mode a stray
// click can't move a zone or delete anything: the table is for playing.

import { freeSpot, isStack } from "../table/board";
import type { TableCommands } from "../table/commands";
import { openButtonBuilder } from "./buttonbuilder";
import { type DeckBuilderPorts, openDeckBuilder } from "./deckbuilder";
import { h } from "../core/dom";
import { copyItems, downloadGameFile } from "./gamefiles";
import { boardOf } from "./homemade";
import { displayNames } from "./steprows";
import { mayEdit, type State } from "../table/state";
import type { ButtonObj, Obj, StackObj } from "../core/types";
import type { Step } from "../net/protocol.gen";
import { confirmDialog, type MenuItem, prompt, showMenu, toast } from "../core/ui";

const DIE_SIDES = [4, 6, 8, 10, 12, 20];

/** What edit mode needs from the room page (room.ts passes itself). */
export interface EditPorts extends DeckBuilderPorts {
  readonly s: State;
  /** The room page's root element: it carries the "editing" class while edit mode is on. */
  readonly root: HTMLElement;
  readonly cmd: Pick<TableCommands, "create" | "standardFaces" | "addLabel">;
  ov(id: string): number | undefined;
  notice(text: string): void;
  changed(): void;
}

function field(label: string, input: HTMLElement): HTMLElement {
  return h("label", { class: "edit-field" }, h("span", {}, label), input);
}

function input(testid: string, value: string, type = "text", extra: Record<string, string | number> = {}): HTMLInputElement {
  return h("input", { "data-testid": testid, value, type, ...extra }) as HTMLInputElement;
}

function select(testid: string, options: [string, string][], value: string): HTMLSelectElement {
  return h(
    "select",
    { "data-testid": testid },
    options.map(([v, l]) => h("option", { value: v, selected: v === value }, l)),
  ) as HTMLSelectElement;
}

function form(...children: HTMLElement[]): HTMLElement {
  return h("div", { class: "edit-form" }, ...children);
}

export class EditMode {
  /** The editor's own choice; null: the default (on, except in a room made from a game file). */
  private choice: boolean | null = null;
  readonly toggle: HTMLButtonElement;
  readonly addBtn: HTMLButtonElement;
  readonly fileBtn: HTMLButtonElement;
  readonly copyBtn: HTMLButtonElement;

  constructor(private room: EditPorts) {
    this.toggle = h(
      "button",
      { type: "button", "data-testid": "edit-toggle", title: "Change the layout: add, move, resize, delete" },
      "Edit table",
    ) as HTMLButtonElement;
    this.toggle.addEventListener("click", () => {
      this.choice = !this.on;
      this.room.changed();
    });
    this.addBtn = h(
      "button",
      { type: "button", "data-testid": "edit-add", class: "edit-only", title: "Add decks, zones, buttons…" },
      "Build ▾",
    ) as HTMLButtonElement;
    this.addBtn.addEventListener("click", (e) => {
      e.stopPropagation();
      const r = this.addBtn.getBoundingClientRect();
      showMenu("Build", this.addItems(), r.left, r.bottom + 4);
    });
    this.fileBtn = h(
      "button",
      { type: "button", "data-testid": "game-file", title: "Download this table as a game file" },
      "Save ⤓",
    ) as HTMLButtonElement;
    this.fileBtn.addEventListener("click", () => void downloadGameFile(this.room.s.code));
    this.copyBtn = h(
      "button",
      { type: "button", "data-testid": "copy-table", title: "Make a copy of this table" },
      "Copy table",
    ) as HTMLButtonElement;
    this.copyBtn.addEventListener("click", (e) => {
      e.stopPropagation();
      const r = this.copyBtn.getBoundingClientRect();
      showMenu("Make a copy of this table", copyItems(this.room.s.code, this.room.s.me.seat), r.left, r.bottom + 4);
    });
  }

  /** Is this page editing the layout now? Edit mode is for building: a Blank table (with no
   *  game loaded) opens in it; any other template and a loaded game open ready to play, and the
   *  Edit button switches it on. */
  get on(): boolean {
    const s = this.room.s;
    if (s.game || s.me.seat === null || !mayEdit(s)) return false;
    return this.choice ?? (s.template === "blank" && !boardOf(s)?.title);
  }

  /** Called on every render: the toolbar's buttons and the page's `editing` class. */
  render(): void {
    const s = this.room.s;
    const editor = !s.game && s.me.seat !== null && mayEdit(s);
    this.toggle.hidden = !editor;
    this.toggle.textContent = this.on ? "Done editing" : "Edit table";
    this.toggle.classList.toggle("active", this.on);
    this.toggle.setAttribute("aria-pressed", String(this.on));
    this.addBtn.hidden = !this.on;
    this.fileBtn.hidden = !editor;
    this.copyBtn.hidden = !editor;
    this.room.root.classList.toggle("editing", this.on);
  }

  /** May this page move object `id` around? Zones keep their place outside edit mode. */
  mayMove(id: string): boolean {
    const o = this.room.s.view.get(id);
    if (this.on || !isStack(o) || !o.holder) return true;
    this.room.notice(mayEdit(this.room.s) ? "Zones stay in place: click Edit table to move them." : "Zones stay in place.");
    return false;
  }

  private spot(w: number, hh: number): { x: number; y: number } {
    return freeSpot(this.room.s.view, w, hh);
  }

  private addItems(): (MenuItem | null)[] {
    const room = this.room;
    return [
      {
        label: "Standard deck (52)",
        testid: "build-deck",
        action: () => room.cmd.create({ op: "create", kind: "deck", ...this.spot(110, 150) }),
      },
      {
        label: "Deck with jokers (54)",
        testid: "build-deck-jokers",
        action: () => room.cmd.create({ op: "create", kind: "deck", ...this.spot(110, 150), faces: room.cmd.standardFaces(true) }),
      },
      { label: "Several decks…", testid: "build-decks", action: () => void this.severalDecks() },
      { label: "Custom deck…", testid: "build-custom", action: () => void openDeckBuilder(room, this.spot(110, 150)) },
      null,
      { label: "Zone…", testid: "build-zone", action: () => void this.addZone() },
      { label: "Chips…", testid: "build-chips", action: () => void this.addChips() },
      { label: "Counter…", testid: "build-counter", action: () => void this.addCounter() },
      { label: "Die…", testid: "build-die", action: () => void this.addDie() },
      { label: "Text label…", testid: "build-label", action: () => void room.cmd.addLabel(this.spot(200, 40)) },
      null,
      { label: "Button: deal n to each…", testid: "build-deal-button", action: () => void this.dealButton() },
      { label: "Button: gather and shuffle", testid: "build-gather-button", action: () => void this.gatherButton() },
      { label: "Button with steps…", testid: "build-button", action: () => void this.editSteps(null) },
      { label: "Table background…", testid: "build-background", action: () => void this.background() },
    ];
  }

  private async severalDecks(): Promise<void> {
    const n = input("decks-n", "2", "number", { min: 1, max: 9 });
    const jokers = select(
      "decks-jokers",
      [
        ["no", "Without jokers"],
        ["yes", "With jokers"],
      ],
      "no",
    );
    if (
      !(await confirmDialog(
        "Several decks in one pile",
        "Shuffled together, e.g. for Canasta.",
        "Add",
        form(field("Decks", n), field("Jokers", jokers)),
      ))
    )
      return;
    const count = Math.max(1, Math.min(9, Math.floor(Number(n.value)) || 1));
    const faces = this.room.cmd.standardFaces(jokers.value === "yes");
    this.room.cmd.create({
      op: "create",
      kind: "deck",
      ...this.spot(110, 150),
      faces: Array.from({ length: count }, () => faces)
        .flat()
        .slice(0, 500),
    });
  }

  private async addZone(): Promise<void> {
    const label = input("zone-label", "Zone");
    const layout = select(
      "zone-layout",
      [
        ["pile", "Stacked"],
        ["row", "Spread in a row"],
      ],
      "pile",
    );
    if (
      !(await confirmDialog(
        "Add a zone",
        "A place for cards that stays when empty.",
        "Add",
        form(field("Label", label), field("Cards", layout)),
      ))
    )
      return;
    const w = layout.value === "row" ? 420 : 120;
    this.room.cmd.create({
      op: "create",
      kind: "zone",
      ...this.spot(w, 160),
      w,
      h: 160,
      label: label.value.trim().slice(0, 40),
      layout: layout.value as "pile" | "row",
    });
  }

  private async addChips(): Promise<void> {
    const color = input("chips-color", "#d33", "color");
    const value = input("chips-value", "1", "number", { min: 1 });
    const count = input("chips-count", "10", "number", { min: 0 });
    const label = input("chips-label", "");
    if (
      !(await confirmDialog(
        "Add chips",
        "A stack of chips of one colour and value.",
        "Add",
        form(field("Colour", color), field("Value", value), field("How many", count), field("Label", label)),
      ))
    )
      return;
    this.room.cmd.create({
      op: "create",
      kind: "chips",
      ...this.spot(96, 96),
      color: color.value,
      value: Math.max(1, Number(value.value) || 1),
      count: Math.max(0, Number(count.value) || 0),
      label: label.value.trim(),
    });
  }

  private async addCounter(): Promise<void> {
    const label = input("counter-label", "Score");
    const step = input("counter-step", "1", "number", { min: 1 });
    if (
      !(await confirmDialog(
        "Add a counter",
        "Plus and minus change it by its step.",
        "Add",
        form(field("Label", label), field("Step", step)),
      ))
    )
      return;
    this.room.cmd.create({
      op: "create",
      kind: "counter",
      ...this.spot(150, 66),
      value: 0,
      label: label.value.trim(),
      step: Math.max(1, Number(step.value) || 1),
    });
  }

  private async addDie(): Promise<void> {
    const sides = select(
      "die-sides",
      DIE_SIDES.map((n) => [String(n), `d${n}`]),
      "6",
    );
    if (!(await confirmDialog("Add a die", "Anyone seated can roll it.", "Add", form(field("Sides", sides))))) return;
    this.room.cmd.create({ op: "create", kind: "die", ...this.spot(64, 64), sides: Number(sides.value) });
  }

  private piles(): { id: string; label: string }[] {
    const out: { id: string; label: string }[] = [];
    const names = displayNames(this.room.s.view.values());
    for (const o of this.room.s.view.values())
      if (isStack(o))
        out.push({ id: o.id, label: `${names.get(o.id) ?? "Pile"} (${o.cards.length} card${o.cards.length === 1 ? "" : "s"})` });
    return out;
  }

  private pileSelect(testid: string): HTMLSelectElement | null {
    const piles = this.piles();
    if (!piles.length) {
      toast("Add a deck first: the button deals from a pile.", "error");
      return null;
    }
    const first = piles.find((p) => p.id === "deck") ?? piles[0];
    return select(
      testid,
      piles.map((p) => [p.id, p.label]),
      first.id,
    );
  }

  private button(label: string, steps: Step[]): void {
    this.room.send({ op: "create", kind: "button", ...this.spot(150, 48), label, steps });
  }

  private async dealButton(): Promise<void> {
    const pile = this.pileSelect("deal-pile");
    if (!pile) return;
    const n = input("deal-n", "3", "number", { min: 1, max: 100 });
    const shuffle = select(
      "deal-shuffle",
      [
        ["yes", "Shuffle first"],
        ["no", "Deal as it lies"],
      ],
      "yes",
    );
    if (
      !(await confirmDialog(
        "A deal button",
        "Pressing it deals n cards to each seated player.",
        "Add button",
        form(field("From", pile), field("Cards each", n), field("Shuffle", shuffle)),
      ))
    )
      return;
    const count = Math.max(1, Math.min(100, Math.floor(Number(n.value)) || 1));
    const steps: Step[] = shuffle.value === "yes" ? [{ do: "shuffle", id: pile.value }] : [];
    steps.push({ do: "deal", id: pile.value, n: count, to: "hands" });
    this.button(`Deal ${count}`, steps);
  }

  private async gatherButton(): Promise<void> {
    const pile = this.pileSelect("gather-pile");
    if (!pile) return;
    if (
      !(await confirmDialog(
        "A gather-and-shuffle button",
        "Pressing it brings every card back (hands, piles, loose cards) and shuffles.",
        "Add button",
        form(field("Into", pile)),
      ))
    )
      return;
    const others = this.piles()
      .map((p) => p.id)
      .filter((id) => id !== pile.value);
    this.button("Gather and shuffle", [
      { do: "gather", to: pile.value, from: others.slice(0, 50), hands: true, loose: true },
      { do: "shuffle", id: pile.value },
    ]);
  }

  /** The button builder (buttonbuilder.ts): steps as rows of menus, targets by name. */
  async editSteps(b: ButtonObj | null): Promise<void> {
    await openButtonBuilder({ s: this.room.s, send: (op) => this.room.send(op), spot: () => this.spot(150, 48) }, b);
  }

  private async background(): Promise<void> {
    const color = input("background-color", "#1f6b3a", "color");
    if (!(await confirmDialog("Table background", "A colour for the table.", "Set", form(field("Colour", color))))) return;
    this.room.send({ op: "background", value: color.value });
  }

  /** Context-menu entries while editing: configure, resize, delete (destructive: asks first). */
  menuItems(o: Obj | undefined): MenuItem[] {
    if (!o || !this.on) return [];
    const name: MenuItem[] =
      isStack(o) || o.t === "counter" || o.t === "die" || o.t === "chips"
        ? [{ label: "Name…", testid: "name", action: () => void this.rename(o.id) }]
        : [];
    if (isStack(o)) return [...name, { label: "Size and layout…", testid: "configure", action: () => void this.configureStack(o.id) }];
    if (o.t === "counter")
      return [...name, { label: "Step…", testid: "configure", action: () => void this.configureCounter(o.id, o.step) }];
    return name;
  }

  /** Name an object (only shown: the editor, pickers, the log); empty: back to "Pile 2". */
  private async rename(id: string): Promise<void> {
    const o = this.room.s.view.get(id);
    if (!o) return;
    const shown = displayNames(this.room.s.view.values()).get(id) ?? "";
    const given = "label" in o && typeof o.label === "string" ? o.label : "";
    const got = await prompt(`Name ${shown}`, {
      value: given,
      maxLength: 40,
      ok: "Save",
      hint: "Shown in the button builder, its lists and the log.",
    });
    if (got === null || got.trim() === given.trim()) return;
    this.room.send({ op: "name", id, name: got.trim() });
  }

  private async configureStack(id: string): Promise<void> {
    const o = this.room.s.view.get(id);
    if (!isStack(o)) return;
    const w = input("zone-w", String(o.w || 110), "number", { min: 40, max: 1600 });
    const hh = input("zone-h", String(o.h || 150), "number", { min: 40, max: 1000 });
    const layout = select(
      "zone-layout",
      [
        ["pile", "Stacked"],
        ["row", "Spread in a row"],
      ],
      o.layout,
    );
    const label = input("zone-label", o.label);
    if (
      !(await confirmDialog(
        "Zone",
        "Its size on the table (1600 × 1000) and how cards lie in it.",
        "Save",
        form(field("Label", label), field("Width", w), field("Height", hh), field("Cards", layout)),
      ))
    )
      return;
    this.room.send({
      op: "update",
      id,
      label: label.value.trim().slice(0, 40),
      w: Number(w.value) || o.w,
      h: Number(hh.value) || o.h,
      layout: layout.value as StackObj["layout"],
    });
  }

  private async configureCounter(id: string, step: number): Promise<void> {
    const got = await prompt("Step", { type: "number", value: String(step), min: 1, ok: "Save" });
    if (got !== null && Number(got) >= 1) this.room.send({ op: "update", id, step: Math.floor(Number(got)) });
  }

  /** A button's menu: press, and for editors edit its steps or delete it. */
  buttonMenu(b: ButtonObj, x: number, y: number): void {
    const items: MenuItem[] = [{ label: "Press", testid: "press", action: () => this.press(b.id) }];
    if (this.on) {
      items.push(
        { label: "Edit button…", testid: "edit-steps", action: () => void this.editSteps(b) },
        { label: "Delete", testid: "delete", danger: true, action: () => void this.confirmDelete(b.id) },
      );
    }
    showMenu(b.label || "Button", items, x, y);
  }

  press(id: string): void {
    this.room.send({ op: "press", id });
  }

  /** Delete after asking: "Delete the deck and its 52 cards?". */
  async confirmDelete(id: string): Promise<void> {
    const o = this.room.s.view.get(id) as (Obj & { label?: string }) | undefined;
    if (!o) return;
    const given = o.label?.trim() ?? "";
    const name = (
      given.toLowerCase() === "deck"
        ? "deck"
        : given || (o.t === "stack" ? (o.id === "deck" ? "deck" : o.holder ? "zone" : "pile") : o.t === "label" ? "label" : o.t)
    ).trim();
    const n = isStack(o) ? o.cards.length : 0;
    const title = n ? `Delete the ${name} and its ${n} card${n === 1 ? "" : "s"}?` : `Delete the ${name}?`;
    if (!(await confirmDialog(title, "Undo brings it back.", "Delete"))) return;
    const ov = this.room.ov(id);
    this.room.send(ov === undefined ? { op: "delete", id } : { op: "delete", id, ov });
  }
}
