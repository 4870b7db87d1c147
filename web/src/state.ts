// The client's state: the authoritative server state, our pending (optimistic) operations, and
// the view the page shows (server state + pending overlay), plus UI-only bits. The page is
// always rendered from `view`; nothing is ever read back from the DOM.

import { Draft, type Objects, predict, seatedSeats, stripHidden } from "./board";
import type { Game, Obj, Op, Player } from "./types";

export interface Pending {
  ref: number;
  op: Op;
  /** Sent on the current connection (false: waiting in the outbox until we are joined). */
  sent: boolean;
  /** Version the server committed it as (from `ack`); dropped once we have applied it. */
  ackV?: number;
}

export type ConnStatus = "connecting" | "online" | "down" | "gave-up";

export interface LogLine {
  text: string;
  at: number;
}

export interface State {
  code: string;
  /** Server state; `v` is -1 until the first snapshot. */
  v: number;
  seats: number;
  template: string;
  players: Player[];
  /** The host closed the room to new players. */
  locked: boolean;
  /** The rule plugin's view and legal moves for this seat, or null in free play. */
  game: Game | null;
  server: Objects;
  pending: Pending[];
  /** server + pending, recomputed by `recompute`. */
  view: Objects;
  me: { player: string | null; seat: number | null; name: string };
  log: LogLine[];
  conn: ConnStatus;
  selected: Set<string>;
  hover: string | null;
}

export function newState(code: string, name: string): State {
  return {
    code,
    v: -1,
    seats: 0,
    template: "",
    players: [],
    locked: false,
    game: null,
    server: new Map(),
    pending: [],
    view: new Map(),
    me: { player: null, seat: null, name },
    log: [],
    conn: "connecting",
    selected: new Set(),
    hover: null,
  };
}

/** Rebuild the view from the server state and the pending operations, in order. */
export function recompute(s: State): void {
  if (!s.pending.length) {
    s.view = s.server;
  } else {
    const d = new Draft(s.server);
    const seated = seatedSeats(s.players);
    for (const p of s.pending) predict(d, p.op, { seat: s.me.seat, seated, tmpId: `tmp${p.ref}` });
    stripHidden(d, s.me.seat);
    s.view = d.objs;
  }
  for (const id of [...s.selected]) if (!s.view.has(id)) s.selected.delete(id);
}

export function me(s: State): Player | undefined {
  return s.players.find((p) => p.id === s.me.player);
}

export function playerAt(s: State, seat: number): Player | undefined {
  return s.players.find((p) => p.seat === seat);
}

/** A plain-data copy of the state, for tests (`window.__cardtable.dump()`) and debugging. */
export function dump(s: State): unknown {
  const plain = (m: Objects): Obj[] => [...m.values()];
  return {
    code: s.code,
    v: s.v,
    seats: s.seats,
    me: s.me,
    players: s.players,
    locked: s.locked,
    game: s.game,
    conn: s.conn,
    objects: plain(s.view),
    server: plain(s.server),
    pending: s.pending.map((p) => ({ ...p })),
    log: s.log.map((l) => l.text),
    selected: [...s.selected],
  };
}
