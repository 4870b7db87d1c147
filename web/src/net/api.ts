// The connection to the server: Socket.IO, joining and rejoining with our token, applying deltas
// strictly in version order (holding early ones, resyncing on a gap), and sending operations
// with a `ref` so that `ack`/`error` settle our optimistic (pending) changes.

import { io, type Socket } from "socket.io-client";
import * as msgpackParser from "socket.io-msgpack-parser";
import { applyDelta } from "../table/board";
import { type Pending, type State, recompute } from "../table/state";
import type { Ack, Delta, Joined, Op, Player, ServerError, Snapshot } from "../core/types";
import { load, newOpid, rememberRoom, save, tokenKey } from "../core/util";
import { applyGamePatch } from "../core/gamepatch";
import type { Dragging, Removed } from "./protocol.gen";

export type Fatal = "not-found" | "full" | "locked" | "removed" | "bad-name" | "gave-up";

export interface Hooks {
  /** Something in the state changed: render (batched by the caller). */
  changed(): void;
  /** A delta from the server was applied (after `changed` is due). */
  applied(d: Delta, mine: boolean): void;
  /** A snapshot replaced the state. */
  snapshot(): void;
  /** One of our operations was refused: the view has been rolled back. */
  rejected(p: Pending, err: ServerError): void;
  /** A message for the user (a toast). */
  notice(text: string, kind?: "error" | "info"): void;
  /** Another player is dragging these objects (table coordinates), if the server relays drags. */
  remoteDrag?(by: string, items: { id: string; x: number; y: number }[]): void;
  /** The room can't be shown any more (screen replaces the table). */
  fatal(kind: Fatal, message: string): void;
  /** The connection went down or came back; `left` is the seconds before we give up. */
  status(left: number | null): void;
  /** We came back after leaving, and our old seat had been taken meanwhile: we watch now. */
  seatTaken?(seat: number): void;
}

export interface ConnOptions {
  /** Seconds to keep reconnecting before giving up and showing the "Disconnected" screen. */
  giveUpAfter: number;
}

const GAP_WAIT_MS = 1000;
const MAX_RETRIES = 5; // retryable refusals are sent again this many times before we give up

export class Conn {
  readonly socket: Socket;
  private held = new Map<number, Delta>();
  private gapTimer: number | null = null;
  private joined = false;
  private nextRef = 1;
  private retries = new Map<string | number, number>();
  private requests = new Map<string, { event: string; payload: Record<string, unknown> }>();
  private joinRef = 0;
  private downSince: number | null = null;
  private downTimer: number | null = null;
  private stopped = false;
  private settle = new Map<number, (ok: boolean) => void>();
  /** Optional server features named in the snapshot (`features: ["drag"]`). */
  readonly features = new Set<string>();
  private lastDragSent = 0;
  private dragNext: { id: string; x: number; y: number }[] | null = null;
  private dragTimer: number | null = null;
  /** Runs before each join (e.g. `hello`); its fields are added to the join (identity, seat). */
  beforeJoin: ((withToken: boolean) => Promise<Record<string, unknown>>) | null = null;
  /** Sees a refused join first; true: handled (nothing else is done). */
  joinRefused: ((e: ServerError) => boolean) | null = null;
  /** Our old seat, taken while we were away (from `joined`), to tell once the table is here. */
  private seatTaken: number | null = null;

  constructor(
    readonly s: State,
    private hooks: Hooks,
    private opts: ConnOptions,
  ) {
    this.socket = io({
      transports: ["websocket"],
      // msgpack on the wire (docs/protocol.md, "Wire format"): smaller frames, cheaper to encode
      parser: msgpackParser,
      autoConnect: false,
      reconnectionDelay: 400,
      reconnectionDelayMax: 2500,
      timeout: 8000,
    });
    const sock = this.socket;
    sock.on("connect", () => this.onConnect());
    sock.on("disconnect", (reason) => this.onDisconnect(reason));
    sock.on("connect_error", () => this.markDown());
    sock.on("joined", (d: Joined) => this.onJoined(d));
    sock.on("snapshot", (d: Snapshot) => this.onSnapshot(d));
    sock.on("delta", (d: Delta) => this.onDelta(d));
    sock.on("ack", (d: Ack) => this.onAck(d));
    sock.on("error", (d: ServerError) => this.onError(d));
    sock.on("drag", (d: Partial<Dragging>) => {
      if (d && typeof d.by === "string" && Array.isArray(d.items) && d.by !== this.s.me.player)
        this.hooks.remoteDrag?.(d.by, d.items.slice(0, 40));
    });
    sock.on("removed", (d: Partial<Removed> | undefined) => this.onRemoved(d));
    window.addEventListener("offline", () => {
      // The browser knows the network is gone: don't wait for a ping timeout to notice.
      if (sock.connected) sock.io.engine?.close();
    });
    window.addEventListener("online", () => {
      if (!sock.connected && !this.stopped) {
        sock.disconnect();
        sock.connect();
      }
    });
  }

  get isJoined(): boolean {
    return this.joined && this.socket.connected;
  }

  start(): void {
    this.stopped = false;
    this.s.conn = "connecting";
    this.socket.connect();
  }

  /** After giving up (or being removed): try again from scratch, keeping our token. */
  /** Join again now with these extra fields (e.g. `anyway: true`). */
  joinWith(extra: Record<string, unknown>): void {
    if (this.socket.connected) this.sendJoin(true, extra);
  }

  rejoin(): void {
    this.downSince = null;
    this.socket.disconnect();
    this.start();
    this.hooks.changed();
  }

  stop(): void {
    this.stopped = true;
    this.clearDown();
    this.socket.disconnect();
  }

  // --- joining ---------------------------------------------------------------------------------

  private onConnect(): void {
    this.sendJoin(true);
  }

  private sendJoin(withToken: boolean, extra?: Record<string, unknown>): void {
    const s = this.s;
    const token = withToken ? load(tokenKey(s.code)) : null;
    if (this.beforeJoin && !extra) {
      const ref = ++this.joinRef;
      void this.beforeJoin(!!token).then((more) => {
        if (ref === this.joinRef && this.socket.connected) this.sendJoin(withToken, more);
      });
      return;
    }
    const payload: Record<string, unknown> = { code: s.code, name: s.me.name, ...extra, ref: `join${++this.joinRef}` };
    if (token) {
      payload.token = token;
      if (s.v >= 0) payload.since = s.v;
    }
    this.socket.emit("join", payload);
  }

  private onJoined(d: Joined): void {
    const s = this.s;
    save(tokenKey(s.code), d.token);
    rememberRoom(s.code);
    s.me.player = d.player;
    s.me.seat = d.seat;
    s.me.name = d.name;
    s.conn = "online";
    this.joined = true;
    this.clearDown();
    this.hooks.status(null);
    // Operations sent on an earlier connection and never answered: the resync that follows
    // shows whether they happened; stop predicting them.
    s.pending = s.pending.filter((p) => {
      const keep = !p.sent || p.ackV !== undefined;
      if (!keep) this.settled(p.ref, false);
      return keep;
    });
    for (const p of s.pending) if (!p.sent) this.send(p);
    recompute(s);
    this.hooks.changed();
    // Said once the table that follows has arrived, so that who sits there now is known.
    this.seatTaken = typeof d.was_seat === "number" ? d.was_seat : null;
  }

  private flushSeatTaken(): void {
    if (this.seatTaken === null || this.s.v < 0) return;
    const seat = this.seatTaken;
    this.seatTaken = null;
    this.hooks.seatTaken?.(seat);
  }

  private onRemoved(d: Partial<Removed> | undefined): void {
    if (d && d.reason === "away" && this.socket.connected) {
      // We were away too long and left the room, but it remembers us: come back as ourselves
      // (to our seat, if nobody has taken it).
      this.joined = false;
      this.s.v = -1;
      this.sendJoin(true);
      return;
    }
    save(tokenKey(this.s.code), null);
    this.stop();
    const fallback =
      d && d.reason === "host" ? "The host removed you from this room." : "You were removed from this room after being away too long.";
    const why = d && typeof d.message === "string" && d.message ? d.message : fallback;
    this.hooks.fatal("removed", why);
  }

  // --- server state --------------------------------------------------------------------------

  private onSnapshot(d: Snapshot): void {
    const s = this.s;
    s.server = new Map(d.objects.map((o) => [o.id, o]));
    s.v = d.v;
    s.seats = d.seats;
    s.template = d.template;
    s.locked = !!d.locked;
    s.public = !!d.public;
    s.fair = d.fair ?? null;
    // The room's recent log, the first time we see the room (later snapshots keep ours).
    const { log, log_at: logAt } = d as unknown as { log?: unknown; log_at?: unknown };
    if (!s.log.length && Array.isArray(log)) {
      // Each line keeps the time it was written (0: unknown, shown without a time).
      const times = Array.isArray(logAt) && logAt.length === log.length ? logAt : [];
      log.forEach((l, i) => {
        if (typeof l !== "string" || i < log.length - 50) return;
        const at = Number(times[i]);
        s.log.push({ text: l, at: Number.isFinite(at) && at > 0 ? at * 1000 : 0 });
      });
    }
    s.game = d.game ?? null;
    const features = (d as unknown as { features?: unknown }).features;
    if (Array.isArray(features)) for (const f of features) if (typeof f === "string") this.features.add(f);
    this.setPlayers(d.players);
    s.former = Array.isArray(d.former) ? d.former : [];
    this.prune();
    recompute(s);
    this.hooks.snapshot();
    this.hooks.changed();
    this.drain();
    this.flushSeatTaken();
  }

  private onDelta(d: Delta): void {
    if (this.s.v >= 0 && d.v <= this.s.v) return;
    this.held.set(d.v, d);
    this.drain();
  }

  private drain(): void {
    const s = this.s;
    if (s.v < 0) return;
    for (const v of [...this.held.keys()]) if (v <= s.v) this.held.delete(v);
    const applied: Delta[] = [];
    let next = this.held.get(s.v + 1);
    while (next) {
      this.held.delete(next.v);
      applyDelta(s.server, next);
      if (next.players) this.setPlayers(next.players);
      if (Array.isArray(next.former)) s.former = next.former;
      if (next.locked !== undefined) s.locked = next.locked;
      if (next.public !== undefined) s.public = next.public;
      if (next.fair !== undefined) s.fair = next.fair;
      if (next.game !== undefined) s.game = next.game;
      else if (next.game_patch && s.game) s.game = applyGamePatch(s.game, next.game_patch);
      if (next.log && next.log_replaces && s.log.length) {
        s.log[s.log.length - 1] = { text: next.log, at: Date.now() }; // a burst of clicks: one line
      } else if (next.log) s.log.push({ text: next.log, at: Date.now() });
      s.v = next.v;
      applied.push(next);
      next = this.held.get(s.v + 1);
    }
    if (s.log.length > 300) s.log.splice(0, s.log.length - 300);
    if (applied.length) {
      this.prune();
      recompute(s);
      this.hooks.changed();
      for (const d of applied) this.hooks.applied(d, d.by === s.me.player);
      this.flushSeatTaken();
    }
    if (this.held.size) {
      if (this.gapTimer === null) this.gapTimer = window.setTimeout(() => this.onGap(), GAP_WAIT_MS);
    } else if (this.gapTimer !== null) {
      clearTimeout(this.gapTimer);
      this.gapTimer = null;
    }
  }

  private onGap(): void {
    this.gapTimer = null;
    if (!this.held.size) return;
    if (this.isJoined) this.socket.emit("sync", { since: this.s.v });
    this.gapTimer = window.setTimeout(() => this.onGap(), 2 * GAP_WAIT_MS);
  }

  private setPlayers(players: Player[]): void {
    const s = this.s;
    s.players = players;
    const mine = players.find((p) => p.id === s.me.player);
    if (mine) {
      s.me.seat = mine.seat;
      s.me.name = mine.name;
    }
  }

  /** Drop pending operations the server state already includes. */
  private prune(): void {
    const s = this.s;
    s.pending = s.pending.filter((p) => {
      const keep = p.ackV === undefined || p.ackV > s.v;
      if (!keep) this.settled(p.ref, true);
      return keep;
    });
  }

  private settled(ref: number, ok: boolean): void {
    const fn = this.settle.get(ref);
    if (fn) {
      this.settle.delete(ref);
      fn(ok);
    }
  }

  /** Resolves once the operation is part of our server state (true) or was refused (false). */
  whenSettled(p: Pending): Promise<boolean> {
    if (!this.s.pending.includes(p)) return Promise.resolve(p.ackV !== undefined);
    return new Promise((resolve) => this.settle.set(p.ref, resolve));
  }

  // --- operations ----------------------------------------------------------------------------

  op(op: Op): Pending {
    const p: Pending = { ref: this.nextRef++, op, opid: newOpid(), sent: false };
    this.s.pending.push(p);
    recompute(this.s);
    if (this.isJoined) this.send(p);
    this.hooks.changed();
    return p;
  }

  private send(p: Pending): void {
    this.socket.emit("op", { ...p.op, opid: p.opid, ref: p.ref });
    p.sent = true;
  }

  /**
   * Share where we are dragging things, for other players to see the move live. Only when the
   * server offers it (`features` has "drag"); throttled; positions only, never faces.
   */
  dragging(items: { id: string; x: number; y: number }[]): void {
    if (!items.length) {
      // The drag ended: the committed move (or nothing) follows; drop any trailing update.
      if (this.dragTimer !== null) clearTimeout(this.dragTimer);
      this.dragTimer = null;
      this.dragNext = null;
      return;
    }
    if (!this.features.has("drag") || !this.isJoined) return;
    this.dragNext = items.slice(0, 20);
    const wait = 70 - (performance.now() - this.lastDragSent);
    if (wait <= 0) this.flushDrag();
    else if (this.dragTimer === null) this.dragTimer = window.setTimeout(() => this.flushDrag(), wait);
  }

  private flushDrag(): void {
    if (this.dragTimer !== null) clearTimeout(this.dragTimer);
    this.dragTimer = null;
    if (!this.dragNext) return;
    this.lastDragSent = performance.now();
    this.socket.volatile.emit("drag", { items: this.dragNext });
    this.dragNext = null;
  }

  /** A non-table request (`seat`, `rename`, `game`, `fair`, `host`); errors come back as notices. */
  request(event: "seat" | "rename" | "game" | "fair" | "host", payload: Record<string, unknown>): void {
    if (!this.isJoined) {
      this.hooks.notice("Not connected: try again in a moment.", "error");
      return;
    }
    const ref = `${event}${this.nextRef++}`;
    const withId = { ...payload, opid: newOpid() }; // a retry sends the same id again
    this.requests.set(ref, { event, payload: withId });
    this.socket.emit(event, { ...withId, ref });
  }

  /**
   * A retryable refusal (a busy room, the store briefly away, a burst over the rate limit):
   * send the same thing again after a growing, jittered pause, a few times, before giving up.
   */
  private retryLater(ref: string | number, again: () => void): boolean {
    const n = (this.retries.get(ref) ?? 0) + 1;
    if (n > MAX_RETRIES) {
      this.retries.delete(ref);
      return false;
    }
    this.retries.set(ref, n);
    const wait = Math.random() * Math.min(3000, 150 * 2 ** n);
    window.setTimeout(() => {
      if (this.isJoined) again();
    }, wait);
    return true;
  }

  private onAck(d: Ack): void {
    if (d.ref !== null) {
      this.retries.delete(d.ref);
      if (typeof d.ref === "string") this.requests.delete(d.ref);
    }
    const p = this.s.pending.find((x) => x.ref === d.ref);
    if (!p || d.v === null) return; // v is null only for a sync's ack, never an operation's
    p.ackV = d.v;
    if (d.v <= this.s.v) {
      this.prune();
      recompute(this.s);
      this.hooks.changed();
    }
  }

  private onError(e: ServerError): void {
    const ref = e.ref;
    if (typeof ref === "string" && ref.startsWith("join")) return this.onJoinError(e);
    const i = this.s.pending.findIndex((x) => x.ref === ref);
    if (i >= 0 && e.retryable) {
      const p = this.s.pending[i];
      if (this.retryLater(p.ref, () => this.send(p))) return;
    }
    const req = typeof ref === "string" ? this.requests.get(ref) : undefined;
    if (req && e.retryable && typeof ref === "string") {
      if (this.retryLater(ref, () => this.socket.emit(req.event, { ...req.payload, ref }))) return;
    }
    if (ref !== null) this.retries.delete(ref);
    if (typeof ref === "string") this.requests.delete(ref);
    if (e.code === "unconfirmed") {
      // Given up on: it may have been made after all, and then the table shows it.
      e = { ...e, message: "We could not confirm your move; the table shows whether it was made." };
    }
    if (i >= 0) {
      const [p] = this.s.pending.splice(i, 1);
      this.settled(p.ref, false);
      recompute(this.s);
      this.hooks.changed();
      this.hooks.rejected(p, e);
      return;
    }
    if (e.code === "not_joined" && this.socket.connected) {
      this.joined = false;
      this.sendJoin(true);
      return;
    }
    this.hooks.notice(e.message || e.code, "error");
  }

  private onJoinError(e: ServerError): void {
    if (this.joinRefused?.(e)) return;
    switch (e.code) {
      case "bad_token":
        save(tokenKey(this.s.code), null);
        this.s.v = -1;
        this.sendJoin(false);
        return;
      case "room_not_found":
        this.stop();
        this.hooks.fatal("not-found", e.message);
        return;
      case "room_full":
        this.stop();
        this.hooks.fatal("full", e.message);
        return;
      case "room_locked":
        this.stop();
        this.hooks.fatal("locked", e.message);
        return;
      case "removed":
        // The host removed us: our token is refused for good; we may join as someone new.
        save(tokenKey(this.s.code), null);
        this.stop();
        this.hooks.fatal("removed", e.message);
        return;
      case "bad_request":
        this.stop();
        this.hooks.fatal("bad-name", e.message);
        return;
      default:
        // rate_limited, unavailable, internal: try again shortly.
        this.hooks.notice(e.message || e.code, "error");
        window.setTimeout(() => {
          if (this.socket.connected && !this.joined) this.sendJoin(true);
        }, 2000);
    }
  }

  // --- connection trouble ----------------------------------------------------------------------

  private onDisconnect(reason: string): void {
    this.joined = false;
    if (this.stopped || reason === "io client disconnect") return;
    if (reason === "io server disconnect") this.socket.connect();
    this.markDown();
  }

  private markDown(): void {
    if (this.stopped) return;
    this.joined = false;
    this.s.conn = "down";
    if (this.downSince === null) this.downSince = Date.now();
    if (this.downTimer === null) this.downTimer = window.setInterval(() => this.tick(), 250);
    this.tick();
  }

  private tick(): void {
    if (this.downSince === null) return;
    const left = Math.ceil(this.opts.giveUpAfter - (Date.now() - this.downSince) / 1000);
    if (left <= 0) {
      this.stop();
      this.s.conn = "gave-up";
      this.hooks.status(null);
      this.hooks.fatal("gave-up", "The connection to the table was lost.");
      this.hooks.changed();
      return;
    }
    this.hooks.status(left);
  }

  private clearDown(): void {
    this.downSince = null;
    if (this.downTimer !== null) clearInterval(this.downTimer);
    this.downTimer = null;
  }
}
