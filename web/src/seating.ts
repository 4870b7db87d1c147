// Viewer-relative seating, pure (no DOM): the server lays a rule game out with engine player p
// at `slots[p]`; every page turns the table so that its own player sits at the bottom
// (`slots[0]`). An object owned by player p keeps its offset from p's place, measured in p's
// frame (forward: towards the table centre; side: forward turned a quarter clockwise), and is
// put at the same offset from the viewer-relative place r = (p - me) mod n.

import { isHand, isStack, stackBox, WIDGET_SIZE, type Objects } from "./board";
import { TABLE_H, TABLE_W, type Game, type Obj } from "./types";

/** A place round the table: its anchor and the unit vector pointing at the table centre. */
export interface Frame {
  x: number;
  y: number;
  fx: number;
  fy: number;
}

/**
 * The frames of `slots` (`[x, y, fx, fy]`, or `[x, y]` when the server leaves the direction out:
 * then it points from the place at the table centre).
 */
export function frames(slots: readonly (readonly number[])[] | null | undefined): Frame[] {
  return (slots ?? []).map((s) => {
    const x = Number(s[0]) || 0;
    const y = Number(s[1]) || 0;
    let fx = Number(s[2]);
    let fy = Number(s[3]);
    if (!Number.isFinite(fx) || !Number.isFinite(fy) || (fx === 0 && fy === 0)) {
      fx = TABLE_W / 2 - x;
      fy = TABLE_H / 2 - y;
    }
    const len = Math.hypot(fx, fy);
    return len > 1e-9 ? { x, y, fx: fx / len, fy: fy / len } : { x, y, fx: 0, fy: -1 };
  });
}

/** Where player `p` sits for a viewer who is player `me` (null: a spectator, who sees as 0). */
export function relative(p: number, me: number | null, n: number): number {
  if (n <= 0) return p;
  return (((p - (me ?? 0)) % n) + n) % n;
}

/** Point (x, y), placed relative to frame `from`, moved to the same place relative to `to`. */
export function movePoint(from: Frame, to: Frame, x: number, y: number): { x: number; y: number } {
  const dx = x - from.x;
  const dy = y - from.y;
  const f = dx * from.fx + dy * from.fy;
  const s = dx * -from.fy + dy * from.fx;
  return { x: to.x + f * to.fx + s * -to.fy, y: to.y + f * to.fy + s * to.fx };
}

/** A box moved like its centre (it is never rotated: rows of cards stay readable). */
export function moveBox(
  from: Frame,
  to: Frame,
  box: { x: number; y: number; w: number; h: number },
): { x: number; y: number } {
  const c = movePoint(from, to, box.x + box.w / 2, box.y + box.h / 2);
  return { x: c.x - box.w / 2, y: c.y - box.h / 2 };
}

/** The seating of a started game as this page sees it, or null when nothing turns. */
export interface Seating {
  frames: Frame[];
  n: number;
  me: number | null;
  /** Engine player of each table seat. */
  playerOf: Map<number, number>;
}

export function seating(game: Game | null): Seating | null {
  if (!game || game.waiting || !Array.isArray(game.players) || !game.players.length) return null;
  const f = frames(game.slots);
  const n = game.players.length;
  if (f.length < n) return null;
  const playerOf = new Map<number, number>();
  for (const p of game.players) playerOf.set(p.seat, p.player);
  return { frames: f, n, me: game.me ?? null, playerOf };
}

/** The size an object covers, for moving it by its centre. */
function boxOf(o: Obj): { x: number; y: number; w: number; h: number } | null {
  if (isStack(o)) return stackBox(o);
  if (o.t === "chips" || o.t === "counter" || o.t === "label") {
    const size = WIDGET_SIZE[o.t];
    return { x: o.x, y: o.y, w: size.w, h: size.h };
  }
  return null;
}

/**
 * The objects as this page draws them: every owned stack and marker moved to the viewer's
 * frame. Returns `objs` itself when nothing moves; otherwise a new map with moved copies (the
 * server's objects are never changed).
 */
export function seatView(objs: Objects, game: Game | null): Objects {
  const st = seating(game);
  if (!st || st.me === null || st.me === 0) return objs; // player 0 and spectators: as laid out
  let out: Objects | null = null;
  for (const o of objs.values()) {
    const owner = (o as { owner?: number | null }).owner;
    if (owner === null || owner === undefined) continue;
    const p = st.playerOf.get(owner);
    const box = boxOf(o);
    if (p === undefined || !box) continue;
    const r = relative(p, st.me, st.n);
    if (r === p) continue;
    const at = moveBox(st.frames[p], st.frames[r], box);
    out ??= new Map(objs);
    out.set(o.id, { ...o, x: at.x, y: at.y });
  }
  return out ?? objs;
}

/** Another player's hand, drawn as card backs at their place round the table. */
export interface HandPlace {
  player: number;
  seat: number;
  name: string;
  /** How many cards (the hand's `n`). */
  n: number;
  /** The place (table units) and the angle (degrees, clockwise) that turns "up" to face it. */
  x: number;
  y: number;
  rot: number;
  /** Unit vector from the place towards the table centre. */
  fx: number;
  fy: number;
}

/**
 * The hands to draw round the table: every engine player's but the viewer's own (which is the
 * hand strip). A spectator sees player 0's hand at the bottom too.
 */
export function handPlaces(objs: Objects, game: Game | null): HandPlace[] {
  const st = seating(game);
  if (!st || !game) return [];
  const out: HandPlace[] = [];
  for (const pl of game.players) {
    if (st.me !== null && pl.player === st.me) continue;
    const hand = objs.get(`hand${pl.seat}`);
    if (!isHand(hand)) continue;
    const f = st.frames[relative(pl.player, st.me, st.n)];
    const rot = Math.round((Math.atan2(f.fx, -f.fy) * 180) / Math.PI);
    out.push({
      player: pl.player,
      seat: pl.seat,
      name: pl.name,
      n: hand.cards ? hand.cards.length : hand.n,
      x: f.x,
      y: f.y,
      rot: ((rot % 360) + 360) % 360,
      fx: f.fx,
      fy: f.fy,
    });
  }
  return out;
}
