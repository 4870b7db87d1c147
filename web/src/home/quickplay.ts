// The home page's "Play against computers" box: one button per game the server lists
// (`GET /api/games`), and the computers' level (Easy / Normal / Hard, remembered in this browser).
// One click makes a room with a computer at that level in every other seat
// (`POST /api/rooms {game, computers}`) and goes there; the room page joins you to seat 0 with
// your saved name (or asks for one first), and the game starts at once.

import { h, setText } from "../core/dom";
import type { GameInfo } from "../core/types";
import { LEVELS, savedLevel, saveLevel } from "../core/level";

/** The box; `beforeGo` runs before a room is made (the home page saves the name typed). */
export function quickPlayBox(games: Promise<GameInfo[]>, beforeGo: () => void): HTMLElement {
  let level = savedLevel();
  const levels = h("div", { class: "levels", role: "radiogroup", "aria-label": "Computers' level", "data-testid": "quickplay-level" });
  for (const [value, label] of LEVELS) {
    const input = h("input", {
      type: "radio",
      name: "quickplay-level",
      value,
      id: `level-${value}`,
      "data-testid": `level-${value}`,
      checked: value === level,
    });
    input.addEventListener("change", () => {
      if (!input.checked) return;
      level = value;
      saveLevel(value);
    });
    levels.appendChild(h("label", { class: "level", for: `level-${value}` }, input, h("span", {}, label)));
  }
  const buttons = h("div", { class: "quickplay-games", "data-testid": "quickplay-games" });
  const err = h("p", { class: "err", "data-testid": "quickplay-error", role: "alert" });
  const box = h(
    "section",
    { class: "box quickplay", "data-testid": "quickplay" },
    h("h2", {}, "Play against computers"),
    h("p", { class: "hint" }, "One click: a table with computers in the other seats, your game starts at once."),
    h("div", { class: "level-row" }, h("span", { class: "level-caption" }, "Computers"), levels),
    buttons,
    err,
  );

  async function go(game: GameInfo, button: HTMLButtonElement): Promise<void> {
    beforeGo();
    setText(err, "");
    for (const b of buttons.querySelectorAll("button")) b.disabled = true;
    try {
      const resp = await fetch("/api/rooms", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ game: game.name, computers: level }),
      });
      const body = await resp.json();
      if (!resp.ok) throw new Error(body.message || "Could not create a room.");
      location.assign(`/r/${body.code}`);
    } catch (e) {
      setText(err, e instanceof Error ? e.message : "Could not create a room.");
      for (const b of buttons.querySelectorAll("button")) b.disabled = false;
      button.focus();
    }
  }

  void games.then((list) => {
    for (const game of list) {
      const b = h(
        "button",
        { type: "button", class: "primary", "data-testid": `quickplay-${game.name}`, "data-game": game.name },
        `Play ${game.title}`,
      );
      b.addEventListener("click", () => void go(game, b));
      buttons.appendChild(b);
    }
    box.hidden = !list.length;
    buttons.dataset.loaded = "true";
  });
  return box;
}
