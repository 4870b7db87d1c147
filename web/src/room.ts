// A room page: wires the state, the connection, rendering, input and the panels together.

import { Conn, type Fatal } from "./net/api";
import { RoomChat } from "./social/chat";
import { RoomInvites } from "./social/invites";
import { handCount, isHand } from "./table/board";
import { h, setText } from "./core/dom";
import { bindDrag, type DragHost } from "./table/drag";
import { EditMode } from "./edit/editmode";
import { announce } from "./core/announce";
import { bindKeys, openMenu } from "./table/events";
import { Keyboard } from "./table/keyboard";
import { TableCommands } from "./table/commands";
import { GameUI } from "./game/game";
import { randomValue, valueFor } from "./fair/steps";
import { Homemade } from "./edit/homemade";
import { FIT, portraitTable, type ViewPort, zoomAt } from "./table/geom";
import { fetchGames, gameCaption, optionFields } from "./game/options";
import { Panel } from "./game/panel";
import { Renderer } from "./table/render";
import { dump, mayEdit, newState, openSeats, recompute, type State, takeOverQuestion } from "./table/state";
import type { GameAction, GameInfo, Op, Player } from "./core/types";
import { closeMenu, confirmDialog, prompt, screen, toast } from "./core/ui";
import { forgetRoom, NAME_KEY, prettyCode, save, tokenKey } from "./core/util";

export interface RoomOptions {
  giveUpAfter: number;
}

export class Room implements DragHost {
  readonly s: State;
  readonly r: Renderer;
  readonly conn: Conn;
  readonly panel: Panel;
  readonly game: GameUI;
  readonly chat: RoomChat;
  readonly edit: EditMode;
  readonly homemade: Homemade;
  readonly keys: Keyboard;
  readonly cmd: TableCommands;
  readonly root: HTMLElement;
  private addBtn: HTMLElement | null = null;
  private undoBtn: HTMLElement | null = null;
  /** The fair-deal commitments this page has sent its value for (docs/fairness.md). */
  private fairAnswered = new Set<string>();
  closed = false;
  private banner: HTMLElement;
  private frame = 0;
  private firstSnapshot = true;

  constructor(code: string, name: string, opts: RoomOptions) {
    this.s = newState(code, name);
    this.panel = new Panel({
      sit: (seat) => void this.sit(seat),
      leave: () => this.conn.request("seat", { seat: null }),
      rename: () => void this.renameMe(),
      lock: (locked) => this.conn.request("host", { action: locked ? "lock" : "unlock" }),
      remove: (p) => void this.removePlayer(p),
      bot: (seat, level) => this.conn.request("host", { action: "bot", seat, level }),
      rulesOn: () => void this.rulesOn(),
      rulesOff: () => void this.rulesOff(),
      newGame: () => void this.newGame(),
      start: () => this.startGame(),
      editors: (who) => this.conn.request("host", { action: "edit", who }),
      publish: (on) => this.conn.request("host", { action: "public", public: on }),
      revealShuffles: () => this.conn.request("host", { action: "reveal" }),
    });
    this.game = new GameUI(this);
    this.edit = new EditMode(this);
    const stage = h("div", { class: "stage", "data-testid": "stage" });
    this.banner = h("div", { class: "banner", role: "alert", "data-testid": "conn-banner", hidden: true });
    this.root = h(
      "div",
      { class: "room" },
      this.topbar(code),
      this.banner,
      this.game.bar,
      h("div", { class: "main" }, stage, this.game.dock, this.game.sheet, this.panel.el),
    );
    document.getElementById("app")?.replaceChildren(this.root);
    document.title = `${prettyCode(code)} · cardtable`;

    this.r = new Renderer(stage, {
      counter: (id, d) => this.cmd.counter(id, d),
      chips: (id, n) => this.cmd.chips(id, n),
      roll: (id) => this.cmd.roll(id),
    });
    this.conn = new Conn(
      this.s,
      {
        changed: () => this.changed(),
        applied: (d, mine) => {
          this.r.release([...d.set.map((o) => o.id), ...d.del]);
          // Screen readers hear the others' moves (ours they know already).
          if (!mine && d.log) announce(d.log);
          this.keys.applied(d, mine);
        },
        snapshot: () => {
          this.keys.snapshot();
          if (this.firstSnapshot) this.r.instant();
          this.firstSnapshot = false;
        },
        rejected: (p, err) => {
          toast(err.message || err.code, "error");
          const id = "id" in p.op ? p.op.id : null;
          if (id) requestAnimationFrame(() => this.r.shake(id));
        },
        notice: (text, kind) => toast(text, kind),
        fatal: (kind, msg) => this.fatal(kind, msg),
        status: (left) => this.showBanner(left),
        seatTaken: (seat) => void this.seatTaken(seat),
        remoteDrag: (by, items) => this.r.remoteDrag(this.s, items, by),
      },
      { giveUpAfter: opts.giveUpAfter },
    );
    const zoomBtn = (label: string, testid: string, title: string, factor: number) => {
      const b = h("button", { type: "button", "data-testid": testid, title, "aria-label": title }, label);
      b.addEventListener("click", () => this.zoomBy(factor));
      return b;
    };
    this.r.zoomBox.appendChild(
      h(
        "div",
        { class: "zoom-buttons" },
        zoomBtn("−", "zoom-out", "Zoom out (-)", 1 / 1.4),
        zoomBtn("+", "zoom-in", "Zoom in (+)", 1.4),
        zoomBtn("⤢", "zoom-fit", "Back to the usual view (0)", 0),
      ),
    );
    this.homemade = new Homemade(this.r, { press: (id) => this.edit.press(id), menu: (b, x, y) => this.edit.buttonMenu(b, x, y) });
    this.r.onStale = () => this.changed();
    bindDrag(this);
    bindKeys(this);
    // The side panel is a drawer on a narrow screen: a touch on the table closes it.
    stage.addEventListener("pointerdown", () => this.root.classList.remove("panel-open"), true);
    this.keys = new Keyboard(this);
    this.cmd = new TableCommands({
      s: this.s,
      send: (op) => this.send(op),
      settle: (op) => this.conn.whenSettled(this.conn.op(op)),
      ov: (id) => this.ov(id),
      focusedId: () => this.keys.focusedId(),
      el: (id) => this.r.el(id),
      confirmDelete: (id) => this.edit.confirmDelete(id),
    });
    const resized = () => {
      if (this.r.measure()) {
        this.r.instant();
        this.reshape();
        this.changed();
      }
    };
    window.addEventListener("resize", resized);
    new ResizeObserver(resized).observe(stage);
    (window as unknown as { __cardtable: unknown }).__cardtable = { state: this.s, dump: () => dump(this.s), room: this };
    this.r.measure();
    this.reshape();
    this.chat = new RoomChat(this);
    new RoomInvites(this.conn.socket); // a challenge reaches this page too
    this.conn.start();
    this.changed();
  }

  private topbar(code: string): HTMLElement {
    const copy = h(
      "button",
      { type: "button", class: "copy", "data-testid": "copy-link", title: "Copy the link to this room" },
      h("span", { class: "wide" }, "Copy link"),
      h("span", { class: "narrow" }, "Link"),
    );
    copy.addEventListener("click", () => void this.copyLink());
    const add = h("button", { type: "button", "data-testid": "add-menu", title: "Add cards, chips, counters, dice…" }, "+ Add");
    this.addBtn = add;
    add.addEventListener("click", (e) => {
      const r = add.getBoundingClientRect();
      e.stopPropagation();
      openMenu(this, null, r.left, r.bottom + 4, "auto");
    });
    const undo = h(
      "button",
      { type: "button", "data-testid": "undo", title: "Undo your last move (Ctrl+Z)" },
      h("span", { class: "wide" }, "Undo"),
      h("span", { class: "narrow", "aria-hidden": "true" }, "↶"),
    );
    undo.addEventListener("click", () => this.cmd.undo());
    this.undoBtn = undo;
    const help = h("button", { type: "button", "data-testid": "help", title: "Keyboard shortcuts (?)" }, "?");
    help.addEventListener("click", () => this.help());
    const panelBtn = h(
      "button",
      { type: "button", class: "panel-toggle", "data-testid": "panel-toggle", title: "Players and log" },
      h("span", { class: "wide" }, "Players"),
      h("span", { class: "narrow", "aria-hidden": "true" }, "☰"),
    );
    panelBtn.addEventListener("click", () => this.root.classList.toggle("panel-open"));
    return h(
      "header",
      { class: "topbar" },
      h("a", { class: "brand", href: "/", title: "Home" }, "cardtable"),
      h(
        "div",
        { class: "code-box" },
        h("span", { class: "code-caption" }, "Room"),
        h("span", { class: "room-code", "data-testid": "room-code" }, prettyCode(code)),
        copy,
      ),
      h("span", { class: "share-hint", "data-testid": "share-hint" }, "Share the code or link: friends join from the home page."),
      h("span", { class: "spacer" }),
      this.edit.toggle,
      this.edit.addBtn,
      this.edit.fileBtn,
      this.edit.copyBtn,
      add,
      undo,
      help,
      panelBtn,
    );
  }

  // --- rendering -------------------------------------------------------------------------------

  changed(): void {
    if (this.frame) return;
    const run = () => {
      if (!this.frame) return;
      cancelAnimationFrame(this.frame);
      clearTimeout(fallback);
      this.frame = 0;
      this.r.render(this.s);
      this.panel.render(this.s);
      this.game.render();
      this.homemade.render(this.s);
      this.edit.render();
      this.keys.afterRender();
      // A rule room holds only the game's cards (nothing to add, no undo); spectators don't
      // touch; only editors (the host, or everyone if the host says so) add things.
      const playing = this.s.game === null && this.s.me.seat !== null;
      if (this.addBtn) this.addBtn.hidden = !playing || !mayEdit(this.s) || !this.edit.on;
      if (this.undoBtn) this.undoBtn.hidden = !playing;
      this.r.stage.classList.toggle("rules", this.s.game !== null);
      this.sendFairValue();
    };
    this.frame = requestAnimationFrame(run);
    // Background tabs get no animation frames: still render within a moment.
    const fallback = window.setTimeout(run, 120);
  }

  /** A seated page adds its own random value to the deal waiting for values, once. */
  private sendFairValue(): void {
    const fair = this.s.game ? this.s.game.fair : this.s.fair; // a deal, or a free-play shuffle
    const deal = valueFor(fair, this.s.me.seat, this.fairAnswered);
    if (deal === null || !fair) return;
    this.fairAnswered.add(fair.commitment);
    this.conn.request("fair", { deal, value: randomValue() });
  }

  /** An upright phone draws a game on a portrait table (seating.ts): which one fits the stage. */
  private reshape(): void {
    const t = portraitTable(this.r.geom.w, this.r.geom.h);
    const cur = this.s.portrait;
    if (t?.w === cur?.w && t?.h === cur?.h) return;
    this.s.portrait = t;
    recompute(this.s);
  }

  private showBanner(left: number | null): void {
    if (left === null) {
      this.banner.hidden = true;
      return;
    }
    this.banner.hidden = false;
    setText(this.banner, `Connection problem - reconnecting, giving up in ${left} s`);
  }

  private fatal(kind: Fatal, msg: string): void {
    const code = this.s.code;
    const home = { label: "Home", testid: "go-home", action: () => location.assign("/") };
    closeMenu();
    if (kind === "not-found") {
      this.closed = true;
      forgetRoom(code);
      screen("screen-not-found", "Room not found", `There is no room ${prettyCode(code)}. It may have expired.`, [
        { ...home, primary: true },
      ]);
    } else if (kind === "full") {
      this.closed = true;
      // The server's message is the title's sentence again: say it once, and say what to do.
      const text =
        msg && !/^this room is full\.?$/i.test(msg.trim()) ? msg : "It has as many people as it can hold. Try again when someone leaves.";
      screen("screen-full", "This room is full", text, [
        { label: "Try again", testid: "try-again", action: () => location.reload() },
        { ...home, primary: true },
      ]);
    } else if (kind === "locked") {
      this.closed = true;
      screen("screen-locked", "This room is locked", msg || "The host has locked this room: no new players.", [
        { label: "Try again", testid: "try-again", action: () => location.reload() },
        { ...home, primary: true },
      ]);
    } else if (kind === "removed") {
      this.closed = true;
      screen("screen-removed", "Removed from the room", msg, [
        { label: "Join as a new player", testid: "join-again", primary: true, action: () => location.reload() },
        home,
      ]);
    } else if (kind === "bad-name") {
      void this.askNameAndRetry(msg);
    } else {
      const kept = this.s.me.seat !== null ? " Your seat and hand are kept for you." : "";
      const el = screen("screen-disconnected", "Disconnected", `The connection to the table was lost.${kept}`, [
        {
          label: "Rejoin",
          testid: "rejoin",
          primary: true,
          action: () => {
            el.remove();
            this.conn.rejoin();
          },
        },
        home,
      ]);
    }
  }

  private async askNameAndRetry(msg: string): Promise<void> {
    const name = await prompt("Your name", {
      hint: msg,
      value: this.s.me.name,
      maxLength: 32,
      ok: "Join",
      required: "Type a name to join.",
    });
    if (name && name.trim()) {
      this.s.me.name = name.trim();
      save(NAME_KEY, this.s.me.name);
      this.conn.rejoin();
    }
  }

  // --- operations --------------------------------------------------------------------------------

  /** `ov` for an operation on `id`: the server version we saw, unless our own ops are in flight. */
  ov = (id: string): number | undefined => {
    const touching = this.s.pending.some((p) => {
      const op = p.op;
      return ("id" in op && op.id === id) || ("to" in op && op.to === id) || ("into" in op && op.into === id);
    });
    if (touching) return undefined;
    return this.s.server.get(id)?.v;
  };

  send = (op: Op): void => {
    if (this.s.me.seat === null && op.op !== "undo") {
      toast("Spectators can watch but not touch: take a seat to play.", "error");
      return;
    }
    if (this.s.game && this.game.interceptDrop(op)) return; // a set whose rank is yours to name
    this.conn.op(op);
  };

  notice = (text: string): void => toast(text, "info");

  /** A rule plugin's command with no drag (pass, knock, finish laying off, next hand...). */
  command = (action: GameAction): void => {
    if (this.s.me.seat === null) {
      toast("Spectators can watch but not play: take a seat to play.", "error");
      return;
    }
    this.conn.request("game", { action });
  };

  /** A drag started (the dragged ids) or ended (null): the game lights up where it may go. */
  dragHint = (ids: string[] | null): void => this.game.dragHint(ids);

  /** A click on an object; true when the game used it (picking the card to knock with). */
  pick = (id: string): boolean => this.game.pick(id);

  /** A single click or tap on a card; in a rule room, a draw from the stock when that is all it does. */
  tap = (id: string): boolean => (this.s.game ? this.game.tap(id) : false);

  /** A double-click on a card; in a rule room, the card's one move. */
  activate = (id: string): boolean => (this.s.game ? this.game.activate(id) : false);

  /** Outside edit mode zones keep their place (see `editmode.ts`). */
  mayMove = (id: string): boolean => this.edit.mayMove(id);

  /** Live drags are shared in free play only: a rule room's table is turned differently on
   *  each page, so a position on ours means something else on theirs. */
  shareDrag = (items: { id: string; x: number; y: number }[]): void => {
    if (this.s.game && items.length) return;
    this.conn.dragging(items);
  };

  /** Host: start a waiting game with the players seated now. */
  startGame = (): void => this.conn.request("host", { action: "start" });

  /** Host: the finished game again, with the same seats. */
  playAgain = (): void => this.conn.request("host", { action: "again" });

  setView = (vp: ViewPort): void => {
    this.r.setView(vp);
    this.r.instant();
    this.changed();
  };

  /** Zoom in or out around the middle of the table area (buttons, keys). */
  zoomBy(factor: number): void {
    const g = this.r.geom;
    this.setView(factor === 0 ? FIT : zoomAt(g, g.w / 2, g.hand.y / 2, g.vp.zoom * factor));
  }
  openMenu = (id: string | null, x: number, y: number): void => openMenu(this, id, x, y);
  closeMenus = (): void => closeMenu();

  // --- players ---------------------------------------------------------------------------------

  private async renameMe(): Promise<void> {
    const got = await prompt("Your name", {
      value: this.s.me.name,
      maxLength: 32,
      ok: "Rename",
      required: "A name can't be empty: the other players see it next to your seat.",
    });
    if (got === null) return;
    const name = got.trim();
    if (!name) return;
    save(NAME_KEY, name);
    this.conn.request("rename", { name });
  }

  // --- host controls ---------------------------------------------------------------------------

  private async removePlayer(p: Player): Promise<void> {
    const what = p.bot ? "the computer player" : p.name;
    if (
      await confirmDialog(
        `Remove ${what}?`,
        p.bot ? "The seat will be free again." : `${p.name} leaves the room and can't come back with this seat's link.`,
        "Remove",
      )
    )
      this.conn.request("host", { action: "remove", player: p.id });
  }

  private async games(): Promise<GameInfo[] | null> {
    try {
      const list = await fetchGames();
      if (list.length) return list;
      toast("This server offers no games with rules.", "error");
    } catch {
      toast("Could not load the list of games: try again.", "error");
    }
    return null;
  }

  /** Host: choose a game and its options; the table is set up afresh for it. */
  private async rulesOn(): Promise<void> {
    const list = await this.games();
    if (!list) return;
    const choice = h(
      "select",
      { id: "game-choice", "data-testid": "game-choice" },
      list.map((g) => h("option", { value: g.name }, gameCaption(g))),
    );
    let opts = optionFields(list[0]);
    const holder = h("div", { class: "game-choice" }, h("label", { for: "game-choice" }, "Game"), choice, opts.el);
    choice.addEventListener("change", () => {
      const info = list.find((g) => g.name === choice.value) ?? list[0];
      const next = optionFields(info);
      opts.el.replaceWith(next.el);
      opts = next;
    });
    const ok = await confirmDialog(
      "Play a game",
      "The table is cleared and set up for the game; moves follow its rules. It starts when its seats are taken, or when you start it.",
      "Set up the game",
      holder,
    );
    if (ok) this.conn.request("host", { action: "game", game: choice.value, options: opts.values() });
  }

  private async rulesOff(): Promise<void> {
    const title = this.s.game?.title ?? "the game";
    if (
      await confirmDialog(
        `Turn ${title} rules off?`,
        "Back to free play: the cards stay where they are and move freely; the score is gone.",
        "Rules off",
      )
    )
      this.conn.request("host", { action: "game", game: null });
  }

  private async newGame(): Promise<void> {
    const g = this.s.game;
    if (!g) return;
    const info = (await this.games())?.find((x) => x.name === g.name);
    if (!info) return;
    const opts = optionFields(info, { ...g.options, fill: g.fill });
    if (await confirmDialog(`New game of ${g.title}?`, "The scores start again from zero and new hands are dealt.", "New game", opts.el))
      this.conn.request("host", { action: "game", game: g.name, options: opts.values() });
  }

  private async copyLink(): Promise<void> {
    const url = `${location.origin}/r/${this.s.code}`;
    try {
      await navigator.clipboard.writeText(url);
      toast("Link copied: send it to your friends.", "info");
    } catch {
      await prompt("Copy this link", { value: url, ok: "Done" });
    }
  }

  help(): void {
    const rows: [string, string][] = [
      ["Drag", "move a card; drop on a pile, a zone, your hand or another card"],
      ["Drag the count badge / Shift+drag", "move a whole pile"],
      ["Shift while dropping from your hand", "play the card face down"],
      ["Double-click, F", "flip a card (Shift+F: the whole pile)"],
      ["R / Shift+R", "rotate 90° right / left"],
      ["S", "shuffle the pile under the pointer"],
      ["D", "draw a card from the pile under the pointer"],
      ["Drag on the empty table, Ctrl+click", "select several"],
      ["Right-click, long-press", "more: deal, split, spread, lock…"],
      ["Wheel, pinch, + / − / 0", "zoom in and out; drag the table with the middle button or a finger"],
      ["Ctrl+Z", "undo your last move (free play)"],
      ["In a game: double-click, Enter", "make the card's move, when it has just one (draw it, play it)"],
      ["In a game: right-click, long-press", "the moves of that card, and Sort"],
      [
        "Tab, arrow keys",
        "go from object to object: the table, then your hand (letter keys act on the object under the pointer, else the focused one)",
      ],
      [
        "Enter, Space",
        "pick up the focused card (Shift: the whole pile); arrows choose where; Enter drops (Shift+Enter: face down); Esc puts it back",
      ],
      ["X, Menu key / Shift+F10", "select the focused object; its menu"],
      ["Alt or Ctrl + ← / →", "move the focused card of your hand one place left / right"],
    ];
    const close = h("button", { type: "button", class: "primary", "data-testid": "help-close" }, "Close");
    const modal = h(
      "div",
      { class: "modal", "data-testid": "help-dialog" },
      h(
        "div",
        { class: "modal-box help" },
        h("h2", {}, "How to play"),
        h(
          "dl",
          {},
          rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
        ),
        h("div", { class: "modal-buttons" }, close),
      ),
    );
    const done = () => modal.remove();
    close.addEventListener("click", done);
    modal.addEventListener("keydown", (e) => e.key === "Escape" && done());
    modal.addEventListener("pointerdown", (e) => e.target === modal && done());
    document.body.appendChild(modal);
    close.focus();
  }

  /** Cards in each seat's hand, as this page sees them. */
  private handCounts(): number[] {
    const counts: number[] = [];
    for (let seat = 0; seat < this.s.seats; seat++) {
      const hand = this.s.view.get(`hand${seat}`);
      counts.push(isHand(hand) ? handCount(hand) : 0);
    }
    return counts;
  }

  /** Sit at `seat`; a free seat that still holds someone's cards is taken over only if asked. */
  private async sit(seat: number): Promise<void> {
    const question = takeOverQuestion(this.s, seat, this.handCounts()[seat] ?? 0);
    if (
      question &&
      !(await confirmDialog(question, "Their cards become yours; if they come back, they can take another seat or watch.", "Take over"))
    )
      return;
    this.conn.request("seat", { seat });
  }

  /** We came back after leaving and our seat had been taken: say so, offer the open seats. */
  private seatTaken(was: number): void {
    const holder = this.s.players.find((p) => p.seat === was);
    const open = openSeats(this.s, this.handCounts());
    const modal = h("div", { class: "modal", "data-testid": "seat-taken" });
    const done = () => modal.remove();
    const watch = h("button", { type: "button", "data-testid": "seat-taken-watch", class: open.length ? "" : "primary" }, "Watch");
    watch.addEventListener("click", done);
    const seats = open.map((seat) => {
      const b = h("button", { type: "button", class: "primary", "data-testid": `seat-taken-sit-${seat}` }, `Sit at seat ${seat + 1}`);
      b.addEventListener("click", () => {
        done();
        this.conn.request("seat", { seat });
      });
      return b;
    });
    const who = holder ? `${holder.name} took seat ${was + 1}` : `Seat ${was + 1} was taken`;
    const what = open.length ? "Sit at a free seat, or watch." : "No seat is free now: you watch, and can sit down when one is.";
    modal.appendChild(
      h(
        "div",
        { class: "modal-box", role: "dialog", "aria-modal": "true", "aria-labelledby": "seat-taken-title" },
        h("h2", { id: "seat-taken-title" }, "Welcome back"),
        h("p", { class: "hint" }, `While you were away, ${who}. ${what}`),
        h("div", { class: "modal-buttons" }, watch, ...seats),
      ),
    );
    modal.addEventListener("keydown", (e) => e.key === "Escape" && done());
    document.body.appendChild(modal);
    (seats[0] ?? watch).focus();
  }

  /** Forget this room's player (used by "join as someone new"). */
  forgetToken(): void {
    save(tokenKey(this.s.code), null);
  }

  /** Re-render everything (e.g. after the state was replaced). */
  refresh(): void {
    recompute(this.s);
    this.changed();
  }
}
