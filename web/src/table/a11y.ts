// Pure: what keyboard and screen-reader users get from the table. The words that name each
// object (a card by its face only when this page may see it, else "face-down card"), which
// objects take focus and in what order (the table read top to bottom, left to right, then your
// hand in its order), and the order of the places a picked-up card may be dropped.

import { cardIds, isCard, isHand, isStack, objBox, topCardId } from "./board";
import type { Objects } from "./board";
import { faceName } from "./cards";
import type { CardObj, Obj, StackObj } from "../core/types";

/** The words for a card this page holds: its face when sent to us, never anything else. */
export function cardName(c: CardObj): string {
  return c.face !== undefined ? faceName(c.face) : "face-down card";
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? "" : "s"}`;
}

export function stackName(s: StackObj): string {
  return s.label || (s.holder ? "Zone" : "Pile");
}

/** The accessible name of a pile or zone: its name, how many cards, and its top card. */
function stackLabel(view: Objects, s: StackObj): string {
  const n = s.cards.length;
  if (!n) return `${stackName(s)}: empty`;
  const top = view.get(topCardId(s) ?? "");
  const topText = isCard(top) && top.face !== undefined ? `top card ${faceName(top.face)}` : "top card face down";
  return `${stackName(s)}: ${plural(n, "card")}, ${s.layout === "row" ? "spread out" : topText}`;
}

/** The accessible name of any object drawn on the table (or in your hand). */
export function objLabel(view: Objects, o: Obj, seat: number | null): string {
  switch (o.t) {
    case "card": {
      const name = cardName(o);
      const p = o.parent ? view.get(o.parent) : undefined;
      if (isHand(p)) return p.seat === seat ? `${name}, in your hand` : name;
      if (isStack(p)) return `${name}, in ${stackName(p)}`;
      return o.locked ? `${name}, locked` : name;
    }
    case "stack":
      return stackLabel(view, o);
    case "chips":
      return `${o.label || "Chips"}: ${plural(o.count, "chip")}`;
    case "counter":
      return `${o.label || "Counter"}: ${o.value}`;
    case "die":
      return `Die, ${o.sides} sides, showing ${o.value}`;
    case "label":
      return `Label: ${o.text}`;
    default:
      return o.t;
  }
}

/** Does this object take keyboard focus? Loose cards, piles, zones, widgets, buttons, every card
 *  of a spread-out pile, and the cards of your own hand; a card inside a pile is reached through
 *  its pile. */
export function focusable(view: Objects, o: Obj, seat: number | null): boolean {
  if (o.t === "hand") return false;
  if (o.t === "card") {
    if (!o.parent) return true;
    const p = view.get(o.parent);
    if (isHand(p)) return p.seat === seat && seat !== null;
    return isStack(p) && p.layout === "row";
  }
  return true; // piles, zones, widgets, buttons (kinds this page doesn't draw have no element)
}

/** Reading order on the table: bands of 120 units by the top edge, left to right in a band. */
function readingKey(view: Objects, o: Obj): [number, number] {
  const b = objBox(view, o) ?? { x: o.x, y: o.y, w: 0, h: 0 };
  return [Math.floor(b.y / 120), b.x + b.w / 2];
}

/** Every focusable object's id in Tab order: the table (reading order; a spread pile's cards
 *  follow the pile), then your hand in its own order. */
export function focusOrder(view: Objects, seat: number | null): string[] {
  const table: { id: string; key: [number, number] }[] = [];
  for (const o of view.values()) {
    if (o.t === "hand" || (o.t === "card" && o.parent) || !focusable(view, o, seat)) continue;
    table.push({ id: o.id, key: readingKey(view, o) });
  }
  table.sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || (a.id < b.id ? -1 : 1));
  const out: string[] = [];
  for (const { id } of table) {
    out.push(id);
    const o = view.get(id);
    if (isStack(o) && o.layout === "row") out.push(...o.cards.filter((c) => view.has(c)));
  }
  const hand = seat === null ? undefined : view.get(`hand${seat}`);
  if (isHand(hand)) out.push(...cardIds(hand).filter((c) => view.has(c)));
  return out;
}

/** The next index in a list of n, wrapping round (step +1 or -1). */
export function cycle(i: number, n: number, step: number): number {
  if (n <= 0) return -1;
  return (((i + step) % n) + n) % n;
}

/** Where a keyboard drop may go, before the page checks each place on the geometry. */
export type Place = { kind: "object"; id: string } | { kind: "hand" } | { kind: "seat"; seat: number; name: string } | { kind: "spot" };

export interface PlaceInput {
  view: Objects;
  seat: number | null;
  /** The ids being carried (cards, a pile or a widget). */
  carried: string[];
  /** A rule room: only piles, zones and the hand; those the game allows come first. */
  game: boolean;
  /** In a rule room, the places the game's controls allow for these cards ("hand" or zone ids). */
  allowed: Set<string>;
  /** Other seated players (free play: give them cards). */
  others: { seat: number; name: string }[];
}

/** The places a carried item may be dropped, in the order the arrow keys go through them. */
export function dropPlaces(p: PlaceInput): Place[] {
  const { view, seat, carried } = p;
  const objs = carried.map((id) => view.get(id)).filter((o): o is Obj => !!o);
  if (!objs.length) return [];
  const cards = objs.filter(isCard);
  const allCards = cards.length === objs.length;
  const primary = objs[0];
  const myHand = seat === null ? null : `hand${seat}`;
  const parents = new Set(cards.map((c) => c.parent));
  const inMyHand = allCards && myHand !== null && cards.every((c) => c.parent === myHand);
  const carriedSet = new Set(carried);
  const onTable: Obj[] = [];
  for (const o of view.values()) {
    if (carriedSet.has(o.id)) continue;
    if (o.t === "stack") {
      if (primary.t === "card" || primary.t === "stack") if (!parents.has(o.id)) onTable.push(o);
    } else if (o.t === "card" && !o.parent && allCards && !p.game) onTable.push(o);
    else if (o.t === "chips" && primary.t === "chips") onTable.push(o);
  }
  onTable.sort((a, b) => {
    const ka = readingKey(view, a);
    const kb = readingKey(view, b);
    return ka[0] - kb[0] || ka[1] - kb[1] || (a.id < b.id ? -1 : 1);
  });
  const handPlace: Place[] = seat !== null && !inMyHand && (allCards || primary.t === "stack") ? [{ kind: "hand" }] : [];
  const objects: Place[] = onTable.map((o) => ({ kind: "object", id: o.id }));
  if (p.game) {
    const all = [...handPlace, ...objects.filter((x) => x.kind === "object" && isStack(view.get(x.id)))];
    const key = (x: Place) => (x.kind === "hand" ? "hand" : x.kind === "object" ? x.id : "");
    return [...all.filter((x) => p.allowed.has(key(x))), ...all.filter((x) => !p.allowed.has(key(x)))];
  }
  const seats: Place[] = allCards ? p.others.map((o) => ({ kind: "seat", seat: o.seat, name: o.name })) : [];
  const spot: Place[] = [{ kind: "spot" }];
  // From a hand the likely move is onto the table; from the table, into your hand.
  return inMyHand ? [...objects, ...spot, ...seats] : [...handPlace, ...objects, ...spot, ...seats];
}

/** The cards named for their holder: "the 7 of hearts", "a face-down card". */
function theCard(c: CardObj): string {
  return c.face !== undefined ? `the ${faceName(c.face)}` : "a face-down card";
}

/**
 * What a player hears of cards that came into their own hand by their own move (their hand shows
 * the faces, so the words may name them): "You drew the 7 of hearts", "You drew 2 cards: the
 * ace of spades and the 3 of clubs"; `dealt`: a deal ("You were dealt 5 cards"). Null: none came.
 */
export function drawnText(cards: readonly CardObj[], dealt = false): string | null {
  if (!cards.length) return null;
  const verb = dealt ? "You were dealt" : "You drew";
  if (cards.length === 1) return `${verb} ${theCard(cards[0])}`;
  if (cards.length > 4) return `${verb} ${plural(cards.length, "card")}`;
  const names = cards.map(theCard);
  return `${verb} ${cards.length} cards: ${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}
