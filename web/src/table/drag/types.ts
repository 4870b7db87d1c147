// What pointer input (table/drag/) works on: the host it drives (the room page), what a press
// grabbed, the items a drag carries, and the press in progress.

import type { Op } from "../../core/types";
import type { TableCommands } from "../commands";
import type { DragItem } from "../drop";
import type { ViewPort } from "../geom";
import type { Renderer } from "../render";
import type { State } from "../state";

export interface DragHost {
  s: State;
  r: Renderer;
  ov(id: string): number | undefined;
  send(op: Op): void;
  changed(): void;
  openMenu(id: string | null, clientX: number, clientY: number): void;
  closeMenus(): void;
  readonly cmd: Pick<TableCommands, "flip" | "roll">;
  notice(text: string): void;
  /** Zoom/pan the local view of the table. */
  setView(vp: ViewPort): void;
  /** Tell the others where our drag is (table coordinates). */
  shareDrag(items: { id: string; x: number; y: number }[]): void;
  /** A drag of these objects started (null: it ended), e.g. to light up legal targets. */
  dragHint?(ids: string[] | null): void;
  /** A click on an object: true when it was used (e.g. picking a card to knock with). */
  pick?(id: string): boolean;
  /** A single click or tap on a card: true when it was used (a rule room's stock drawn). */
  tap?(id: string): boolean;
  /** A double-click on a card: true when it was used (a rule room's move for that card). */
  activate?(id: string): boolean;
  /** May this object be moved now (outside edit mode zones keep their place)? */
  mayMove?(id: string): boolean;
}

export interface Grab {
  id: string;
  kind: "card" | "stack" | "widget";
}

interface Moving {
  el: HTMLElement;
  x0: number;
  y0: number;
}

export interface Item extends DragItem {
  main: HTMLElement;
  els: Moving[];
  /** Pointer offset inside the main element, as a fraction of its size. */
  fx: number;
  fy: number;
  resizable: boolean;
}

export interface Press {
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

/** One stage's pointer input: the host, the stage, and what outlives a single press. */
export interface DragCtx {
  readonly host: DragHost;
  readonly stage: HTMLElement;
  /** The last click, for double-clicks. */
  lastClick: { id: string; at: number } | null;
  /** A layer over the whole page, lined up with the stage, for what is being dragged. */
  overlay: HTMLElement | null;
}

/** A pointer position in stage pixels. */
export function stageXY(ctx: DragCtx, e: { clientX: number; clientY: number }): { x: number; y: number } {
  const r = ctx.stage.getBoundingClientRect();
  return { x: e.clientX - r.left, y: e.clientY - r.top };
}
