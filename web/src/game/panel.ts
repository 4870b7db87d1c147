// The side panel: seats and players (names, seat colours, presence, hand counts, take/leave a
// seat, rename yourself), spectators, the host's controls (lock the room, remove a player, play a
// game / rules off, start a waiting game, seat a computer player), and the room log. Names are
// text nodes, never HTML.

import { openHands } from "../fair/replay";
import { handCount, isHand } from "../table/board";
import { h, patchChildren } from "../core/dom";
import { type Level, LEVELS, savedLevel, saveLevel } from "../core/level";
import { isFavourite, relationButtons, relationsKey } from "../social/social";
import { everyoneEdits, type State, vacatedBy } from "../table/state";
import type { Player } from "../core/types";
import { seatColor } from "../core/util";

export interface PanelActions {
  sit(seat: number): void;
  leave(): void;
  rename(): void;
  /** Host only: */
  lock(locked: boolean): void;
  remove(player: Player): void;
  /** Seat a computer at `level` (the panel's choice beside the button). */
  bot(seat: number, level: Level): void;
  rulesOn(): void;
  rulesOff(): void;
  newGame(): void;
  start(): void;
  /** Who may add, change and remove things on a free-play table. */
  editors(who: "host" | "all"): void;
  /** List the room in the lobby's public tables, or take it off. */
  publish(on: boolean): void;
  /** Free play (whose shuffles are always provably fair): reveal the seeds of those made. */
  revealShuffles(): void;
}

/** A log line with each 64-hex commitment or seed shown as its first 8 characters and "…" (the
 *  whole one in its title; the room's log keeps it whole): fair deals' lines stay short to read. */
function shortHashes(text: string): (string | HTMLElement)[] {
  return text
    .split(/\b([0-9a-f]{64})\b/)
    .map((part, i) => (i % 2 === 1 ? h("span", { class: "hash", title: part }, `${part.slice(0, 8)}…`) : part));
}

/** May a computer player take this empty seat? In a started game: a seat the game plays from;
 *  while a game waits for players: any seat, until the game has as many as it takes. */
export function computerMayTake(s: State, seat: number): boolean {
  const g = s.game;
  if (!g) return false;
  if (!g.waiting) return (g.players ?? []).some((p) => p.seat === seat);
  return s.players.filter((p) => p.seat !== null).length < g.max_players;
}

/** The host may start a waiting game now: enough players sit (but not too many). */
export function mayStart(s: State): boolean {
  const g = s.game;
  if (!g || !g.waiting) return false;
  const n = s.players.filter((p) => p.seat !== null).length;
  return n >= g.min_players && n <= g.max_players;
}

const STATUS_TEXT: Record<string, string> = { online: "online", reconnecting: "reconnecting…", away: "away" };

export class Panel {
  readonly el: HTMLElement;
  private seatsEl: HTMLElement;
  private specEl: HTMLElement;
  private specTitle: HTMLElement;
  private logEl: HTMLElement;
  /** The chat's own list and its pane (social/chat.ts fills them); moves go in `logEl`. */
  readonly chatEl: HTMLElement;
  readonly chatPane: HTMLElement;
  private logBox: HTMLElement;
  private unreadEl: HTMLElement;
  private unread = 0;
  private meEl: HTMLElement;
  private hostEl: HTMLElement;
  private lockedEl: HTMLElement;
  private key = "";
  private logCount = 0;
  /** The last log line drawn: a new object in its place is a replaced line (a burst of clicks). */
  private lastLine: State["log"][number] | undefined;

  constructor(private actions: PanelActions) {
    this.seatsEl = h("ul", { class: "seats", "data-testid": "seats" });
    this.specTitle = h("h3", {}, "Spectators");
    this.specEl = h("ul", { class: "spectators", "data-testid": "spectators" });
    this.meEl = h("div", { class: "me-controls" });
    this.hostEl = h("div", { class: "host-controls", "data-testid": "host-controls", hidden: true });
    this.lockedEl = h(
      "span",
      { class: "locked-badge", "data-testid": "room-locked", title: "The host closed the room to new players", hidden: true },
      "Locked",
    );
    // Focusable, so a keyboard user can scroll the log once it overflows (WCAG 2.1.1).
    this.logEl = h("ol", { class: "log", "data-testid": "log", tabindex: "0", "aria-label": "Moves" });
    this.chatEl = h("ol", { class: "log chat-log", "data-testid": "chat-log", tabindex: "0", "aria-label": "Chat" });
    // Chat and moves apart: two panes, side by side in the panel's height on a wide screen, two
    // tabs on a narrow one (where the panel is a drawer), the chat's first.
    this.unreadEl = h("span", { class: "unread", "data-testid": "chat-unread", hidden: true });
    const tab = (which: "chat" | "moves", label: string, ...extra: HTMLElement[]) => {
      const b = h(
        "button",
        {
          type: "button",
          role: "tab",
          class: "log-tab",
          id: `tab-${which}`,
          "aria-controls": `pane-${which}`,
          "data-testid": `tab-${which}`,
        },
        label,
        ...extra,
      );
      b.addEventListener("click", () => this.showPane(which));
      return b;
    };
    this.chatPane = h(
      "section",
      { class: "log-pane chat-pane", id: "pane-chat", role: "tabpanel", "aria-labelledby": "tab-chat", "data-testid": "chat-pane" },
      h("h2", { class: "pane-title" }, "Chat"),
      this.chatEl,
    );
    const movesPane = h(
      "section",
      { class: "log-pane moves-pane", id: "pane-moves", role: "tabpanel", "aria-labelledby": "tab-moves", "data-testid": "moves-pane" },
      h("h2", { class: "pane-title" }, "Moves"),
      this.logEl,
    );
    this.logBox = h(
      "div",
      { class: "log-box" },
      h(
        "div",
        { class: "log-tabs", role: "tablist", "aria-label": "Chat and moves" },
        tab("chat", "Chat", this.unreadEl),
        tab("moves", "Moves"),
      ),
      movesPane,
      this.chatPane,
    );
    this.showPane("chat");
    this.el = h(
      "aside",
      { class: "panel", "data-testid": "panel" },
      h(
        "section",
        { class: "players" },
        h("h2", {}, "Players", this.lockedEl),
        this.seatsEl,
        this.specTitle,
        this.specEl,
        this.meEl,
        this.hostEl,
      ),
      this.logBox,
    );
  }

  /** On a narrow screen, show the chat's tab or the moves' (a wide one shows both). */
  showPane(which: "chat" | "moves"): void {
    this.logBox.dataset.show = which;
    for (const b of this.logBox.querySelectorAll<HTMLElement>("[role=tab]")) {
      b.setAttribute("aria-selected", b.id === `tab-${which}` ? "true" : "false");
    }
    if (which === "chat") {
      this.unread = 0;
      this.unreadEl.hidden = true;
    }
  }

  /** A chat line from someone else came: counted on the Chat tab while the moves' one shows. */
  chatArrived(): void {
    if (this.logBox.dataset.show === "chat") return;
    this.unread++;
    this.unreadEl.textContent = ` (${this.unread})`;
    this.unreadEl.hidden = false;
  }

  render(s: State): void {
    const counts: number[] = [];
    for (let seat = 0; seat < s.seats; seat++) {
      const hand = s.view.get(`hand${seat}`);
      counts.push(isHand(hand) ? handCount(hand) : 0);
    }
    const g = s.game;
    const game = g ? [g.name, g.title, g.options, g.waiting, g.min_players, g.max_players, (g.players ?? []).map((p) => p.seat)] : null;
    const key = JSON.stringify([
      s.players,
      s.former,
      counts,
      s.me.player,
      s.me.seat,
      s.seats,
      s.conn,
      s.locked,
      s.public,
      !!s.fair,
      game,
      everyoneEdits(s),
      relationsKey(),
    ]);
    if (key !== this.key) {
      this.key = key;
      this.renderPlayers(s, counts);
    }
    if (s.log.length < this.logCount) {
      this.logEl.replaceChildren();
      this.logCount = 0;
    }
    const replaced = this.logCount > 0 && s.log.length === this.logCount && s.log[this.logCount - 1] !== this.lastLine;
    if (replaced) this.logEl.lastElementChild?.remove();
    for (const line of s.log.slice(replaced ? this.logCount - 1 : this.logCount)) {
      const t = new Date(line.at);
      const hhmm = line.at ? `${String(t.getHours()).padStart(2, "0")}:${String(t.getMinutes()).padStart(2, "0")}` : "";
      this.logEl.appendChild(h("li", { "data-testid": "log-line" }, h("time", {}, hhmm), " ", ...shortHashes(line.text)));
    }
    this.lastLine = s.log[s.log.length - 1];
    if (s.log.length !== this.logCount) {
      this.logCount = s.log.length;
      while (this.logEl.children.length > 200) this.logEl.firstElementChild?.remove();
      this.logEl.scrollTop = this.logEl.scrollHeight;
    }
  }

  private renderPlayers(s: State, counts: number[]): void {
    const iAmHost = !!s.players.find((p) => p.id === s.me.player)?.host;
    this.lockedEl.hidden = !s.locked;
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
        if (p.bot) li.classList.add("bot");
        li.append(
          swatch,
          h(
            "span",
            { class: "who" },
            h(
              "span",
              { class: "line" },
              h("span", { class: "pname", "data-testid": "player-name" }, p.name),
              isFavourite(p.identity) ? h("span", { class: "heart", "data-testid": "fav-heart", title: "A favourite" }, "♥") : null,
              mine ? h("span", { class: "you" }, "(you)") : null,
              p.host ? h("span", { class: "host", title: "The host: created the room" }, "★") : null,
            ),
            p.bot
              ? h(
                  "span",
                  { class: "bot-line" },
                  h(
                    "span",
                    { class: "badge-computer", "data-testid": "bot-badge", title: "A computer player: the server plays its turns" },
                    "computer",
                  ),
                  h(
                    "span",
                    { class: "bot-level", "data-testid": "bot-level", title: "How well this computer plays" },
                    ` (${p.level ?? "normal"})`,
                  ),
                )
              : h(
                  "span",
                  { class: `status ${status}`, "data-testid": "player-status", "data-status": status },
                  STATUS_TEXT[status] || status,
                ),
            // Favourite / mute / block this person (their identity), right here at the table.
            p.bot || mine ? null : relationButtons(p.identity, p.name),
          ),
          hand,
        );
        if (mine) {
          const leave = h(
            "button",
            { type: "button", class: "small", "data-testid": "leave-seat", title: "Leave your seat and watch" },
            "Leave",
          );
          leave.addEventListener("click", () => this.actions.leave());
          li.appendChild(leave);
        } else if (iAmHost) {
          li.appendChild(this.removeButton(p));
        }
      } else {
        const sit = h("button", { type: "button", class: "small", "data-testid": `sit-${seat}` }, "Sit here");
        sit.addEventListener("click", () => this.actions.sit(seat));
        const btns = h("span", { class: "seat-buttons" }, sit);
        if (iAmHost && computerMayTake(s, seat)) {
          const bot = h(
            "button",
            { type: "button", class: "small", "data-testid": `bot-${seat}`, title: "Seat a computer player here" },
            "Computer",
          );
          // Its level: the one last chosen here or on the home page's quick play (remembered,
          // so a redraw of the panel keeps it).
          const level = h("select", {
            class: "small bot-level-pick",
            "data-testid": `bot-level-${seat}`,
            "aria-label": `Level of a computer in seat ${seat + 1}`,
            title: "How well the computer plays",
          });
          const chosen = savedLevel();
          for (const [value, label] of LEVELS) {
            level.appendChild(h("option", { value, selected: value === chosen }, label));
          }
          level.value = chosen;
          level.addEventListener("change", () => {
            saveLevel(level.value as Level);
            // The other free seats' pickers follow (they show the level last chosen).
            for (const other of document.querySelectorAll<HTMLSelectElement>("select.bot-level-pick")) {
              other.value = level.value;
            }
          });
          bot.addEventListener("click", () => this.actions.bot(seat, level.value as Level));
          btns.append(level, bot);
        }
        // A seat someone left (away too long) is theirs to come back to; its cards stay there.
        const left = vacatedBy(s, seat);
        const label = left ? `${left.name} (left)` : `Seat ${seat + 1} — empty`;
        const title = left
          ? `${left.name} left seat ${seat + 1}; their cards stay here until they come back or someone takes the seat over`
          : null;
        li.append(
          swatch,
          h("span", { class: "who" }, h("span", { class: "pname empty-seat", "data-testid": left ? "seat-left-by" : null, title }, label)),
          hand,
          btns,
        );
      }
      rows.push(li);
    }
    patchChildren(this.seatsEl, rows);

    const specs = s.players.filter((p) => p.seat === null);
    this.specTitle.hidden = !specs.length;
    patchChildren(
      this.specEl,
      specs.map((p) => {
        const status = p.status || "online";
        return h(
          "li",
          { class: `spectator${p.id === s.me.player ? " mine" : ""}`, "data-testid": "spectator" },
          h("span", { class: "pname", "data-testid": "player-name" }, p.name),
          isFavourite(p.identity) ? h("span", { class: "heart", "data-testid": "fav-heart", title: "A favourite" }, "♥") : null,
          p.id === s.me.player ? h("span", { class: "you" }, " (you)") : null,
          h("span", { class: `status ${status}`, "data-status": status }, STATUS_TEXT[status] || status),
          p.id === s.me.player ? null : relationButtons(p.identity, p.name),
          iAmHost && p.id !== s.me.player ? this.removeButton(p) : null,
        );
      }),
    );
    this.renderHost(s, iAmHost);

    const rename = h("button", { type: "button", class: "small", "data-testid": "rename" }, "Rename");
    rename.addEventListener("click", () => this.actions.rename());
    const meName = s.players.find((p) => p.id === s.me.player)?.name || s.me.name;
    const label = h("span", { class: "me-name" }, "You are ", h("strong", { "data-testid": "my-name" }, meName));
    patchChildren(this.meEl, [label, rename]);
  }

  private removeButton(p: Player): HTMLElement {
    const b = h(
      "button",
      {
        type: "button",
        class: "small danger",
        "data-testid": "remove-player",
        "data-player": p.id,
        title: `Remove ${p.name} from the room`,
      },
      "Remove",
    );
    b.addEventListener("click", () => this.actions.remove(p));
    return b;
  }

  private renderHost(s: State, iAmHost: boolean): void {
    this.hostEl.hidden = !iAmHost;
    if (!iAmHost) {
      this.hostEl.replaceChildren();
      return;
    }
    const btn = (testid: string, label: string, title: string, fn: () => void) => {
      const b = h("button", { type: "button", class: "small", "data-testid": testid, title }, label);
      b.addEventListener("click", fn);
      return b;
    };
    const lock = s.locked
      ? btn("host-unlock", "Unlock room", "Let new players join again", () => this.actions.lock(false))
      : btn("host-lock", "Lock room", "Nobody new can join (players who left can come back)", () => this.actions.lock(true));
    const rules = s.game
      ? [
          mayStart(s) ? btn("host-start", "Start the game now", "Start with the players seated now", () => this.actions.start()) : null,
          btn("host-new-game", "New game", `Start a fresh game of ${s.game.title}`, () => this.actions.newGame()),
          btn("host-rules-off", "Rules off", "Back to free play: the cards stay where they are", () => this.actions.rulesOff()),
        ]
      : [
          btn("host-rules-on", "Play a game…", "Choose a game: its rules and scoring; the table is set up afresh", () =>
            this.actions.rulesOn(),
          ),
        ];
    const all = everyoneEdits(s);
    const edit = s.game
      ? null
      : h(
          "div",
          { class: "host-row" },
          h("span", { class: "host-state", "data-testid": "edit-state" }, all ? "Everyone edits" : "Only you edit"),
          all
            ? btn("host-edit-host", "Only me", "Only you may add, change and remove things", () => this.actions.editors("host"))
            : btn("host-edit-all", "Let everyone edit", "Everyone may add, change and remove things on the table", () =>
                this.actions.editors("all"),
              ),
        );
    // Free play's shuffles are provably fair (docs/fairness.md, "Free play"): reveal their seeds.
    const shuffles = s.game
      ? null
      : h(
          "div",
          { class: "host-row" },
          h("span", { class: "host-state", "data-testid": "shuffles-state" }, "Fair shuffles"),
          btn("host-reveal-shuffles", "Reveal shuffles", "Show the seeds of the shuffles made, so anyone can verify them", () =>
            this.actions.revealShuffles(),
          ),
          btn("host-hands", "Hands", "The revealed shuffles: verify them", () => void openHands(s.code)),
        );
    patchChildren(this.hostEl, [
      h("h3", {}, "Host"),
      h(
        "div",
        { class: "host-row" },
        h("span", { class: "host-state", "data-testid": "room-state" }, s.locked ? "Room locked" : "Room open"),
        lock,
      ),
      h(
        "div",
        { class: "host-row" },
        h("span", { class: "host-state", "data-testid": "rules-state" }, s.game ? `Rules: ${s.game.title}` : "Free play"),
        rules,
      ),
      h(
        "div",
        { class: "host-row" },
        h("span", { class: "host-state", "data-testid": "public-state" }, s.public ? "Listed in the lobby" : "Not listed"),
        s.public
          ? btn("host-private", "Unlist", "Take the room off the lobby's public tables", () => this.actions.publish(false))
          : btn("host-public", "Make public", "List the room in the lobby's public tables so others can find and join it", () =>
              this.actions.publish(true),
            ),
      ),
      ...(edit ? [edit] : []),
      ...(shuffles ? [shuffles] : []),
    ]);
  }
}
