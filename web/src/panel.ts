// The side panel: seats and players (names, seat colours, presence, hand counts, take/leave a
// seat, rename yourself), spectators, and the room log. Names are text nodes, never HTML.

import { h } from "./dom";
import type { State } from "./state";
import type { Player } from "./types";
import { seatColor } from "./util";

export interface PanelActions {
  sit(seat: number): void;
  leave(): void;
  rename(): void;
}

const STATUS_TEXT: Record<string, string> = { online: "online", reconnecting: "reconnecting…", away: "away" };

export class Panel {
  readonly el: HTMLElement;
  private seatsEl: HTMLElement;
  private specEl: HTMLElement;
  private specTitle: HTMLElement;
  private logEl: HTMLElement;
  private meEl: HTMLElement;
  private key = "";
  private logCount = 0;

  constructor(private actions: PanelActions) {
    this.seatsEl = h("ul", { class: "seats", "data-testid": "seats" });
    this.specTitle = h("h3", {}, "Spectators");
    this.specEl = h("ul", { class: "spectators", "data-testid": "spectators" });
    this.meEl = h("div", { class: "me-controls" });
    this.logEl = h("ol", { class: "log", "data-testid": "log" });
    this.el = h(
      "aside",
      { class: "panel", "data-testid": "panel" },
      h("section", { class: "players" }, h("h2", {}, "Players"), this.seatsEl, this.specTitle, this.specEl, this.meEl),
      h("section", { class: "log-box" }, h("h2", {}, "Room log"), this.logEl),
    );
  }

  render(s: State): void {
    const counts: number[] = [];
    for (let seat = 0; seat < s.seats; seat++) {
      const hand = s.view.get(`hand${seat}`);
      counts.push(hand && hand.t === "hand" ? hand.cards.length : 0);
    }
    const key = JSON.stringify([s.players, counts, s.me.player, s.me.seat, s.seats, s.conn]);
    if (key !== this.key) {
      this.key = key;
      this.renderPlayers(s, counts);
    }
    if (s.log.length < this.logCount) {
      this.logEl.replaceChildren();
      this.logCount = 0;
    }
    for (const line of s.log.slice(this.logCount)) {
      const t = new Date(line.at);
      const hhmm = `${String(t.getHours()).padStart(2, "0")}:${String(t.getMinutes()).padStart(2, "0")}`;
      this.logEl.appendChild(h("li", { "data-testid": "log-line" }, h("time", {}, hhmm), " ", line.text));
    }
    if (s.log.length !== this.logCount) {
      this.logCount = s.log.length;
      while (this.logEl.children.length > 200) this.logEl.firstElementChild?.remove();
      this.logEl.scrollTop = this.logEl.scrollHeight;
    }
  }

  private renderPlayers(s: State, counts: number[]): void {
    const bySeat = new Map<number, Player>();
    for (const p of s.players) if (p.seat !== null) bySeat.set(p.seat, p);
    const rows: HTMLElement[] = [];
    for (let seat = 0; seat < s.seats; seat++) {
      const p = bySeat.get(seat);
      const mine = p !== undefined && p.id === s.me.player;
      const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
      swatch.style.background = seatColor(seat);
      const li = h("li", {
        class: `seat${mine ? " mine" : ""}${p ? "" : " empty"}`,
        "data-testid": `seat-${seat}`,
        "data-hand-seat": seat,
        "data-drop-seat": p && !mine ? seat : null,
      });
      li.style.borderLeftColor = seatColor(seat);
      const hand = h(
        "span",
        { class: "hand-count", "data-testid": `hand-count-${seat}`, title: `Cards in seat ${seat + 1}'s hand` },
        h("span", { class: "mini-back", "aria-hidden": "true" }),
        String(counts[seat] ?? 0),
      );
      if (p) {
        // Our own line shows our connection as we see it.
        const status = mine && s.conn !== "online" ? "reconnecting" : p.status || "online";
        li.append(
          swatch,
          h(
            "span",
            { class: "who" },
            h(
              "span",
              { class: "line" },
              h("span", { class: "pname", "data-testid": "player-name" }, p.name),
              mine ? h("span", { class: "you" }, "(you)") : null,
              p.host ? h("span", { class: "host", title: "Created the room" }, "★") : null,
            ),
            h("span", { class: `status ${status}`, "data-testid": "player-status", "data-status": status }, STATUS_TEXT[status] || status),
          ),
          hand,
        );
        if (mine) {
          const leave = h("button", { type: "button", class: "small", "data-testid": "leave-seat", title: "Leave your seat and watch" }, "Leave");
          leave.addEventListener("click", () => this.actions.leave());
          li.appendChild(leave);
        }
      } else {
        const sit = h("button", { type: "button", class: "small", "data-testid": `sit-${seat}` }, "Sit here");
        sit.addEventListener("click", () => this.actions.sit(seat));
        li.append(swatch, h("span", { class: "who" }, h("span", { class: "pname empty-seat" }, `Seat ${seat + 1} — empty`)), hand, sit);
      }
      rows.push(li);
    }
    this.seatsEl.replaceChildren(...rows);

    const specs = s.players.filter((p) => p.seat === null);
    this.specTitle.hidden = !specs.length;
    this.specEl.replaceChildren(
      ...specs.map((p) => {
        const status = p.status || "online";
        return h(
          "li",
          { class: `spectator${p.id === s.me.player ? " mine" : ""}`, "data-testid": "spectator" },
          h("span", { class: "pname", "data-testid": "player-name" }, p.name),
          p.id === s.me.player ? h("span", { class: "you" }, " (you)") : null,
          h("span", { class: `status ${status}`, "data-status": status }, STATUS_TEXT[status] || status),
        );
      }),
    );

    const rename = h("button", { type: "button", class: "small", "data-testid": "rename" }, "Rename");
    rename.addEventListener("click", () => this.actions.rename());
    const meName = s.players.find((p) => p.id === s.me.player)?.name || s.me.name;
    const label = h("span", { class: "me-name" }, "You are ", h("strong", { "data-testid": "my-name" }, meName));
    this.meEl.replaceChildren(label, rename);
  }

}
