// The room's side of "playing with people": `hello` before each join (so the player carries our
// identity and the server leaves out lines of players we muted), the seat a challenge gave us
// (`?seat=N`), the "blocked player here" question, and table chat: lines in the panel's own chat
// list, apart from the moves, in the order they were said (history and live lines alike), as
// text, never markup (a link is plain text); lines of muted players hidden; a new line from
// someone else announced politely to screen readers; an input under the list.

import { announce } from "../core/announce";
import { h } from "../core/dom";
import { hello, type ServerErr, showOutOfDate, STORAGE_NEEDED, storageWorks } from "../net/identity";
import type { Conn } from "../net/api";
import type { Ack, ChatHistory } from "../net/protocol.gen";
import type { State } from "../table/state";
import { keepOfflineChoice } from "./invites";
import { type ChatLine, chatLine, Social } from "./social";
import { confirmDialog, screen, toast } from "../core/ui";
import { queryParam } from "../core/util";

/** What the room's chat needs from the room page (room.ts passes itself). */
export interface ChatPorts {
  readonly s: State;
  readonly conn: Conn;
  /** The players panel: its chat list and pane, and a count of lines not seen yet. */
  readonly panel: { readonly chatEl: HTMLElement; readonly chatPane: HTMLElement; chatArrived(): void };
  /** Redraw the page (hearts by favourites' names). */
  changed(): void;
}

export class RoomChat {
  readonly social: Social;
  private identity: string | null = null;
  private joinExtra: Record<string, unknown> = {};
  private seen = new Set<string>();
  private items: { line: ChatLine; el: HTMLElement }[] = [];
  private input: HTMLInputElement;
  private nextRef = 1;

  constructor(private room: ChatPorts) {
    const conn = room.conn;
    const sock = conn.socket;
    this.social = new Social(sock);
    // A mute says what it did, and can be undone.
    this.social.onMuted = (id, name) =>
      toast(`${name} is muted: you won't see their chat.`, "info", 8000, {
        label: "Undo",
        testid: "undo-mute",
        run: () => this.social.set(id, "mute", false),
      });
    this.social.onChange(() => {
      this.applyMutes();
      room.changed(); // hearts by favourites' names in the players panel
    });
    const seat = Number(queryParam("seat"));
    conn.beforeJoin = async (withToken) => {
      const r = await hello(sock);
      this.identity = r.ok ? r.id : null;
      if (r.ok) keepOfflineChoice(sock);
      this.social.me = this.identity;
      const extra: Record<string, unknown> = {};
      if (this.identity) extra.identity = this.identity;
      if (!withToken && Number.isInteger(seat) && seat >= 0 && queryParam("seat") !== null) extra.seat = seat;
      this.joinExtra = extra;
      return extra;
    };
    conn.joinRefused = (e) => this.joinRefused(e);
    sock.on("chat", (d: unknown) => {
      const code = d && typeof d === "object" ? (d as { code?: unknown }).code : null;
      const line = chatLine(d);
      if (line && code === room.s.code) this.add(line, true);
    });
    sock.on("chat_history", (d: Partial<ChatHistory>) => {
      if (!d || d.code !== room.s.code || !Array.isArray(d.lines)) return;
      for (const raw of d.lines) {
        const line = chatLine(raw);
        if (line) this.add(line, false);
      }
    });
    sock.on("ack", (d: Partial<Ack>) => {
      if (d && typeof d.ref === "string" && d.ref.startsWith("chat")) this.input.value = "";
    });

    this.input = h("input", {
      class: "chat-input",
      "data-testid": "chat-input",
      maxlength: 300,
      placeholder: "Say something to the table…",
      autocomplete: "off",
      "aria-label": "Chat message",
    });
    // Keys typed here are chat, not table shortcuts.
    this.input.addEventListener("keydown", (e) => e.stopPropagation());
    const send = h("button", { type: "submit", class: "small", "data-testid": "chat-send" }, "Send");
    const form = h("form", { class: "chat-form", "data-testid": "chat-form" }, this.input, send);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.send();
    });
    const box = room.panel.chatPane;
    box.appendChild(form);
    if (!storageWorks()) box.appendChild(h("p", { class: "hint storage-needed", "data-testid": "storage-needed" }, STORAGE_NEEDED));
  }

  private send(): void {
    const text = this.input.value.trim();
    if (!text) return;
    if (!this.room.conn.isJoined) {
      toast("Not connected: try again in a moment.", "error");
      return;
    }
    this.room.conn.socket.emit("chat", { text, ref: `chat${this.nextRef++}` });
  }

  /** `live`: just said (else from the history a join brings). */
  private add(line: ChatLine, live: boolean): void {
    const key = `${line.at}|${line.from.player}|${line.text}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const log = this.room.panel.chatEl;
    const at = new Date(line.at * 1000);
    const hhmm = `${String(at.getHours()).padStart(2, "0")}:${String(at.getMinutes()).padStart(2, "0")}`;
    const who = line.from.identity;
    const el = h(
      "li",
      { class: "chat-line", "data-testid": "chat-line", "data-player": line.from.player },
      h("time", {}, hhmm),
      " ",
      who ? this.social.heart(who) : null,
      h("strong", { class: "chat-name", "data-testid": "chat-name" }, line.from.name),
      ": ",
      h("span", { class: "chat-text", "data-testid": "chat-text" }, line.text),
      who && who !== this.identity ? this.muteButton(who, line.from.name) : null,
    );
    el.hidden = !!who && this.social.has("mute", who);
    // In the order said: a live line may come before the history of a (re)join, which is older.
    let i = this.items.length;
    while (i > 0 && this.items[i - 1].line.at > line.at) i--;
    const next = this.items[i]?.el;
    this.items.splice(i, 0, { line, el });
    if (next?.parentNode === log) log.insertBefore(el, next);
    else log.appendChild(el);
    while (this.items.length > 200) this.items.shift()?.el.remove();
    log.scrollTop = log.scrollHeight;
    const mine = line.from.player === this.room.s.me.player || (!!who && who === this.identity);
    if (live && !mine && !el.hidden) {
      announce(`${line.from.name} says: ${line.text}`, "chat");
      this.room.panel.chatArrived();
    }
  }

  private muteButton(id: string, name: string): HTMLElement {
    const b = h(
      "button",
      { type: "button", class: "small chat-mute", "data-testid": "chat-mute", title: `Mute ${name}: hide their chat lines` },
      "Mute",
    );
    b.addEventListener("click", () => this.social.mute(id, name));
    return b;
  }

  /** Muted players' lines are hidden (and shown again when unmuted); hearts follow favourites. */
  private applyMutes(): void {
    for (const { line, el } of this.items) {
      const who = line.from.identity;
      el.hidden = !!who && this.social.has("mute", who);
      const heart = el.querySelector<HTMLElement>("[data-testid=fav-heart]");
      if (heart && who) heart.hidden = !this.social.has("favourite", who);
    }
  }

  private joinRefused(e: ServerErr): boolean {
    const conn = this.room.conn;
    switch (e.code) {
      case "blocked_player_here":
        // The safe choice ("Don't join") is the default one.
        void confirmDialog(
          "Join anyway?",
          e.message || "This table has a player that you have blocked.",
          "Join anyway",
          undefined,
          "Don't join",
        ).then((yes) => {
          if (!yes) location.assign("/");
          else conn.joinWith({ ...this.joinExtra, anyway: true });
        });
        return true;
      case "blocked":
        conn.stop();
        screen("blocked-screen", "You can't join this table", e.message || "A player at this table has blocked you.", [
          { label: "Home", testid: "go-home", primary: true, action: () => location.assign("/") },
        ]);
        return true;
      case "out_of_date":
        conn.stop();
        showOutOfDate();
        return true;
      case "identity_required":
        // Someone at this table blocks people and we have no identity (storage refused): we
        // may watch, not sit or chat. Say why, and join to watch.
        toast(e.message || "You can watch this table but not sit or chat here.", "info", 10000);
        conn.joinWith({ ...this.joinExtra, seat: null });
        return true;
      case "bad_identity":
      case "no_identity":
        // Our identity was not accepted: join without one (the table still works).
        this.identity = null;
        conn.joinWith({});
        return true;
      default:
        return false;
    }
  }
}
