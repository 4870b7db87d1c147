// Seat plates, pure (no DOM): in a started rule game each engine player has a plate at their
// place round the table (the viewer's at the bottom; a spectator sees player 0 there) with the
// name, "Computer" and its level, the cards held and the game's numbers for that player (Spades:
// bid, tricks taken, the side's bags; Pennies: pennies and score; Gin/Rummy: score), all read
// from the game view (docs/protocol.md, "Game"). The player to act is marked: a computer is
// "thinking", a timed move shows its countdown. `placePlates` finds each plate a spot inside
// the table that covers no other plate, hand or zone (table units, like everything on the table).
// In free play every other seated player has a plate too (`freePlateInfos`): name, cards held,
// online or away, at their seat round the table (`freeFrames`: seats evenly round an oval, yours
// at the bottom, where your hand is).

import { handCount, isHand, isStack, stackBox, WIDGET_SIZE, type Objects } from "../table/board";
import { type Frame, portraitFrame, relative, seating, type TableSize, viewPlaces } from "../table/seating";
import { TABLE_H, TABLE_W, type Game, type Player } from "../core/types";

/** One number beside a name: `key` is stable (tests and CSS), `text` what is shown. */
export interface PlateStat {
  key: string;
  text: string;
}

export interface PlateInfo {
  player: number;
  seat: number;
  name: string;
  /** The viewer's own plate. */
  you: boolean;
  bot: boolean;
  /** A computer's level ("easy", "normal", "hard") when the server says it. */
  level: string | null;
  /** Cards held, when known. */
  cards: number | null;
  stats: PlateStat[];
  /** This player is to act now. */
  acting: boolean;
  /** Acting and a computer: "thinking…". */
  thinking: boolean;
  /** Acting and the move is timed (`game.timer`): a countdown shows. */
  timed: boolean;
  /** The viewer-relative place (0: the bottom). */
  place: number;
  /** Free play: whether the player is here ("online") or has lost the connection for now
   *  ("away"); null in a rule game (its plates say whose turn it is instead). */
  status?: "online" | "away" | null;
}

type View = Record<string, unknown>;

function num(v: unknown): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}

function at(list: unknown, i: number): unknown {
  return Array.isArray(list) ? list[i] : undefined;
}

function bidText(bid: unknown, blind: unknown): string {
  const b = num(bid);
  if (b === null) return "–";
  if (b === 0) return blind ? "Blind nil" : "Nil";
  return String(b);
}

/** The side (team index) of player `p` from a view's `teams` ([[0, 2], [1, 3]]). */
function sideOf(view: View, p: number): number {
  const teams = view.teams;
  if (Array.isArray(teams)) {
    const i = teams.findIndex((t) => Array.isArray(t) && t.includes(p));
    if (i >= 0) return i;
  }
  return p % 2;
}

/** The game's numbers for player `p`, from the view (and the scoreboard when the view lacks them). */
export function gameStats(game: Game, p: number): PlateStat[] {
  const view = (game.view ?? {}) as View;
  const out: PlateStat[] = [];
  // Once the game is over, the score is the final one (with the game's bonuses), as on the sheet.
  const finals = game.outcome?.scores;
  const final = Array.isArray(finals) && finals.length === game.players.length ? num(finals[p]) : null;
  const push = (key: string, label: string, v: unknown) => {
    if (v === undefined || v === null) return;
    out.push({ key, text: `${label} ${v}` });
  };
  switch (game.name) {
    case "spades": {
      out.push({ key: "bid", text: `Bid ${bidText(at(view.bids, p), at(view.blind, p))}` });
      push("tricks", "Took", num(at(view.tricks_taken, p)) ?? 0);
      push("bags", "Bags", num(at(view.bags, sideOf(view, p))));
      return out;
    }
    case "pennies": {
      push("pennies", "Pennies", num(at(view.pennies, p)));
      const scores = view.scores as { totals?: unknown } | undefined;
      push("score", "Score", final ?? num(at(scores?.totals, p)) ?? 0);
      return out;
    }
    default: {
      let score = final ?? num(at(view.scores, p));
      const board = game.scoreboard;
      if (score === null && board && !board.scored && board.columns.length === game.players.length) score = num(board.totals[p]);
      push("score", "Score", score);
      return out;
    }
  }
}

/** Every engine player's plate, as this page sees the game (empty while the game waits). */
export function plateInfos(game: Game | null, objs: Objects, players: readonly Player[] = []): PlateInfo[] {
  const st = seating(game);
  if (!st || !game) return [];
  const view = (game.view ?? {}) as View;
  const acting = new Set(game.to_act ?? []);
  return game.players.map((pl) => {
    const person = players.find((x) => x.seat === pl.seat) as (Player & { level?: unknown }) | undefined;
    const lv = (pl as { level?: unknown }).level ?? person?.level;
    const hand = objs.get(`hand${pl.seat}`);
    const cards = num(at(view.hand_counts, pl.player)) ?? (isHand(hand) ? handCount(hand) : null);
    const bot = !!pl.bot;
    const on = acting.has(pl.player) && !game.outcome;
    return {
      player: pl.player,
      seat: pl.seat,
      name: pl.name,
      you: st.me !== null && pl.player === st.me,
      bot,
      level: bot && typeof lv === "string" && lv ? lv : null,
      cards,
      stats: gameStats(game, pl.player),
      acting: on,
      thinking: on && bot,
      timed: on && !!game.timer,
      place: relative(pl.player, st.me, st.n),
    };
  });
}

/** The other seated players' plates in free play (yours is the hand strip), at their seats as
 *  this page sees them: `seats` places round the table, `me` at the bottom (a spectator: seat 0). */
export function freePlateInfos(players: readonly Player[], objs: Objects, me: number | null, seats: number): PlateInfo[] {
  const n = Math.max(seats, ...players.map((p) => (p.seat ?? -1) + 1));
  const out: PlateInfo[] = [];
  for (const p of players) {
    if (p.seat === null || p.seat === me) continue;
    const hand = objs.get(`hand${p.seat}`);
    const bot = !!p.bot;
    out.push({
      player: p.seat,
      seat: p.seat,
      name: p.name,
      you: false,
      bot,
      level: bot && p.level ? p.level : null,
      cards: isHand(hand) ? handCount(hand) : 0,
      stats: [],
      acting: false,
      thinking: false,
      timed: false,
      place: relative(p.seat, me, n),
      status: p.status === "reconnecting" ? "away" : "online",
    });
  }
  return out.sort((a, b) => a.seat - b.seat);
}

/** Free play's places: `n` seats evenly round an oval just inside `table` (the part of the table
 *  in view, from its top-left corner), place 0 at
 *  the bottom middle and the others going round clockwise (as seen from above), each facing the
 *  middle. */
export function freeFrames(n: number, table: TableSize = { w: TABLE_W, h: TABLE_H }): Frame[] {
  const out: Frame[] = [];
  const [cx, cy] = [table.w / 2, table.h / 2];
  const [rx, ry] = [table.w / 2 - Math.min(90, table.w * 0.15), table.h / 2 - Math.min(60, table.h * 0.1)];
  for (let r = 0; r < n; r++) {
    const a = (2 * Math.PI * r) / Math.max(1, n);
    const x = cx - rx * Math.sin(a);
    const y = cy + ry * Math.cos(a);
    const len = Math.hypot(cx - x, cy - y) || 1;
    out.push({ x, y, fx: (cx - x) / len, fy: (cy - y) / len });
  }
  return out;
}

// --- where the plates go --------------------------------------------------------------------------

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PlateAsk {
  /** The viewer-relative place. */
  place: number;
  w: number;
  h: number;
  /** The player's fanned hand there (null: the viewer's own, in the hand strip). */
  fan: Box | null;
}

/** Kept free between a plate and anything else, and from the table's edge (table units). */
const GAP = 8;
const STEP = 20;

function overlap(a: Box, b: Box): number {
  const w = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function grow(b: Box, by: number): Box {
  return { x: b.x - by, y: b.y - by, w: b.w + 2 * by, h: b.h + 2 * by };
}

/** The places of a started game as this page sees them (portrait ones on an upright phone; with
 *  `objs`, the view drawn, where that view put them). */
export function placeFrames(game: Game | null, table: TableSize | null, objs?: Objects): Frame[] {
  const st = seating(game);
  if (!st) return [];
  if (table && objs) return viewPlaces(objs, st, table);
  return table ? st.frames.map((f) => portraitFrame(f, table)) : st.frames;
}

const offsetCache = new Map<number, [number, number][]>();

/** Offsets (ahead: towards the middle, side) from a plate's ideal spot, nearest first. */
function offsets(reach: number): [number, number][] {
  let list = offsetCache.get(reach);
  if (!list) {
    list = [];
    for (let ahead = -2 * STEP; ahead <= reach + 200; ahead += STEP)
      for (let side = -reach; side <= reach; side += STEP) list.push([ahead, side]);
    list.sort((a, b) => a[0] ** 2 + a[1] ** 2 - (b[0] ** 2 + b[1] ** 2));
    offsetCache.set(reach, list);
  }
  return list;
}

/**
 * A spot for each plate: inside the table, covering no obstacle (zones, markers, hands), no fan
 * and no plate placed before it, as close as it can be to just behind its player's place
 * (towards the table's edge) and nearer its own place than any other. Where no spot is clear,
 * the one that covers least. Plates are placed in order of place (the viewer's first).
 */
export function placePlates(
  frames: readonly Frame[],
  asks: readonly PlateAsk[],
  obstacles: readonly Box[],
  table: TableSize = { w: TABLE_W, h: TABLE_H },
): Box[] {
  const fans = asks.flatMap((a) => (a.fan ? [a.fan] : []));
  const taken: Box[] = [];
  const out: Box[] = new Array(asks.length);
  const order = asks.map((_, i) => i).sort((a, b) => asks[a].place - asks[b].place);
  for (const i of order) {
    const ask = asks[i];
    const f = frames[ask.place];
    if (!f) {
      out[i] = { x: GAP, y: GAP, w: ask.w, h: ask.h };
      continue;
    }
    // The depth of plate and fan along the direction to the middle.
    const depth = Math.abs(f.fx) * ask.w + Math.abs(f.fy) * ask.h;
    const fanDepth = ask.fan ? Math.abs(f.fx) * ask.fan.w + Math.abs(f.fy) * ask.fan.h : 0;
    const back = ask.fan ? fanDepth / 2 + depth / 2 + GAP : 0;
    const ideal = { x: f.x - f.fx * back, y: f.y - f.fy * back };
    const clampX = (x: number) => Math.max(GAP, Math.min(table.w - GAP - ask.w, x));
    const clampY = (y: number) => Math.max(GAP, Math.min(table.h - GAP - ask.h, y));
    const against = [...obstacles.map((b) => grow(b, GAP / 2)), ...fans.map((b) => grow(b, GAP / 2)), ...taken.map((b) => grow(b, GAP))];
    // The spots round the ideal one (clamped into the table), nearest first: the first that
    // covers nothing and is nearer its own place than any other wins; failing that, the one
    // that covers least (being astray counts as much as a large overlap).
    const reach = Math.max(table.w, table.h) / 2;
    const others = frames.filter((_, j) => j !== ask.place && j < asks.length);
    let best: Box | null = null;
    let bestCost = Infinity;
    for (const [ahead, side] of offsets(reach)) {
      const cx = ideal.x + ahead * f.fx - side * f.fy;
      const cy = ideal.y + ahead * f.fy + side * f.fx;
      const box = { x: clampX(cx - ask.w / 2), y: clampY(cy - ask.h / 2), w: ask.w, h: ask.h };
      let covered = 0;
      for (const b of against) covered += overlap(box, b);
      // Nearer another player's place than its own, a plate reads as that player's.
      const mx = box.x + ask.w / 2;
      const my = box.y + ask.h / 2;
      const own = (mx - f.x) ** 2 + (my - f.y) ** 2;
      const astray = others.some((o) => (mx - o.x) ** 2 + (my - o.y) ** 2 < own);
      if (!covered && !astray) {
        best = box;
        break;
      }
      const cost = covered * 100 + Math.hypot(mx - ideal.x, my - ideal.y) + (astray ? 5000 : 0);
      if (cost < bestCost) {
        bestCost = cost;
        best = box;
      }
    }
    out[i] = best as Box;
    taken.push(best as Box);
  }
  return out;
}

/** The boxes plates keep clear of: every pile or zone (with its name, written above it at a
 *  fixed size in pixels: `unit` is table units per pixel) and every marker on the table (table
 *  units, as drawn). */
export function obstacleBoxes(objs: Objects, unit = 1.6): Box[] {
  const out: Box[] = [];
  for (const o of objs.values()) {
    if (isStack(o)) {
      const b = stackBox(o);
      out.push({ x: b.x, y: b.y, w: b.w, h: b.h });
      if (o.label) {
        const w = Math.min(b.w * 2.2, (o.label.length * 9 + 8) * unit);
        const h = 22 * unit;
        out.push({ x: b.x + b.w / 2 - w / 2, y: b.y - h, w, h });
      }
    } else if (o.t === "chips" || o.t === "counter" || o.t === "label" || o.t === "die") {
      const size = WIDGET_SIZE[o.t];
      out.push({ x: o.x, y: o.y, w: o.t === "label" ? Math.min(size.w, 120) : size.w, h: size.h });
    }
  }
  return out;
}

/** A fanned hand's box (table units): `n` backs at (x, y), turned by `rot` degrees, as
 *  render.ts fans them (each back 60 x 84, 9 apart, turned 4 degrees more than the one before
 *  about its bottom middle; at most 13). */
export function fanBox(x: number, y: number, n: number, rot: number): Box {
  const shown = Math.max(1, Math.min(n, 13));
  const mid = (shown - 1) / 2;
  const turn = (rot * Math.PI) / 180;
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let i = 0; i < shown; i++) {
    const a = ((i - mid) * 4 * Math.PI) / 180;
    for (const [cx, cy] of [
      [-30, -84],
      [30, -84],
      [-30, 0],
      [30, 0],
    ]) {
      // About the card's bottom middle, moved along the fan, then about the fan's centre.
      const px = cx * Math.cos(a) - cy * Math.sin(a) + (i - mid) * 9;
      const py = cx * Math.sin(a) + cy * Math.cos(a) + 42;
      const qx = px * Math.cos(turn) - py * Math.sin(turn);
      const qy = px * Math.sin(turn) + py * Math.cos(turn);
      [x0, y0, x1, y1] = [Math.min(x0, qx), Math.min(y0, qy), Math.max(x1, qx), Math.max(y1, qy)];
    }
  }
  return { x: x + x0 - 3, y: y + y0 - 3, w: x1 - x0 + 6, h: y1 - y0 + 6 };
}
