// Live regions for screen readers: polite announcements that are not shown on screen.
// "moves": what other players did (the room's log lines from their deltas; our own are left
// out, since we know what we did). "keys": feedback for keyboard play (what was picked up,
// where it would go). "chat": table chat lines from others. Each announcement is a new line in its region, so saying the same thing
// twice is heard twice; only the last few lines are kept.

import { h } from "./dom";

export type Channel = "moves" | "keys" | "chat";

const KEEP = 5;
const regions = new Map<Channel, HTMLElement>();

function region(channel: Channel): HTMLElement {
  let el = regions.get(channel);
  if (!el || !el.isConnected) {
    el = h("div", {
      class: "sr-only",
      role: "status",
      "aria-live": "polite",
      "aria-atomic": "false",
      "data-testid": `live-${channel}`,
    });
    document.body.appendChild(el);
    regions.set(channel, el);
  }
  return el;
}

/** Create the regions early: a live region must be in the page before it speaks. */
export function prepareAnnouncer(): void {
  region("moves");
  region("keys");
  region("chat");
}

export function announce(text: string, channel: Channel = "moves"): void {
  const t = text.trim();
  if (!t) return;
  const el = region(channel);
  el.appendChild(h("p", {}, t));
  while (el.childElementCount > KEEP) el.firstElementChild?.remove();
}
