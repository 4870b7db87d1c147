// The games a room can play (`GET /api/games`) and their options as form fields: a select per
// option with choices, a checkbox for a yes/no option, a number or text box for a free value.
// Nothing here knows any game: the server describes them.

import { h } from "../core/dom";
import type { GameInfo, OptionInfo } from "../core/types";

let cached: Promise<GameInfo[]> | null = null;

/** The server's games (fetched once per page; a failed fetch is tried again next time). */
export function fetchGames(): Promise<GameInfo[]> {
  cached ??= fetch("/api/games")
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`GET /api/games: ${r.status}`))))
    .then((list: unknown) => (Array.isArray(list) ? (list as GameInfo[]).filter((g) => g && typeof g.name === "string") : []))
    .catch((err) => {
      cached = null;
      throw err;
    });
  return cached;
}

/** "knock limit" → "Knock limit". */
export function optionLabel(o: OptionInfo): string {
  const text = o.label || o.name.replace(/_/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function choiceText(v: unknown): string {
  if (v === true) return "Yes";
  if (v === false) return "No";
  return String(v);
}

function isFlag(o: OptionInfo): boolean {
  return typeof o.default === "boolean";
}

export interface OptionFields {
  el: HTMLElement;
  /** The chosen values, typed as the server described them. */
  values(): Record<string, unknown>;
}

/** Form fields for a game's options, starting from `current` (a room's options) or the defaults.
 *  `prefix` starts each field's id and test id (another form on the same page takes another). */
export function optionFields(game: GameInfo, current?: Record<string, unknown>, prefix = "opt"): OptionFields {
  const el = h("div", { class: "game-options", "data-testid": "game-options", "data-game": game.name });
  const readers: [string, () => unknown][] = [];
  for (const o of game.options ?? []) {
    const id = `${prefix}-${o.name}`;
    const now = current && o.name in current ? current[o.name] : o.default;
    const label = h("label", { for: id, title: o.description || null }, optionLabel(o));
    if (isFlag(o)) {
      const box = h("input", { type: "checkbox", id, "data-testid": id, title: o.description || null, checked: now === true });
      readers.push([o.name, () => box.checked]);
      el.append(label, h("span", { class: "opt-flag" }, box));
    } else if (o.choices?.length) {
      const at = o.choices.findIndex((c) => c === now);
      const sel = h(
        "select",
        { id, "data-testid": id, title: o.description || null },
        o.choices.map((c, i) => h("option", { value: String(c), "data-index": i, selected: i === (at < 0 ? 0 : at) }, choiceText(c))),
      );
      readers.push([o.name, () => o.choices[sel.selectedIndex] ?? o.default]);
      el.append(label, sel);
    } else {
      const numeric = typeof o.default === "number";
      const input = h("input", {
        id,
        "data-testid": id,
        type: numeric ? "number" : "text",
        value: String(now ?? ""),
        title: o.description || null,
      });
      readers.push([o.name, () => (numeric ? Number(input.value) : input.value)]);
      el.append(label, input);
    }
  }
  return { el, values: () => Object.fromEntries(readers.map(([n, read]) => [n, read()])) };
}

/** "Gin Rummy (2 players)", "Spades (4 players)", "Rummy (2–6 players)". */
export function gameCaption(g: GameInfo): string {
  const n = g.min_players === g.max_players ? `${g.min_players}` : `${g.min_players}–${g.max_players}`;
  return `${g.title} (${n} player${g.max_players === 1 ? "" : "s"})`;
}
