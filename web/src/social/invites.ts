// A challenge reaches the room page too (issue 22 item 2): a toast with Accept / Decline, the tab
// title "(1) Challenge — …" until it is answered, cancelled or expired; accepting takes you to the
// new room (`challenge_accepted` → `/r/CODE?seat=N`). Also the page's remembered offline choice:
// a room page that joins goes online unless you went offline on the home page.

import type { Socket } from "socket.io-client";
import { h } from "../core/dom";
import { load } from "../core/util";
import type { Challenged, ServerEvents } from "../net/protocol.gen";

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

export class RoomInvites {
  private open = new Map<string, HTMLElement>();
  private accepted = new Set<string>();
  private box: HTMLElement | null = null;
  private baseTitle: string | null = null;

  constructor(private socket: Socket) {
    socket.on("challenged", (d: Challenged) => this.show(d));
    const drop = (d: { id?: unknown }) => {
      if (typeof d?.id === "string") this.close(d.id);
    };
    socket.on("challenge_cancelled", drop);
    socket.on("challenge_expired", drop);
    socket.on("challenge_accepted", (d: Partial<ServerEvents["challenge_accepted"]>) => {
      if (typeof d.id !== "string" || !this.accepted.has(d.id)) return; // answered on this page only
      if (typeof d.code !== "string" || !/^[A-Z0-9]{8,10}$/.test(d.code)) return;
      location.assign(`/r/${d.code}?seat=${Number(d.seat) || 0}`);
    });
    socket.on("error", (e: { ref?: unknown }) => {
      // An answer too late (expired, cancelled): the toast goes; the room's error toast says why.
      if (e && typeof e.ref === "string" && e.ref.startsWith("invite:")) this.close(e.ref.slice(7));
    });
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
    const el = h(
      "div",
      { class: "toast info challenge-toast", "data-testid": "challenge-toast", "data-challenge": id },
      `${d.from.name} has challenged you to ${gameWords(d.game)}! `,
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
