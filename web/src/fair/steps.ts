// Stepping through a finished hand's record (docs/fairness.md, "The record"): the server serves
// `steps`, the position after the deal and after each action, every card face up; this module
// only walks them (forwards, back, to either end) and writes what a step shows in words. Pure: the
// replay view (replay.ts) draws it, test/replay.test.mjs checks it. Also what a seated page sends
// for the deal waiting for values (`valueFor`, `randomValue`).

interface ZoneStep {
  id: string;
  label: string;
  faces: string[];
}

interface Step {
  text: string;
  hands: Record<string, string[]>;
  zones: ZoneStep[];
}

interface RecordPlayer {
  seat: number;
  name: string;
  computer: boolean;
}

/** The part of a served record the replay reads. */
export interface HandRecord {
  room: string;
  game: string;
  deal: number;
  players: RecordPlayer[];
  values: (string | null)[];
  steps: Step[];
}

/** Which step to show after `move` from step `at` of `count` ("first", "back", "next", "last"). */
export function stepTo(at: number, count: number, move: "first" | "back" | "next" | "last"): number {
  if (count <= 0) return 0;
  const want = move === "first" ? 0 : move === "last" ? count - 1 : move === "back" ? at - 1 : at + 1;
  return Math.max(0, Math.min(count - 1, want));
}

/** "Deal dealt (step 1 of 58)" or "Move 3 of 57: Ana played the 7 of hearts". */
export function stepCaption(record: HandRecord, at: number): string {
  const total = record.steps.length - 1;
  const step = record.steps[at];
  if (!step) return "";
  if (total === 0) return step.text; // a free-play shuffle: one position, the pile
  return at === 0 ? `The deal (before move 1 of ${total})` : `Move ${at} of ${total}: ${step.text}`;
}

const RANKS: Record<number, string> = { 1: "A", 11: "J", 12: "Q", 13: "K" };
const SUITS: Record<string, string> = { H: "♥", D: "♦", C: "♣", S: "♠" };

/** A short label for a face: "7♥", "Q♠", "10♣"; anything else as it is. */
export function cardLabel(face: string): string {
  const suit = SUITS[face[0] ?? ""];
  const rank = Number(face.slice(1));
  if (!suit || !Number.isInteger(rank) || rank < 1 || rank > 13) return face;
  return `${RANKS[rank] ?? String(rank)}${suit}`;
}

/** Each player's cards at a step, in seat order, named: what the replay lists. */
export function handsAt(record: HandRecord, at: number): { name: string; cards: string[] }[] {
  const step = record.steps[at];
  if (!step) return [];
  return record.players.map((p) => ({
    name: p.computer ? `${p.name} (computer)` : p.name,
    cards: (step.hands[String(p.seat)] ?? []).map(cardLabel),
  }));
}

/** The deal a seated page should send its value for now, or null: a deal is waiting, this page
 *  sits at the table, its seat has not sent one, and this page has not answered that commitment
 *  (a game played again commits to a new deal 1: a new commitment). */
export function valueFor(
  fair: { deal: number; commitment: string; sent: readonly number[] } | null | undefined,
  seat: number | null,
  answered: ReadonlySet<string>,
): number | null {
  if (!fair || seat === null) return null;
  if (fair.sent.includes(seat) || answered.has(fair.commitment)) return null;
  return fair.deal;
}

/** 16 random bytes from the browser's source, as 32 lowercase hex characters. */
export function randomValue(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
