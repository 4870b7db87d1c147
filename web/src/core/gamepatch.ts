// The game view sent as a patch (docs/protocol.md, "Game"): a delta's `game_patch` holds what
// changed since the view this seat got at the previous version. Two levels: `set`/`del` on the
// game view's own keys, and `view.set`/`view.del` inside its `view` (the engine's view). Values
// are replaced whole. The server's twin is server/game/patch.py; the shape is GamePatch in
// net/protocol.gen.ts (from server/net/events.py).

import type { GamePatch, PatchLevel } from "../net/protocol.gen";

function applyLevel(base: Record<string, unknown>, part: PatchLevel): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const key of part.del ?? []) delete out[key];
  if (part.set) for (const [key, value] of Object.entries(part.set)) out[key] = value;
  return out;
}

/** `base` with `patch` applied: a new object (`base` is left as it was). */
export function applyGamePatch<T extends object>(base: T, patch: GamePatch): T {
  const out = applyLevel(base as Record<string, unknown>, patch);
  if (patch.view) {
    const view = out.view;
    const inner = view !== null && typeof view === "object" && !Array.isArray(view) ? (view as Record<string, unknown>) : {};
    out.view = applyLevel(inner, patch.view);
  }
  return out as T;
}
