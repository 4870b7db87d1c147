// Pure pieces of invite and rematch (issue 22 item 5), kept apart from the page code so the
// node tests can load them: where an accepted challenge or invite goes, and what a rematch says
// on the new room's page.

import type { RematchSent } from "../net/protocol.gen";

/** Where an accepted challenge or invite goes: its seat, or no seat (watch, or a free one). */
export function roomUrl(code: string, seat: unknown): string {
  return typeof seat === "number" && Number.isInteger(seat) && seat >= 0 ? `/r/${code}?seat=${seat}` : `/r/${code}`;
}

function names(list: unknown): string {
  if (!Array.isArray(list)) return "";
  return list.map((p) => String((p as { name?: unknown } | null)?.name ?? "someone")).join(", ");
}

/** "Rematch: invited Ben, Cy. Couldn't invite Dee (offline, or not taking invitations)." */
export function rematchNote(d: Partial<RematchSent>): string {
  const sent = names(d.to);
  const skipped = names(d.skipped);
  const parts = [sent ? `Rematch: invited ${sent}.` : "Rematch: a new room of the same game."];
  if (skipped) parts.push(`Couldn't invite ${skipped} (offline, or not taking invitations).`);
  return parts.join(" ");
}
