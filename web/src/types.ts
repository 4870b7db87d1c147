// The wire protocol (docs/protocol.md) as TypeScript types. Nothing here has behaviour.

export const TABLE_W = 1600;
export const TABLE_H = 1000;
/** Card size in table units. A template zone is 110 x 150: the card sits centred in it. */
export const CARD_W = 100;
export const CARD_H = 140;

interface Base {
  id: string;
  x: number;
  y: number;
  z: number;
  rot: number;
  locked: boolean;
  v: number;
}

export interface CardObj extends Base {
  t: "card";
  /** Absent when this client may not see the face. Never invent one. */
  face?: string;
  back: string;
  up: boolean;
  parent: string | null;
}

export interface StackObj extends Base {
  t: "stack";
  cards: string[];
  layout: "pile" | "row";
  holder: boolean;
  label: string;
  w: number;
  h: number;
}

export interface HandObj extends Base {
  t: "hand";
  seat: number;
  /** How many cards the hand holds (everyone sees this). */
  n: number;
  /** The card ids in the owner's order: only in your own hand. Another seat's hand has none, and
   *  its cards are not sent at all. */
  cards?: string[];
}

export interface ChipsObj extends Base {
  t: "chips";
  count: number;
  color: string;
  value: number;
  label: string;
}

export interface CounterObj extends Base {
  t: "counter";
  value: number;
  step: number;
  label: string;
}

export interface DieObj extends Base {
  t: "die";
  sides: number;
  value: number;
}

export interface LabelObj extends Base {
  t: "label";
  text: string;
}

export type Obj = CardObj | StackObj | HandObj | ChipsObj | CounterObj | DieObj | LabelObj;
export type Container = StackObj | HandObj;

export type PlayerStatus = "online" | "reconnecting" | "away";

export interface Player {
  id: string;
  name: string;
  seat: number | null;
  host: boolean;
  /** Optional: servers that track presence send it; missing means online. */
  status?: PlayerStatus;
  /** A computer player (seated by the host in a rule room; the server plays its turns). */
  bot?: boolean;
}

/** A rule engine's action: a plain object with a `type` (Gin Rummy: `draw`, `knock`, ...). */
export interface GameAction {
  type: string;
  [k: string]: unknown;
}

/** The rule plugin's part of a snapshot/delta: the engine's view for this seat and its moves. */
export interface Game {
  name: string;
  title: string;
  options: Record<string, unknown>;
  /** The engine's view for this seat (Gin Rummy: `plugins/gin_rummy/rules.py`). */
  view: Record<string, unknown>;
  /** The actions this seat may take now (empty for spectators and when waiting). */
  legal: GameAction[];
}

export interface Snapshot {
  code: string;
  v: number;
  seats: number;
  template: string;
  players: Player[];
  locked?: boolean;
  objects: Obj[];
  game: Game | null;
}

export interface Delta {
  v: number;
  set: Obj[];
  del: string[];
  by: string;
  log?: string;
  players?: Player[];
  locked?: boolean;
  /** Present when the game view changed; null when the rules were turned off. */
  game?: Game | null;
}

export interface Joined {
  code: string;
  player: string;
  token: string;
  seat: number | null;
  name: string;
  ref: string | number | null;
}

export interface Ack {
  ref: string | number | null;
  v: number;
}

export interface ServerError {
  code: string;
  message: string;
  ref: string | number | null;
  retryable?: boolean;
}

export type Op =
  | { op: "move"; id: string; x?: number; y?: number; to?: string; index?: number; up?: boolean; ov?: number }
  | { op: "flip"; id: string; ov?: number }
  | { op: "rotate"; id: string; rot: number; ov?: number }
  | { op: "shuffle"; id: string; ov?: number }
  | { op: "deal"; id: string; n: number; seats?: number[]; ov?: number }
  | { op: "take"; id: string; n?: number; ov?: number }
  | { op: "split"; id: string; n: number; x: number; y: number; ov?: number }
  | { op: "merge"; id: string; into: string; ov?: number }
  | { op: "chips_move"; id: string; to: string; n: number }
  | { op: "chips_add"; id: string; n: number }
  | { op: "counter"; id: string; value?: number; delta?: number }
  | { op: "roll"; id: string }
  | ({ op: "create"; kind: "card" | "deck" | "stack" | "zone" | "chips" | "counter" | "die" | "label"; x: number; y: number } & CreateFields)
  | { op: "update"; id: string; label?: string; text?: string; locked?: boolean; layout?: "pile" | "row"; ov?: number }
  | { op: "delete"; id: string; ov?: number }
  | { op: "undo" };

export interface CreateFields {
  faces?: string[];
  up?: boolean;
  back?: string;
  label?: string;
  text?: string;
  w?: number;
  h?: number;
  count?: number;
  value?: number;
  step?: number;
  sides?: number;
  color?: string;
  layout?: "pile" | "row";
}
