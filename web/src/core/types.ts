// The wire protocol (docs/protocol.md) as TypeScript types. Nothing here has behaviour.

import type { GamePatch } from "./gamepatch";

export { TABLE_H, TABLE_W } from "../net/protocol.gen";
/** Card size in table units. A template zone is 110 x 150: the card sits centred in it. */
export const CARD_W = 100;
export const CARD_H = 140;

export type {
  BoardObj,
  ButtonObj,
  CardObj,
  ChipsObj,
  CounterObj,
  DieObj,
  HandObj,
  LabelObj,
  Obj,
  Op,
  StackObj,
} from "../net/protocol.gen";
import type { HandObj, Obj, StackObj } from "../net/protocol.gen";

export type Container = StackObj | HandObj;

type PlayerStatus = "online" | "reconnecting" | "away";

export interface Player {
  id: string;
  name: string;
  seat: number | null;
  host: boolean;
  /** Optional: servers that track presence send it; missing means online. */
  status?: PlayerStatus;
  /** A computer player (seated by the host in a rule room; the server plays its turns). */
  bot?: boolean;
  /** The browser identity the player joined with (block, mute and favourite are keyed by it). */
  identity?: string;
}

/** A rule engine's action: a plain object with a `type` (Spades: `bid`, `play`, ...). */
export interface GameAction {
  type: string;
  [k: string]: unknown;
}

/**
 * One of your legal actions and how a person makes it. `button`: a button with `label`;
 * `drag`: drag `cards` (or the top card) from `source` to `dest` (zone ids, or "hand");
 * `prompt`: a question with a countdown. `group` gathers controls a widget shows together (`bid`:
 * the bid pad). `pick` > 0: first select that many hand cards; they go in the action as `cards`.
 */
export interface Control {
  action: GameAction;
  label: string;
  kind: "button" | "drag" | "prompt";
  source?: string;
  dest?: string;
  cards?: string[];
  group?: string;
  pick?: number;
}

/** An engine player (turn order) and the table seat that plays it. */
export interface GamePlayer {
  player: number;
  seat: number;
  name: string;
  team: number;
  bot: boolean;
}

interface Scoreboard {
  columns: string[];
  rows: { label: string; cells: (number | string)[] }[];
  totals: number[];
  note: string;
  /** How many leading columns are scores; the rest (Spades' bags) appear in the sheet only. */
  scored?: number;
}

/** One player's cards shown after a hand: melds, the rest, points, a line of words. */
export interface RevealLine {
  player: number;
  melds: string[][];
  cards: string[];
  points: number;
  note: string;
}

/**
 * The rule game's part of a snapshot/delta, the same shape for every game (see
 * docs/protocol.md): who plays where, whose move, your controls, the scores, the reveal.
 */
export interface Game {
  name: string;
  title: string;
  options: Record<string, unknown>;
  /** A computer plays for a seat whose player left (the room option `fill`). */
  fill?: boolean;
  /** Not started yet: players are sitting down. */
  waiting: boolean;
  min_players: number;
  max_players: number;
  /** Engine players in turn order with their table seats; empty while waiting. */
  players: GamePlayer[];
  /** Your engine player, or null (spectator, or not playing). */
  me: number | null;
  phase: string;
  /** One line for everyone ("Ben to bid"). */
  status: string;
  to_act: number[];
  /** A visible countdown: `ends` in epoch seconds. */
  timer: { ends: number; seconds: number } | null;
  controls: Control[];
  /** Why an expected action is unavailable. */
  hint: string | null;
  scoreboard: Scoreboard | null;
  reveal: RevealLine[] | null;
  outcome: { winners: number[]; scores: number[] } | null;
  /** Game-specific widgets to show (`bid_pad`, `knock_picker`). */
  widgets: string[];
  /** Places round the table, index 0 at the bottom: `[x, y]` or `[x, y, fx, fy]`. */
  slots: number[][];
  /** The engine's own view for your player (for widgets), and its raw legal actions. */
  view: Record<string, unknown> | null;
  legal: GameAction[];
}

/** A game a room can play (`GET /api/games`), its options; an error's body. */
export type { ErrorBody as ServerError, GameInfo, OptionInfo } from "../net/protocol.gen";

/** Someone who left the room (away too long) and may come back, with the seat they had. */
export interface Former {
  id: string;
  name: string;
  seat: number | null;
}

export interface Snapshot {
  code: string;
  v: number;
  seats: number;
  template: string;
  players: Player[];
  former?: Former[];
  locked?: boolean;
  /** Listed in the lobby's public tables. */
  public?: boolean;
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
  /** Sent with `players`. */
  former?: Former[];
  locked?: boolean;
  public?: boolean;
  /** Present when the game view changed; null when the rules were turned off. */
  game?: Game | null;
  /** Instead of `game`: what changed since this seat's game view at the previous version. */
  game_patch?: GamePatch;
}

export interface Joined {
  code: string;
  player: string;
  token: string;
  seat: number | null;
  name: string;
  ref: string | number | null;
  /** We came back after leaving, and this seat (ours before) was taken meanwhile: we watch. */
  was_seat?: number | null;
}

export interface Ack {
  ref: string | number | null;
  v: number;
}
