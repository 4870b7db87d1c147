// Cards move like cards, pure (no DOM): from the view before a change and the view after it,
// where each card that appeared came from and where each card that went is going. The
// renderer (render.ts) animates from these. A card keeps its id only while it stays put or in
// your own hand: a card played from a hand, gathered into a trick pile or dealt comes out as a
// new card (docs/protocol.md), so the link is read from the change itself:
//
// - a new card showing the face of a card that just went: it is that card, moved (your own
//   play from the hand, a discard taken);
// - a new card in a pile while a hand got smaller: played from that hand (the pile's owner's,
//   when two plays arrive at once; another player's play glides from their place);
// - a new card in your hand while a pile got smaller: drawn from that pile;
// - many new cards in the hands at once: a deal, from the deck (the `stock` pile, else the
//   middle of the table);
// - a few cards gone while a pile grew by as many (a trick gathered to its winner's pile) or a
//   hand grew: they slide there and fade.
//
// In free play (`free`) only two things move by themselves: a shuffle (a pile whose every card
// was replaced by as many new ones: the page riffles it) and a deal (hands grew by as many cards
// as one pile lost, two or more in all: they fly from that pile to each hand). A card a player
// dragged is already where they dropped it.

import { cardIds, isCard, isHand, isStack, type Objects } from "./board";

/** Where a card came from, or is going. */
export type Place = { card: string } | { hand: number } | { stack: string } | { deck: true };

export interface Plan {
  /** New card id -> where it came from. */
  arrive: Map<string, Place>;
  /** Gone card id -> where it is going (a pile or a hand). */
  leave: Map<string, Place>;
  /** Seats whose hand was dealt (grew by at least DEAL cards): their cards fly from the deck. */
  dealt: number[];
  /** Free play: the pile a deal came from (the deck; else the `stock` pile or the middle). */
  deck?: string;
  /** Piles shuffled: every card replaced by a new one, as many as before (two or more). */
  shuffled?: string[];
}

/** A hand growing by this many cards at once is a deal. */
const DEAL = 5;
/** At most this many cards going at once are followed (more: a new deal clearing the table). */
const LEAVE_MAX = 8;

const EMPTY: Plan = { arrive: new Map(), leave: new Map(), dealt: [] };

/** Piles whose cards were all replaced by as many new ones (a shuffle gives every card a new id). */
function shuffledPiles(prev: Objects, next: Objects): string[] {
  const out: string[] = [];
  for (const o of next.values()) {
    const was = prev.get(o.id);
    if (!isStack(o) || !isStack(was) || o.cards.length < 2 || o.cards.length !== was.cards.length) continue;
    const before = new Set(was.cards);
    if (!o.cards.some((c) => before.has(c))) out.push(o.id);
  }
  return out;
}

/** Free play: a shuffle, and a deal (hands grew by as many cards as one pile lost, two or more in
 *  all): the deal's cards in your hand fly from that pile. Nothing else moves by itself. */
function freePlan(prev: Objects, next: Objects, mySeat: number | null, fresh: string[]): Plan {
  const shuffled = shuffledPiles(prev, next);
  const handsBefore = handSizes(prev);
  const grown: number[] = [];
  let total = 0;
  for (const [seat, n] of handSizes(next)) {
    const by = n - (handsBefore.get(seat) ?? 0);
    if (by > 0) {
      grown.push(seat);
      total += by;
    }
  }
  const pile = most(pileSizes(prev), pileSizes(next), -1);
  const arrive = new Map<string, Place>();
  if (total < 2 || !pile || pile.by < total) return { arrive, leave: new Map(), dealt: [], shuffled };
  const myHand = mySeat === null ? undefined : next.get(`hand${mySeat}`);
  const mine = new Set(isHand(myHand) ? cardIds(myHand) : []);
  for (const id of fresh) if (mine.has(id)) arrive.set(id, { deck: true });
  return { arrive, leave: new Map(), dealt: grown.sort((a, b) => a - b), deck: pile.key, shuffled };
}

function handSizes(objs: Objects): Map<number, number> {
  const out = new Map<number, number>();
  for (const o of objs.values()) if (isHand(o)) out.set(o.seat, o.cards ? o.cards.length : o.n);
  return out;
}

function pileSizes(objs: Objects): Map<string, number> {
  const out = new Map<string, number>();
  for (const o of objs.values()) if (isStack(o)) out.set(o.id, o.cards.length);
  return out;
}

/** The one key whose value changed the most in the given direction (ties: none). */
function most<K>(before: Map<K, number>, after: Map<K, number>, sign: 1 | -1): { key: K; by: number } | null {
  let best: { key: K; by: number } | null = null;
  let tie = false;
  for (const [k, a] of after) {
    const by = sign * (a - (before.get(k) ?? 0));
    if (by <= 0) continue;
    if (best && by === best.by) tie = true;
    if (!best || by > best.by) {
      best = { key: k, by };
      tie = false;
    }
  }
  return tie ? null : best;
}

/** What moved between two views, as seen by `mySeat` (null: a spectator); `free`: free play. */
export function plan(prev: Objects, next: Objects, mySeat: number | null, free = false): Plan {
  if (prev === next || prev.size === 0) return EMPTY;
  const fresh: string[] = [];
  for (const [id, o] of next) if (isCard(o) && !prev.has(id)) fresh.push(id);
  if (free) return freePlan(prev, next, mySeat, fresh);
  const gone: string[] = [];
  for (const [id, o] of prev) if (isCard(o) && !next.has(id)) gone.push(id);
  if (!fresh.length && !gone.length) return EMPTY;

  const handsBefore = handSizes(prev);
  const handsAfter = handSizes(next);
  const pilesBefore = pileSizes(prev);
  const pilesAfter = pileSizes(next);
  const dealt: number[] = [];
  for (const [seat, n] of handsAfter) if (n - (handsBefore.get(seat) ?? 0) >= DEAL) dealt.push(seat);
  const arrive = new Map<string, Place>();
  const leave = new Map<string, Place>();

  // The faces of the cards that went (a face shows only where we could see it).
  const goneFace = new Map<string, string>();
  for (const id of gone) {
    const c = prev.get(id);
    if (isCard(c) && c.face !== undefined && !goneFace.has(c.face)) goneFace.set(c.face, id);
  }
  const myHand = mySeat === null ? undefined : next.get(`hand${mySeat}`);
  const mine = new Set(isHand(myHand) ? cardIds(myHand) : []);
  const shrunkHand = most(handsBefore, handsAfter, -1);
  const shrunk = new Set<number>();
  for (const [seat, n] of handsAfter) if (n < (handsBefore.get(seat) ?? 0)) shrunk.add(seat);
  const shrunkPile = most(pilesBefore, pilesAfter, -1);
  const matched = new Set<string>();
  for (const id of fresh) {
    const c = next.get(id);
    if (!isCard(c)) continue;
    const same = c.face !== undefined ? goneFace.get(c.face) : undefined;
    if (same !== undefined && !matched.has(same)) {
      matched.add(same);
      arrive.set(id, { card: same });
    } else if (mine.has(id)) {
      if (mySeat !== null && dealt.includes(mySeat)) arrive.set(id, { deck: true });
      else if (shrunkPile) arrive.set(id, { stack: shrunkPile.key });
    } else if (c.parent && !dealt.length) {
      // Into a pile: from its owner's hand if that shrank (two plays drawn at once), else from
      // the one hand that shrank.
      const pile = next.get(c.parent);
      const owner = isStack(pile) ? (pile as { owner?: number | null }).owner : undefined;
      if (!isStack(pile)) continue;
      if (typeof owner === "number" && shrunk.has(owner)) arrive.set(id, { hand: owner });
      else if (shrunkHand) arrive.set(id, { hand: shrunkHand.key });
    }
  }

  // Cards that went to a pile or a hand: the pile that grew by as many (a trick gathered), or
  // the hand that grew (another player drew).
  const away = gone.filter((id) => !matched.has(id));
  if (away.length && away.length <= LEAVE_MAX && !dealt.length) {
    const grownPile = most(pilesBefore, pilesAfter, 1);
    const grownHand = most(handsBefore, handsAfter, 1);
    const to: Place | null =
      grownPile && grownPile.by >= away.length
        ? { stack: grownPile.key }
        : grownHand && grownHand.key !== mySeat
          ? { hand: grownHand.key }
          : null;
    if (to) for (const id of away) if (!mine.has(id)) leave.set(id, to);
  }
  return { arrive, leave, dealt };
}

/** A box on the stage (px). */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * The transform that draws an element laid out at `to` (its own translate, rotated `rot`
 * degrees) at `from` instead: same centre as `from`, scaled to its width. Elements turn about
 * their centre (transform-origin 50% 50%), so the scale leaves the centre where it is.
 */
export function startTransform(from: Box, to: Box, rot = 0): string {
  const cx = from.x + from.w / 2;
  const cy = from.y + from.h / 2;
  const k = to.w > 0 && from.w > 0 ? from.w / to.w : 1;
  const x = cx - to.w / 2;
  const y = cy - to.h / 2;
  return `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px)${rot ? ` rotate(${rot}deg)` : ""}${Math.abs(k - 1) > 1e-3 ? ` scale(${k.toFixed(3)})` : ""}`;
}

/** The delay before the i-th of n dealt cards sets off (ms): the whole deal in about 0.6 s. */
export function dealDelay(i: number, n: number): number {
  return n <= 1 ? 0 : Math.round((Math.min(i, n - 1) * 600) / n);
}

/** Where the i-th of n cards of a riffled pile starts (px, degrees): the pile cut in two halves
 *  that lie either side of it (`w`: a card's width on screen), slightly turned, and fall back in
 *  turn. */
export function riffleStart(i: number, n: number, w: number): { dx: number; dy: number; rot: number; delay: number } {
  const left = i % 2 === 0;
  const k = n <= 1 ? 0 : i / (n - 1);
  return { dx: (left ? -1 : 1) * w * 0.55, dy: -w * 0.08 * (1 - k), rot: left ? -8 : 8, delay: Math.round(k * 260) };
}
