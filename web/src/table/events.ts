// Keyboard shortcuts and context menus: the same actions as drag and drop, by name.

import { freeSpot, isCard, isStack } from "./board";
import { toTable } from "./geom";
import type { TableCommands } from "./commands";
import type { Renderer } from "./render";
import { mayEdit, type State } from "./state";
import { type Obj, type Op, type StackObj, TABLE_H, TABLE_W } from "../core/types";
import { dialogOpen, type MenuItem, showMenu } from "../core/ui";
import { clamp } from "../core/util";

/** What the shortcuts and menus need from the room page (room.ts passes itself): the table's
 * actions by name, and the rule game's and edit mode's parts of the menus. */
export interface TableActions {
  readonly s: State;
  readonly r: Pick<Renderer, "stage" | "geom">;
  readonly closed: boolean;
  /** The rule game's part: a card's one move, Escape, its menu items. */
  readonly game: {
    activate(id: string): boolean;
    escape(): boolean;
    menuItems(id: string | null): MenuItem[];
  };
  /** Edit mode's part: whether it is on, and its items for an object's menu. */
  readonly edit: { readonly on: boolean; menuItems(o: Obj | undefined): MenuItem[] };
  send(op: Op): void;
  changed(): void;
  zoomBy(factor: number): void;
  /** The table's commands by name. */
  readonly cmd: TableCommands;
  help(): void;
}

export function bindKeys(room: TableActions): void {
  document.addEventListener("keydown", (e) => {
    if (dialogOpen() || room.closed) return;
    const t = e.target as HTMLElement | null;
    if (t && t.closest("input, textarea, select, [contenteditable]")) return;
    const key = e.key.toLowerCase();
    if ((e.ctrlKey || e.metaKey) && key === "z") {
      e.preventDefault();
      room.cmd.undo();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const targets = room.cmd.targets();
    switch (key) {
      case "f":
        if (targets.length)
          room.cmd.flip(e.shiftKey ? targets.map((id) => room.cmd.pileOf(id) || id) : targets.map((id) => room.cmd.flipTarget(id)));
        break;
      case "r":
        if (targets.length) room.cmd.rotate(targets, e.shiftKey ? -90 : 90);
        break;
      case "s": {
        const pile = room.cmd.targetPile();
        if (pile) room.cmd.shuffle(pile);
        break;
      }
      case "d": {
        const pile = room.cmd.targetPile() || (room.s.view.has("deck") ? "deck" : null);
        if (pile) room.cmd.take(pile, 1);
        break;
      }
      case "enter": {
        // In a rule room: the one move of the card under the pointer (or selected), if any.
        const card = targets.find((id) => isCard(room.s.view.get(id)));
        if (!room.s.game || !card || !room.game.activate(card)) return;
        break;
      }
      case "escape":
        if (room.game.escape()) break;
        room.s.selected.clear();
        room.changed();
        break;
      case "?":
        room.help();
        break;
      case "+":
      case "=":
        room.zoomBy(1.4);
        break;
      case "-":
        room.zoomBy(1 / 1.4);
        break;
      case "0":
        room.zoomBy(0);
        break;
      default:
        return;
    }
    e.preventDefault();
  });
}

/** Menu entries that create, change or delete objects: only for editors (see `mayEdit`). */
const EDITING = new Set([
  "add-deck",
  "add-deck-jokers",
  "add-custom",
  "add-zone",
  "add-chips",
  "add-counter",
  "add-die",
  "add-label",
  "lock",
  "delete",
  "rename-obj",
  "edit-label",
  "layout",
]);
/** Of those, what an editor also does while playing (edit mode is for building): spread or
 *  gather a pile, lock something in place. */
const WHILE_PLAYING = new Set(["layout", "lock"]);

/** The context menu for object `id` (or the empty table when null), at the pointer. */
export function openMenu(room: TableActions, id: string | null, clientX: number, clientY: number, place?: "auto"): void {
  const s = room.s;
  const seated = s.me.seat !== null;
  const stageRect = room.r.stage.getBoundingClientRect();
  const at = toTable(room.r.geom, clientX - stageRect.left, clientY - stageRect.top);
  /** Where a new object of w x h goes: where the menu was opened, or a free spot. */
  const pos = (w: number, h: number) =>
    place === "auto" ? freeSpot(s.view, w, h) : { x: Math.round(clamp(at.x, 0, TABLE_W - w)), y: Math.round(clamp(at.y, 0, TABLE_H - h)) };
  const items: (MenuItem | null)[] = [];
  let title = "";
  const o = id ? s.view.get(id) : undefined;

  if (!seated) {
    showMenu("Watching", [{ label: "Take a seat in the players panel to play", testid: "noop", action: () => {} }], clientX, clientY);
    return;
  }

  if (s.game) {
    const items = room.game.menuItems(id);
    if (items.length) showMenu(s.game.title, items, clientX, clientY);
    return;
  }

  const multi = id !== null && s.selected.has(id) && s.selected.size > 1;
  if (multi) {
    const ids = [...s.selected].filter((i) => s.view.has(i));
    title = `${ids.length} selected`;
    const cards = ids.filter((i) => {
      const c = s.view.get(i);
      return isCard(c) && !(c.parent && isStack(s.view.get(c.parent)));
    });
    const piles = ids.filter((i) => isStack(s.view.get(i)));
    const target = piles.find((p) => (s.view.get(p) as StackObj).cards.length) ?? piles[0];
    if (target && cards.length) {
      const label = pileName(s.view.get(target) as StackObj).toLowerCase();
      items.push({
        label: `Put the card${cards.length === 1 ? "" : "s"} on the ${label}`,
        testid: "onto-pile",
        action: () => {
          for (const c of cards) room.send({ op: "move", id: c, to: target });
          s.selected.clear();
        },
      });
    }
    if (piles.length > 1) {
      items.push({
        label: "Stack the piles together",
        testid: "merge-piles",
        action: () => {
          for (const p of piles) if (p !== target) room.send({ op: "move", id: p, to: target });
          for (const c of cards) room.send({ op: "move", id: c, to: target });
          s.selected.clear();
        },
      });
    }
    if (!piles.length && cards.length > 1)
      items.push({ label: "Gather into a pile", testid: "gather", action: () => room.cmd.gather(cards) });
    if (piles.length === 1 && !cards.length) pileItems(room, piles[0], items);
    items.push(
      { label: "Flip all", key: "F", testid: "flip", action: () => room.cmd.flip(ids.map((i) => room.cmd.flipTarget(i))) },
      { label: "Rotate all 90°", key: "R", testid: "rotate", action: () => room.cmd.rotate(ids, 90) },
    );
    showMenu(title, items, clientX, clientY);
    return;
  }

  if (!o) {
    title = "Table";
    items.push(
      { label: "Add a deck (52)", testid: "add-deck", action: () => room.cmd.create({ op: "create", kind: "deck", ...pos(100, 140) }) },
      {
        label: "Add a deck with jokers (54)",
        testid: "add-deck-jokers",
        action: () => room.cmd.create({ op: "create", kind: "deck", ...pos(100, 140), faces: room.cmd.standardFaces(true) }),
      },
      { label: "Add custom cards…", testid: "add-custom", action: () => room.cmd.addCustom(pos(100, 140)) },
      {
        label: "Add a zone",
        testid: "add-zone",
        action: () => room.cmd.create({ op: "create", kind: "zone", ...pos(120, 160), w: 120, h: 160, label: "Zone" }),
      },
      {
        label: "Add chips",
        testid: "add-chips",
        action: () => room.cmd.create({ op: "create", kind: "chips", ...pos(96, 96), count: 10, color: "#d33" }),
      },
      {
        label: "Add a counter",
        testid: "add-counter",
        action: () => room.cmd.create({ op: "create", kind: "counter", ...pos(150, 66), value: 0, label: "Score" }),
      },
      { label: "Add a die", testid: "add-die", action: () => room.cmd.create({ op: "create", kind: "die", ...pos(64, 64), sides: 6 }) },
      { label: "Add a label…", testid: "add-label", action: () => room.cmd.addLabel(pos(200, 40)) },
      null,
      { label: "Undo my last move", key: "Ctrl+Z", testid: "undo", action: () => room.cmd.undo() },
    );
  } else if (o.t === "card") {
    const inMyHand = o.parent === `hand${s.me.seat}`;
    const pile = room.cmd.pileOf(o.id);
    if (inMyHand) {
      title = "Card in your hand";
      items.push(
        { label: "Play face up", testid: "play", action: () => room.cmd.play(o.id, true) },
        { label: "Play face down", testid: "play-down", action: () => room.cmd.play(o.id, false) },
      );
    } else if (pile) {
      // A card on a pile stands for the pile: one menu, named after it.
      const p = s.view.get(pile) as StackObj;
      title = pileTitle(p);
      items.push({ label: "Flip the top card", key: "F", testid: "flip", action: () => room.cmd.flip([o.id]) });
      pileItems(room, pile, items);
    } else {
      title = "Card";
      items.push(
        { label: "Flip", key: "F", testid: "flip", action: () => room.cmd.flip([o.id]) },
        { label: "Take into my hand", testid: "take-card", action: () => room.cmd.toHand(o.id) },
        null,
        { label: "Rotate 90°", key: "R", testid: "rotate", action: () => room.cmd.rotate([o.id], 90) },
        { label: "Rotate 180°", testid: "rotate180", action: () => room.cmd.rotate([o.id], 180) },
        { label: o.locked ? "Unlock" : "Lock in place", testid: "lock", action: () => room.cmd.lock(o.id, !o.locked) },
      );
    }
  } else if (o.t === "stack") {
    title = pileTitle(o);
    pileItems(room, o.id, items);
  } else if (o.t === "chips") {
    title = o.label || "Chips";
    items.push(
      { label: "Add 1", testid: "chips-add1", action: () => room.cmd.chips(o.id, 1) },
      { label: "Add 5", testid: "chips-add5", action: () => room.cmd.chips(o.id, 5) },
      { label: "Remove 1", testid: "chips-sub1", action: () => room.cmd.chips(o.id, -1) },
      { label: "Remove 5", testid: "chips-sub5", action: () => room.cmd.chips(o.id, -5) },
      null,
      { label: "Rename…", testid: "rename-obj", action: () => room.cmd.relabel(o.id, o.label) },
      { label: o.locked ? "Unlock" : "Lock in place", testid: "lock", action: () => room.cmd.lock(o.id, !o.locked) },
      { label: "Remove", testid: "delete", danger: true, action: () => room.cmd.remove(o.id) },
    );
  } else if (o.t === "counter") {
    title = o.label || "Counter";
    items.push(
      { label: `Plus ${o.step}`, testid: "counter-up", action: () => room.cmd.counter(o.id, 1) },
      { label: `Minus ${o.step}`, testid: "counter-down", action: () => room.cmd.counter(o.id, -1) },
      { label: "Set value…", testid: "counter-set", action: () => room.cmd.counterSet(o.id, o.value) },
      { label: "Reset to 0", testid: "counter-reset", action: () => room.send({ op: "counter", id: o.id, value: 0 }) },
      null,
      { label: "Rename…", testid: "rename-obj", action: () => room.cmd.relabel(o.id, o.label) },
      { label: o.locked ? "Unlock" : "Lock in place", testid: "lock", action: () => room.cmd.lock(o.id, !o.locked) },
      { label: "Remove", testid: "delete", danger: true, action: () => room.cmd.remove(o.id) },
    );
  } else if (o.t === "die") {
    title = `Die (d${o.sides})`;
    items.push(
      { label: "Roll", testid: "roll", action: () => room.cmd.roll(o.id) },
      { label: o.locked ? "Unlock" : "Lock in place", testid: "lock", action: () => room.cmd.lock(o.id, !o.locked) },
      { label: "Remove", testid: "delete", danger: true, action: () => room.cmd.remove(o.id) },
    );
  } else if (o.t === "label") {
    title = "Label";
    items.push(
      { label: "Edit text…", testid: "edit-label", action: () => room.cmd.editLabel(o.id, o.text) },
      { label: o.locked ? "Unlock" : "Lock in place", testid: "lock", action: () => room.cmd.lock(o.id, !o.locked) },
      { label: "Remove", testid: "delete", danger: true, action: () => room.cmd.remove(o.id) },
    );
  }
  const extra = room.edit.menuItems(o);
  if (extra.length) items.push(null, ...extra);
  const editor = mayEdit(s);
  const allowed = items.filter((it) => !it || !EDITING.has(it.testid) || (editor && (room.edit.on || WHILE_PLAYING.has(it.testid))));
  showMenu(
    title,
    allowed.filter((it, i, all) => it || (i > 0 && all[i - 1] && i < all.length - 1)),
    clientX,
    clientY,
  );
}

/** What a pile is called in a menu: its label, else "Zone" or "Pile". */
function pileName(p: StackObj): string {
  return p.label || (p.holder && !p.cards.length ? "Zone" : "Pile");
}

function pileTitle(p: StackObj): string {
  const n = p.cards.length;
  return `${pileName(p)} · ${n} card${n === 1 ? "" : "s"}`;
}

/** A pile's menu (its label is changed in edit mode's "Size and layout…", with its size). */
function pileItems(room: TableActions, pileId: string, items: (MenuItem | null)[]): void {
  const p = room.s.view.get(pileId);
  if (!isStack(p)) return;
  const n = p.cards.length;
  if (n) {
    items.push(
      { label: "Draw a card", key: "D", testid: "draw", action: () => room.cmd.take(p.id, 1) },
      { label: "Draw several…", testid: "draw-n", action: () => room.cmd.takeN(p.id) },
      { label: "Deal…", testid: "deal", action: () => room.cmd.dealPrompt(p.id) },
      { label: "Shuffle", key: "S", testid: "shuffle", action: () => room.cmd.shuffle(p.id) },
      { label: "Flip the pile", key: "Shift+F", testid: "flip-pile", action: () => room.cmd.flip([p.id]) },
    );
    if (n > 1) {
      items.push(
        {
          label: p.layout === "row" ? "Stack into a pile" : "Spread out in a row",
          testid: "layout",
          action: () => room.send({ op: "update", id: p.id, layout: p.layout === "row" ? "pile" : "row" }),
        },
        { label: "Split in half", testid: "split", action: () => room.cmd.split(p.id, Math.floor(n / 2)) },
      );
    }
    items.push({
      label: "Pick up the pile into my hand",
      testid: "pickup",
      action: () => room.send({ op: "move", id: p.id, to: `hand${room.s.me.seat}` }),
    });
  }
  items.push(null);
  items.push(
    { label: "Rotate 90°", key: "R", testid: "rotate", action: () => room.cmd.rotate([p.id], 90) },
    { label: p.locked ? "Unlock" : "Lock in place", testid: "lock", action: () => room.cmd.lock(p.id, !p.locked) },
    { label: n ? "Remove the pile and its cards" : "Remove", testid: "delete", danger: true, action: () => room.cmd.remove(p.id) },
  );
}
