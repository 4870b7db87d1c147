// Card pictures drawn as SVG by code: the 52 standard faces, two jokers, homemade text cards and
// back designs. Each picture is an SVG string turned into a data: URL for an <img> (allowed by
// the server's CSP: img-src 'self' data:). Pictures are cached by face/back, never by card id.

import { customFace, imageUrl, isImageHash } from "./customface";
import { CARD_H, CARD_W } from "../core/types";
import { CARD_CODES, JOKERS } from "../net/protocol.gen";

const RED = "#c8102e";
const BLACK = "#1b1b1f";
const SERIF = "Georgia, 'DejaVu Serif', 'Times New Roman', serif";
const SANS = "'Helvetica Neue', Arial, 'DejaVu Sans', sans-serif";

const RANKS: Record<number, string> = { 1: "A", 11: "J", 12: "Q", 13: "K" };
const SUIT_NAMES: Record<string, string> = { H: "hearts", D: "diamonds", C: "clubs", S: "spades" };

// Suit shapes in a 100 x 100 box.
const SUIT_PATHS: Record<string, string> = {
  H: "M50 92C30 74 2 54 2 30 2 13 14 3 28 3c10 0 18 6 22 15 4-9 12-15 22-15 14 0 26 10 26 27 0 24-28 44-48 62z",
  D: "M50 2 88 50 50 98 12 50z",
  S: "M50 2C40 22 2 40 2 64c0 15 12 25 25 25 9 0 16-4 20-10-1 8-5 15-12 19h30c-7-4-11-11-12-19 4 6 11 10 20 10 13 0 25-10 25-25C98 40 60 22 50 2z",
  C: "M50 4a21 21 0 0 0-19 30 21 21 0 1 0 17 33c-1 11-5 21-13 29h30c-8-8-12-18-13-29a21 21 0 1 0 17-33A21 21 0 0 0 50 4z",
};

export interface ParsedFace {
  kind: "standard" | "joker" | "text";
  suit?: string;
  rank?: number;
  red: boolean;
}

const STANDARD: ReadonlySet<string> = new Set(CARD_CODES);
const JOKER_CODES: ReadonlySet<string> = new Set(JOKERS);

/** The one reading of a face on the page: a card code (suit letter, rank; the codes come from the
 *  server's plugins/cards.py through the generated types), a joker (the first is red), or text. */
export function parseFace(face: string): ParsedFace {
  if (STANDARD.has(face)) {
    const suit = face[0];
    return { kind: "standard", suit, rank: Number(face.slice(1)), red: suit === "H" || suit === "D" };
  }
  if (JOKER_CODES.has(face)) return { kind: "joker", red: face === JOKERS[0] };
  return { kind: "text", red: false };
}

/** A human name for a face: "queen of spades", "red joker", or the text itself. */
export function faceName(face: string): string {
  const p = parseFace(face);
  if (p.kind === "joker") return p.red ? "red joker" : "black joker";
  if (p.kind === "text") return customFace(face)?.text ?? face;
  const r = p.rank as number;
  const names: Record<number, string> = { 1: "ace", 11: "jack", 12: "queen", 13: "king" };
  return `${names[r] || String(r)} of ${SUIT_NAMES[p.suit as string]}`;
}

const SUIT_SYMBOLS: Record<string, string> = { H: "♥", D: "♦", C: "♣", S: "♠" };

/** A short label for a face: "7♥", "Q♠", "10♣"; jokers and text cards by name. */
export function shortName(face: string): string {
  const p = parseFace(face);
  if (p.kind !== "standard") return faceName(face);
  return `${RANKS[p.rank as number] ?? p.rank}${SUIT_SYMBOLS[p.suit as string]}`;
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);
}

function suit(s: string, cx: number, cy: number, size: number, color: string, flip = false): string {
  const k = size / 100;
  const rot = flip ? ` rotate(180 50 50)` : "";
  return `<path d="${SUIT_PATHS[s]}" fill="${color}" transform="translate(${cx - size / 2} ${cy - size / 2}) scale(${k})${rot}"/>`;
}

const PIPS: Record<number, [number, number][]> = {
  2: [
    [50, 28],
    [50, 112],
  ],
  3: [
    [50, 28],
    [50, 70],
    [50, 112],
  ],
  4: [
    [31, 28],
    [69, 28],
    [31, 112],
    [69, 112],
  ],
  5: [
    [31, 28],
    [69, 28],
    [50, 70],
    [31, 112],
    [69, 112],
  ],
  6: [
    [31, 28],
    [69, 28],
    [31, 70],
    [69, 70],
    [31, 112],
    [69, 112],
  ],
  7: [
    [31, 28],
    [69, 28],
    [50, 49],
    [31, 70],
    [69, 70],
    [31, 112],
    [69, 112],
  ],
  8: [
    [31, 28],
    [69, 28],
    [50, 49],
    [31, 70],
    [69, 70],
    [50, 91],
    [31, 112],
    [69, 112],
  ],
  9: [
    [31, 28],
    [69, 28],
    [31, 56],
    [69, 56],
    [50, 70],
    [31, 84],
    [69, 84],
    [31, 112],
    [69, 112],
  ],
  10: [
    [31, 28],
    [69, 28],
    [50, 42],
    [31, 56],
    [69, 56],
    [31, 84],
    [69, 84],
    [50, 98],
    [31, 112],
    [69, 112],
  ],
};

function frame(inner: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${CARD_W} ${CARD_H}" width="${CARD_W}" height="${CARD_H}">` +
    `<rect x="0.6" y="0.6" width="${CARD_W - 1.2}" height="${CARD_H - 1.2}" rx="7" fill="#fff" stroke="#b9bcc4" stroke-width="1.2"/>` +
    inner +
    `</svg>`
  );
}

function corner(label: string, s: string | null, color: string): string {
  const idx = (rot: string) =>
    `<g${rot}><text x="10.5" y="19" font-family="${SERIF}" font-weight="700" font-size="${label.length > 1 ? 14 : 16}" ` +
    `text-anchor="middle" fill="${color}" letter-spacing="-1">${esc(label)}</text>` +
    (s ? suit(s, 10.5, 28, 10, color) : "") +
    `</g>`;
  return idx("") + idx(` transform="rotate(180 50 70)"`);
}

/** An ace to a ten (jacks, queens and kings are the pictures faceUrl points at). */
function standardFace(s: string, rank: number, red: boolean): string {
  const color = red ? RED : BLACK;
  const label = RANKS[rank] || String(rank);
  let body = "";
  if (rank === 1) {
    body = suit(s, 50, 70, s === "S" ? 52 : 42, color);
  } else {
    for (const [x, y] of PIPS[rank]) body += suit(s, x, y, 17, color, y > 70);
  }
  return frame(corner(label, s, color) + body);
}

function star(cx: number, cy: number, r: number, color: string): string {
  let d = "";
  for (let i = 0; i < 10; i++) {
    const a = (Math.PI / 5) * i - Math.PI / 2;
    const rr = i % 2 ? r * 0.42 : r;
    d += `${i ? "L" : "M"}${(cx + rr * Math.cos(a)).toFixed(2)} ${(cy + rr * Math.sin(a)).toFixed(2)}`;
  }
  return `<path d="${d}z" fill="${color}"/>`;
}

function jokerFace(red: boolean): string {
  const color = red ? RED : BLACK;
  const letters = "JOKER".split("");
  const col = (rot: string) =>
    `<g${rot}>` +
    letters
      .map(
        (l, i) =>
          `<text x="10" y="${16 + i * 11}" font-family="${SANS}" font-weight="700" font-size="10" text-anchor="middle" fill="${color}">${l}</text>`,
      )
      .join("") +
    `</g>`;
  return frame(
    col("") +
      col(` transform="rotate(180 50 70)"`) +
      `<circle cx="50" cy="64" r="25" fill="${red ? "#fbe9e7" : "#e8ecf5"}" stroke="${color}" stroke-width="1.2"/>` +
      star(50, 64, 20, color) +
      `<text x="50" y="108" font-family="${SANS}" font-weight="700" font-size="13" text-anchor="middle" fill="${color}" letter-spacing="1">JOKER</text>`,
  );
}

function wrap(text: string, width: number): string[] {
  const words = text.trim().split(/\s+/);
  const lines: string[] = [];
  let line = "";
  for (let w of words) {
    while (w.length > width) {
      if (line) {
        lines.push(line);
        line = "";
      }
      lines.push(w.slice(0, width));
      w = w.slice(width);
    }
    if (!line) line = w;
    else if (line.length + 1 + w.length <= width) line += " " + w;
    else {
      lines.push(line);
      line = w;
    }
  }
  if (line) lines.push(line);
  return lines.length ? lines : [""];
}

/** A text card: the text in the middle and, read downwards along the left edge, again (cut to
 *  what fits): a spread or a hand overlaps cards and leaves that edge showing. */
function textFace(face: string, ink = BLACK): string {
  const lines = wrap(face, face.length <= 12 ? 12 : 10).slice(0, 6);
  const longest = Math.max(...lines.map((l) => l.length), 1);
  const size = Math.min(21, 125 / longest, 100 / lines.length);
  const top = 70 - ((lines.length - 1) * size * 1.15) / 2 + size * 0.35;
  const body = lines
    .map(
      (l, i) =>
        `<text x="55" y="${(top + i * size * 1.15).toFixed(1)}" font-family="${SANS}" font-weight="600" font-size="${size.toFixed(1)}" text-anchor="middle" fill="${esc(ink)}">${esc(l)}</text>`,
    )
    .join("");
  const flat = face.trim().replace(/\s+/g, " ");
  const edge = flat.length > 15 ? `${flat.slice(0, 14)}…` : flat;
  const spine = `<text class="card-edge-text" transform="translate(8 12) rotate(90)" font-family="${SANS}" font-weight="700" font-size="14" fill="${esc(ink)}">${esc(edge)}</text>`;
  return frame(`<rect x="7" y="7" width="86" height="126" rx="4" fill="#f7f4ec" stroke="#d8d2c2"/>` + spine + body);
}

const BACK_COLORS: Record<string, string> = {
  blue: "#2b5fad",
  red: "#b3262e",
  green: "#2c7d4a",
  black: "#2e2e33",
  purple: "#6b3fa0",
  orange: "#d0711c",
  gray: "#6b717c",
  grey: "#6b717c",
};

function backColor(back: string): string {
  if (BACK_COLORS[back]) return BACK_COLORS[back];
  let hash = 0;
  for (const ch of back) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `hsl(${hash % 360} 55% 38%)`;
}

function backSvg(back: string): string {
  const c = backColor(back);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${CARD_W} ${CARD_H}" width="${CARD_W}" height="${CARD_H}">` +
    `<defs><pattern id="p" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">` +
    `<rect width="8" height="8" fill="${c}"/><rect width="4" height="4" fill="#fff" opacity="0.16"/><rect x="4" y="4" width="4" height="4" fill="#000" opacity="0.08"/></pattern></defs>` +
    `<rect x="0.6" y="0.6" width="${CARD_W - 1.2}" height="${CARD_H - 1.2}" rx="7" fill="#fff" stroke="#9aa0aa" stroke-width="1.2"/>` +
    `<rect x="6" y="6" width="${CARD_W - 12}" height="${CARD_H - 12}" rx="4" fill="url(#p)" stroke="${c}" stroke-width="1.5"/>` +
    `<rect x="11" y="11" width="${CARD_W - 22}" height="${CARD_H - 22}" rx="3" fill="none" stroke="#fff" stroke-width="1" opacity="0.55"/>` +
    `<g transform="translate(50 70)"><circle r="17" fill="${c}" stroke="#fff" stroke-width="1.6"/>` +
    `<path d="M0-11 8 0 0 11-8 0z" fill="#fff" opacity="0.9"/></g>` +
    `</svg>`
  );
}

const cache = new Map<string, string>();

function url(key: string, make: () => string): string {
  let got = cache.get(key);
  if (!got) {
    got = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(make());
    if (cache.size > 800) cache.clear();
    cache.set(key, got);
  }
  return got;
}

function faceSvg(face: string): string {
  const p = parseFace(face);
  if (p.kind === "standard") return standardFace(p.suit as string, p.rank as number, p.red);
  if (p.kind === "joker") return jokerFace(p.red);
  return textFace(face);
}

/** Jacks, queens and kings are pictures from the svg-cards package, cut out at build time
 *  (web/courts.mjs): real figures instead of a letter with a crown. */
function isCourt(face: string): boolean {
  const p = parseFace(face);
  return p.kind === "standard" && (p.rank ?? 0) >= 11;
}

export function faceUrl(face: string): string {
  if (isCourt(face)) return `/assets/cards/${face}.svg`;
  const custom = customFace(face);
  if (custom?.image) return imageUrl(custom.image);
  if (custom) return url("f:" + face, () => textFace(custom.text, custom.color || BLACK));
  return url("f:" + face, () => faceSvg(face));
}

export function backUrl(back: string): string {
  if (isImageHash(back)) return imageUrl(back);
  return url("b:" + back, () => backSvg(back || "blue"));
}
