// Court-card figures (jacks, queens, kings) from the svg-cards package (LGPL-2.1, David Bellot,
// Huub de Beer and others; see dist/cards/LICENSE): at build time each of the 12 figures is cut
// out of the package's one big SVG, with the shapes it uses, into dist/cards/<face>.svg, e.g.
// dist/cards/H13.svg for the king of hearts. cards.ts points court faces there; the rest of the
// deck is still drawn by code.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const SUITS = { C: "club", D: "diamond", H: "heart", S: "spade" };
const RANKS = { 11: "jack", 12: "queen", 13: "king" };

/** The element with `id`, start tag to matching end tag (the file is well-formed SVG). */
function element(src, id) {
  const at = src.indexOf(` id="${id}"`);
  if (at < 0) throw new Error(`svg-cards: no element #${id}`);
  const start = src.lastIndexOf("<", at);
  const name = /^<([\w:]+)/.exec(src.slice(start))[1];
  const openEnd = src.indexOf(">", at);
  if (src[openEnd - 1] === "/") return src.slice(start, openEnd + 1);
  const tags = new RegExp(`<${name}[\\s>/]|</${name}>`, "g");
  tags.lastIndex = openEnd + 1;
  let depth = 1;
  for (let m = tags.exec(src); m; m = tags.exec(src)) {
    if (m[0].startsWith("</")) {
      if (--depth === 0) return src.slice(start, m.index + m[0].length);
    } else if (src[src.indexOf(">", m.index) - 1] !== "/") depth++;
  }
  throw new Error(`svg-cards: #${id} is not closed`);
}

/** One card as a standalone SVG: its group plus every shape it refers to, recursively. */
function card(src, id) {
  const main = element(src, id);
  const defs = new Map();
  const todo = [main];
  while (todo.length) {
    for (const m of todo.pop().matchAll(/href="#([^"]+)"/g)) {
      if (defs.has(m[1])) continue;
      const el = element(src, m[1]);
      defs.set(m[1], el);
      todo.push(el);
    }
  }
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" ' +
    'viewBox="0 0 169.075 244.64" preserveAspectRatio="none">' +
    `<defs>${[...defs.values()].join("")}</defs>${main}</svg>`
  );
}

export function buildCourts(dist) {
  const pkg = dirname(createRequire(import.meta.url).resolve("svg-cards/package.json"));
  const src = readFileSync(join(pkg, "svg-cards.svg"), "utf8");
  const out = join(dist, "cards");
  mkdirSync(out, { recursive: true });
  for (const [s, suit] of Object.entries(SUITS))
    for (const [r, rank] of Object.entries(RANKS)) writeFileSync(join(out, `${s}${r}.svg`), card(src, `${suit}_${rank}`));
  // The LGPL asks for its notice and the authors to travel with the pictures.
  for (const f of ["LICENSE", "AUTHORS", "README.md"]) copyFileSync(join(pkg, f), join(out, f));
}
