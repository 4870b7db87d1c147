// Viewer-relative seating, pure (no DOM): the server lays a rule game out with engine player p
// at `slots[p]`; every page turns the table so that its own player sits at the bottom
// (`slots[0]`). An object owned by player p keeps its offset from p's place, measured in p's
// frame (forward: towards the table centre; side: forward turned a quarter clockwise), and is
// put at the same offset from the viewer-relative place r = (p - me) mod n.

import { type Item, packBand, shelve, stackDown } from "./bands";
import { isHand, isStack, stackBox, WIDGET_SIZE, type Objects } from "./board";
import { TABLE_H, TABLE_W, type Game, type Obj } from "../core/types";

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
export function moveBox(from: Frame, to: Frame, box: { x: number; y: number; w: number; h: number }): { x: number; y: number } {
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
export function seatView(objs: Objects, game: Game | null, table: TableSize | null = null): Objects {
  const st = seating(game);
  if (st && table) return portraitView(objs, st, table);
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
export function handPlaces(objs: Objects, game: Game | null, table: TableSize | null = null): HandPlace[] {
  const st = seating(game);
  if (!st || !game) return [];
  const bands = table ? banded.get(objs) : undefined;
  const places = bands ? bands.places : table ? st.frames.map((f) => portraitFrame(f, table)) : st.frames;
  const out: HandPlace[] = [];
  for (const pl of game.players) {
    if (st.me !== null && pl.player === st.me) continue;
    const hand = objs.get(`hand${pl.seat}`);
    if (!isHand(hand)) continue;
    const r = relative(pl.player, st.me, st.n);
    if (bands?.plateOnly.has(r)) continue; // a side seat on a phone: its plate says how many
    const f = places[r];
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

// --- a phone held upright ----------------------------------------------------------------------
//
// The server lays a game out on the landscape 1600 x 1000 table. On an upright phone that table
// would leave cards a quarter of their size, so the page draws a game on a portrait table
// instead (`TableSize`, e.g. 900 x 1270): each place keeps its edge, its distance from that edge
// and its share along it; each player's objects keep their offsets from their place, then are
// drawn together into that player's part of the table (their half of it, from their edge to the
// middle; squeezed along an axis only when they would not fit); the objects nobody owns keep
// their offsets from the centre, squeezed the same way if needed. Boxes keep their sizes.

/** A table size in table units (the landscape one is TABLE_W x TABLE_H). */
export interface TableSize {
  w: number;
  h: number;
}

/** A label's usual text width (table units), for placing it on a portrait table. */
const LABEL_TEXT_W = 80;
/** The height of a zone's name over it on a phone (12 px at a scale of about 0.4). */
const ZONE_LABEL_H = 32;
/** Room kept free round the edge and between the halves (table units). */
const EDGE = 10;

/** Where a landscape place goes on a portrait table: same edge, same distance from it, same
 *  share along it, same direction. */
export function portraitFrame(f: Frame, t: TableSize): Frame {
  if (Math.abs(f.fy) >= Math.abs(f.fx)) {
    const y = f.fy < 0 ? t.h - (TABLE_H - f.y) : f.y;
    return { x: (f.x / TABLE_W) * t.w, y, fx: f.fx, fy: f.fy };
  }
  const x = f.fx < 0 ? t.w - (TABLE_W - f.x) : f.x;
  return { x, y: (f.y / TABLE_H) * t.h, fx: f.fx, fy: f.fy };
}

/**
 * Centres along one axis fitted into [lo, hi] (boxes keep their size). With an `anchor` (a
 * place's coordinate) that point stays put and each side of it is squeezed towards it as much
 * as it must; without one, the boxes move as one when they fit, else are squeezed towards their
 * middle. Returns the mapping of a centre.
 */
export function fitSpan(items: readonly { c: number; half: number }[], lo: number, hi: number, anchor?: number): (c: number) => number {
  if (!items.length) return (c) => c;
  if (anchor !== undefined && anchor > lo && anchor < hi) {
    // The largest k in [0, 1] for which every box on one side fits.
    const side = (sign: number): number => {
      const fits = (k: number) =>
        items.every(
          (i) =>
            (i.c - anchor) * sign <= 0 ||
            (sign > 0 ? anchor + k * (i.c - anchor) + i.half <= hi : anchor + k * (i.c - anchor) - i.half >= lo),
        );
      if (fits(1)) return 1;
      let kl = 0;
      let kh = 1;
      for (let n = 0; n < 40; n++) {
        const m = (kl + kh) / 2;
        if (fits(m)) kl = m;
        else kh = m;
      }
      return kl;
    };
    const kl = side(-1);
    const kh = side(1);
    return (c) => anchor + (c < anchor ? kl : kh) * (c - anchor);
  }
  let cmin = Infinity;
  let cmax = -Infinity;
  for (const i of items) {
    cmin = Math.min(cmin, i.c);
    cmax = Math.max(cmax, i.c);
  }
  const c0 = (cmin + cmax) / 2;
  const extent = (k: number): [number, number] => {
    let a = Infinity;
    let b = -Infinity;
    for (const i of items) {
      const c = c0 + k * (i.c - c0);
      a = Math.min(a, c - i.half);
      b = Math.max(b, c + i.half);
    }
    return [a, b];
  };
  let k = 1;
  let [a, b] = extent(1);
  if (b - a > hi - lo) {
    let kl = 0;
    let kh = 1;
    for (let n = 0; n < 40; n++) {
      const m = (kl + kh) / 2;
      const [ma, mb] = extent(m);
      if (mb - ma > hi - lo) kh = m;
      else kl = m;
    }
    k = kl;
    [a, b] = extent(k);
  }
  const shift = b - a > hi - lo ? (lo + hi) / 2 - (a + b) / 2 : a < lo ? lo - a : b > hi ? hi - b : 0;
  return (c) => c0 + k * (c - c0) + shift;
}

/** The part of a portrait table a place's objects go in: from its edge to the middle. */
function partOf(f: Frame, t: TableSize): { x: [number, number]; y: [number, number] } {
  const all = { x: [EDGE, t.w - EDGE] as [number, number], y: [EDGE, t.h - EDGE] as [number, number] };
  if (Math.abs(f.fy) >= Math.abs(f.fx)) return { ...all, y: f.fy < 0 ? [t.h / 2 + EDGE, t.h - EDGE] : [EDGE, t.h / 2 - EDGE] };
  return { ...all, x: f.fx > 0 ? [EDGE, t.w / 2 - EDGE] : [t.w / 2 + EDGE, t.w - EDGE] };
}

/** How many pairs of these boxes overlap. */
function crossings(list: readonly { x: number; y: number; w: number; h: number }[]): number {
  let n = 0;
  for (let i = 0; i < list.length; i++)
    for (let j = i + 1; j < list.length; j++) {
      const [a, b] = [list[i], list[j]];
      if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) n++;
    }
  return n;
}

function portraitView(objs: Objects, st: Seating, t: TableSize): Objects {
  const places = st.frames.map((f) => portraitFrame(f, t));
  // Each object's box on the portrait table before fitting, by group (a place, or "middle").
  type Placed = Item & { above: number };
  const groups = new Map<number, Placed[]>();
  const MIDDLE = -1;
  for (const o of objs.values()) {
    const box = boxOf(o);
    if (!box) continue;
    // A label is as wide as its text, from its left ("Bid 3": some 80 units of its 200); a
    // zone's name is written above it.
    if (o.t === "label") box.w = LABEL_TEXT_W;
    const above = isStack(o) && o.label ? ZONE_LABEL_H : 0;
    box.y -= above;
    box.h += above;
    const owner = (o as { owner?: number | null }).owner;
    const p = owner === null || owner === undefined ? undefined : st.playerOf.get(owner);
    let g = MIDDLE;
    let at = { x: box.x + (t.w - TABLE_W) / 2, y: box.y + (t.h - TABLE_H) / 2 };
    if (p !== undefined && st.frames[p]) {
      g = relative(p, st.me, st.n);
      at = moveBox(st.frames[p], places[g], box);
    }
    const list = groups.get(g) ?? [];
    list.push({ id: o.id, x: at.x, y: at.y, w: box.w, h: box.h, above, flow: isStack(o) && o.layout === "row" });
    groups.set(g, list);
  }
  if (inBands(objs, places)) return bandView(objs, places, groups, t);
  // A group into its part: the boxes that stick out pushed in (when that lays none on another),
  // else the whole group squeezed towards its place.
  const fit = (list: Placed[], x: [number, number], y: [number, number], f?: Frame): Placed[] => {
    const pushed = list.map((b) => ({
      ...b,
      x: Math.max(x[0], Math.min(x[1] - b.w, b.x)),
      y: Math.max(y[0], Math.min(y[1] - b.h, b.y)),
    }));
    if (crossings(pushed) <= crossings(list)) return pushed;
    const fx = fitSpan(
      list.map((b) => ({ c: b.x + b.w / 2, half: b.w / 2 })),
      x[0],
      x[1],
      f?.x,
    );
    const fy = fitSpan(
      list.map((b) => ({ c: b.y + b.h / 2, half: b.h / 2 })),
      y[0],
      y[1],
      f?.y,
    );
    return list.map((b) => ({ ...b, x: fx(b.x + b.w / 2) - b.w / 2, y: fy(b.y + b.h / 2) - b.h / 2 }));
  };
  const fitted = new Map<number, Placed[]>();
  for (const [g, list] of groups) {
    const part = g === MIDDLE ? null : partOf(places[g], t);
    fitted.set(g, fit(list, part ? part.x : [EDGE, t.w - EDGE], part ? part.y : [EDGE, t.h - EDGE], part ? places[g] : undefined));
  }
  // The places at the sides reach the corners along the long edges, where the top and bottom
  // places' things lie: a side place's things are squeezed along the side towards their place
  // until they clear those (the ones in the side's half of the table: the middle is for tricks).
  for (const [g, list] of groups) {
    if (g === MIDDLE || Math.abs(places[g].fx) <= Math.abs(places[g].fy)) continue;
    const part = partOf(places[g], t);
    const others: Placed[] = [];
    for (const [o, l] of fitted)
      if (o !== g && o !== MIDDLE && Math.abs(places[o].fy) > Math.abs(places[o].fx))
        others.push(...l.filter((b) => b.x + b.w / 2 >= part.x[0] && b.x + b.w / 2 <= part.x[1]));
    let [lo, hi] = part.y;
    for (let round = 0; round < 6; round++) {
      const mine = fitted.get(g) as Placed[];
      let nlo = lo;
      let nhi = hi;
      for (const a of mine)
        for (const b of others) {
          if (!(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h)) continue;
          if (b.y + b.h / 2 < t.h / 2) nlo = Math.max(nlo, b.y + b.h + EDGE);
          else nhi = Math.min(nhi, b.y - EDGE);
        }
      if ((nlo === lo && nhi === hi) || nhi - nlo < (part.y[1] - part.y[0]) / 2) break;
      [lo, hi] = [nlo, nhi];
      fitted.set(g, fit(list, part.x, [lo, hi], places[g]));
    }
  }
  const out: Objects = new Map(objs);
  for (const list of fitted.values()) for (const b of list) out.set(b.id, { ...(objs.get(b.id) as Obj), x: b.x, y: b.y + b.above });
  return out;
}

// --- a phone held upright, with players at the sides -------------------------------------------
//
// Players at the sides of a portrait table have only half its width, and so do the things in the
// middle between them: with melds on the table (Pennies, Rummy with 3-4 players) that is too
// little. Then the table is cut into bands across its whole width instead, top to bottom: the
// top player's, the right player's, the middle, the left player's and the bottom player's. A side
// player shrinks to its plate at its edge of its band (no fanned hand: the plate counts the
// cards), its melds beside it; the top and bottom players keep their rows, each with room for
// its hand and plate at its place; the middle's rows take the full width. The bands are packed
// by bands.ts and stacked down the table.

/** The room kept for a plate (table units: a phone's plates are drawn large). */
export const PLATE_W = 300;
export const PLATE_H = 165;
/** The room kept for another player's fanned hand (13 backs, see plates.ts fanBox). */
const FAN_ROOM = 220;

/** What the band layout of a view put where: the places (a side's at its plate) and the
 *  places whose hand is not drawn. Kept per view, for handPlaces and the plates. */
interface Bands {
  places: Frame[];
  plateOnly: Set<number>;
}
const banded = new WeakMap<Objects, Bands>();

/** The places of a view drawn on table `t` (the band layout's when it used one). */
export function viewPlaces(objs: Objects, st: Seating, t: TableSize): Frame[] {
  return banded.get(objs)?.places ?? st.frames.map((f) => portraitFrame(f, t));
}

const isSide = (f: Frame) => Math.abs(f.fx) > Math.abs(f.fy);

/** Bands when some place is at a side and the game lays melds (fanned row zones: "New meld" too,
 *  so that the table does not change its layout when the first meld goes down). */
function inBands(objs: Objects, places: readonly Frame[]): boolean {
  if (!places.some(isSide)) return false;
  for (const o of objs.values()) if (isStack(o) && o.layout === "row") return true;
  return false;
}

function bandView(objs: Objects, places: Frame[], groups: Map<number, (Item & { above: number })[]>, t: TableSize): Objects {
  const MIDDLE = -1;
  const lo = EDGE;
  const hi = t.w - EDGE;
  type Block = { g: number; h: number; spots: { id: string; x: number; y: number }[]; seat?: { x: number; y: number } };
  const blocks: Block[] = [];
  const seat = "\u0000seat";
  const at = (g: number) => places[g];
  const order = [...places.keys()].sort((a, b) => rank(at(a)) - rank(at(b)));
  for (const g of [MIDDLE, ...order]) {
    const items = groups.get(g) ?? [];
    if (g === MIDDLE) {
      if (items.length) blocks.push({ g, ...packBand(items, lo, hi) });
      continue;
    }
    const f = at(g);
    if (isSide(f)) {
      // The plate at the band's edge, the rest beside it going away from it (its counters
      // first, then its melds in reading order).
      const left = f.fx > 0;
      const sorted = [...items].sort((a, b) => Number(!!a.flow) - Number(!!b.flow) || a.y - b.y || a.x - b.x);
      const [from, to] = left ? [lo + PLATE_W + 2 * EDGE, hi] : [lo, hi - PLATE_W - 2 * EDGE];
      const packed = shelve(sorted, from, to);
      const width = new Map(sorted.map((b) => [b.id, b.w]));
      blocks.push({
        g,
        h: Math.max(PLATE_H, packed.h),
        spots: left ? packed.spots : packed.spots.map((p) => ({ ...p, x: from + to - p.x - (width.get(p.id) ?? 0) })),
        seat: { x: left ? lo + PLATE_W / 2 : hi - PLATE_W / 2, y: PLATE_H / 2 },
      });
      continue;
    }
    // Top or bottom: room for the hand and the plate at the place, in its row.
    const top = f.fy > 0;
    const w = top ? FAN_ROOM + EDGE + PLATE_W : PLATE_W;
    const mark: Item = { id: seat, x: f.x - (top ? FAN_ROOM / 2 : w / 2), y: top ? EDGE : t.h - EDGE - PLATE_H, w, h: PLATE_H };
    const packed = packBand([...items, mark], lo, hi);
    const m = packed.spots.find((s) => s.id === seat) as { x: number; y: number };
    blocks.push({
      g,
      h: packed.h,
      spots: packed.spots.filter((s) => s.id !== seat),
      seat: { x: m.x + (top ? FAN_ROOM / 2 : w / 2), y: m.y + (top ? f.y - EDGE : PLATE_H / 2) },
    });
  }
  // Top to bottom: top player, right, middle, left, bottom.
  const down = (b: Block) => (b.g === MIDDLE ? 2 : [0, 1, 3, 4][rank(at(b.g))]);
  blocks.sort((a, b) => down(a) - down(b));
  const tops = stackDown(
    blocks.map((b) => b.h),
    EDGE,
    t.h - EDGE,
  );
  const out: Objects = new Map(objs);
  const newPlaces = places.map((f) => ({ ...f }));
  const plateOnly = new Set<number>();
  const above = new Map<string, number>();
  for (const list of groups.values()) for (const b of list) above.set(b.id, b.above);
  blocks.forEach((b, i) => {
    for (const s of b.spots) out.set(s.id, { ...(objs.get(s.id) as Obj), x: s.x, y: tops[i] + s.y + (above.get(s.id) ?? 0) });
    if (b.seat && b.g !== MIDDLE) {
      newPlaces[b.g] = { ...places[b.g], x: b.seat.x, y: tops[i] + b.seat.y };
      if (isSide(places[b.g])) plateOnly.add(b.g);
    }
  });
  banded.set(out, { places: newPlaces, plateOnly });
  return out;
}

/** A place's order down the table among top (0), right (1), left (2) and bottom (3). */
function rank(f: Frame): number {
  if (!isSide(f)) return f.fy > 0 ? 0 : 3;
  return f.fx < 0 ? 1 : 2;
}
