// Provably fair deals, checked in the browser: the independent twin of plugins/fair.py (the
// algorithm is in docs/fairness.md). Pure: WebCrypto (crypto.subtle, which Node 20 also has) for
// SHA-256 and HMAC-SHA256, nothing else. verify(record) gives the same verdict, the same
// sentences, as the Python verifier; test/fair.test.mjs holds the two to each other on the cases
// tests/plugins/test_fair_fixture.py emits into test/fixtures/fair_cases.json.

export interface Verdict {
  ok: boolean;
  problems: string[];
}

const VERSION = 1;
const SEED_BYTES = 32;
const SPAN = 2 ** 32;
const HEX = /^[0-9a-f]*$/;
const encoder = new TextEncoder();

/** Where each game deals: cards per hand for n players, and whether an upcard then a stock follow. */
const DEALINGS: Record<string, { perHand: (n: number) => number; upcard: boolean }> = {
  spades: { perHand: () => 13, upcard: false },
  gin_rummy: { perHand: () => 10, upcard: true },
  rummy: { perHand: (n) => (n === 2 ? 10 : 7), upcard: true },
  pennies: { perHand: () => 11, upcard: true },
};

const STANDARD = ["C", "D", "H", "S"].flatMap((suit) => Array.from({ length: 13 }, (_, r) => `${suit}${r + 1}`));

/** `decks` standard decks then `jokers` jokers, red and black in turn (plugins/cards.py deck). */
function cards(decks: number, jokers: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < decks; i++) out.push(...STANDARD);
  for (let i = 0; i < jokers; i++) out.push(i % 2 === 0 ? "J1" : "J2");
  return out;
}

/** Each game's canonical deck for n players (docs/fairness.md, "Each game's deck and deal"). */
const DECKS: Record<string, (n: number) => string[]> = {
  spades: () => cards(1, 0),
  gin_rummy: () => cards(1, 0),
  rummy: () => cards(1, 0),
  pennies: (n) => (n === 2 ? cards(2, 4) : cards(4, 8)),
};

/** The record's game's full deck (null: free play or a game not listed); the players are those listed, else the hands in `dealt`. */
function fullDeck(record: Record<string, unknown>): string[] | null {
  const make = DECKS[String(record.game)];
  if (!make) return null;
  const players = record.players;
  if (Array.isArray(players) && players.length > 0) return make(players.length);
  const dealt = record.dealt;
  return make(Array.isArray(dealt) ? new Set(dealt.map(String).filter((d) => /^[0-9]+$/.test(d))).size : 0);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Lowercase hex of exactly `size` bytes, or null. */
function fromHex(text: unknown, size: number): Uint8Array | null {
  if (typeof text !== "string" || text.length !== 2 * size || !HEX.test(text)) return null;
  const out = new Uint8Array(size);
  for (let i = 0; i < size; i++) out[i] = Number.parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function frame(room: string, deal: number): Uint8Array {
  return encoder.encode(`${room}\0${deal}\0`);
}

async function hmac(key: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const k = await crypto.subtle.importKey("raw", key as BufferSource, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", k, message as BufferSource));
}

/** A player's value: exactly 32 lowercase hex characters (16 bytes). */
export function validValue(v: unknown): boolean {
  return typeof v === "string" && v.length === 32 && HEX.test(v);
}

/** sha256("cardtable-fair-v1\0" || room || "\0" || deal || "\0" || seed) as hex. */
export async function commitment(seed: Uint8Array, room: string, deal: number): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    concat(encoder.encode("cardtable-fair-v1\0"), frame(room, deal), seed) as BufferSource,
  );
  return toHex(new Uint8Array(digest));
}

/** HMAC-SHA256(seed, "cardtable-deal-v1\0" || room || "\0" || deal || "\0" || values joined by ","). */
export async function dealKey(seed: Uint8Array, room: string, deal: number, values: readonly (string | null)[]): Promise<Uint8Array> {
  const joined = values.map((v) => v || "-").join(",");
  return hmac(seed, concat(encoder.encode("cardtable-deal-v1\0"), frame(room, deal), encoder.encode(joined)));
}

/** The first `count` 4-byte big-endian words of HMAC-SHA256(key, label || "\0" || uint64_be(counter)), counter 0, 1, 2... */
export async function stream(key: Uint8Array, label: string, count: number): Promise<number[]> {
  const words: number[] = [];
  const prefix = encoder.encode(`${label}\0`);
  for (let counter = 0; words.length < count; counter++) {
    const block = new Uint8Array(8);
    new DataView(block.buffer).setBigUint64(0, BigInt(counter));
    const bytes = await hmac(key, concat(prefix, block));
    const view = new DataView(bytes.buffer);
    for (let i = 0; i < 32; i += 4) words.push(view.getUint32(i));
  }
  return words.slice(0, count);
}

/** Fisher-Yates from the end: for i = n-1..1, j = u % (i+1) for the first u < 2^32 - 2^32 % (i+1). */
export async function shuffle<T>(items: readonly T[], key: Uint8Array, label = "deal"): Promise<T[]> {
  const out = [...items];
  const words: number[] = [];
  let next = 0;
  const draw = async (): Promise<number> => {
    if (next >= words.length) words.push(...(await stream(key, label, words.length + 64)).slice(words.length));
    return words[next++];
  };
  for (let i = out.length - 1; i > 0; i--) {
    const bound = i + 1;
    const limit = SPAN - (SPAN % bound);
    let u = await draw();
    while (u >= limit) u = await draw();
    const j = u % bound;
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** One card at a time to the hands in turn from hands[first], perHand each; then the upcard and the stock. */
function roundRobin(total: number, hands: string[], first: number, perHand: number, upcard: boolean): string[] {
  const n = hands.length;
  const out: string[] = [];
  for (let i = 0; i < Math.min(total, n * perHand); i++) out.push(hands[(first + i) % n]);
  const rest = total - out.length;
  if (rest > 0) out.push(upcard ? "discard" : "stock", ...Array<string>(rest - 1).fill("stock"));
  return out;
}

/** Where the game deals each card of the record (null: no known game, or nobody got a card). */
function dealing(record: Record<string, unknown>, dealt: string[]): string[] | null {
  const game = DEALINGS[String(record.game)];
  const hands = [...new Set(dealt.filter((d) => /^[0-9]+$/.test(d)))].sort((a, b) => Number(a) - Number(b));
  if (!game || hands.length === 0) return null;
  const dealer = record.dealer;
  let first: number;
  if (Number.isInteger(dealer) && hands.includes(String(dealer))) first = (hands.indexOf(String(dealer)) + 1) % hands.length;
  else first = Math.max(hands.indexOf(dealt[0]), 0);
  return roundRobin(dealt.length, hands, first, game.perHand(hands.length), game.upcard);
}

function differ(want: readonly unknown[], got: readonly unknown[]): string {
  const wrong = want.flatMap((a, i) => (JSON.stringify(a) === JSON.stringify(got[i]) ? [] : [i]));
  if (wrong.length === 0) return "";
  const shown = wrong.slice(0, 5).join(", ") + (wrong.length > 5 ? " ..." : "");
  return `${wrong.length} card(s) (positions ${shown}) are`;
}

function sameCards(a: readonly unknown[], b: readonly unknown[]): boolean {
  const count = new Map<string, number>();
  for (const c of a) count.set(JSON.stringify(c), (count.get(JSON.stringify(c)) ?? 0) + 1);
  for (const c of b) count.set(JSON.stringify(c), (count.get(JSON.stringify(c)) ?? 0) - 1);
  return [...count.values()].every((n) => n === 0);
}

/** The verdict on one deal record: the same checks, in the same order and words, as plugins/fair.py verify. */
export async function verify(input: unknown): Promise<Verdict> {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return { ok: false, problems: ["The record is not a JSON object."] };
  const record = input as Record<string, unknown>;
  const problems: string[] = [];
  if (record.version !== VERSION) problems.push(`Unknown record version ${JSON.stringify(record.version ?? null)} (expected ${VERSION}).`);
  const room = record.room;
  const deal = record.deal;
  if (typeof room !== "string" || room === "") problems.push("The record names no room.");
  if (typeof deal !== "number" || !Number.isInteger(deal) || deal < 0) problems.push("The record has no valid deal number.");
  const seed = fromHex(record.seed, SEED_BYTES);
  if (record.seed === undefined || record.seed === null) problems.push("The seed is not revealed yet: nothing can be checked until it is.");
  else if (seed === null) problems.push("The seed is not 64 lowercase hex characters.");
  let values = record.values as (string | null)[] | null;
  if (!Array.isArray(values) || !values.every((v) => v === null || validValue(v))) {
    problems.push("The players' values must be a list of 32-hex-character strings or null.");
    values = null;
  }
  let deck = record.deck as unknown[] | null;
  let order = record.order as unknown[] | null;
  let dealt = record.dealt as unknown[] | null;
  if (!Array.isArray(deck) || !Array.isArray(order)) {
    problems.push("The record must list the canonical deck and the shuffled order.");
    deck = order = null;
  } else {
    if (!sameCards(deck, order)) problems.push("The order is not a rearrangement of the deck: a card was added or lost.");
    const full = fullDeck(record);
    if (full !== null && JSON.stringify(deck) !== JSON.stringify(full))
      problems.push(`The deck is not the game's full deck (${full.length} cards in their usual order).`);
    else if (full === null && deck.length === 0) problems.push("The deck is empty: there is no deal to check.");
  }
  if (!Array.isArray(dealt) || (order !== null && dealt.length !== order.length)) {
    problems.push("The record must say where each card of the order went, one per card.");
    dealt = null;
  }
  if (problems.length > 0 || seed === null || values === null || deck === null || order === null) return { ok: false, problems };
  const r = room as string;
  const d = deal as number;
  if ((await commitment(seed, r, d)) !== record.commitment)
    problems.push("The seed does not match the commitment published before the deal.");
  const expected = await shuffle(deck, await dealKey(seed, r, d, values), "deal");
  const wrong = differ(expected, order);
  if (wrong) problems.push(`${wrong} not where the seed puts them.`);
  if (dealt !== null) {
    const where = dealt.map(String);
    const should = dealing(record, where);
    const moved = should === null ? "" : differ(should, where);
    if (moved) problems.push(`${moved} not dealt where the game deals them.`);
  }
  return { ok: problems.length === 0, problems };
}
