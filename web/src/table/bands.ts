// Pure geometry for a game with players at the sides on an upright phone (seating.ts): the
// table is cut into bands, top to bottom, and each band's boxes are packed into it. A band is
// as wide as the table; its boxes keep their rows (boxes whose heights overlap share a row) and
// their places along a row when the row fits, and are packed left to right into lines when it
// does not (rows of melds together, so they fill every line).

/** A box to place: its id, where it lies now (its top-left) and its size. */
export interface Item {
  id: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** A row of melds (a fanned row zone): such rows are packed together when they must wrap. */
  flow?: boolean;
}

/** A placed box: top-left, relative to its band's top (y) and to the table (x). */
interface Spot {
  id: string;
  x: number;
  y: number;
}

/** A band's boxes placed, and how deep it is. */
export interface Packed {
  spots: Spot[];
  h: number;
}

/** Room between boxes (table units). */
const GAP = 8;

/** `items` left to right in lines of `[lo, hi]`, in the order given, each line as deep as its
 *  deepest box; a box wider than the span gets a line of its own. */
export function shelve(items: readonly Item[], lo: number, hi: number): Packed {
  const spots: Spot[] = [];
  let x = lo;
  let y = 0;
  let line = 0;
  for (const it of items) {
    if (x > lo && x + it.w > hi) {
      y += line + GAP;
      x = lo;
      line = 0;
    }
    spots.push({ id: it.id, x, y });
    x += it.w + GAP;
    line = Math.max(line, it.h);
  }
  return { spots, h: items.length ? y + line : 0 };
}

/** The rows of `items`: boxes whose heights overlap (transitively) share one; top row first,
 *  each row's boxes from left to right. */
export function rows(items: readonly Item[]): Item[][] {
  const out: { top: number; bottom: number; items: Item[] }[] = [];
  for (const it of [...items].sort((a, b) => a.y - b.y || a.x - b.x)) {
    const last = out[out.length - 1];
    if (last && it.y < last.bottom) {
      last.items.push(it);
      last.bottom = Math.max(last.bottom, it.y + it.h);
    } else out.push({ top: it.y, bottom: it.y + it.h, items: [it] });
  }
  return out.map((r) => r.items.sort((a, b) => a.x - b.x));
}

/**
 * `items` packed into `[lo, hi]` across: row by row, each row kept as it lies (moved across as a
 * whole only as far as it must to be inside) when it fits and no two of its boxes overlap, else
 * packed into lines (consecutive
 * rows of melds together), centred. Rows are `GAP` apart (or as far as they were, if less than
 * twice that).
 */
export function packBand(items: readonly Item[], lo: number, hi: number): Packed {
  const spots: Spot[] = [];
  let y = 0;
  let prevBottom: number | null = null;
  const all = rows(items);
  for (let i = 0; i < all.length; i++) {
    let row = all[i];
    const left = Math.min(...row.map((b) => b.x));
    const right = Math.max(...row.map((b) => b.x + b.w));
    const top = Math.min(...row.map((b) => b.y));
    const gap = prevBottom === null ? 0 : Math.max(GAP, Math.min(2 * GAP, top - prevBottom));
    if (prevBottom !== null) y += gap;
    if (right - left <= hi - lo && !crossed(row)) {
      const shift = left < lo ? lo - left : right > hi ? hi - right : 0;
      const depth = Math.max(...row.map((b) => b.y + b.h)) - top;
      for (const b of row) spots.push({ id: b.id, x: b.x + shift, y: y + b.y - top });
      y += depth;
      prevBottom = top + depth;
      continue;
    }
    // Too wide: this row and the rows of melds after it, in reading order, into lines.
    if (row.every((b) => b.flow)) while (i + 1 < all.length && all[i + 1].every((b) => b.flow)) row = [...row, ...all[++i]];
    const packed = shelve(row, lo, hi);
    // Each line centred across.
    const lines = new Map<number, Spot[]>();
    for (const s of packed.spots) lines.set(s.y, [...(lines.get(s.y) ?? []), s]);
    const width = new Map(row.map((b) => [b.id, b.w]));
    for (const line of lines.values()) {
      const last = line[line.length - 1];
      const shift = (hi - (last.x + (width.get(last.id) ?? 0))) / 2;
      for (const s of line) spots.push({ id: s.id, x: s.x + shift, y: y + s.y });
    }
    y += packed.h;
    prevBottom = Math.max(...row.map((b) => b.y + b.h));
  }
  return { spots, h: y };
}

/** Whether two of these boxes overlap (a place's room laid over a row of melds). */
function crossed(list: readonly Item[]): boolean {
  for (let i = 0; i < list.length; i++)
    for (let j = i + 1; j < list.length; j++) {
      const [a, b] = [list[i], list[j]];
      if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h) return true;
    }
  return false;
}

/**
 * Tops for blocks of these depths stacked down `[lo, hi]`, in order: the first at `lo`, the last
 * ending at `hi`, the room left shared equally between them; when they do not fit, they are
 * spread evenly (and overlap as little as they can).
 */
export function stackDown(depths: readonly number[], lo: number, hi: number): number[] {
  if (!depths.length) return [];
  const total = depths.reduce((a, b) => a + b, 0);
  const gaps = depths.length - 1;
  const gap = gaps ? (hi - lo - total) / gaps : 0;
  const out: number[] = [];
  let y = gaps ? lo : lo + (hi - lo - total) / 2;
  for (const d of depths) {
    out.push(y);
    y += d + gap;
  }
  return out;
}
