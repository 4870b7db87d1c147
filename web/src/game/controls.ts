// A rule game's controls, pure (no DOM): which controls a widget shows and which are plain
// buttons or prompts, which cards may be dragged where, the action a double-click makes, the
// cards a "pick" control sends, the countdown, the order "Sort" puts a hand in, and the words for
// a finished game. The server decides everything; this only sorts what it sent.

import type { Control, Game, GameAction, GamePlayer } from "../core/types";
import { parseFace } from "../table/cards";

/** The control group each game-specific widget shows. */
const WIDGET_GROUPS: Record<string, string> = { bid_pad: "bid", knock_picker: "knock" };

export interface SortedControls {
  /** Plain buttons: ungrouped ones, and grouped ones no listed widget shows. */
  buttons: Control[];
  /** Buttons that first need cards selected from the hand (`pick` > 0). */
  picks: Control[];
  /** Controls each shown widget takes, by widget name. */
  widgets: Map<string, Control[]>;
  /** Prompts, one list per question (a prompt and its decline share a group). */
  prompts: Control[][];
  /** Drag controls. */
  drags: Control[];
}

export function sortControls(controls: readonly Control[], widgets: readonly string[]): SortedControls {
  const out: SortedControls = { buttons: [], picks: [], widgets: new Map(), prompts: [], drags: [] };
  const widgetOf = new Map<string, string>();
  for (const w of widgets) if (WIDGET_GROUPS[w]) widgetOf.set(WIDGET_GROUPS[w], w);
  const promptGroups = new Map<string, Control[]>();
  for (const c of controls) {
    if (c.kind === "drag") {
      out.drags.push(c);
    } else if (c.kind === "prompt") {
      const key = c.group || `#${out.prompts.length}`;
      let list = promptGroups.get(key);
      if (!list) {
        list = [];
        promptGroups.set(key, list);
        out.prompts.push(list);
      }
      list.push(c);
    } else if (c.group && widgetOf.has(c.group)) {
      const w = widgetOf.get(c.group) as string;
      out.widgets.set(w, [...(out.widgets.get(w) ?? []), c]);
    } else if ((c.pick ?? 0) > 0) {
      out.picks.push(c);
    } else {
      out.buttons.push(c);
    }
  }
  // A question's own buttons (group members that are plain buttons) go with it.
  for (const list of out.prompts) {
    const group = list[0].group;
    if (!group || widgetOf.has(group)) continue;
    const mates = out.buttons.filter((b) => b.group === group);
    if (!mates.length) continue;
    list.push(...mates);
    out.buttons = out.buttons.filter((b) => b.group !== group);
  }
  return out;
}

// --- drags ---------------------------------------------------------------------------------------

/** A card as this page sees it: its face (when known), where it is ("hand" for your own hand,
 *  else the zone id) and whether it is the top card there. */
export interface CardAt {
  face?: string;
  source: string;
  top: boolean;
}

/** Does dragging these cards (one or several from the same place) fit this drag control? */
export function dragFits(c: Control, cards: readonly CardAt[]): boolean {
  if (c.kind !== "drag" || !cards.length) return false;
  const source = c.source ?? "hand";
  if (!cards.every((k) => k.source === source)) return false;
  const listed = c.cards ?? [];
  if (listed.length) return cards.every((k) => k.face !== undefined && listed.includes(k.face));
  return cards.length === 1 && cards[0].top;
}

/** Where these cards may be dropped: the `dest` of every drag control they fit. */
export function dropTargets(controls: readonly Control[], cards: readonly CardAt[]): Set<string> {
  const out = new Set<string>();
  for (const c of controls) if (c.dest && dragFits(c, cards)) out.add(c.dest);
  return out;
}

/** The one drag control a card fits, for a double-click or Enter; null when none or several. */
export function directControl(controls: readonly Control[], card: CardAt): Control | null {
  const fits = controls.filter((c) => dragFits(c, [card]));
  return fits.length === 1 ? fits[0] : null;
}

/**
 * A single tap on a card draws it when that is all it can do: a face-down top card of a pile
 * (the stock) whose one move is into your hand. Anything with a choice (a face-up discard you
 * may or may not take, a card with two places to go) still wants a drag or a double-click.
 */
export function tapDraw(controls: readonly Control[], card: CardAt): Control | null {
  if (card.source === "hand" || card.face !== undefined || !card.top) return null;
  const c = directControl(controls, card);
  return c && (c.dest ?? "hand") === "hand" ? c : null;
}

/** What may move now: hand cards to glow, and zones that are a drag's source or destination. */
export function dragHints(controls: readonly Control[]): { handFaces: Set<string>; zones: Set<string>; toHand: boolean } {
  const handFaces = new Set<string>();
  const zones = new Set<string>();
  let toHand = false;
  for (const c of controls) {
    if (c.kind !== "drag") continue;
    const source = c.source ?? "hand";
    if (source === "hand") for (const f of c.cards ?? []) handFaces.add(f);
    else zones.add(source);
    if (c.dest === "hand") toHand = true;
    else if (c.dest) zones.add(c.dest);
  }
  return { handFaces, zones, toHand };
}

// --- naming a set's rank (Pennies' rank_chooser) ----------------------------------------------------

/** The rank of a card face (ace 1 .. king 13, a joker 0), or null for other faces. */
function faceRank(face: string): number | null {
  const p = parseFace(face);
  if (p.kind === "joker") return 0;
  return p.kind === "standard" ? (p.rank ?? null) : null;
}

/**
 * The ranks these cards could be a set of, given the ranks wild this round (0 = jokers): each
 * rank of a natural card among them such that every other card is of that rank or wild, and no
 * two cards of that rank are the same card. Two or more: the player must say which (a set of 2s
 * or of aces). The server still judges the meld; this only decides whether to ask.
 */
export function setRanks(faces: readonly string[], wildRanks: readonly number[]): number[] {
  const ranks = faces.map(faceRank);
  if (faces.length < 3 || ranks.some((r) => r === null)) return [];
  const wild = new Set(wildRanks);
  const present = [...new Set(ranks as number[])].filter((r) => r !== 0).sort((a, b) => a - b);
  return present.filter((r) => {
    if (!(ranks as number[]).every((k) => k === r || wild.has(k))) return false;
    const naturals = faces.filter((_, i) => ranks[i] === r);
    return new Set(naturals).size === naturals.length;
  });
}

// --- picks -----------------------------------------------------------------------------------------

/** The action of a `pick` control with the chosen cards, or null until exactly `pick` are chosen. */
export function pickAction(c: Control, faces: readonly string[]): GameAction | null {
  const n = c.pick ?? 0;
  if (n <= 0 || faces.length !== n || new Set(faces).size !== n) return null;
  return { ...c.action, cards: [...faces] };
}

// --- the countdown ---------------------------------------------------------------------------------

/** Seconds left and the fraction of the countdown still to run (1 → 0), or null without one. */
export function timerLeft(timer: Game["timer"], nowSeconds: number): { left: number; frac: number } | null {
  if (!timer || !Number.isFinite(timer.ends)) return null;
  const left = Math.max(0, timer.ends - nowSeconds);
  const total = timer.seconds > 0 ? timer.seconds : left || 1;
  return { left, frac: Math.max(0, Math.min(1, left / total)) };
}

// --- sorting a hand --------------------------------------------------------------------------------

const SUIT_ORDER = "SHCD"; // alternating colours: spades, hearts, clubs, diamonds

function parse(face: string): { suit: number; rank: number } | null {
  const p = parseFace(face);
  return p.kind === "standard" ? { suit: SUIT_ORDER.indexOf(p.suit ?? ""), rank: p.rank ?? 0 } : null;
}

/** Standard cards by suit then rank (the ace high or low), anything else after them by name. */
export function sortFaces(faces: readonly string[], aceHigh: boolean): string[] {
  const key = (f: string): number => {
    const p = parse(f);
    if (!p) return 1000;
    const rank = aceHigh && p.rank === 1 ? 14 : p.rank;
    return p.suit * 20 + rank;
  };
  return [...faces].sort((a, b) => key(a) - key(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The order "Sort" puts a hand in: the melds the engine found first (rummy games; the ace counts
 * low there), then the rest by suit and rank. Melds naming cards not in the hand are skipped.
 */
export function handOrder(faces: readonly string[], melds: readonly (readonly string[])[] | null): string[] {
  const left = new Set(faces);
  const out: string[] = [];
  for (const m of melds ?? []) {
    if (!m.every((f) => left.has(f))) continue;
    for (const f of m) left.delete(f);
    out.push(...m);
  }
  const rest = faces.filter((f) => left.has(f));
  return [...out, ...sortFaces(rest, melds === null)];
}

/** The moves that turn `current` (ids) into `want` (ids): each `[id, index]` as the server
 *  applies a move within a hand (take the card out, insert it at `index`). */
export function reorderMoves(current: readonly string[], want: readonly string[]): [string, number][] {
  const cur = [...current];
  const moves: [string, number][] = [];
  want.forEach((id, i) => {
    if (cur[i] === id) return;
    const from = cur.indexOf(id);
    if (from < 0) return;
    cur.splice(from, 1);
    cur.splice(i, 0, id);
    moves.push([id, i]);
  });
  return moves;
}

// --- words -------------------------------------------------------------------------------------------

const AUXILIARY = /^(do|does|did|will|would|shall|should|can|could|may|is|are|want)$/i;

/** The button text for a question's "yes": its first word, the verb ("Buy the 7 of hearts for
 *  a penny" → "Buy"), or "Yes" for a question that starts otherwise ("Do you want…?"). */
export function yesText(label: string): string {
  const first = /^[A-Za-z]+/.exec(label.trim())?.[0] ?? "";
  return first && !AUXILIARY.test(first) ? first : "Yes";
}

/** A prompt's label as a question: "Buy the 7 of hearts for a penny?". */
export function questionText(label: string): string {
  const text = label.trim();
  return /[?!.]$/.test(text) ? text : `${text}?`;
}

/** "Ana", "Ana and Cy", "Ana, Ben and Cy". */
export function andList(names: readonly string[]): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** Who won, in words for this viewer: "You win", "Ana wins", "You and Cy win", "A tie". */
export function winnersText(winners: readonly number[], players: readonly GamePlayer[], me: number | null): string {
  if (!winners.length) return "Nobody wins";
  if (players.length > 1 && winners.length === players.length && new Set(players.map((p) => p.team)).size > 1) return "A tie";
  const nameOf = (p: number) => (p === me ? "You" : (players.find((x) => x.player === p)?.name ?? `Player ${p + 1}`));
  const ordered = [...winners].sort((a, b) => (a === me ? -1 : b === me ? 1 : a - b));
  const names = ordered.map(nameOf);
  const plural = names.length > 1 || ordered[0] === me;
  return `${andList(names)} ${plural ? "win" : "wins"}`;
}
