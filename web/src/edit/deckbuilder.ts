// The custom deck builder: cards typed one a line (`"Draw 2, then skip", red, 2`) or read from
// a CSV file (columns text, color, count, image), pictures uploaded for card faces and for the
// back (PNG, JPEG or WebP; the server refuses anything else and its message is shown), then one
// `create {kind: "deck", cards, back}`.

import { h, setText } from "../core/dom";
import type { Op } from "../core/types";
import { confirmDialog, toast } from "../core/ui";
import { load, tokenKey } from "../core/util";

interface DeckCard {
  text: string;
  color?: string;
  count?: number;
  image?: string;
}

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

/** Turn a typed list or a CSV file into cards on the server (`POST /api/decks/parse`). */
async function parseCards(text: string, format: "list" | "csv"): Promise<DeckCard[]> {
  if (!text.trim()) return [];
  const resp = await fetch("/api/decks/parse", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ text, format }),
  });
  const body = (await resp.json().catch(() => ({}))) as { cards?: DeckCard[]; message?: string };
  if (!resp.ok || !body.cards) throw new Error(body.message || "Could not read the cards.");
  return body.cards;
}

/** A rough count of the typed cards for the preview (the server reads them exactly). */
function roughCount(text: string): number {
  let n = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const m = /,\s*(\d+)\s*$/.exec(line);
    n += m ? Number(m[1]) : 1;
  }
  return n;
}

/** What the deck builder needs from the room page (room.ts passes itself). */
export interface DeckBuilderPorts {
  readonly s: { readonly code: string };
  send(op: Op): void;
}

export async function openDeckBuilder(room: DeckBuilderPorts, at: { x: number; y: number }): Promise<void> {
  const code = room.s.code;
  const lines = h("textarea", {
    "data-testid": "deck-lines",
    rows: 7,
    cols: 48,
    spellcheck: "false",
    placeholder: 'One card a line: text, colour, count\n"Draw 2, then skip", red, 2\nWild, black, 4',
  }) as HTMLTextAreaElement;
  const csv = h("input", { type: "file", accept: ".csv,text/csv", "data-testid": "deck-csv" }) as HTMLInputElement;
  const faces = h("input", {
    type: "file",
    accept: "image/png,image/jpeg,image/webp",
    multiple: true,
    "data-testid": "deck-images",
  }) as HTMLInputElement;
  const backFile = h("input", { type: "file", accept: "image/png,image/jpeg,image/webp", "data-testid": "deck-back" }) as HTMLInputElement;
  const err = h("p", { class: "err", role: "alert", "data-testid": "deck-error" });
  const count = h("p", { class: "hint", "data-testid": "deck-count" });
  const pics = h("ul", { class: "deck-pictures", "data-testid": "deck-pictures" });
  const imageCards: DeckCard[] = [];
  let back: string | null = null;
  let csvText: string | null = null;
  let busy = 0;

  const update = () => {
    const n = roughCount(lines.value) + imageCards.length + (csvText === null ? 0 : roughCount(csvText) - 1);
    setText(count, busy ? "Uploading…" : `${Math.max(0, n)} card${n === 1 ? "" : "s"}${back ? ", picture back" : ""}`);
  };
  lines.addEventListener("input", update);
  csv.addEventListener("change", async () => {
    const f = csv.files?.[0];
    csvText = f ? await f.text() : null;
    update();
  });
  faces.addEventListener("change", async () => {
    setText(err, "");
    for (const f of Array.from(faces.files ?? [])) {
      busy++;
      update();
      try {
        const hash = await uploadImage(code, f);
        const text = f.name.replace(/\.[^.]*$/, "").slice(0, 120) || "Picture";
        imageCards.push({ text, image: hash, count: 1 });
        pics.appendChild(h("li", { "data-testid": "deck-picture" }, text));
      } catch (e) {
        setText(err, `${f.name}: ${e instanceof Error ? e.message : "upload failed"}`);
      }
      busy--;
      update();
    }
    faces.value = "";
  });
  backFile.addEventListener("change", async () => {
    const f = backFile.files?.[0];
    if (!f) return;
    setText(err, "");
    busy++;
    update();
    try {
      back = await uploadImage(code, f);
    } catch (e) {
      setText(err, `${f.name}: ${e instanceof Error ? e.message : "upload failed"}`);
    }
    busy--;
    update();
  });
  update();
  const body = h(
    "div",
    { class: "edit-form deck-builder", "data-testid": "deck-builder" },
    h("label", { class: "edit-field" }, h("span", {}, "Cards"), lines),
    h("label", { class: "edit-field" }, h("span", {}, "or a CSV file"), csv),
    h("label", { class: "edit-field" }, h("span", {}, "Picture cards"), faces),
    pics,
    h("label", { class: "edit-field" }, h("span", {}, "Picture back"), backFile),
    count,
    err,
  );
  if (!(await confirmDialog("Custom deck", "Commas inside quotes stay in the text. Pictures: PNG, JPEG or WebP.", "Add the deck", body)))
    return;
  let cards: DeckCard[];
  try {
    cards = [...(await parseCards(lines.value, "list")), ...(csvText ? await parseCards(csvText, "csv") : []), ...imageCards];
  } catch (e) {
    toast(e instanceof Error ? e.message : "Could not read the cards.", "error");
    return;
  }
  if (!cards.length) {
    toast("The deck has no cards.", "error");
    return;
  }
  room.send({ op: "create", kind: "deck", ...at, cards, ...(back ? { back } : {}) });
}
