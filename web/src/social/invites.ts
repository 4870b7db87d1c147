// A challenge reaches the room page too (issue 22 item 2): a toast with Accept / Decline, the tab
// title "(1) Challenge — …" until it is answered, cancelled or expired; accepting takes you to the
// new room (`challenge_accepted` → `/r/CODE?seat=N`). Also the page's remembered offline choice:
// a room page that joins goes online unless you went offline on the home page.
// Invite and rematch (item 5): the players panel's "Invite…" lists your favourites online
// (`favourites_online`) and invites one to this table (`challenge {to, room}`); an invite you get
// is the same toast ("… invites you to their table"), and accepting goes to that room (its seat
// kept for you, a free one, or watching). The end-of-game sheet's "Rematch" (game/summary.ts via
// `rematchHere`) asks for a new room of the same game (`rematch`) and goes there.

import type { Socket } from "socket.io-client";
import { h } from "../core/dom";
import { showMenu, toast } from "../core/ui";
import { load } from "../core/util";
import type { Challenged, FavouritesOnlinePage, InviteAccepted, RematchSent, ServerEvents } from "../net/protocol.gen";
import { rematchNote, roomUrl } from "./rooms";

/** localStorage: "1" online (home page's "Go online"), "0" chose offline, absent: never said. */
export const ONLINE_KEY = "cardtable:online";

/** After `hello`, before a room join: keep the explicit offline choice (the server otherwise
 * counts a socket in a room as online). */
export function keepOfflineChoice(socket: Socket): void {
  if (load(ONLINE_KEY) === "0") socket.emit("online", { on: false });
}

function gameWords(game: unknown): string {
  if (typeof game !== "string" || !game) return "a game";
  const w = game.replace(/_/g, " ");
  return w.charAt(0).toUpperCase() + w.slice(1);
}

let rematcher: ((refused: () => void) => void) | null = null;

/** The room page's rematch (a new room, the same game and computers, the same people invited;
 * `refused` runs if the server said no, after the room's error toast): null where there is none
 * (no room page). */
export function rematchHere(): ((refused: () => void) => void) | null {
  return rematcher;
}

const CODE_RE = /^[A-Z0-9]{8,10}$/;
/** sessionStorage: what a rematch did, said on the new room's page. */
const NOTE_KEY = "cardtable:rematch-note";

function keepNote(text: string): void {
  try {
    sessionStorage.setItem(NOTE_KEY, text);
  } catch {
    // no storage: the new room just doesn't say it
  }
}

function takeNote(): string | null {
  try {
    const text = sessionStorage.getItem(NOTE_KEY);
    sessionStorage.removeItem(NOTE_KEY);
    return text;
  } catch {
    return null;
  }
}

export class RoomInvites {
  private open = new Map<string, HTMLElement>();
  private accepted = new Set<string>();
  private box: HTMLElement | null = null;
  private baseTitle: string | null = null;
  private code: string | null = null;
  /** Invites this page sent: challenge id → the invitee's name (refs until `challenge_sent`). */
  private sent = new Map<string, string>();
  private sending = new Map<string, string>();
  private nextRef = 1;
  private rematching: (() => void) | null = null;
  private at = { x: 8, y: 8 };

  constructor(private socket: Socket) {
    socket.on("challenged", (d: Challenged) => this.show(d));
    const drop = (d: { id?: unknown }) => {
      if (typeof d?.id === "string") this.close(d.id);
    };
    socket.on("challenge_cancelled", drop);
    socket.on("challenge_expired", (d: Partial<ServerEvents["challenge_expired"]>) => {
      drop(d);
      const name = typeof d?.id === "string" ? this.sent.get(d.id) : undefined;
      if (name !== undefined && d.id) {
        this.sent.delete(d.id);
        toast(`${name} didn't answer your invitation in time.`, "info", 6000);
      }
    });
    socket.on("challenge_declined", (d: Partial<ServerEvents["challenge_declined"]>) => {
      const name = typeof d?.id === "string" ? this.sent.get(d.id) : undefined;
      if (name !== undefined && d.id) {
        this.sent.delete(d.id);
        toast(`${name} declined your invitation.`, "info", 6000);
      }
    });
    socket.on("invite_accepted", (d: Partial<InviteAccepted>) => {
      if (typeof d?.id !== "string" || !this.sent.has(d.id)) return;
      this.sent.delete(d.id);
      toast(`${d.by?.name ?? "They"} accepted your invitation and is on the way.`, "info", 6000);
    });
    socket.on("challenge_sent", (d: Partial<ServerEvents["challenge_sent"]>) => {
      const name = typeof d?.ref === "string" ? this.sending.get(d.ref) : undefined;
      if (name === undefined || typeof d.ref !== "string" || typeof d.id !== "string") return;
      this.sending.delete(d.ref);
      this.sent.set(d.id, name);
      toast(`Invited ${name} to this table: waiting for an answer…`, "info", 6000);
    });
    socket.on("challenge_accepted", (d: Partial<ServerEvents["challenge_accepted"]>) => {
      if (typeof d.id !== "string" || !this.accepted.has(d.id)) return; // answered on this page only
      if (typeof d.code !== "string" || !CODE_RE.test(d.code)) return;
      location.assign(d.invite ? roomUrl(d.code, d.seat) : `/r/${d.code}?seat=${Number(d.seat) || 0}`);
    });
    socket.on("joined", (d: { code?: unknown }) => {
      if (typeof d?.code === "string") this.code = d.code;
      this.placeButton();
    });
    socket.on("favourites_online", (d: Partial<FavouritesOnlinePage>) => this.menu(d));
    socket.on("rematch_sent", (d: Partial<RematchSent>) => {
      if (typeof d?.code !== "string" || !CODE_RE.test(d.code)) return;
      keepNote(rematchNote(d));
      location.assign(roomUrl(d.code, d.seat));
    });
    socket.on("error", (e: { ref?: unknown }) => {
      // An answer too late (expired, cancelled): the toast goes; the room's error toast says why.
      if (e && typeof e.ref === "string" && e.ref.startsWith("invite:")) this.close(e.ref.slice(7));
      if (e && typeof e.ref === "string") this.sending.delete(e.ref);
      if (e && e.ref === "rematch" && this.rematching) {
        this.rematching();
        this.rematching = null;
      }
    });
    rematcher = (refused) => this.rematch(refused);
    this.placeButton();
    const note = takeNote();
    if (note) toast(note, "info", 8000);
  }

  /** "Invite…" under the players panel's heading, once the panel is on the page. */
  private placeButton(): void {
    if (document.querySelector("[data-testid=invite-open]")) return;
    const heading = document.querySelector("[data-testid=panel] section.players > h2");
    if (!heading) return;
    const open = h(
      "button",
      { type: "button", class: "small invite-open", "data-testid": "invite-open", title: "Invite a favourite who is online to this table" },
      "Invite…",
    );
    open.style.margin = "0 12px 6px"; // in line with the panel's heading and seats
    open.addEventListener("click", () => {
      const r = open.getBoundingClientRect();
      this.at = { x: r.left, y: r.bottom + 4 };
      this.socket.emit("favourites_online", { ref: "favourites" });
    });
    heading.insertAdjacentElement("afterend", open);
  }

  /** The list of favourites online, each one a click from an invite. */
  private menu(d: Partial<FavouritesOnlinePage>): void {
    const players = Array.isArray(d?.players) ? d.players.filter((p) => p && typeof p.id === "string") : [];
    if (players.length === 0) {
      toast("None of your favourites is online now. Mark people with ♥ in the lobby or the players panel.", "info", 6000);
      return;
    }
    showMenu(
      "Invite to this table",
      players.map((p) => ({
        label: String(p.name || "someone"),
        testid: `invite-${p.id}`,
        action: () => this.invite(p.id, String(p.name || "someone")),
      })),
      this.at.x,
      this.at.y,
    );
  }

  private invite(to: string, name: string): void {
    if (!this.code) return;
    const ref = `inv-send:${this.nextRef++}`;
    this.sending.set(ref, name);
    this.socket.emit("challenge", { to, room: this.code, ref });
  }

  private rematch(refused: () => void): void {
    if (this.rematching) return;
    this.rematching = refused;
    this.socket.emit("rematch", { ref: "rematch" });
  }

  private show(d: Challenged): void {
    if (!d || typeof d.id !== "string" || !d.from || typeof d.from.name !== "string") return;
    if (this.open.has(d.id)) return;
    if (!this.box || !this.box.isConnected) {
      this.box = h("div", { class: "toasts challenge-toasts", role: "alert" });
      this.box.style.zIndex = "3000010"; // over the hand strip and the table's objects
      document.body.appendChild(this.box);
    }
    // Above the hand strip (a room's own cards stay in sight), as the room's other toasts.
    const strip = document.querySelector(".hand-strip")?.getBoundingClientRect();
    this.box.style.bottom = strip && strip.height ? `${Math.max(24, window.innerHeight - strip.top + 12)}px` : "";
    const id = d.id;
    const accept = h("button", { type: "button", class: "small primary toast-action", "data-testid": "challenge-accept" }, "Accept");
    const decline = h("button", { type: "button", class: "small toast-action", "data-testid": "challenge-decline" }, "Decline");
    accept.addEventListener("click", () => {
      this.accepted.add(id);
      this.socket.emit("challenge_answer", { id, accept: true, ref: `invite:${id}` });
      accept.disabled = decline.disabled = true;
    });
    decline.addEventListener("click", () => {
      this.socket.emit("challenge_answer", { id, accept: false });
      this.close(id);
    });
    const words = d.invite
      ? `${d.from.name} invites you to their table${d.game ? ` (${gameWords(d.game)})` : ""}. `
      : `${d.from.name} has challenged you to ${gameWords(d.game)}! `;
    const el = h(
      "div",
      { class: "toast info challenge-toast", "data-testid": "challenge-toast", "data-challenge": id },
      words,
      accept,
      decline,
    );
    this.box.appendChild(el);
    this.open.set(id, el);
    this.title();
  }

  private close(id: string): void {
    this.open.get(id)?.remove();
    this.open.delete(id);
    this.title();
  }

  private title(): void {
    if (this.open.size === 0) {
      if (this.baseTitle !== null) document.title = this.baseTitle;
      this.baseTitle = null;
      return;
    }
    if (this.baseTitle === null) this.baseTitle = document.title;
    document.title = `(${this.open.size}) Challenge — ${this.baseTitle}`;
  }
}
