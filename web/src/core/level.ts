// The computers' levels (Easy / Normal / Hard) and the one this browser chose last: the home
// page's quick play and the players panel's "Computer" button share it (localStorage).

import { load, save } from "./util";

const LEVEL_KEY = "cardtable:level";
export const LEVELS = [
  ["easy", "Easy"],
  ["normal", "Normal"],
  ["hard", "Hard"],
] as const;
export type Level = (typeof LEVELS)[number][0];

/** The level last chosen in this browser, `normal` before any. */
export function savedLevel(): Level {
  const got = load(LEVEL_KEY);
  return LEVELS.some(([v]) => v === got) ? (got as Level) : "normal";
}

/** Remember `level` as the one last chosen. */
export function saveLevel(level: Level): void {
  save(LEVEL_KEY, level);
}
