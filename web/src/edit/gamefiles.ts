// Saving and loading homemade games: download a room's game file, make a new room from an
// uploaded one or a copy of this one, and the built-in library on the home page (`GET /api/library`).

import { h, setText } from "../core/dom";
import { confirmDialog, type MenuItem, toast } from "../core/ui";
import { load, tokenKey } from "../core/util";

interface LibraryGame {
  name: string;
  title: string;
  description: string;
}

/** Download this room's layout as `<title>.cardtable.json` (editors only; the server checks),
 *  after asking whether to include the current positions (hands, order, faces: host only). */
export async function downloadGameFile(code: string): Promise<void> {
  const box = h("input", { type: "checkbox", id: "save-positions", "data-testid": "save-positions" });
  const extra = h(
    "p",
    { class: "hint" },
    h(
      "label",
      { for: "save-positions" },
      box,
      " Include the current positions: who holds what, the order of every pile, which cards are face up (only the host, with nobody else seated)",
    ),
  );
  const text =
    "Saves this table's layout (decks, zones, counters, buttons, pictures) as a file you can load into a new room from the home page.";
  if (!(await confirmDialog("Save the game file", text, "Download", extra))) return;
  const query = box.checked ? "?positions=1" : "";
  const resp = await fetch(`/api/rooms/${code}/game-file${query}`, { headers: { "X-Player-Token": load(tokenKey(code)) ?? "" } });
  const body = (await resp.json().catch(() => null)) as { title?: string; message?: string } | null;
  if (!resp.ok || !body) {
    toast(body?.message || "Could not save the game file.", "error");
    return;
  }
  const name =
    (body.title || `table-${code}`)
      .replace(/[^A-Za-z0-9 _-]+/g, "")
      .trim()
      .replace(/\s+/g, "-") || "table";
  const blob = new Blob([JSON.stringify(body, null, 1)], { type: "application/json" });
  const a = h("a", { href: URL.createObjectURL(blob), download: `${name}.cardtable.json` });
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

/** "Make a copy of this table": a new room with this one's layout, or (`positions`) everything
 *  as it lies (`POST /api/rooms/{code}/copy`); the copier goes there, to the seat they had here
 *  (`?seat=N`: a seat whose hand holds cards is only taken on purpose). */
async function copyTable(code: string, positions: boolean, seat: number | null): Promise<void> {
  const resp = await fetch(`/api/rooms/${code}/copy`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Player-Token": load(tokenKey(code)) ?? "" },
    body: JSON.stringify({ positions }),
  });
  const got = (await resp.json().catch(() => ({}))) as { path?: string; message?: string };
  if (!resp.ok || !got.path) {
    toast(got.message || "Could not copy the table.", "error");
    return;
  }
  location.assign(seat === null ? got.path : `${got.path}?seat=${seat}`);
}

/** The copy menu's two choices. */
export function copyItems(code: string, seat: number | null): MenuItem[] {
  return [
    { label: "The layout (every card back in its deck)", testid: "copy-layout", action: () => void copyTable(code, false, seat) },
    { label: "Everything, as it lies now", testid: "copy-everything", action: () => void copyTable(code, true, seat) },
  ];
}

/** Make a room (from a game file or the library) and go there; throws the server's message. */
async function createRoomFrom(body: { game_file: unknown } | { library: string }): Promise<void> {
  const resp = await fetch("/api/rooms", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const got = (await resp.json().catch(() => ({}))) as { code?: string; message?: string };
  if (!resp.ok || !got.code) throw new Error(got.message || "Could not create a room.");
  location.assign(`/r/${got.code}`);
}

/** The home page's box: the built-in games and "Upload game file". */
export function libraryBox(): HTMLElement {
  const err = h("p", { class: "err", role: "alert", "data-testid": "library-error" });
  const list = h("ul", { class: "library", "data-testid": "library" });
  const file = h("input", { type: "file", accept: ".json,application/json", "data-testid": "upload-game-file" }) as HTMLInputElement;
  file.addEventListener("change", async () => {
    const f = file.files?.[0];
    if (!f) return;
    setText(err, "");
    try {
      let parsed: unknown;
      try {
        parsed = JSON.parse(await f.text());
      } catch {
        throw new Error("That file is not a game file (not JSON).");
      }
      await createRoomFrom({ game_file: parsed });
    } catch (e) {
      setText(err, e instanceof Error ? e.message : "Could not load the game file.");
      file.value = "";
    }
  });
  void fetch("/api/library")
    .then((r) => (r.ok ? (r.json() as Promise<LibraryGame[]>) : []))
    .then((games) => {
      for (const g of games) {
        const start = h("button", { type: "button", class: "primary", "data-testid": "library-start", "data-name": g.name }, "Start");
        start.addEventListener("click", async () => {
          start.disabled = true;
          try {
            await createRoomFrom({ library: g.name });
          } catch (e) {
            setText(err, e instanceof Error ? e.message : "Could not create a room.");
            start.disabled = false;
          }
        });
        list.appendChild(
          h(
            "li",
            { "data-testid": "library-game", "data-name": g.name },
            h("strong", {}, g.title),
            h("span", { class: "hint" }, g.description),
            start,
          ),
        );
      }
      list.dataset.loaded = "true";
    })
    .catch(() => setText(err, "Could not load the library."));
  return h(
    "section",
    { class: "box library-box" },
    h("h2", {}, "Homemade games"),
    list,
    h("label", { class: "edit-field" }, h("span", {}, "Upload game file"), file),
    err,
  );
}
