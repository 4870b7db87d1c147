// The deck designer's pure parts (src/edit/deckcsv.ts, src/edit/sprites.ts) and a text card's
// face (src/table/cards.ts): CSV with a header read and mapped, the typed list, the sprite grid.
import assert from "node:assert/strict";
import { test } from "node:test";
import { guessColumns, looksLikeHeader, parseCsv, readCards, readList } from "../src/edit/deckcsv.ts";
import { gridCells } from "../src/edit/sprites.ts";
import { faceUrl } from "../src/table/cards.ts";

test("CSV: quotes keep commas, doubled quotes and line breaks; CRLF, a BOM and empty rows", () => {
  const rows = parseCsv('\ufeffName,Qty\r\n"Draw 2, then skip",2\r\n\r\n"Say ""hi""\nthen sit",1\n');
  assert.deepEqual(rows, [
    ["Name", "Qty"],
    ["Draw 2, then skip", "2"],
    ['Say "hi"\nthen sit', "1"],
  ]);
  assert.deepEqual(parseCsv("a,b"), [["a", "b"]]);
});

test("a header row is recognised by its names, or by words over a column of numbers", () => {
  assert.equal(looksLikeHeader(parseCsv("Name,Qty\nWild,4")), true);
  assert.equal(looksLikeHeader(parseCsv("Card text,Copies,Colour\nWild,4,red")), true);
  assert.equal(looksLikeHeader(parseCsv("Prompt,How many\nWild,4")), true); // names "prompt"
  assert.equal(looksLikeHeader(parseCsv("Animal,Amt\nCat,4")), true); // words over numbers
  assert.equal(looksLikeHeader(parseCsv("Wild,red,4\nSkip,blue,2")), false);
});

test("columns are mapped from the header, in any order; without one: text, colour, count, image", () => {
  const rows = parseCsv("Qty,Colour,Name\n2,red,Wild\n1,,Skip");
  assert.deepEqual(guessColumns(rows, true), { text: 2, count: 0, color: 1, image: -1 });
  assert.deepEqual(guessColumns(parseCsv("Wild,red,4"), false), { text: 0, color: 1, count: 2, image: -1 });
  // An unnamed column of numbers is the count; the first other column is the text.
  assert.deepEqual(guessColumns(parseCsv("Animal,Amt\nCat,4\nDog,2"), true), { text: 0, count: 1, color: -1, image: -1 });
});

test("cards are read under a mapping, the header skipped; bad lines named by their line", () => {
  const rows = parseCsv("Qty,Colour,Name\n2,red,Wild\n1,,Skip\nlots,,Bad\n1,Not A Colour!,Worse");
  const got = readCards(rows, { text: 2, count: 0, color: 1, image: -1 }, true);
  assert.deepEqual(got.cards, [
    { text: "Wild", count: 2, color: "red" },
    { text: "Skip", count: 1 },
  ]);
  assert.equal(got.total, 3);
  assert.deepEqual(got.errors, [
    'Line 4: the count must be a whole number from 1 to 500, not "lots".',
    'Line 5: "not a colour!" is not a colour name.',
  ]);
  // Mapped otherwise, the same rows give other cards: the mapping decides.
  const other = readCards(rows.slice(0, 3), { text: 1, count: -1, color: -1, image: -1 }, true);
  assert.deepEqual(other.cards, [{ text: "red", count: 1 }]);
  assert.deepEqual(other.errors, ["Line 3: a card needs text or a picture."]);
});

test("the typed list: text, colour, count a line; comments and blank lines skipped", () => {
  const got = readList('"Draw 2, then skip", red, 2\n# a comment\n\nWild, black, 4\na,b,c,d');
  assert.deepEqual(got.cards, [
    { text: "Draw 2, then skip", color: "red", count: 2 },
    { text: "Wild", color: "black", count: 4 },
  ]);
  assert.equal(got.total, 6);
  assert.deepEqual(got.errors, ["Line 5: at most 3 fields (text, colour, count); quote text with commas."]);
});

test("a sprite sheet is cut row by row into whole-pixel cells that cover it; a partial last row", () => {
  const cells = gridCells(300, 280, 2, 3, 5);
  assert.deepEqual(cells, [
    { x: 0, y: 0, w: 100, h: 140 },
    { x: 100, y: 0, w: 100, h: 140 },
    { x: 200, y: 0, w: 100, h: 140 },
    { x: 0, y: 140, w: 100, h: 140 },
    { x: 100, y: 140, w: 100, h: 140 },
  ]);
  // Sizes that do not divide: neighbours share edges, the last cell ends at the picture's edge.
  const odd = gridCells(101, 50, 1, 3);
  assert.deepEqual(
    odd.map((c) => [c.x, c.w]),
    [
      [0, 34],
      [34, 33],
      [67, 34],
    ],
  );
  assert.equal(odd[2].x + odd[2].w, 101);
  assert.throws(() => gridCells(300, 280, 2, 3, 7), /from 1 to 6/);
  assert.throws(() => gridCells(300, 280, 2, 3, 3), /fewer than 2 rows/);
  assert.throws(() => gridCells(300, 280, 0, 3), /whole numbers/);
  assert.throws(() => gridCells(2, 2, 3, 3), /smaller than the grid/);
});

test("a text card shows its text along the left edge too, where a spread leaves it showing", () => {
  const svg = decodeURIComponent(faceUrl('{"text":"Draw 2, then skip","color":"red","image":""}').split(",").slice(1).join(","));
  const edge = /<text class="card-edge-text" transform="translate\(8 12\) rotate\(90\)"[^>]*>([^<]*)<\/text>/.exec(svg);
  assert.ok(edge, "no edge text");
  assert.equal(edge[1], "Draw 2, then s…"); // cut to what fits down the edge
  const wild = decodeURIComponent(faceUrl('{"text":"Wild","color":"","image":""}').split(",").slice(1).join(","));
  assert.match(wild, /<text class="card-edge-text"[^>]*>Wild<\/text>/);
  assert.match(svg, /<text class="card-edge-text"[^>]*fill="red"/);
});
