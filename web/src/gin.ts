// Gin Rummy in the browser, pure (no DOM): the engine's view as types, deadwood arithmetic (the
// same best-arrangement rule as plugins/gin_rummy/melds.py, for labelling knock choices), and
// the plain-words text for whose turn it is and how a hand ended. The server decides everything;
// this only explains `game.view` and `game.legal`.

import type { GameAction } from "./types";

export interface GinReveal {
  melds: string[][];
  deadwood: string[];
  points: number;
}

export interface GinResult {
  hand_no: number;
  dealer: number;
  kind: "knock" | "gin" | "big_gin" | "undercut" | "draw";
  knocker: number | null;
  winner: number | null;
  points: number;
  bonus: number;
  knock_discard: string | null;
  layoffs: { card: string; meld: number }[];
  seats: GinReveal[];
}

export interface GinGameResult {
  winner: number | null;
  reached_target: number;
  shutout: boolean;
  hands_won: number[];
  hand_points: number[];
  counted_hand_points: number[];
  game_bonus: number[];
  line_bonus: number[];
  totals: number[];
}

export interface GinView {
  seat: number | null;
  hand_no: number;
  dealer: number;
  phase: "upcard" | "draw" | "discard" | "layoff" | "hand_over" | "game_over";
  turn: number | null;
  options: Record<string, number>;
  hand: string[] | null;
  arrangement: GinReveal | null;
  hand_counts: number[];
  stock_count: number;
  discard_top: string | null;
  stock_only: boolean;
  drawn: string | null;
  drawn_from: string | null;
  knock: {
    knocker: number;
    kind: string;
    melds: string[][];
    deadwood: string[];
    points: number;
    layoffs: { card: string; meld: number }[];
    discard: string | null;
  } | null;
  scores: number[];
  hands_won: number[];
  draws: number;
  last_result: GinResult | null;
  history: { hand_no: number; kind: string; winner: number | null; points: number }[];
  game_result: GinGameResult | null;
}

// --- options (the room options a Gin game may be created with) ---------------------------------

export interface OptionChoice {
  name: string;
  label: string;
  choices: number[];
  default: number;
  hint: string;
}

export const GIN_OPTIONS: OptionChoice[] = [
  { name: "knock_limit", label: "Knock limit", choices: [10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0], default: 10, hint: "Most deadwood you may knock with (0: Gin only)" },
  { name: "gin_bonus", label: "Gin bonus", choices: [20, 25], default: 25, hint: "" },
  { name: "big_gin_bonus", label: "Big Gin bonus", choices: [25, 31, 50], default: 31, hint: "" },
  { name: "undercut_bonus", label: "Undercut bonus", choices: [10, 20, 25], default: 25, hint: "" },
  { name: "target", label: "Play to", choices: [100, 250, 500], default: 100, hint: "" },
];

// --- cards and deadwood ----------------------------------------------------------------------------

const SUITS = "CDHS";
const SYMBOL: Record<string, string> = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANK: Record<number, string> = { 1: "A", 11: "J", 12: "Q", 13: "K" };

export function parseCard(c: string): { suit: string; rank: number } | null {
  const m = /^([CDHS])(1[0-3]|[1-9])$/.exec(c);
  return m ? { suit: m[1], rank: Number(m[2]) } : null;
}

export function cardValue(c: string): number {
  const p = parseCard(c);
  return p ? Math.min(p.rank, 10) : 0;
}

/** A short label for a card: "7♥", "Q♠", "10♣". */
export function shortName(c: string): string {
  const p = parseCard(c);
  return p ? `${RANK[p.rank] ?? p.rank}${SYMBOL[p.suit]}` : c;
}

export function isRed(c: string): boolean {
  return c.startsWith("H") || c.startsWith("D");
}

export function sortCards(cards: string[]): string[] {
  const key = (c: string) => {
    const p = parseCard(c);
    return p ? SUITS.indexOf(p.suit) * 13 + p.rank : 99;
  };
  return [...cards].sort((a, b) => key(a) - key(b));
}

/** Every set (3-4 of a rank) and run (3+ in suit, ace low) within `cards`, as index bitmasks. */
function candidateMelds(cards: string[]): number[] {
  const parsed = cards.map(parseCard);
  const out: number[] = [];
  const byRank = new Map<number, number[]>();
  const bySuit = new Map<string, { rank: number; i: number }[]>();
  parsed.forEach((p, i) => {
    if (!p) return;
    byRank.set(p.rank, [...(byRank.get(p.rank) ?? []), i]);
    bySuit.set(p.suit, [...(bySuit.get(p.suit) ?? []), { rank: p.rank, i }]);
  });
  for (const idx of byRank.values()) {
    if (idx.length < 3) continue;
    const all = idx.reduce((m, i) => m | (1 << i), 0);
    if (idx.length === 4) {
      out.push(all);
      for (const i of idx) out.push(all & ~(1 << i));
    } else out.push(all);
  }
  for (const list of bySuit.values()) {
    list.sort((a, b) => a.rank - b.rank);
    for (let a = 0; a < list.length; a++) {
      let mask = 1 << list[a].i;
      for (let b = a + 1; b < list.length && list[b].rank === list[b - 1].rank + 1; b++) {
        mask |= 1 << list[b].i;
        if (b - a >= 2) out.push(mask);
      }
    }
  }
  return out;
}

/** The arrangement with the fewest deadwood points (the engine's rule 3), for up to ~12 cards. */
export function bestArrangement(cards: string[]): GinReveal {
  const values = cards.map(cardValue);
  const melds = candidateMelds(cards);
  const sum = (mask: number) => values.reduce((t, v, i) => (mask & (1 << i) ? t + v : t), 0);
  const memo = new Map<number, { got: number; pick: number }>();
  const go = (rem: number): number => {
    if (!rem) return 0;
    const hit = memo.get(rem);
    if (hit) return hit.got;
    const low = rem & -rem;
    let best = go(rem & ~low);
    let pick = 0;
    for (const m of melds) {
      if (!(m & low) || (m & rem) !== m) continue;
      const got = sum(m) + go(rem & ~m);
      if (got > best) {
        best = got;
        pick = m;
      }
    }
    memo.set(rem, { got: best, pick });
    return best;
  };
  const all = cards.length ? (1 << cards.length) - 1 : 0;
  go(all);
  const chosen: string[][] = [];
  let rem = all;
  let used = 0;
  while (rem) {
    const { pick } = memo.get(rem) ?? { pick: 0 };
    if (pick) {
      chosen.push(sortCards(cards.filter((_, i) => pick & (1 << i))));
      used |= pick;
      rem &= ~pick;
    } else rem &= ~(rem & -rem);
  }
  const deadwood = sortCards(cards.filter((_, i) => !(used & (1 << i))));
  return { melds: chosen, deadwood, points: deadwood.reduce((t, c) => t + cardValue(c), 0) };
}

/** Each legal knock card with the deadwood left after discarding it (0 = Gin). */
export function knockChoices(hand: string[], legal: GameAction[]): { card: string; deadwood: number }[] {
  return legal
    .filter((a) => a.type === "knock" && typeof a.card === "string")
    .map((a) => {
      const card = a.card as string;
      return { card, deadwood: bestArrangement(hand.filter((c) => c !== card)).points };
    })
    .sort((a, b) => a.deadwood - b.deadwood || cardValue(b.card) - cardValue(a.card));
}

// --- words ---------------------------------------------------------------------------------------------

export interface Names {
  /** "You" for our own seat, else the player's name (or "Seat N"). */
  who(seat: number | null | undefined): string;
  /** True when `seat` is ours (for verb agreement: "You score" / "Ana scores"). */
  mine(seat: number | null | undefined): boolean;
}

function possessive(n: Names, seat: number): string {
  return n.mine(seat) ? "your" : `${n.who(seat)}'s`;
}

function verb(n: Names, seat: number | null, third: string, second: string): string {
  return n.mine(seat) ? second : third;
}

/** Whose turn it is and what you may do now, in plain words. */
export function statusText(v: GinView, legal: GameAction[], n: Names): string {
  const types = new Set(legal.map((a) => a.type));
  const turn = v.turn;
  const other = turn === null ? "" : n.who(turn);
  switch (v.phase) {
    case "upcard":
      if (types.has("pass")) return "Your turn: take the upcard (drag it to your hand) or pass";
      return `${other} may take the upcard or pass`;
    case "draw":
      if (types.has("draw")) {
        if (v.stock_only) return "Your turn: both passed the upcard, so draw from the stock";
        return "Your turn: draw from the stock or take the top discard";
      }
      return `${other} is drawing`;
    case "discard": {
      if (!types.has("discard") && !types.has("knock") && !types.has("big_gin")) return `${other} is discarding`;
      const extra: string[] = [];
      if (types.has("big_gin")) extra.push("declare Big Gin");
      if (types.has("knock")) extra.push(knockChoices(v.hand ?? [], legal).some((k) => k.deadwood === 0) ? "go Gin" : "knock");
      return `Your turn: discard a card onto the discard pile${extra.length ? `, or ${extra.join(" or ")}` : ""}`;
    }
    case "layoff": {
      const k = v.knock?.knocker ?? 0;
      const d = 1 - k;
      if (types.has("finish_layoff")) {
        if (types.has("lay_off")) return `${n.who(k)} knocked: lay off cards onto ${possessive(n, k)} melds, then Done`;
        return `${n.who(k)} knocked: none of your cards fit ${possessive(n, k)} melds, so click Done`;
      }
      return `${n.who(d)} ${verb(n, d, "is", "are")} laying off cards onto ${possessive(n, k)} melds`;
    }
    case "hand_over":
      return `${resultText(v.last_result, n)}. ${types.has("next_hand") ? "Deal the next hand when you are ready" : "Waiting for the next hand"}`;
    case "game_over": {
      const g = v.game_result;
      if (!g) return "Game over";
      if (g.winner === null) return `Game over: a tie at ${g.totals[0]} points each`;
      const w = g.winner;
      return `Game over: ${n.who(w)} ${verb(n, w, "wins", "win")}, ${g.totals[w]} to ${g.totals[1 - w]}`;
    }
  }
  return "";
}

/** One line on how a hand ended: "Ana knocked and scores 18". */
export function resultText(r: GinResult | null, n: Names): string {
  if (!r) return "The hand is over";
  const k = r.knocker;
  const w = r.winner;
  switch (r.kind) {
    case "draw":
      return "The hand is a draw: nobody scores";
    case "gin":
      return `Gin! ${n.who(k)} ${verb(n, k, "scores", "score")} ${r.points}`;
    case "big_gin":
      return `Big Gin! ${n.who(k)} ${verb(n, k, "scores", "score")} ${r.points}`;
    case "undercut":
      return `${n.who(w)} undercut ${k === null ? "the knocker" : n.who(k)} and ${verb(n, w, "scores", "score")} ${r.points}`;
    default:
      return `${n.who(k)} knocked and ${verb(n, k, "scores", "score")} ${r.points}`;
  }
}

/** How the points of a hand were counted, e.g. "Ben's deadwood 21 − Ana's 3 = 18". */
export function pointsText(r: GinResult, n: Names): string {
  if (r.kind === "draw" || r.knocker === null || r.seats.length < 2) return "";
  const k = r.knocker;
  const d = 1 - k;
  const kd = r.seats[k].points;
  const dd = r.seats[d].points;
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  switch (r.kind) {
    case "gin":
    case "big_gin":
      return `${r.kind === "gin" ? "Gin" : "Big Gin"} bonus ${r.bonus} + ${possessive(n, d)} deadwood ${dd} = ${r.points}`;
    case "undercut":
      return `Undercut bonus ${r.bonus} + (${possessive(n, k)} deadwood ${kd} − ${possessive(n, d)} ${dd}) = ${r.points}`;
    default:
      return `${cap(possessive(n, d))} deadwood ${dd} − ${possessive(n, k)} ${kd} = ${r.points}`;
  }
}

export const KIND_TEXT: Record<string, string> = { knock: "Knock", gin: "Gin", big_gin: "Big Gin", undercut: "Undercut", draw: "Draw" };
