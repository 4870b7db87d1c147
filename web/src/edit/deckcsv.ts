// Reading a deck from text, in the page (pure: node-tested in test/deckdesign.test.mjs): CSV rows
// (quotes, doubled quotes, commas and line breaks inside quotes), a header row recognised and
// its columns mapped (which column is the text, the count, the colour, the picture), and the
// typed list (`text, colour, count` a line). The server checks the cards again when the deck is
// created (server/table/decks.py); reading here gives a preview before anything is sent.

export interface DeckCard {
  text: string;
  color?: string;
  count?: number;
  image?: string;
}

/** Which column holds what (-1: none). */
export interface ColumnMap {
  text: number;
  count: number;
  color: number;
  image: number;
}

export type Field = keyof ColumnMap;
export const FIELDS: readonly Field[] = ["text", "count", "color", "image"];

const MAX_TEXT = 120;
const MAX_COUNT = 500;
const COLOR = /^[a-z0-9#-]{0,20}$/;
const SHA = /^[0-9a-f]{64}$/;

/** Header names read as each field (lower case, spaces and punctuation ignored). */
const NAMES: Record<Field, readonly string[]> = {
  text: ["text", "name", "card", "title", "word", "words", "label", "question", "prompt"],
  count: ["count", "qty", "quantity", "copies", "number", "n", "amount", "howmany"],
  color: ["color", "colour", "ink", "suit"],
  image: ["image", "picture", "img", "sha256", "hash"],
};

function key(cell: string): string {
  return cell
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "")
    .trim();
}

/** CSV text as rows of cells (RFC 4180, plus a lone \r or \n ending a row; a BOM dropped).
 *  Rows that are wholly empty are left out. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRow = () => {
    row.push(cell);
    if (row.some((c) => c.trim() !== "")) rows.push(row);
    row = [];
    cell = "";
  };
  for (; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell.trim() === "") {
      quoted = true;
      cell = "";
    } else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" || ch === "\n") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      endRow();
    } else cell += ch;
  }
  if (cell !== "" || row.length) endRow();
  return rows;
}

/** The field a header cell names, if it names one. */
function fieldOf(cell: string): Field | null {
  const k = key(cell);
  for (const f of FIELDS) if (NAMES[f].includes(k)) return f;
  return null;
}

/** Does the first row look like a header: it names a field and is not itself a card line (a
 *  number where the second row has a number is a card's count, not a column name). */
export function looksLikeHeader(rows: string[][]): boolean {
  const first = rows[0];
  if (!first) return false;
  if (first.some((c) => fieldOf(c) !== null)) return true;
  const second = rows[1];
  if (!second) return false;
  // A first row with no number where the next rows have numbers in the same column: a header.
  return first.some((c, i) => !/^\s*\d+\s*$/.test(c) && c.trim() !== "" && /^\s*\d+\s*$/.test(second[i] ?? ""));
}

/** The mapping read from a header (columns it names), the rest guessed: text the first unnamed
 *  column, count a column of whole numbers. Without a header: text, colour, count, image. */
export function guessColumns(rows: string[][], header: boolean): ColumnMap {
  const width = Math.max(0, ...rows.map((r) => r.length));
  if (!header) return { text: 0, color: width > 1 ? 1 : -1, count: width > 2 ? 2 : -1, image: width > 3 ? 3 : -1 };
  const map: ColumnMap = { text: -1, count: -1, color: -1, image: -1 };
  const head = rows[0] ?? [];
  head.forEach((cell, i) => {
    const f = fieldOf(cell);
    if (f && map[f] === -1) map[f] = i;
  });
  const used = () => new Set(Object.values(map));
  const body = rows.slice(1);
  if (map.count === -1) {
    for (let i = 0; i < width; i++) {
      const vals = body.map((r) => (r[i] ?? "").trim()).filter((v) => v);
      if (!used().has(i) && vals.length && vals.every((v) => /^\d+$/.test(v))) {
        map.count = i;
        break;
      }
    }
  }
  if (map.text === -1) for (let i = 0; i < width && map.text === -1; i++) if (!used().has(i)) map.text = i;
  return map;
}

export interface Read {
  cards: DeckCard[];
  /** Problems by line (1-based, as in the file), at most a few. */
  errors: string[];
  /** Cards in all (counts added up). */
  total: number;
}

/** The cards `rows` describe under `map` (the header row, if any, skipped); each bad line is
 *  named, as the server would name it. `firstLine` is the line number of rows[0]. */
export function readCards(rows: string[][], map: ColumnMap, header: boolean, firstLine = 1): Read {
  const cards: DeckCard[] = [];
  const errors: string[] = [];
  const start = header ? 1 : 0;
  const cell = (r: string[], i: number) => (i >= 0 ? (r[i] ?? "").trim() : "");
  for (let n = start; n < rows.length; n++) {
    const r = rows[n];
    const line = n + firstLine;
    const text = cell(r, map.text);
    const color = cell(r, map.color).toLowerCase();
    const countS = cell(r, map.count);
    const image = cell(r, map.image).toLowerCase();
    let bad = "";
    if (text.length > MAX_TEXT) bad = `card text is longer than ${MAX_TEXT} characters`;
    else if (!COLOR.test(color)) bad = `${JSON.stringify(color)} is not a colour name`;
    else if (countS && !(/^\d+$/.test(countS) && +countS >= 1 && +countS <= MAX_COUNT))
      bad = `the count must be a whole number from 1 to ${MAX_COUNT}, not ${JSON.stringify(countS.slice(0, 20))}`;
    else if (image && !SHA.test(image)) bad = "the picture must be an uploaded image's sha256";
    else if (!text && !image) bad = "a card needs text or a picture";
    if (bad) {
      if (errors.length < 5) errors.push(`Line ${line}: ${bad}.`);
      continue;
    }
    const card: DeckCard = { text, count: countS ? Number(countS) : 1 };
    if (color) card.color = color;
    if (image) card.image = image;
    cards.push(card);
  }
  return { cards, errors, total: cards.reduce((n, c) => n + (c.count ?? 1), 0) };
}

/** The typed list: one card a line, `text, colour, count` (quotes keep commas in the text);
 *  blank lines and `#` comments skipped. */
export function readList(text: string): Read {
  const rows: string[][] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim() || line.trimStart().startsWith("#")) return;
    rows.push(parseCsv(line)[0] ?? []);
    lines.push(i + 1);
  });
  const out: Read = { cards: [], errors: [], total: 0 };
  rows.forEach((r, i) => {
    if (r.length > 3) {
      if (out.errors.length < 5) out.errors.push(`Line ${lines[i]}: at most 3 fields (text, colour, count); quote text with commas.`);
      return;
    }
    const one = readCards([r], { text: 0, color: 1, count: 2, image: -1 }, false, lines[i]);
    out.cards.push(...one.cards);
    out.errors.push(...one.errors.slice(0, Math.max(0, 5 - out.errors.length)));
  });
  out.total = out.cards.reduce((n, c) => n + (c.count ?? 1), 0);
  return out;
}
