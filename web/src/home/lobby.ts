// The lobby on the home page: go online or offline, the online players (searchable, 50 a page)
// with challenge and favourite / mute / block buttons, public tables with Join, and challenges
// both ways (waiting for an answer, accepted → both pages join the new room in their seats,
// expired → both pages say so), with the chosen game's options.

import { io, type Socket } from "socket.io-client";
import { h, patchChildren, setText } from "../core/dom";
import { hello, type ServerErr, STORAGE_NEEDED, storageWorks } from "../net/identity";
import { fetchGames, gameCaption, type OptionFields, optionFields, optionLabel } from "../game/options";
import { ONLINE_KEY } from "../social/invites";
import { roomUrl } from "../social/rooms";
import { Social } from "../social/social";
import type { GameInfo } from "../core/types";
import type { Challenged, LobbyPlayer, LobbyTable, ServerEvents } from "../net/protocol.gen";
import { load, save } from "../core/util";

const PAGE_SIZE = 50;
const REFRESH_MS = 5000;

/** Append the lobby to the home page (`root` holds `main.home`). */
export function mountLobby(root: HTMLElement): void {
  const main = root.querySelector("main.home") ?? root;
  const box = h("section", { class: "box lobby", "data-testid": "lobby" }, h("h2", {}, "Play with people"));
  main.appendChild(box);
  if (!storageWorks()) {
    box.appendChild(h("p", { class: "err", "data-testid": "storage-needed" }, STORAGE_NEEDED));
    return;
  }
  new Lobby(box);
}

class Lobby {
  private socket: Socket;
  private social: Social;
  private me: string | null = null;
  private online = load(ONLINE_KEY) === "1";
  private page = 0;
  private total = 0;
  private players: LobbyPlayer[] = [];
  private tables: LobbyTable[] = [];
  private games: GameInfo[] = [];
  private outgoing: { id: string | null; name: string } | null = null;
  private nextRef = 1;
  private timer: number | null = null;

  private onlineBtn = h("button", { type: "button", class: "primary", "data-testid": "go-online" });
  private onlineHint = h("p", { class: "hint", "data-testid": "online-hint" });
  private search = h("input", {
    type: "search",
    "data-testid": "lobby-search",
    placeholder: "Find a player",
    maxlength: 32,
    "aria-label": "Find a player",
  });
  private gameSel = h("select", { "data-testid": "challenge-game", "aria-label": "Game to challenge with" });
  private optionsBox = h("div", { class: "challenge-options", "data-testid": "challenge-options" });
  private fields: OptionFields | null = null;
  private status = h("div", { class: "challenge-status", "data-testid": "challenge-status", role: "status" });
  private invites = h("div", { class: "invites", "data-testid": "invites" });
  private playersEl = h("ul", { class: "lobby-players", "data-testid": "lobby-players" });
  private tablesEl = h("ul", { class: "lobby-tables", "data-testid": "lobby-tables" });
  private pager = h("div", { class: "pager" });

  constructor(box: HTMLElement) {
    this.socket = io({ transports: ["websocket"], reconnectionDelay: 400, reconnectionDelayMax: 2500 });
    this.social = new Social(this.socket, (text) => this.say(text, true));
    this.social.onChange(() => this.draw());
    this.onlineBtn.addEventListener("click", () => this.setOnline(!this.online));
    this.gameSel.addEventListener("change", () => this.showOptions());
    let searchTimer = 0;
    this.search.addEventListener("input", () => {
      clearTimeout(searchTimer);
      searchTimer = window.setTimeout(() => {
        this.page = 0;
        this.refresh();
      }, 250);
    });
    box.append(
      h("div", { class: "row" }, this.onlineBtn),
      this.onlineHint,
      this.invites,
      this.status,
      h("div", { class: "row" }, h("label", {}, "Challenge to ", this.gameSel)),
      this.optionsBox,
      h("h3", {}, "Online players"),
      this.search,
      this.playersEl,
      this.pager,
      h("h3", {}, "Public tables"),
      this.tablesEl,
    );
    void fetchGames()
      .then((list) => {
        this.games = list.filter((g) => g.min_players <= 2 && g.max_players >= 2);
        for (const g of this.games) this.gameSel.appendChild(h("option", { value: g.name }, gameCaption(g)));
        this.showOptions();
        this.gameSel.dataset.loaded = "true";
      })
      .catch(() => undefined);
    document.getElementById("name")?.addEventListener("change", () => {
      if (this.socket.connected) void this.hello();
    });

    const s = this.socket;
    s.on("connect", () => void this.hello());
    s.on("lobby", (d: Partial<ServerEvents["lobby"]>) => {
      this.players = Array.isArray(d.players) ? d.players : [];
      if (d.page === 0 || d.page === undefined) this.tables = Array.isArray(d.tables) ? d.tables : [];
      this.total = typeof d.total === "number" ? d.total : this.players.length;
      this.draw();
      this.tablesEl.dataset.loaded = "true"; // the server's list is shown (tests wait on it)
    });
    s.on("challenge_sent", (d: Partial<ServerEvents["challenge_sent"]>) => {
      if (this.outgoing && typeof d.id === "string") this.outgoing.id = d.id;
    });
    s.on("challenge_declined", (d: Partial<ServerEvents["challenge_declined"]>) => {
      if (!this.outgoing || d.id !== this.outgoing.id) return;
      this.say(`${this.outgoing.name} declined.`);
      this.outgoing = null;
    });
    s.on("challenge_accepted", (d: Partial<ServerEvents["challenge_accepted"]>) => {
      if (typeof d.code !== "string" || !/^[A-Z0-9]{8,10}$/.test(d.code)) return;
      this.say("accepted! setting up your game…");
      this.invites.replaceChildren();
      // An invite: that room, in the seat kept or free for you, or watching (seat null).
      location.assign(d.invite ? roomUrl(d.code, d.seat) : `/r/${d.code}?seat=${Number(d.seat) || 0}`);
    });
    s.on("challenged", (d: Challenged) => this.challenged(d));
    s.on("challenge_expired", (d: Partial<ServerEvents["challenge_expired"]>) => {
      if (this.outgoing && d.id === this.outgoing.id) {
        this.say(`${this.outgoing.name} didn't answer in time: the challenge expired.`);
        this.outgoing = null;
      }
      const invite = this.invites.querySelector(`[data-challenge="${CSS.escape(String(d.id))}"]`);
      if (invite) {
        invite.remove();
        this.say(`The challenge from ${d.from?.name ?? "another player"} expired.`);
      }
    });
    s.on("challenge_cancelled", (d: Partial<ServerEvents["challenge_cancelled"]>) => {
      this.invites.querySelector(`[data-challenge="${CSS.escape(String(d.id))}"]`)?.remove();
      this.say(`${d.from?.name ?? "They"} cancelled their invitation`);
    });
    s.on("error", (e: ServerErr) => {
      if (e && typeof e.ref === "string" && e.ref.startsWith("lobby:")) {
        if (e.ref.startsWith("lobby:challenge")) this.outgoing = null;
        this.say(e.message || e.code, true);
      }
    });
    this.draw();
  }

  private ref(what: string): string {
    return `lobby:${what}${this.nextRef++}`;
  }

  private async hello(): Promise<void> {
    const r = await hello(this.socket);
    if (!r.ok) {
      if (r.error && r.error.code !== "out_of_date") this.say(r.error.message || r.error.code, true);
      return;
    }
    this.me = r.id;
    this.social.me = r.id;
    if (this.online) this.socket.emit("online", { on: true, ref: this.ref("online") });
    this.refresh();
    if (this.timer === null) this.timer = window.setInterval(() => this.refresh(), REFRESH_MS);
  }

  /** "at a table" (with the game) for a player in a room; Join / Watch where the room is public. */
  private where(p: LobbyPlayer): HTMLElement[] {
    const at = p.at;
    if (!at) return [];
    const game = at.game ? (this.games.find((g) => g.name === at.game)?.title ?? at.game) : null;
    const free = at.seats_free > 0 ? `, ${at.seats_free} seat${at.seats_free === 1 ? "" : "s"} free` : "";
    const out: HTMLElement[] = [h("span", { class: "hint", "data-testid": "at-table" }, ` at a table${game ? ` — ${game}` : ""}${free} `)];
    if (at.public && at.code) {
      const code = at.code;
      const go = h("button", { type: "button", class: "small", "data-testid": "join-at" }, at.seats_free > 0 ? "Join" : "Watch");
      go.addEventListener("click", () => location.assign(`/r/${code}`));
      out.push(go);
    }
    return out;
  }

  private setOnline(on: boolean): void {
    this.online = on;
    save(ONLINE_KEY, on ? "1" : "0"); // "0": a room page keeps you offline too
    if (this.me) this.socket.emit("online", { on, ref: this.ref("online") });
    this.draw();
    this.refresh();
  }

  private refresh(): void {
    if (!this.me || !this.socket.connected) return;
    const q = this.search.value.trim().slice(0, 32);
    this.socket.emit("lobby", { page: this.page, ...(q ? { q } : {}), ref: this.ref("list") });
  }

  private say(text: string, error = false): void {
    setText(this.status, text);
    this.status.classList.toggle("err", error);
  }

  private challenge(p: LobbyPlayer): void {
    const game = this.gameSel.value;
    if (!game) {
      this.say("Choose a game to play first.", true);
      return;
    }
    this.outgoing = { id: null, name: p.name };
    this.say(`You challenged ${p.name}: waiting for their response…`);
    const cancel = h("button", { type: "button", class: "small", "data-testid": "challenge-cancel" }, "Cancel");
    cancel.addEventListener("click", () => {
      if (this.outgoing?.id) this.socket.emit("challenge_cancel", { id: this.outgoing.id, ref: this.ref("cancel") });
      this.outgoing = null;
      this.say("Invitation cancelled.");
    });
    this.status.append(" ", cancel);
    // Only what differs from the game's defaults (and only plain values: a table-like default,
    // such as a chart, is not something to type in here).
    const info = this.games.find((g) => g.name === game);
    const chosen = this.fields?.values() ?? {};
    const options = Object.fromEntries(
      (info?.options ?? [])
        .filter((o) => typeof o.default !== "object" && o.name in chosen && chosen[o.name] !== o.default)
        .map((o) => [o.name, chosen[o.name]]),
    );
    this.socket.emit("challenge", { to: p.id, game, ...(Object.keys(options).length ? { options } : {}), ref: this.ref("challenge") });
  }

  /** The chosen game's options (the same fields as "Play a game…"), under the game. */
  private showOptions(): void {
    const found = this.games.find((g) => g.name === this.gameSel.value);
    // Not "fill" (computers fill the empty seats): a challenge is for two people.
    const game = found && { ...found, options: (found.options ?? []).filter((o) => typeof o.default !== "object" && o.name !== "fill") };
    this.fields = game && game.options.length ? optionFields(game, undefined, "challenge-opt") : null;
    this.optionsBox.replaceChildren(
      ...(this.fields ? [h("details", {}, h("summary", { "data-testid": "challenge-options-open" }, "Game options"), this.fields.el)] : []),
    );
  }

  private challenged(d: Challenged): void {
    if (!d || typeof d.id !== "string" || !d.from || typeof d.from.name !== "string") return;
    const info = this.games.find((g) => g.name === d.game);
    // The options that differ from the game's defaults: "Gin Rummy · Target: 250".
    const given = d.options && typeof d.options === "object" ? d.options : {};
    const changed = (info?.options ?? []).filter((o) => o.name in given && given[o.name] !== o.default);
    const title = [
      info?.title ?? d.game,
      ...changed.map(
        (o) => `${optionLabel(o)}: ${given[o.name] === true ? "Yes" : given[o.name] === false ? "No" : String(given[o.name])}`,
      ),
    ].join(" · ");
    const accept = h("button", { type: "button", class: "primary small", "data-testid": "challenge-accept" }, "Accept");
    const decline = h("button", { type: "button", class: "small", "data-testid": "challenge-decline" }, "Decline");
    const el = h(
      "div",
      { class: "invite", "data-testid": "challenged", "data-challenge": d.id },
      h(
        "p",
        {},
        this.social.heart(d.from.id),
        d.invite ? `${d.from.name} invites you to their table!` : `${d.from.name} has challenged you to a game!`,
      ),
      h("p", { class: "hint", "data-testid": "challenged-game" }, title),
      h("div", { class: "row" }, accept, decline),
    );
    accept.addEventListener("click", () => {
      accept.disabled = decline.disabled = true;
      this.socket.emit("challenge_answer", { id: d.id, accept: true, ref: this.ref("answer") });
      this.say("accepted! setting up your game…");
    });
    decline.addEventListener("click", () => {
      el.remove();
      this.socket.emit("challenge_answer", { id: d.id, accept: false, ref: this.ref("answer") });
    });
    this.invites.appendChild(el);
  }

  private draw(): void {
    setText(this.onlineBtn, this.online ? "Go offline" : "Go online");
    setText(
      this.onlineHint,
      this.online
        ? "You are online: other players can see you and challenge you."
        : "Other players won't see you online and can't challenge you.",
    );
    const others = this.players.filter((p) => p.id !== this.me);
    patchChildren(this.playersEl, [
      ...(others.length
        ? others.map((p) => {
            const fav = this.social.has("favourite", p.id);
            const ch = h(
              "button",
              { type: "button", class: "small primary", "data-testid": "challenge-player", disabled: this.social.has("block", p.id) },
              "Challenge",
            );
            ch.addEventListener("click", () => this.challenge(p));
            const heart = h("span", { class: "heart", "data-testid": "fav-heart", hidden: !fav, title: "A favourite" }, "♥");
            return h(
              "li",
              { "data-testid": "lobby-player", "data-id": p.id },
              h("span", { class: "pname" }, heart, h("span", { "data-testid": "lobby-player-name" }, p.name)),
              ...this.where(p),
              ch,
              this.social.buttons(p.id, p.name),
            );
          })
        : [h("li", { class: "hint" }, this.me ? "Nobody else is online right now." : "Connecting…")]),
    ]);
    const pages = Math.max(1, Math.ceil(this.total / PAGE_SIZE));
    const prev = h("button", { type: "button", class: "small", disabled: this.page === 0, "data-testid": "lobby-prev" }, "‹ Previous");
    const next = h("button", { type: "button", class: "small", disabled: this.page + 1 >= pages, "data-testid": "lobby-next" }, "Next ›");
    prev.addEventListener("click", () => {
      this.page = Math.max(0, this.page - 1);
      this.refresh();
    });
    next.addEventListener("click", () => {
      this.page += 1;
      this.refresh();
    });
    patchChildren(this.pager, pages > 1 ? [prev, h("span", {}, ` page ${this.page + 1} of ${pages} `), next] : []);
    patchChildren(this.tablesEl, [
      ...(this.tables.length
        ? this.tables.map((t) => {
            const join = h("button", { type: "button", class: "small primary", "data-testid": "join-public" }, "Join");
            join.addEventListener("click", () => location.assign(`/r/${t.code}`));
            const what = t.game ? (this.games.find((g) => g.name === t.game)?.title ?? t.game) : "Free play";
            return h(
              "li",
              { "data-testid": "public-table", "data-code": t.code },
              h("span", { class: "pname" }, t.title || what),
              h("span", { class: "hint" }, ` ${what}, ${t.seats_free} seat${t.seats_free === 1 ? "" : "s"} free `),
              join,
            );
          })
        : [h("li", { class: "hint" }, "No public tables right now.")]),
    ]);
  }
}
