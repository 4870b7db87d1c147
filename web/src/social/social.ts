// Block / mute / favourite, kept per identity by the server (`relation`, `relations`): the
// page's copy of the three lists and the small toggle buttons shown next to other players' names;
// and chat lines as the server sends them.

import type { Socket } from "socket.io-client";
import { h } from "../core/dom";
import type { ServerErr } from "../net/identity";
import type { ChatLine } from "../net/protocol.gen";

export type RelationKind = "block" | "mute" | "favourite";

export interface Relations {
  block: Set<string>;
  mute: Set<string>;
  favourite: Set<string>;
}

/** The lists as the server sends them (anything malformed is left out). */
export function parseRelations(d: unknown): Relations {
  const get = (k: RelationKind): Set<string> => {
    const v = d && typeof d === "object" ? (d as Record<string, unknown>)[k] : null;
    return new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  };
  return { block: get("block"), mute: get("mute"), favourite: get("favourite") };
}

const LABELS: Record<RelationKind, [string, string, string]> = {
  // [label when off, label when on, title]
  favourite: ["♡", "♥", "Favourite: their name shows a heart"],
  mute: ["Mute", "Unmute", "Mute: hide their chat lines"],
  block: ["Block", "Unblock", "Block: they can't challenge you or join your tables"],
};

let active: Social | null = null;

/** Favourite / mute / block toggles for another person at the table (the players panel), or
 *  null when we have no identity yet or ``id`` is ours. */
export function relationButtons(id: string | undefined, name: string): HTMLElement | null {
  if (!id || !active || !active.me || id === active.me) return null;
  return active.buttons(id, name);
}

/** Changes whenever the lists do (for a redraw key). */
export function relationsKey(): string {
  if (!active) return "";
  const r = active.rel;
  return JSON.stringify([active.me, [...r.block], [...r.mute], [...r.favourite]]);
}

/** Whether the page's player has made identity ``id`` a favourite (a heart by their name). */
export function isFavourite(id: string | undefined): boolean {
  return !!id && !!active && active.has("favourite", id);
}

export class Social {
  rel: Relations = parseRelations(null);
  /** Our identity once `hello` went through. */
  me: string | null = null;
  private listeners: (() => void)[] = [];
  private nextRef = 1;

  /** `onError`: says when a change was refused (the room's connection already does). */
  constructor(
    readonly socket: Socket,
    onError?: (text: string) => void,
  ) {
    active = this;
    socket.on("relations", (d: unknown) => {
      this.rel = parseRelations(d);
      for (const fn of this.listeners) fn();
    });
    socket.on("error", (e: ServerErr) => {
      if (onError && e && typeof e.ref === "string" && e.ref.startsWith("rel")) onError(e.message || e.code);
    });
  }

  /** Call `fn` whenever the lists change. */
  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  has(kind: RelationKind, id: string): boolean {
    return this.rel[kind].has(id);
  }

  set(id: string, kind: RelationKind, on: boolean): void {
    this.socket.emit("relation", { id, kind, on, ref: `rel${this.nextRef++}` });
  }

  /** Told when this page mutes someone (the room says so, with Undo). */
  onMuted: ((id: string, name: string) => void) | null = null;

  /** Mute ``id``, and say so where the page listens. */
  mute(id: string, name: string): void {
    this.set(id, "mute", true);
    this.onMuted?.(id, name);
  }

  /** A heart before a favourite's name (empty for others). */
  heart(id: string): HTMLElement {
    return h("span", { class: "heart", "data-testid": "fav-heart", title: "A favourite", hidden: !this.has("favourite", id) }, "♥");
  }

  /** Favourite / mute / block toggles for another player's identity. */
  buttons(id: string, name: string, kinds: RelationKind[] = ["favourite", "mute", "block"]): HTMLElement {
    return h(
      "span",
      { class: "relation-buttons" },
      kinds.map((kind) => {
        const on = this.has(kind, id);
        const [off, onLabel, title] = LABELS[kind];
        const b = h(
          "button",
          {
            type: "button",
            class: `small rel-${kind}${on ? " on" : ""}`,
            "data-testid": `${kind}-player`,
            "data-identity": id,
            "aria-pressed": on ? "true" : "false",
            title: `${title} (${name})`,
          },
          on ? onLabel : off,
        );
        // Favourite and block are exclusive: the server turns the other one off.
        b.addEventListener("click", () => (kind === "mute" && !on ? this.mute(id, name) : this.set(id, kind, !on)));
        return b;
      }),
    );
  }
}

export type { ChatLine } from "../net/protocol.gen";

/** A well-formed chat line from the server, or null. */
export function chatLine(d: unknown): ChatLine | null {
  if (!d || typeof d !== "object") return null;
  const { from, text, at } = d as Record<string, unknown>;
  if (!from || typeof from !== "object" || typeof text !== "string") return null;
  const f = from as Record<string, unknown>;
  if (typeof f.player !== "string" || typeof f.name !== "string") return null;
  return {
    from: { player: f.player, name: f.name, ...(typeof f.identity === "string" ? { identity: f.identity } : {}) },
    text,
    at: typeof at === "number" ? at : Date.now() / 1000,
  };
}
