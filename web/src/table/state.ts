// The client's state: the authoritative server state, our pending (optimistic) operations, and
// the view the page shows (server state + pending overlay), plus UI-only bits. The page is
// always rendered from `view`; nothing is ever read back from the DOM.

import { Draft, type Objects, predict, seatedSeats, stripHidden } from "./board";
import { seating, seatView, type TableSize } from "./seating";
import type { FairPending, Former, Game, Obj, Op, Player } from "../core/types";

export interface Pending {
  ref: number;
  op: Op;
  /** Its operation id, sent with it every time (a retry too), so it is applied at most once. */
  opid: string;
  /** Sent on the current connection (false: waiting in the outbox until we are joined). */
  sent: boolean;
  /** Version the server committed it as (from `ack`); dropped once we have applied it. */
  ackV?: number;
}

type ConnStatus = "connecting" | "online" | "down" | "gave-up";

interface LogLine {
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
  /** People who left (away too long) and may come back, with the seats they had. */
  former: Former[];
  /** The host closed the room to new players. */
  locked: boolean;
  /** The host listed the room in the lobby's public tables. */
  public: boolean;
  /** Free play with fair shuffles on: the next shuffle, waiting for the pages' values. */
  fair: FairPending | null;
  /** The rule game as this seat sees it (status, controls, scores...), or null in free play. */
  game: Game | null;
  server: Objects;
  pending: Pending[];
  /** server + pending, turned so that you sit at the bottom in a game (`recompute`). */
  view: Objects;
  me: { player: string | null; seat: number | null; name: string };
  log: LogLine[];
  conn: ConnStatus;
  selected: Set<string>;
  hover: string | null;
  /** The portrait table this page's stage calls for (an upright phone), set by the room. */
  portrait: TableSize | null;
  /** The table a game is drawn on here: `portrait` while a game is seated, else null (the
   *  landscape table). Set by `recompute`. */
  table: TableSize | null;
}

export function newState(code: string, name: string): State {
  return {
    code,
    v: -1,
    seats: 0,
    template: "",
    players: [],
    former: [],
    locked: false,
    public: false,
    fair: null,
    game: null,
    server: new Map(),
    pending: [],
    view: new Map(),
    me: { player: null, seat: null, name },
    log: [],
    conn: "connecting",
    selected: new Set(),
    hover: null,
    portrait: null,
    table: null,
  };
}

/** Rebuild the view from the server state and the pending operations, in order; in a game,
 *  the objects of each player are then moved so that this page's player sits at the bottom. */
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
  s.table = s.portrait && seating(s.game) ? s.portrait : null;
  s.view = seatView(s.view, s.game, s.table);
  for (const id of [...s.selected]) if (!s.view.has(id)) s.selected.delete(id);
}

export function me(s: State): Player | undefined {
  return s.players.find((p) => p.id === s.me.player);
}

/** May this page create, change and delete objects? The host always; everyone else once the
 *  host let everyone edit (the room's `board` object says `edit: "all"`). */
export function mayEdit(s: State): boolean {
  return !!me(s)?.host || everyoneEdits(s);
}

/** Has the host let everyone edit (the room's `board` object says `edit: "all"`)? */
export function everyoneEdits(s: State): boolean {
  const board = s.view.get("board");
  return board?.t === "board" && board.edit === "all";
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
    former: s.former,
    locked: s.locked,
    public: s.public,
    fair: s.fair,
    game: s.game,
    conn: s.conn,
    objects: plain(s.view),
    server: plain(s.server),
    pending: s.pending.map((p) => ({ ...p })),
    log: s.log.map((l) => l.text),
    selected: [...s.selected],
  };
}

/** The person who left a free seat (away too long) and may come back to it, if any: the last
 *  to leave from it. A seat someone sits at belongs to nobody else. */
export function vacatedBy(s: Pick<State, "former" | "players">, seat: number): Former | null {
  if (s.players.some((p) => p.seat === seat)) return null;
  let found: Former | null = null;
  for (const f of s.former) if (f.seat === seat) found = f;
  return found;
}

/** Free seats where sitting down takes over nobody's cards (`counts`: cards in each seat's hand). */
export function openSeats(s: Pick<State, "players" | "seats">, counts: readonly number[]): number[] {
  const taken = new Set(s.players.map((p) => p.seat));
  const out: number[] = [];
  for (let seat = 0; seat < s.seats; seat++) if (!taken.has(seat) && !(counts[seat] > 0)) out.push(seat);
  return out;
}

/** The question to ask before sitting at `seat`, or null to sit at once: a free seat whose hand
 *  still holds cards is someone's, taken over only on purpose. */
export function takeOverQuestion(s: Pick<State, "former" | "players">, seat: number, cards: number): string | null {
  if (!(cards > 0) || s.players.some((p) => p.seat === seat)) return null;
  const who = vacatedBy(s, seat);
  const whose = who ? `${who.name}'s seat` : `Seat ${seat + 1}`;
  return `Take over ${whose}, ${cards} card${cards === 1 ? "" : "s"}?`;
}
