// A rule room on the page, for any game, drawn from `s.game` alone (docs/protocol.md, "Game"):
// the game bar (the status line, your turn, the countdown, your buttons, the hint, Sort or the
// "Group melds" toggle, the scores), the dock over the table (a question with its countdown,
// the widgets a game asks for, choosing cards to pass), glowing cards and zones for the drags
// you may make, and the sheet (the scoreboard, the last hand's reveal, the final result).
// Nothing is decided here.

import { openHands } from "../fair/replay";
import { cardIds, isCard, isHand, isStack } from "../table/board";
import { faceName, faceUrl } from "../table/cards";
import {
  type CardAt,
  directControl,
  dragFits,
  dragHints,
  dropTargets,
  handOrder,
  pickAction,
  reorderMoves,
  setRanks,
  sortControls,
  type SortedControls,
  tapDraw,
  timerLeft,
  winnersText,
  questionText,
  yesText,
} from "./controls";
import { h, setText, toggleClass } from "../core/dom";
import type { Renderer } from "../table/render";
import { me as myPlayer, type State } from "../table/state";
import type { Control, Game, GameAction, Op, RevealLine } from "../core/types";
import { type MenuItem, toast } from "../core/ui";
import { load, save } from "../core/util";
import { BidPad, KnockPicker, RankChooser } from "../table/widgets";
import { endOfGame } from "./summary";
import { SeatPlates } from "./plateview";
import { LastTrickView } from "./lasttrick";

/** Where "Group melds" is remembered (this browser). */
const GROUP_KEY = "cardtable.groupMelds";

export interface GameHost {
  s: State;
  r: Renderer;
  send(op: Op): void;
  /** A game command with no drag (`game {action}`). */
  command(action: GameAction): void;
  /** Host only: start a waiting game with the players seated now. */
  startGame(): void;
  /** Host only: a finished game again, with the same seats (`host {action: "again"}`). */
  playAgain(): void;
  changed(): void;
}

function cardImg(face: string, cls = ""): HTMLElement {
  return h("img", {
    class: `mini-card ${cls}`.trim(),
    src: faceUrl(face),
    alt: faceName(face),
    title: faceName(face),
    "data-face": face,
    draggable: "false",
  });
}

export class GameUI {
  readonly bar: HTMLElement;
  readonly dock: HTMLElement;
  readonly sheet: HTMLElement;
  private statusEl: HTMLElement;
  private turnEl: HTMLElement;
  private timerEl: HTMLElement;
  private timerFill: HTMLElement;
  private timerText: HTMLElement;
  private scoresBtn: HTMLButtonElement;
  private buttonsEl: HTMLElement;
  private picksEl: HTMLElement;
  private hintEl: HTMLElement;
  private controlsRow: HTMLElement;
  private sortBtn: HTMLButtonElement;
  /** "Group melds": keep your hand ordered melds first (rummy games), remembered here. */
  private groupBtn: HTMLButtonElement;
  private grouping = load(GROUP_KEY) === "1";
  /** The hand and melds last grouped for, so a hand you reorder stays until it changes. */
  private groupedFor = "";
  private startBtn: HTMLButtonElement;
  private promptEl: HTMLElement;
  private bidPad: BidPad;
  private knock: KnockPicker;
  private rankChooser: RankChooser;
  private buttonsKey = "";
  private picksKey = "";
  private promptKey = "";
  private sheetKey = "";
  private sheetOpen = false;
  /** The sheet was opened by a hand ending (not by the Scores button): it closes by itself. */
  private autoOpened = false;
  private revealSeen = "";
  private dragIds: string[] | null = null;
  private glowing = new Map<Element, string>();
  private meldMarks = new Set<HTMLElement>();
  private ticker: number | null = null;
  private sorted: SortedControls = sortControls([], []);
  /** A plate at each player's place: name, cards held, the game's numbers, the turn. */
  private platesEl: SeatPlates | null = null;
  /** "Last trick": the previous trick's cards, who played each, who won it (trick games). */
  private lastTrick = new LastTrickView(() => this.host.changed());

  constructor(private host: GameHost) {
    const widgetHost = { act: (a: GameAction) => this.act(a), changed: () => host.changed(), notice: (t: string) => toast(t, "error") };
    this.bidPad = new BidPad(widgetHost);
    this.knock = new KnockPicker(widgetHost);
    this.rankChooser = new RankChooser(widgetHost);
    this.statusEl = h("span", { class: "game-status", "data-testid": "game-status", role: "status", "aria-live": "polite" });
    this.turnEl = h("span", { class: "your-turn", "data-testid": "your-turn", hidden: true }, "Your turn");
    this.timerFill = h("span", { class: "timer-fill" });
    this.timerText = h("span", { class: "timer-text" });
    this.timerEl = h(
      "span",
      { class: "game-timer", "data-testid": "game-timer", hidden: true },
      h("span", { class: "timer-bar" }, this.timerFill),
      this.timerText,
    );
    this.scoresBtn = h(
      "button",
      { type: "button", class: "score", "data-testid": "game-scores", title: "The scoreboard and the last hand" },
      "Scores",
    );
    this.scoresBtn.addEventListener("click", () => this.toggleSheet());
    this.buttonsEl = h("span", { class: "game-buttons", "data-testid": "game-controls" });
    this.picksEl = h("span", { class: "game-buttons" });
    this.hintEl = h("span", { class: "game-hint", "data-testid": "game-hint", hidden: true });
    this.sortBtn = h(
      "button",
      { type: "button", "data-testid": "game-sort", title: "Sort your hand (melds first, when you have some)" },
      "Sort",
    );
    this.sortBtn.addEventListener("click", () => this.sortHand());
    this.groupBtn = h(
      "button",
      {
        type: "button",
        class: "toggle",
        "data-testid": "game-group",
        "aria-pressed": String(this.grouping),
        title: "Keep your hand in order: its melds together, runs and sets, the rest after",
      },
      "Group melds",
    );
    this.groupBtn.addEventListener("click", () => {
      this.grouping = !this.grouping;
      save(GROUP_KEY, this.grouping ? "1" : null);
      this.groupBtn.setAttribute("aria-pressed", String(this.grouping));
      this.groupedFor = "";
      this.render();
    });
    this.startBtn = h(
      "button",
      { type: "button", class: "primary", "data-testid": "game-start", title: "Start with the players seated now", hidden: true },
      "Start the game now",
    );
    this.startBtn.addEventListener("click", () => this.host.startGame());
    this.controlsRow = h(
      "div",
      { class: "gamebar-row controls-row" },
      this.buttonsEl,
      this.picksEl,
      this.knock.bar,
      this.startBtn,
      this.sortBtn,
      this.groupBtn,
      this.lastTrick.button,
      this.hintEl,
    );
    this.bar = h(
      "div",
      { class: "gamebar", "data-testid": "game-bar", hidden: true },
      h("div", { class: "gamebar-row" }, this.statusEl, this.turnEl, this.timerEl, this.scoresBtn),
      this.controlsRow,
    );
    this.promptEl = h("div", { class: "game-prompt", "data-testid": "game-prompt", role: "alertdialog", hidden: true });
    this.dock = h(
      "div",
      { class: "game-dock", "data-testid": "game-dock", hidden: true },
      this.promptEl,
      this.bidPad.el,
      this.knock.row,
      this.rankChooser.el,
      this.lastTrick.panel,
    );
    this.sheet = h("div", { class: "sheet", "data-testid": "game-sheet", hidden: true });
    this.sheet.addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.closeSheet();
    });
  }

  /** Made on first use: the renderer (and its layer) comes after the game bar. */
  private get plates(): SeatPlates {
    this.platesEl ??= new SeatPlates(this.host.r.layer);
    return this.platesEl;
  }

  private get game(): Game | null {
    return this.host.s.game;
  }

  private act(action: GameAction): void {
    this.host.command(action);
    this.host.changed();
  }

  private nameOf(player: number): string {
    const g = this.game;
    if (g && player === g.me) return "You";
    return g?.players.find((p) => p.player === player)?.name ?? `Player ${player + 1}`;
  }

  private waitingHint(g: Game): string {
    const more = g.min_players < g.max_players ? ` (or start it with ${g.min_players})` : "";
    if (this.amHost())
      return `The game starts when ${g.max_players} players sit${more}: take seats, or seat computers in the players panel.`;
    return `The game starts when ${g.max_players} players sit.`;
  }

  private amHost(): boolean {
    return !!myPlayer(this.host.s)?.host;
  }

  // --- rendering -----------------------------------------------------------------------------------

  render(): void {
    const g = this.game;
    this.bar.hidden = !g;
    this.dock.hidden = !g;
    if (!g) {
      this.sheet.hidden = true;
      this.sheetOpen = false;
      this.autoOpened = false;
      this.dragIds = null;
      this.glow(new Map());
      this.markMelds(null);
      this.tick(false);
      this.plates.render(this.host.s, this.host.r.geom);
      return;
    }
    const s = this.host.s;
    const playing = !g.waiting && g.me !== null && g.me !== undefined;
    const myTurn = playing && (g.to_act ?? []).includes(g.me as number);
    // While players sit down the count comes from the player list, which is always current
    // (a delta may change the players without resending the game).
    const sitting = s.players.filter((p) => p.seat !== null).length;
    setText(this.statusEl, g.waiting ? `Waiting for players: ${sitting} of ${g.max_players} seated` : g.status || g.title);
    this.turnEl.hidden = !myTurn;
    toggleClass(this.bar, "my-turn", myTurn);
    this.bar.dataset.phase = g.phase ?? "";
    this.bar.dataset.game = g.name;

    const controls = g.controls ?? [];
    const widgets = g.widgets ?? [];
    this.sorted = sortControls(controls, widgets);
    this.renderButtons(this.sorted.buttons);
    this.renderPicks(this.sorted.picks);
    this.renderPrompt(this.sorted.prompts);
    if (widgets.includes("bid_pad")) this.bidPad.render(this.sorted.widgets.get("bid_pad") ?? []);
    else this.bidPad.render([]);
    const hand = this.myHandFaces();
    if (widgets.includes("knock_picker"))
      this.knock.render(this.sorted.widgets.get("knock_picker") ?? [], g.view, playing && hand.length > 0, g.hint);
    else this.knock.render([], null, false, null);
    // The set being named is moot once it is no longer your turn to lay sets down.
    if (this.rankChooser.active && !(myTurn && widgets.includes("rank_chooser") && g.phase === "play")) this.rankChooser.close();

    const hint = g.hint || (g.waiting ? this.waitingHint(g) : "");
    this.hintEl.hidden = !hint;
    setText(this.hintEl, hint);
    const canSort = playing && hand.length >= 2 && !g.outcome;
    this.groupBtn.hidden = !canSort || this.meldsInView(g) === null;
    // With "Group melds" on, the hand is always sorted: no Sort button (the menu still has it).
    this.sortBtn.hidden = !canSort || (!this.groupBtn.hidden && this.grouping);
    if (!this.groupBtn.hidden && this.grouping) this.keepGrouped(g);
    this.startBtn.hidden = !(g.waiting && this.amHost() && sitting >= g.min_players && sitting <= g.max_players);

    this.lastTrick.render(g, (p) => this.nameOf(p));
    for (const el of [this.buttonsEl, this.picksEl]) el.hidden = !el.childElementCount;
    this.controlsRow.hidden = [...this.controlsRow.children].every((c) => (c as HTMLElement).hidden);

    const board = g.scoreboard;
    this.scoresBtn.hidden = !board && !g.reveal && !g.outcome;
    // A phone's game bar shows the totals only (the long form, with the sides' names, is the
    // button's text everywhere else; app.css picks one).
    if (board) this.scoresBtn.dataset.short = `Scores ${board.totals.slice(0, board.scored ?? board.columns.length).join(" · ")}`;
    if (board)
      setText(
        this.scoresBtn,
        board.columns
          .slice(0, board.scored ?? board.columns.length)
          .map((c, i) => `${c} ${board.totals[i] ?? 0}`)
          .join(" · "),
      );

    this.glow(this.targets(g));
    this.markMelds(playing ? this.meldsInView(g) : null);
    this.tick(!!g.timer);
    this.updateTimers();

    // A hand (or the game) just ended: show the reveal with the scores.
    const revealKey = g.reveal || g.outcome ? JSON.stringify([g.reveal, g.outcome]) : "";
    if (revealKey && revealKey !== this.revealSeen) {
      this.revealSeen = revealKey;
      this.sheetOpen = true;
      this.autoOpened = true;
    } else if (!revealKey && this.autoOpened) {
      this.sheetOpen = false;
      this.autoOpened = false;
    }
    this.renderSheet(g);
    // The dock floats over the table, just above the hand strip. On a phone the bid pad is a
    // single row over the lower part of the hand instead (the cards' corners stay in view): the
    // table, the plates and the trick stay uncovered while you bid.
    const geo = this.host.r.geom;
    const overHand = geo.w < 600 && !this.bidPad.el.hidden && this.dock.childElementCount > 0;
    toggleClass(this.dock, "over-hand", overHand);
    this.dock.style.left = `${geo.w / 2}px`;
    this.dock.style.bottom = overHand ? "4px" : `${geo.h - geo.hand.y + 10}px`;
    // The plates keep clear of the dock while it shows something over the table.
    // (Not for the last trick: a glance you asked for, which should not move the plates about.)
    const shown = [...this.dock.children].some((c) => !(c as HTMLElement).hidden && c !== this.lastTrick.panel);
    this.plates.render(s, geo, shown && !overHand ? this.dock : null);
  }

  private controlButton(c: Control, testid: string, cls = ""): HTMLButtonElement {
    const b = h(
      "button",
      { type: "button", class: cls, "data-testid": testid, "data-type": c.action.type, "data-group": c.group || null, title: c.label },
      c.label,
    );
    b.addEventListener("click", () => this.act(c.action));
    return b;
  }

  private renderButtons(list: Control[]): void {
    const key = JSON.stringify(list.map((c) => [c.label, c.action]));
    if (key === this.buttonsKey) return;
    this.buttonsKey = key;
    this.buttonsEl.replaceChildren(...list.map((c) => this.controlButton(c, "control", "primary")));
  }

  /** Buttons that send cards chosen from the hand ("Pass these 2 cards"): click hand cards first. */
  private renderPicks(list: Control[]): void {
    const faces = this.selectedHandFaces();
    const key = JSON.stringify([list.map((c) => [c.label, c.action, c.pick]), faces]);
    if (key === this.picksKey) return;
    this.picksKey = key;
    this.picksEl.replaceChildren(
      ...list.map((c) => {
        const n = c.pick ?? 0;
        const action = pickAction(c, faces);
        const b = h(
          "button",
          {
            type: "button",
            class: "primary",
            "data-testid": "pick-control",
            "data-type": c.action.type,
            "data-pick": n,
            disabled: !action,
            title: `Click ${n} cards of your hand, then this`,
          },
          c.label,
          h("span", { class: "pick-count" }, ` (${Math.min(faces.length, 99)} of ${n} chosen)`),
        );
        b.addEventListener("click", () => {
          const now = pickAction(c, this.selectedHandFaces());
          if (!now) return;
          this.host.s.selected.clear();
          this.act(now);
        });
        return b;
      }),
    );
  }

  private renderPrompt(groups: Control[][]): void {
    const group = groups[0];
    this.promptEl.hidden = !group;
    const key = group ? JSON.stringify(group.map((c) => [c.label, c.action, c.kind])) : "";
    if (key === this.promptKey) return;
    this.promptKey = key;
    if (!group) {
      this.promptEl.replaceChildren();
      return;
    }
    // The first control asks the question; its button says the verb, the others their labels.
    // A lone answer (only "No thanks" left) is just a button.
    const question = group.length > 1 ? group[0] : null;
    this.promptEl.setAttribute("aria-label", question ? questionText(question.label) : group[0].label);
    const buttons = group.map((c) => {
      const text = c === question ? yesText(c.label) : c.label;
      const b = h(
        "button",
        {
          type: "button",
          class: c === question ? "primary" : "",
          "data-testid": "game-prompt-button",
          "data-type": c.action.type,
          title: c.label,
        },
        text,
      );
      b.addEventListener("click", () => this.act(c.action));
      return b;
    });
    const parts = [
      h("div", { class: "prompt-buttons" }, buttons),
      h(
        "div",
        { class: "prompt-timer", "data-testid": "game-prompt-timer" },
        h("span", { class: "timer-bar" }, h("span", { class: "timer-fill" })),
        h("span", { class: "timer-text" }),
      ),
    ];
    if (question)
      parts.unshift(h("div", { class: "prompt-question", "data-testid": "game-prompt-question" }, questionText(question.label)));
    this.promptEl.replaceChildren(...parts);
    this.updateTimers();
  }

  /** Countdowns: the bar shrinks and the seconds count down while `game.timer` runs. */
  private tick(on: boolean): void {
    if (on && this.ticker === null) this.ticker = window.setInterval(() => this.updateTimers(), 100);
    if (!on && this.ticker !== null) {
      clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  private updateTimers(): void {
    const g = this.game;
    const t = g ? timerLeft(g.timer, Date.now() / 1000) : null;
    this.plates.tick(g);
    this.timerEl.hidden = !t;
    const boxes: [HTMLElement, HTMLElement][] = [[this.timerFill, this.timerText]];
    const pt = this.promptEl.querySelector<HTMLElement>(".prompt-timer");
    if (pt) {
      pt.hidden = !t;
      boxes.push([pt.querySelector(".timer-fill") as HTMLElement, pt.querySelector(".timer-text") as HTMLElement]);
    }
    if (!t) return;
    for (const [fill, text] of boxes) {
      fill.style.transform = `scaleX(${t.frac.toFixed(3)})`;
      setText(text, `${Math.ceil(t.left)} s`);
    }
  }

  // --- your hand -----------------------------------------------------------------------------------

  private myHand(): { id: string; cards: string[] } | null {
    const s = this.host.s;
    const hand = s.me.seat === null ? undefined : s.view.get(`hand${s.me.seat}`);
    return isHand(hand) ? { id: hand.id, cards: cardIds(hand) } : null;
  }

  private myHandFaces(): string[] {
    const s = this.host.s;
    const out: string[] = [];
    for (const id of this.myHand()?.cards ?? []) {
      const c = s.view.get(id);
      if (isCard(c) && c.face !== undefined) out.push(c.face);
    }
    return out;
  }

  private selectedHandFaces(): string[] {
    const s = this.host.s;
    const out: string[] = [];
    for (const id of this.myHand()?.cards ?? []) {
      const c = s.view.get(id);
      if (s.selected.has(id) && isCard(c) && c.face !== undefined) out.push(c.face);
    }
    return out;
  }

  /** The engine's melds in your hand, when its view offers them (rummy games: Gin's
   *  `arrangement`, Rummy's `groups`). */
  private meldsInView(g: Game): string[][] | null {
    const arr = g.view?.arrangement as { melds?: unknown } | null | undefined;
    const melds = arr && Array.isArray(arr.melds) ? arr.melds : g.view?.groups;
    if (!Array.isArray(melds)) return null;
    return melds.filter((m): m is string[] => Array.isArray(m) && m.every((f) => typeof f === "string"));
  }

  /** "Group melds" on: sort the hand whenever its cards or its melds change (not again while
   *  they stay the same, so the order a player makes by hand holds until then). */
  private keepGrouped(g: Game): void {
    const hand = this.myHand();
    if (!hand) return;
    const key = JSON.stringify([[...hand.cards].sort(), this.meldsInView(g)]);
    if (key === this.groupedFor) return;
    this.groupedFor = key;
    this.sortHand();
  }

  /** Sort: the engine's melds first (when it names any), then by suit and rank. */
  sortHand(): void {
    const g = this.game;
    const hand = this.myHand();
    if (!g || !hand) return;
    const s = this.host.s;
    const idOf = new Map<string, string>();
    for (const id of hand.cards) {
      const c = s.view.get(id);
      if (isCard(c) && c.face !== undefined) idOf.set(c.face, id);
    }
    const want = handOrder([...idOf.keys()], this.meldsInView(g)).map((f) => idOf.get(f) as string);
    const order = [...want, ...hand.cards.filter((id) => !want.includes(id))];
    for (const [id, index] of reorderMoves(hand.cards, order)) this.host.send({ op: "move", id, to: hand.id, index });
  }

  private markMelds(melds: string[][] | null): void {
    const s = this.host.s;
    const now = new Set<HTMLElement>();
    if (melds) {
      const meldOf = new Map<string, number>();
      melds.forEach((m, i) => m.forEach((f) => meldOf.set(f, i)));
      for (const id of this.myHand()?.cards ?? []) {
        const c = s.view.get(id);
        const el = this.host.r.el(id);
        if (!isCard(c) || !el || c.face === undefined) continue;
        const i = meldOf.get(c.face);
        if (i === undefined) continue;
        if (el.dataset.meld !== String(i % 4)) el.dataset.meld = String(i % 4);
        now.add(el);
      }
    }
    for (const el of this.meldMarks) if (!now.has(el)) delete el.dataset.meld;
    this.meldMarks = now;
  }

  // --- drags and clicks ------------------------------------------------------------------------------

  /** The drag controls of the game as the state holds them now. A key press or click can come
   *  between a state change and the next frame's render, so decisions don't use `sorted`. */
  private liveDrags(): SortedControls["drags"] {
    const g = this.game;
    return g ? sortControls(g.controls ?? [], g.widgets ?? []).drags : [];
  }

  /** A card as the controls name it: in your hand ("hand") or in a zone, and whether on top. */
  private cardAt(id: string): CardAt | null {
    const s = this.host.s;
    const c = s.view.get(id);
    if (!isCard(c) || !c.parent) return null;
    if (s.me.seat !== null && c.parent === `hand${s.me.seat}`) return { face: c.face, source: "hand", top: true };
    const pile = s.view.get(c.parent);
    if (!isStack(pile)) return null;
    return { face: c.face, source: pile.id, top: pile.cards[pile.cards.length - 1] === c.id };
  }

  /** Elements to light up: where the dragged cards may go, or what may move now. */
  private targets(g: Game): Map<Element, string> {
    const out = new Map<Element, string>();
    const s = this.host.s;
    const r = this.host.r;
    const drags = this.sorted.drags;
    const hand = this.myHand();
    if (this.knock.active && hand) {
      for (const id of hand.cards) {
        const c = s.view.get(id);
        const el = r.el(id);
        const cls = isCard(c) ? this.knock.cardClass(c.face) : null;
        if (el && cls) out.set(el, cls);
      }
      return out;
    }
    if (g.waiting || !drags.length) return out;
    if (this.dragIds) {
      const cards = this.dragIds.map((id) => this.cardAt(id));
      if (cards.some((c) => c === null)) return out;
      for (const dest of dropTargets(drags, cards as CardAt[])) {
        const el = dest === "hand" ? r.handBg : r.el(dest);
        if (el) out.set(el, "accepts");
      }
      return out;
    }
    const hints = dragHints(drags);
    for (const z of hints.zones) {
      const el = r.el(z);
      if (el) out.set(el, "legal");
    }
    for (const id of hand?.cards ?? []) {
      const c = s.view.get(id);
      const el = r.el(id);
      if (isCard(c) && el && c.face !== undefined && hints.handFaces.has(c.face)) out.set(el, "playable");
    }
    return out;
  }

  private glow(next: Map<Element, string>): void {
    for (const [el, cls] of this.glowing) if (next.get(el) !== cls) el.classList.remove(cls);
    for (const [el, cls] of next) if (!el.classList.contains(cls)) el.classList.add(cls);
    this.glowing = next;
  }

  /** A drag started (ids) or ended (null): light up where the cards may go. */
  dragHint(ids: string[] | null): void {
    this.dragIds = ids;
    const g = this.game;
    if (g) this.glow(this.targets(g));
  }

  /**
   * A click on a card. While knocking: the card to knock with. While a control wants cards
   * picked: select or unselect the hand card. True when the click was used.
   */
  pick(id: string): boolean {
    const g = this.game;
    if (!g) return false;
    const at = this.cardAt(id);
    if (this.knock.active) return at?.source === "hand" ? this.knock.pick(at.face) : false;
    if (this.sorted.picks.length && at?.source === "hand") {
      const sel = this.host.s.selected;
      if (sel.has(id)) sel.delete(id);
      else {
        for (const other of [...sel]) if (this.cardAt(other)?.source !== "hand") sel.delete(other);
        sel.add(id);
      }
      this.host.changed();
      return true;
    }
    return false;
  }

  /**
   * A double-click or Enter on a card in a rule room: the one move it has, if it has exactly one
   * (a draw, a discard, playing it to the trick). True: the page should do nothing else.
   */
  activate(id: string): boolean {
    const g = this.game;
    if (!g) return false;
    const at = this.cardAt(id);
    if (!at || g.waiting) return true;
    const drags = this.liveDrags();
    const c = directControl(drags, at);
    if (c) {
      this.host.s.selected.delete(id); // the first click selected it; it is on its way now
      this.act(c.action);
    } else if (drags.some((d) => dragFits(d, [at]))) toast("That card can go to more than one place: drag it where you want it.", "info");
    return true;
  }

  /**
   * A single click or tap on a card: the stock drawn when drawing is all it does (`tapDraw`).
   * The rest of a double-click (a second tap on the same game view, before the server answers)
   * is swallowed, never sent as a second draw.
   */
  tap(id: string): boolean {
    const g = this.game;
    if (!g || g.waiting || this.knock.active) return false;
    const at = this.cardAt(id);
    const c = at ? tapDraw(this.liveDrags(), at) : null;
    if (!c) return false;
    const now = performance.now();
    if (this.tapped.g === g && now - this.tapped.at < 1500) return true;
    this.tapped = { g, at: now };
    this.act(c.action);
    return true;
  }

  private tapped: { g: Game | null; at: number } = { g: null, at: 0 };

  /** Does this card have exactly one move now (what Enter or a double-click would make)? */
  oneMove(id: string): boolean {
    const g = this.game;
    const at = this.cardAt(id);
    return !!g && !g.waiting && !!at && directControl(this.liveDrags(), at) !== null;
  }

  /** Where the game lets these cards go now ("hand" or zone ids), as a drag would light up. */
  dropsFor(ids: string[]): Set<string> {
    const g = this.game;
    const cards = ids.map((id) => this.cardAt(id));
    if (!g || g.waiting || cards.some((c) => c === null)) return new Set();
    return dropTargets(this.liveDrags(), cards as CardAt[]);
  }

  /** The context menu in a rule room: the moves of this card (the drag controls it fits), Sort,
   *  the scores. */
  menuItems(id: string | null): MenuItem[] {
    const g = this.game;
    const items: MenuItem[] = [];
    if (!g) return items;
    const at = id ? this.cardAt(id) : null;
    if (at) {
      for (const c of this.liveDrags())
        if (dragFits(c, [at])) items.push({ label: c.label, testid: "game-move", action: () => this.act(c.action) });
      if (!items.length) items.push({ label: "No move for this card now", testid: "noop", action: () => {} });
    }
    if (!this.sortBtn.hidden || !this.groupBtn.hidden) items.push({ label: "Sort my hand", testid: "sort", action: () => this.sortHand() });
    if (!this.scoresBtn.hidden) items.push({ label: "Scores", testid: "scores", action: () => this.toggleSheet() });
    return items;
  }

  /**
   * A table operation about to be sent. In a game with the rank chooser (Pennies), cards of your
   * hand dropped together on "New meld" that could be a set of two ranks are held back: the
   * chooser asks which, and the meld goes as a `game` command naming it. True: held back.
   */
  interceptDrop(op: Op): boolean {
    const g = this.game;
    if (!g || g.waiting || !(g.widgets ?? []).includes("rank_chooser")) return false;
    if (op.op !== "move_many" || op.to !== "newmeld") return false;
    const cards = op.ids.map((id) => this.cardAt(id));
    if (cards.some((c) => c === null || c.source !== "hand" || c.face === undefined)) return false;
    const req = g.view?.requirement as { wild_ranks?: unknown } | null | undefined;
    const wild = Array.isArray(req?.wild_ranks) ? req.wild_ranks.filter((r): r is number => typeof r === "number") : [];
    const faces = cards.map((c) => (c as CardAt).face as string);
    const ranks = setRanks(faces, wild);
    if (ranks.length < 2) return false;
    this.host.s.selected.clear();
    this.rankChooser.ask(faces, ranks);
    return true;
  }

  /** Escape: stop knocking or naming a set, close the sheet. True when something was closed. */
  escape(): boolean {
    if (this.knock.escape()) return true;
    if (this.lastTrick.escape()) return true;
    if (this.rankChooser.escape()) return true;
    if (this.sheetOpen) {
      this.closeSheet();
      return true;
    }
    return false;
  }

  // --- the sheet: scoreboard, reveal, result ------------------------------------------------------------

  toggleSheet(): void {
    this.sheetOpen = !this.sheetOpen;
    this.autoOpened = false;
    this.host.changed();
  }

  private closeSheet(): void {
    this.sheetOpen = false;
    this.autoOpened = false;
    this.host.changed();
  }

  private renderSheet(g: Game): void {
    this.sheet.hidden = !this.sheetOpen;
    toggleClass(this.sheet, "tall", !!(g.reveal || g.outcome));
    if (!this.sheetOpen) {
      this.sheetKey = "";
      return;
    }
    const buttons = this.sorted.buttons;
    const key = JSON.stringify([
      g.scoreboard,
      g.reveal,
      g.outcome,
      g.players,
      g.me,
      g.status,
      buttons.map((c) => [c.label, c.action]),
      this.amHost(),
    ]);
    if (key === this.sheetKey) return;
    this.sheetKey = key;
    const close = h("button", { type: "button", class: "small", "data-testid": "sheet-close", title: "Close (Esc)" }, "Close");
    close.addEventListener("click", () => this.closeSheet());
    const title = g.outcome ? "Game over" : g.reveal ? "Hand over" : `${g.title}: scores`;
    // The finished hands: each replayed move by move and its deal verified (fair/replay.ts).
    const hands = h(
      "button",
      { type: "button", class: "small", "data-testid": "sheet-hands", title: "Replay a finished hand and verify its deal" },
      "Hands",
    );
    hands.addEventListener("click", () => void openHands(this.host.s.code));
    const parts: HTMLElement[] = [
      h("header", { class: "sheet-head" }, h("h2", {}, title), h("span", { class: "sheet-head-buttons" }, hands, close)),
    ];
    if (g.reveal || g.outcome) parts.push(h("p", { class: "how", "data-testid": "sheet-status" }, g.status));
    // The game's result, then what comes next (summary.ts): the reveal and scores below.
    if (g.outcome) parts.push(this.outcomeBox(g), endOfGame({ host: this.amHost(), again: () => this.host.playAgain() }));
    if (g.reveal) parts.push(this.revealBox(g.reveal));
    parts.push(this.scoreboardBox(g));
    if (buttons.length) {
      parts.push(
        h(
          "footer",
          { class: "sheet-foot" },
          buttons.map((c) => {
            const b = this.controlButton(c, "sheet-control", "primary");
            b.addEventListener("click", () => {
              this.sheetOpen = false;
              this.autoOpened = false;
            });
            return b;
          }),
        ),
      );
    }
    this.sheet.replaceChildren(...parts);
  }

  private outcomeBox(g: Game): HTMLElement {
    const o = g.outcome as NonNullable<Game["outcome"]>;
    const won = new Set(o.winners);
    return h(
      "section",
      { class: "final", "data-testid": "game-result" },
      h("p", { class: "winner", "data-testid": "game-winner" }, winnersText(o.winners, g.players, g.me)),
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", {}, "Player"), h("th", { class: "num" }, "Final score"))),
        h(
          "tbody",
          {},
          g.players.map((p) =>
            h(
              "tr",
              { class: won.has(p.player) ? "won" : "" },
              h("td", {}, this.nameOf(p.player)),
              h("td", { class: "num", "data-testid": `final-score-${p.player}` }, String(o.scores[p.player] ?? "")),
            ),
          ),
        ),
      ),
    );
  }

  private revealBox(lines: RevealLine[]): HTMLElement {
    const box = h("section", { class: "reveal", "data-testid": "reveal" });
    for (const line of lines) {
      const cards = h("div", { class: "rs-cards" });
      line.melds.forEach((m, i) =>
        cards.appendChild(
          h(
            "span",
            { class: "meld-group", "data-meld": i % 4, title: `Meld ${i + 1}` },
            m.map((f) => cardImg(f)),
          ),
        ),
      );
      if (line.cards.length)
        cards.appendChild(
          h(
            "span",
            { class: "dead-group", title: "Other cards" },
            line.cards.map((f) => cardImg(f, "dead")),
          ),
        );
      box.appendChild(
        h(
          "div",
          { class: "reveal-seat", "data-testid": `reveal-player-${line.player}` },
          h(
            "div",
            { class: "rs-head" },
            h("strong", {}, this.nameOf(line.player)),
            line.note ? h("span", { class: "role", "data-testid": `reveal-note-${line.player}` }, line.note) : null,
            h("span", { class: "dw", "data-testid": `reveal-points-${line.player}`, title: "Points" }, String(line.points)),
          ),
          line.melds.length || line.cards.length ? cards : null,
        ),
      );
    }
    return box;
  }

  private scoreboardBox(g: Game): HTMLElement {
    const b = g.scoreboard;
    if (!b) return h("section", { class: "scoreboard", "data-testid": "scoreboard" }, h("p", { class: "empty" }, "No scores yet."));
    const rows = b.rows.map((r) =>
      h(
        "tr",
        { "data-testid": "score-row" },
        h("td", {}, r.label),
        b.columns.map((_, i) => h("td", { class: "num" }, String(r.cells[i] ?? ""))),
      ),
    );
    if (!rows.length) rows.push(h("tr", {}, h("td", { colspan: b.columns.length + 1, class: "empty" }, "Nothing scored yet")));
    return h(
      "section",
      { class: "scoreboard", "data-testid": "scoreboard" },
      h("h3", {}, "Scoreboard"),
      h(
        "table",
        {},
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", {}, ""),
            b.columns.map((c) => h("th", { class: "num" }, c)),
          ),
        ),
        h("tbody", {}, rows),
        h(
          "tfoot",
          {},
          h(
            "tr",
            { class: "total", "data-testid": "score-totals" },
            h("td", {}, "Total"),
            b.columns.map((_, i) => h("td", { class: "num", "data-testid": `score-total-${i}` }, String(b.totals[i] ?? 0))),
          ),
        ),
      ),
      b.note ? h("p", { class: "note", "data-testid": "scoreboard-note" }, b.note) : null,
    );
  }
}
