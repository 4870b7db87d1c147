// The deck designer: a named deck built from cards typed one a line (`"Draw 2, then skip", red,
// 2`), a CSV file (its header row read and its columns mapped: which is the text, the count, the
// colour, the picture), pictures uploaded one a card, and a sprite sheet cut into a grid (rows x
// columns, fewer cards for a partial last row; each cell uploaded as its own PNG, so the server's
// image checks are the same as for any picture). Every card shows in a live grid as it will look
// on the table; nothing is sent until "Add the deck", then one `create {kind: "deck", label,
// cards, back}`. Reading is in deckcsv.ts, the grid maths in sprites.ts (both node-tested).

import { h, setText } from "../core/dom";
import type { Op } from "../core/types";
import { confirmDialog } from "../core/ui";
import { load, tokenKey } from "../core/util";
import { backUrl, faceUrl } from "../table/cards";
import {
  type ColumnMap,
  type DeckCard,
  FIELDS,
  type Field,
  guessColumns,
  looksLikeHeader,
  parseCsv,
  type Read,
  readCards,
  readList,
} from "./deckcsv";
import { gridCells } from "./sprites";

/** Upload one picture to the room; resolves to its sha256, or throws the server's message. */
async function uploadImage(code: string, file: Blob): Promise<string> {
  const resp = await fetch(`/api/rooms/${code}/images`, {
    method: "POST",
    headers: { "Content-Type": file.type || "application/octet-stream", "X-Player-Token": load(tokenKey(code)) ?? "" },
    body: file,
  });
  const body = (await resp.json().catch(() => ({}))) as { hash?: string; message?: string };
  if (!resp.ok || !body.hash) throw new Error(body.message || `Upload refused (${resp.status}).`);
  return body.hash;
}

/** The cells of a sprite sheet as PNG blobs, row by row. */
async function cutSheet(file: Blob, rows: number, cols: number, count: number): Promise<Blob[]> {
  const bitmap = await createImageBitmap(file).catch(() => {
    throw new Error("That sheet is not a picture this browser can read.");
  });
  const cells = gridCells(bitmap.width, bitmap.height, rows, cols, count);
  const out: Blob[] = [];
  for (const c of cells) {
    const canvas = h("canvas", { width: c.w, height: c.h }) as HTMLCanvasElement;
    canvas.getContext("2d")?.drawImage(bitmap, c.x, c.y, c.w, c.h, 0, 0, c.w, c.h);
    const blob = await new Promise<Blob | null>((r) => canvas.toBlob(r, "image/png"));
    if (!blob) throw new Error("Could not cut the sheet.");
    out.push(blob);
  }
  bitmap.close();
  return out;
}

/** A custom card's face string, as the server writes it (server/table/decks.py custom_face). */
function faceOf(c: DeckCard): string {
  return JSON.stringify({ text: c.text, color: c.color ?? "", image: c.image ?? "" });
}

const FIELD_NAMES: Record<Field, string> = { text: "Text", count: "Count", color: "Colour", image: "Picture (sha256)" };

/** What the deck builder needs from the room page (room.ts passes itself). */
export interface DeckBuilderPorts {
  readonly s: { readonly code: string };
  send(op: Op): void;
}

export async function openDeckBuilder(room: DeckBuilderPorts, at: { x: number; y: number }): Promise<void> {
  const code = room.s.code;
  const input = (attrs: Record<string, string | number | boolean>) => h("input", attrs) as HTMLInputElement;
  const name = input({ type: "text", maxlength: 40, "data-testid": "deck-name", placeholder: "e.g. Questions" });
  const lines = h("textarea", {
    "data-testid": "deck-lines",
    rows: 5,
    cols: 40,
    spellcheck: "false",
    placeholder: 'One card a line: text, colour, count\n"Draw 2, then skip", red, 2\nWild, black, 4',
  }) as HTMLTextAreaElement;
  const csv = input({ type: "file", accept: ".csv,text/csv,text/plain", "data-testid": "deck-csv" });
  const header = input({ type: "checkbox", "data-testid": "deck-csv-header" });
  const maps = Object.fromEntries(FIELDS.map((f) => [f, h("select", { "data-testid": `deck-map-${f}` }) as HTMLSelectElement])) as Record<
    Field,
    HTMLSelectElement
  >;
  const csvBox = h(
    "fieldset",
    { class: "deck-csv-map", "data-testid": "deck-csv-map", hidden: true },
    h("legend", {}, "CSV columns"),
    h("label", { class: "edit-check" }, header, " The first row is a header"),
    ...FIELDS.map((f) => h("label", { class: "edit-field" }, h("span", {}, FIELD_NAMES[f]), maps[f])),
  );
  const faces = input({ type: "file", accept: "image/png,image/jpeg,image/webp", multiple: true, "data-testid": "deck-images" });
  const sheet = input({ type: "file", accept: "image/png,image/jpeg,image/webp", "data-testid": "deck-sheet" });
  const num = (testid: string, value: number, max: number) =>
    input({ type: "number", min: 1, max, step: 1, value, inputmode: "numeric", "data-testid": testid, class: "deck-num" });
  const sheetRows = num("deck-sheet-rows", 2, 20);
  const sheetCols = num("deck-sheet-cols", 3, 20);
  const sheetCount = num("deck-sheet-count", 6, 400);
  const cut = h("button", { type: "button", "data-testid": "deck-sheet-cut" }, "Cut into cards");
  const backFile = input({ type: "file", accept: "image/png,image/jpeg,image/webp", "data-testid": "deck-back" });
  const err = h("p", { class: "err", role: "alert", "data-testid": "deck-error" });
  const count = h("p", { class: "hint", "data-testid": "deck-count", "aria-live": "polite" });
  const grid = h("ul", { class: "deck-grid", "data-testid": "deck-grid", "aria-label": "The deck's cards" });
  const pictures: DeckCard[] = [];
  let back: string | null = null;
  let rows: string[][] | null = null;
  let busy = 0;
  let uploadErr = "";

  const mapping = (): ColumnMap => Object.fromEntries(FIELDS.map((f) => [f, Number(maps[f].value)])) as unknown as ColumnMap;
  const fillMaps = () => {
    if (!rows) return;
    const width = Math.max(0, ...rows.map((r) => r.length));
    const guess = guessColumns(rows, header.checked);
    for (const f of FIELDS) {
      const sel = maps[f];
      sel.replaceChildren(h("option", { value: -1 }, "(none)"));
      for (let i = 0; i < width; i++) {
        const title = header.checked && rows[0][i]?.trim() ? `${rows[0][i].trim()} (column ${i + 1})` : `Column ${i + 1}`;
        sel.appendChild(h("option", { value: i }, title));
      }
      sel.value = String(guess[f]);
    }
  };
  const read = (): Read => {
    const typed = readList(lines.value);
    const fromCsv = rows ? readCards(rows, mapping(), header.checked) : { cards: [], errors: [], total: 0 };
    const errors = [...typed.errors, ...fromCsv.errors.map((e) => `CSV ${e[0].toLowerCase()}${e.slice(1)}`)];
    const cards = [...typed.cards, ...fromCsv.cards, ...pictures];
    return { cards, errors, total: cards.reduce((n, c) => n + (c.count ?? 1), 0) };
  };
  let ok: HTMLButtonElement | null = null;
  const update = () => {
    const got = read();
    setText(err, [uploadErr, ...got.errors].filter(Boolean).join(" "));
    const n = got.total;
    setText(count, busy ? "Uploading…" : `${n} card${n === 1 ? "" : "s"}${back ? ", picture back" : ""}`);
    grid.replaceChildren(
      ...got.cards.map((c) =>
        h(
          "li",
          { class: "deck-tile", "data-testid": "deck-tile", "data-text": c.text, "data-image": c.image ?? "", "data-count": c.count ?? 1 },
          h("img", { src: faceUrl(faceOf(c)), alt: c.text || "Picture card", draggable: "false" }),
          (c.count ?? 1) > 1 ? h("span", { class: "deck-tile-count" }, `×${c.count}`) : null,
          c.image ? h("span", { class: "deck-tile-name", "data-testid": "deck-picture" }, c.text) : null,
        ),
      ),
      ...(back ? [h("li", { class: "deck-tile deck-tile-back" }, h("img", { src: backUrl(back), alt: "The back" }))] : []),
    );
    if (ok) ok.disabled = busy > 0 || got.errors.length > 0 || n === 0;
  };
  const uploading = async (what: string, job: () => Promise<void>) => {
    uploadErr = "";
    busy++;
    update();
    try {
      await job();
    } catch (e) {
      uploadErr = `${what}: ${e instanceof Error ? e.message : "upload failed"}`;
    }
    busy--;
    update();
  };

  lines.addEventListener("input", update);
  csv.addEventListener("change", async () => {
    const f = csv.files?.[0];
    rows = f ? parseCsv(await f.text()) : null;
    csvBox.hidden = !rows;
    header.checked = !!rows && looksLikeHeader(rows);
    fillMaps();
    update();
  });
  header.addEventListener("change", () => {
    fillMaps();
    update();
  });
  for (const f of FIELDS) maps[f].addEventListener("change", update);
  faces.addEventListener("change", async () => {
    for (const f of Array.from(faces.files ?? [])) {
      await uploading(f.name, async () => {
        const image = await uploadImage(code, f);
        pictures.push({ text: f.name.replace(/\.[^.]*$/, "").slice(0, 120) || "Picture", image, count: 1 });
      });
    }
    faces.value = "";
  });
  sheetRows.addEventListener("change", () => {
    sheetCount.value = String(Number(sheetRows.value) * Number(sheetCols.value));
  });
  sheetCols.addEventListener("change", () => {
    sheetCount.value = String(Number(sheetRows.value) * Number(sheetCols.value));
  });
  cut.addEventListener("click", async () => {
    const f = sheet.files?.[0];
    if (!f) {
      uploadErr = "Choose a sprite sheet first.";
      update();
      return;
    }
    cut.disabled = true;
    await uploading(f.name, async () => {
      const blobs = await cutSheet(f, Number(sheetRows.value), Number(sheetCols.value), Number(sheetCount.value));
      const stem = f.name.replace(/\.[^.]*$/, "").slice(0, 100) || "Card";
      for (const [i, b] of blobs.entries()) pictures.push({ text: `${stem} ${i + 1}`, image: await uploadImage(code, b), count: 1 });
    });
    cut.disabled = false;
  });
  backFile.addEventListener("change", async () => {
    const f = backFile.files?.[0];
    if (f)
      await uploading(f.name, async () => {
        back = await uploadImage(code, f);
      });
  });

  const body = h(
    "div",
    { class: "edit-form deck-builder", "data-testid": "deck-builder" },
    h(
      "div",
      { class: "deck-inputs" },
      h("label", { class: "edit-field" }, h("span", {}, "Deck name"), name),
      h("label", { class: "edit-field" }, h("span", {}, "Cards"), lines),
      h("label", { class: "edit-field" }, h("span", {}, "or a CSV file"), csv),
      csvBox,
      h("label", { class: "edit-field" }, h("span", {}, "Picture cards"), faces),
      h(
        "fieldset",
        { class: "deck-sheet" },
        h("legend", {}, "Sprite sheet: one picture cut into a grid"),
        h("label", { class: "edit-field" }, h("span", {}, "Sheet"), sheet),
        h(
          "div",
          { class: "deck-sheet-nums" },
          h("label", {}, "Rows ", sheetRows),
          h("label", {}, "Columns ", sheetCols),
          h("label", {}, "Cards ", sheetCount),
          cut,
        ),
      ),
      h("label", { class: "edit-field" }, h("span", {}, "Picture back"), backFile),
    ),
    h("div", { class: "deck-preview" }, count, grid, err),
  );
  const answer = confirmDialog(
    "Deck designer",
    "Every card shows in the grid as it will look on the table. Pictures: PNG, JPEG or WebP.",
    "Add the deck",
    body,
  );
  ok = body.closest("form")?.querySelector("[data-testid=confirm-ok]") ?? null;
  body.closest(".modal")?.classList.add("modal-wide");
  update();
  name.focus();
  if (!(await answer)) return;
  const { cards } = read();
  const label = name.value.trim();
  room.send({ op: "create", kind: "deck", ...at, cards, ...(label ? { label } : {}), ...(back ? { back } : {}) });
}
