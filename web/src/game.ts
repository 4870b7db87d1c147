// A rule room in the browser (Gin Rummy): the game bar (whose turn, what you may do, the command
// buttons, your deadwood, the score), glowing legal targets, the knock picker, "Arrange", and the
// result sheet (the hand-end reveal, the scoreboard, the final breakdown). Everything is derived
// from `s.game` (the engine's view and legal moves for this seat); nothing is decided here.

import { cardIds, isCard, isHand, isStack } from "./board";
import { faceName, faceUrl } from "./cards";
import { clear, h, setText, toggleClass } from "./dom";
import {
  bestArrangement,
  GIN_OPTIONS,
  type GinResult,
  type GinView,
  isRed,
  KIND_TEXT,
  knockChoices,
  type Names,
  pointsText,
  resultText,
  shortName,
  statusText,
} from "./gin";
import type { Renderer } from "./render";
import { playerAt, type State } from "./state";
import type { Game, GameAction, Op } from "./types";
import { toast } from "./ui";

export interface GameHost {
  s: State;
  r: Renderer;
  send(op: Op): void;
  /** A game command with no drag (`game {action}`). */
  command(action: GameAction): void;
  changed(): void;
}

const PLAY_PHASES = new Set(["upcard", "draw", "discard"]);

/** Selects for a game's room options (home page and the host's "Play Gin Rummy" dialog). */
export function optionFields(current?: Record<string, unknown>): { el: HTMLElement; values(): Record<string, number> } {
  const selects: [string, HTMLSelectElement][] = [];
  const el = h("div", { class: "game-options", "data-testid": "game-options" });
  for (const o of GIN_OPTIONS) {
    const now = typeof current?.[o.name] === "number" ? (current[o.name] as number) : o.default;
    const sel = h(
      "select",
      { id: `opt-${o.name}`, "data-testid": `opt-${o.name}`, title: o.hint || null },
      o.choices.map((c) => h("option", { value: c, selected: c === now }, o.name === "target" ? `${c} points` : String(c))),
    );
    selects.push([o.name, sel]);
    el.append(h("label", { for: `opt-${o.name}` }, o.label), sel);
  }
  return { el, values: () => Object.fromEntries(selects.map(([n, s]) => [n, Number(s.value)])) };
}

function cardImg(face: string, cls = ""): HTMLElement {
  return h("img", { class: `mini-card ${cls}`.trim(), src: faceUrl(face), alt: faceName(face), title: faceName(face), "data-face": face, draggable: "false" });
}

export class GameUI {
  readonly bar: HTMLElement;
  readonly sheet: HTMLElement;
  private statusEl: HTMLElement;
  private scoreBtn: HTMLButtonElement;
  private deadwoodEl: HTMLElement;
  private pickRow: HTMLElement;
  private btn: Record<string, HTMLButtonElement> = {};
  private knockMode = false;
  private dragIds: string[] | null = null;
  private glowing = new Map<Element, string>();
  private meldMarks = new Set<HTMLElement>();
  private sheetOpen = false;
  /** The sheet was opened by a hand ending (not by the Scores button): the next deal closes it. */
  private autoOpened = false;
  private sheetKey = "";
  private resultSeen = "";
  private pickKey = "";

  constructor(private host: GameHost) {
    const button = (key: string, label: string, title: string, fn: () => void, cls = "") => {
      const b = h("button", { type: "button", class: cls, "data-testid": `game-${key}`, title }, label);
      b.addEventListener("click", fn);
      this.btn[key] = b;
      return b;
    };
    this.statusEl = h("span", { class: "game-status", "data-testid": "game-status", role: "status", "aria-live": "polite" });
    this.deadwoodEl = h("span", { class: "deadwood", "data-testid": "deadwood" });
    this.scoreBtn = h("button", { type: "button", class: "score", "data-testid": "game-scores", title: "Scores and the last hand" });
    this.scoreBtn.addEventListener("click", () => this.toggleSheet());
    this.pickRow = h("div", { class: "knock-pick", "data-testid": "knock-pick", hidden: true });
    this.bar = h(
      "div",
      { class: "gamebar", "data-testid": "game-bar", hidden: true },
      h(
        "div",
        { class: "gamebar-row" },
        this.statusEl,
        h(
          "span",
          { class: "game-buttons" },
          this.deadwoodEl,
          button("arrange", "Arrange", "Sort your hand into melds, deadwood last", () => this.arrange()),
          button("pass", "Pass", "Refuse the upcard", () => this.act({ type: "pass" })),
          button("knock", "Knock", "Knock: choose the card to discard face down", () => this.toggleKnock()),
          button("gin", "Gin!", "Knock with no deadwood", () => this.gin(), "primary"),
          button("big-gin", "Big Gin!", "All 11 cards in melds", () => this.act({ type: "big_gin" }), "primary"),
          button("done", "Done", "Finish laying off: the hand is scored", () => this.act({ type: "finish_layoff" }), "primary"),
          button("next", "Next hand", "Deal the next hand", () => this.act({ type: "next_hand" }), "primary"),
          this.scoreBtn,
        ),
      ),
      this.pickRow,
    );
    this.sheet = h("div", { class: "sheet", "data-testid": "game-sheet", hidden: true });
    this.sheet.addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.closeSheet();
    });
  }

  private get game(): Game | null {
    return this.host.s.game;
  }

  private get view(): GinView | null {
    const g = this.game;
    return g && g.name === "gin_rummy" ? (g.view as unknown as GinView) : null;
  }

  private legal(type: string): GameAction[] {
    return (this.game?.legal ?? []).filter((a) => a.type === type);
  }

  private act(action: GameAction): void {
    this.knockMode = false;
    this.host.command(action);
    this.host.changed();
  }

  names(): Names {
    const s = this.host.s;
    const mySeat = this.view?.seat ?? null;
    return {
      who: (seat) => {
        if (seat === null || seat === undefined) return "Nobody";
        if (seat === mySeat) return "You";
        return playerAt(s, seat)?.name ?? `Seat ${seat + 1}`;
      },
      mine: (seat) => seat !== null && seat !== undefined && seat === mySeat,
    };
  }

  /** The name of a seat, never "You" (score columns). */
  private seatName(seat: number): string {
    const p = playerAt(this.host.s, seat);
    return p ? p.name : `Seat ${seat + 1}`;
  }

  // --- rendering ---------------------------------------------------------------------------------

  render(): void {
    const g = this.game;
    this.bar.hidden = !g;
    if (!g) {
      this.knockMode = false;
      this.sheet.hidden = true;
      this.sheetOpen = false;
      this.glow(new Map());
      this.markMelds(null);
      return;
    }
    const v = this.view;
    if (!v) {
      setText(this.statusEl, `${g.title} rules are on`);
      for (const b of Object.values(this.btn)) b.hidden = true;
      this.scoreBtn.hidden = true;
      return;
    }
    const legal = g.legal;
    const has = (t: string) => legal.some((a) => a.type === t);
    const names = this.names();
    const myTurn = legal.length > 0 && v.phase !== "hand_over";
    setText(this.statusEl, statusText(v, legal, names));
    this.bar.dataset.phase = v.phase;
    toggleClass(this.bar, "my-turn", myTurn);

    const hand = v.hand ?? [];
    const choices = has("knock") ? knockChoices(hand, legal) : [];
    if (this.knockMode && !choices.length) this.knockMode = false;
    const playing = PLAY_PHASES.has(v.phase);
    const seated = v.seat !== null;
    const show = (key: string, visible: boolean, enabled: boolean) => {
      const b = this.btn[key];
      b.hidden = !visible;
      b.disabled = !enabled;
    };
    const holding = seated && hand.length > 0 && (playing || v.phase === "layoff");
    show("arrange", holding, holding && hand.length > 1);
    show("pass", v.phase === "upcard" && seated, has("pass"));
    show("knock", playing && seated, choices.length > 0);
    show("gin", playing && seated, choices.some((c) => c.deadwood === 0));
    show("big-gin", has("big_gin"), has("big_gin"));
    show("done", v.phase === "layoff" && has("finish_layoff"), has("finish_layoff"));
    show("next", v.phase === "hand_over" && seated, has("next_hand"));
    toggleClass(this.btn.knock, "active", this.knockMode);
    this.btn.knock.setAttribute("aria-pressed", String(this.knockMode));

    const arr = v.arrangement;
    this.deadwoodEl.hidden = !arr || !holding;
    if (arr) setText(this.deadwoodEl, `Deadwood ${arr.points}`);
    const target = v.options?.target ?? 100;
    this.scoreBtn.hidden = false;
    setText(this.scoreBtn, `${this.seatName(0)} ${v.scores[0]} · ${this.seatName(1)} ${v.scores[1]} (to ${target})`);

    this.renderPick(choices);
    this.glow(this.targets(v, legal));
    this.markMelds(holding ? arr : null);

    // A hand just ended: show the reveal and the scores.
    const ended = v.phase === "hand_over" || v.phase === "game_over";
    const resultKey = ended && v.last_result ? `${v.last_result.hand_no}|${v.phase}` : "";
    if (resultKey && resultKey !== this.resultSeen) {
      this.resultSeen = resultKey;
      this.sheetOpen = true;
      this.autoOpened = true;
    } else if (!ended && this.autoOpened) {
      this.sheetOpen = false;
      this.autoOpened = false;
    }
    this.renderSheet(v, names);
  }

  /** Zones (and the hand strip) to light up: legal moves now, or where the dragged card may go. */
  private targets(v: GinView, legal: GameAction[]): Map<Element, string> {
    const s = this.host.s;
    const out = new Map<Element, string>();
    const me = v.seat;
    if (me === null || !legal.length) return out;
    const zone = (id: string, cls: string) => {
      const el = this.host.r.el(id);
      if (el) out.set(el, cls);
    };
    const drawStock = legal.some((a) => a.type === "draw" && a.source === "stock");
    const drawDiscard = legal.some((a) => (a.type === "draw" && a.source === "discard") || a.type === "take_upcard");
    if (this.dragIds) {
      for (const id of this.dragIds) {
        const c = s.view.get(id);
        if (!isCard(c)) continue;
        const pile = c.parent ? s.view.get(c.parent) : undefined;
        if (c.parent === `hand${me}`) {
          if (legal.some((a) => a.type === "discard" && a.card === c.face)) zone("discard", "accepts");
          for (const a of legal) if (a.type === "lay_off" && a.card === c.face) zone(`meld${a.meld}`, "accepts");
        } else if (isStack(pile) && pile.cards[pile.cards.length - 1] === c.id) {
          if ((pile.id === "stock" && drawStock) || (pile.id === "discard" && drawDiscard)) out.set(this.host.r.handBg, "accepts");
        }
      }
      return out;
    }
    if (drawStock) zone("stock", "legal");
    if (drawDiscard || legal.some((a) => a.type === "discard")) zone("discard", "legal");
    for (const a of legal) if (a.type === "lay_off") zone(`meld${a.meld}`, "legal");
    if (this.knockMode) {
      const picks = new Set(knockChoices(v.hand ?? [], legal).map((k) => k.card));
      const hand = s.view.get(`hand${me}`);
      if (isHand(hand))
        for (const id of cardIds(hand)) {
          const c = s.view.get(id);
          const el = this.host.r.el(id);
          if (isCard(c) && el) out.set(el, c.face && picks.has(c.face) ? "pickable" : "unpickable");
        }
    }
    return out;
  }

  private glow(next: Map<Element, string>): void {
    for (const [el, cls] of this.glowing) if (next.get(el) !== cls) el.classList.remove(cls);
    for (const [el, cls] of next) if (!el.classList.contains(cls)) el.classList.add(cls);
    this.glowing = next;
  }

  /** A coloured mark under each card of your hand that is in a meld (by meld). */
  private markMelds(arr: GinView["arrangement"]): void {
    const s = this.host.s;
    const now = new Set<HTMLElement>();
    const hand = s.me.seat === null ? undefined : s.view.get(`hand${s.me.seat}`);
    if (arr && isHand(hand)) {
      const meldOf = new Map<string, number>();
      arr.melds.forEach((m, i) => m.forEach((f) => meldOf.set(f, i)));
      for (const id of cardIds(hand)) {
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

  private renderPick(choices: { card: string; deadwood: number }[]): void {
    const key = this.knockMode ? JSON.stringify(choices) : "";
    this.pickRow.hidden = !this.knockMode;
    if (key === this.pickKey) return;
    this.pickKey = key;
    if (!this.knockMode) {
      clear(this.pickRow);
      return;
    }
    const cancel = h("button", { type: "button", class: "small", "data-testid": "knock-cancel" }, "Cancel");
    cancel.addEventListener("click", () => {
      this.knockMode = false;
      this.host.changed();
    });
    this.pickRow.replaceChildren(
      h("span", { class: "pick-hint" }, "Knock: click the card to discard face down, or choose here:"),
      ...choices.map((k) => {
        const b = h(
          "button",
          { type: "button", class: `small pick${isRed(k.card) ? " red" : ""}`, "data-testid": "knock-card", "data-card": k.card, title: `Discard the ${faceName(k.card)} and knock` },
          shortName(k.card),
          h("span", { class: "pick-dw" }, k.deadwood === 0 ? " Gin!" : ` deadwood ${k.deadwood}`),
        );
        b.addEventListener("click", () => this.act({ type: "knock", card: k.card }));
        return b;
      }),
      cancel,
    );
  }

  // --- commands ------------------------------------------------------------------------------------

  private toggleKnock(): void {
    this.knockMode = !this.knockMode;
    this.host.changed();
  }

  private gin(): void {
    const v = this.view;
    if (!v) return;
    const gin = knockChoices(v.hand ?? [], this.game?.legal ?? []).find((k) => k.deadwood === 0);
    if (gin) this.act({ type: "knock", card: gin.card });
  }

  /** A click on a card: in knock mode, the card to knock with. True when the click was used. */
  pick(id: string): boolean {
    if (!this.knockMode) return false;
    const s = this.host.s;
    const c = s.view.get(id);
    if (!isCard(c) || c.parent !== `hand${s.me.seat}` || c.face === undefined) return false;
    if (this.legal("knock").some((a) => a.card === c.face)) {
      this.act({ type: "knock", card: c.face });
    } else {
      toast(`You can't knock by discarding the ${faceName(c.face)}: too much deadwood would be left.`, "error");
    }
    return true;
  }

  /** Escape: leave knock mode / close the sheet. True when something was closed. */
  escape(): boolean {
    if (this.knockMode) {
      this.knockMode = false;
      this.host.changed();
      return true;
    }
    if (this.sheetOpen) {
      this.closeSheet();
      return true;
    }
    return false;
  }

  /** A drag started (ids) or ended (null): light up where the card may go. */
  dragHint(ids: string[] | null): void {
    this.dragIds = ids;
    const v = this.view;
    if (v) this.glow(this.targets(v, this.game?.legal ?? []));
  }

  /** Reorder your hand: melds together (as the engine arranges them), deadwood last. */
  arrange(): void {
    const s = this.host.s;
    const v = this.view;
    const hand = s.me.seat === null ? undefined : s.view.get(`hand${s.me.seat}`);
    if (!v || !isHand(hand)) return;
    const byFace = new Map<string, string>();
    const mine = cardIds(hand);
    for (const id of mine) {
      const c = s.view.get(id);
      if (isCard(c) && c.face !== undefined) byFace.set(c.face, id);
    }
    const faces = [...byFace.keys()];
    // The engine's arrangement when it is of exactly these cards, else the same rule computed here.
    const given = v.arrangement;
    const same = given && [...given.melds.flat(), ...given.deadwood].sort().join() === [...faces].sort().join();
    const arr = same && given ? given : bestArrangement(faces);
    const deadwood = [...arr.deadwood].sort((a, b) => rankOf(a) - rankOf(b) || a.localeCompare(b));
    const want = [...arr.melds.flat(), ...deadwood].map((f) => byFace.get(f) as string);
    const rest = mine.filter((id) => !want.includes(id));
    const order = [...want, ...rest];
    const cur = [...mine];
    order.forEach((id, i) => {
      if (cur[i] === id) return;
      const from = cur.indexOf(id);
      if (from < 0) return;
      cur.splice(from, 1);
      cur.splice(i, 0, id);
      this.host.send({ op: "move", id, to: hand.id, index: i });
    });
    if (!arr.melds.length) toast(`No melds yet: deadwood ${arr.points}.`, "info");
  }

  // --- the result sheet: reveal, scoreboard, final breakdown -----------------------------------------

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

  private renderSheet(v: GinView, n: Names): void {
    this.sheet.hidden = !this.sheetOpen;
    // While cards are in hand the sheet leaves the hand strip free; after a hand it may use it.
    toggleClass(this.sheet, "tall", v.phase === "hand_over" || v.phase === "game_over");
    if (!this.sheetOpen) return;
    const names = [this.seatName(0), this.seatName(1)];
    const nextLegal = this.legal("next_hand").length > 0;
    const key = JSON.stringify([v.phase, v.hand_no, v.last_result, v.history, v.scores, v.hands_won, v.game_result, names, nextLegal, v.seat]);
    if (key === this.sheetKey) return;
    this.sheetKey = key;
    const close = h("button", { type: "button", class: "small", "data-testid": "sheet-close", title: "Close (Esc)" }, "Close");
    close.addEventListener("click", () => this.closeSheet());
    const ended = v.phase === "hand_over" || v.phase === "game_over";
    const r = v.last_result;
    const parts: (HTMLElement | null)[] = [];
    parts.push(
      h(
        "header",
        { class: "sheet-head" },
        h("h2", {}, r && ended ? `Hand ${r.hand_no}: ${resultText(r, n)}` : `Scores · hand ${v.hand_no}`),
        close,
      ),
    );
    if (r) parts.push(this.reveal(r, n, ended));
    parts.push(this.scoreboard(v, names));
    if (v.game_result) parts.push(this.finalBreakdown(v, names, n));
    if (nextLegal) {
      const next = h("button", { type: "button", class: "primary", "data-testid": "sheet-next" }, "Deal the next hand");
      next.addEventListener("click", () => {
        this.sheetOpen = false;
        this.act({ type: "next_hand" });
      });
      parts.push(h("footer", { class: "sheet-foot" }, next));
    }
    this.sheet.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  }

  private reveal(r: GinResult, n: Names, current: boolean): HTMLElement {
    const order = r.knocker === null ? [0, 1] : [r.knocker, 1 - r.knocker];
    const box = h("section", { class: "reveal", "data-testid": "reveal", "data-hand": r.hand_no });
    if (!current) box.appendChild(h("h3", {}, `Last hand (${r.hand_no}): ${resultText(r, n)}`));
    const how = pointsText(r, n);
    if (how) box.appendChild(h("p", { class: "how", "data-testid": "reveal-points" }, how));
    for (const seat of order) {
      const rv = r.seats[seat];
      if (!rv) continue;
      const role = r.knocker === null ? "" : seat === r.knocker ? (r.kind === "gin" || r.kind === "big_gin" ? "went out" : "knocked") : "defended";
      const cards = h("div", { class: "rs-cards" });
      rv.melds.forEach((m, i) => cards.appendChild(h("span", { class: "meld-group", "data-meld": i % 4, title: `Meld ${i + 1}` }, m.map((f) => cardImg(f)))));
      if (rv.deadwood.length) cards.appendChild(h("span", { class: "dead-group", title: "Deadwood" }, rv.deadwood.map((f) => cardImg(f, "dead"))));
      const row = h(
        "div",
        { class: `reveal-seat${seat === r.winner ? " winner" : ""}`, "data-testid": `reveal-seat-${seat}` },
        h(
          "div",
          { class: "rs-head" },
          h("strong", {}, n.who(seat)),
          role ? h("span", { class: "role" }, role) : null,
          h("span", { class: "dw", "data-testid": `reveal-deadwood-${seat}` }, `deadwood ${rv.points}`),
        ),
        cards,
      );
      if (seat !== r.knocker && r.layoffs.length) {
        row.appendChild(
          h(
            "div",
            { class: "layoffs", "data-testid": "reveal-layoffs" },
            h("span", { class: "lbl" }, "Laid off:"),
            r.layoffs.map((lo) => h("span", { class: "layoff", title: `onto meld ${lo.meld + 1}` }, cardImg(lo.card), h("small", {}, `→ meld ${lo.meld + 1}`))),
          ),
        );
      }
      box.appendChild(row);
    }
    if (r.knock_discard) box.appendChild(h("div", { class: "knock-discard" }, h("span", { class: "lbl" }, "Knock discard:"), cardImg(r.knock_discard)));
    return box;
  }

  private scoreboard(v: GinView, names: string[]): HTMLElement {
    const rows = v.history.map((hh) =>
      h(
        "tr",
        { "data-testid": "score-row" },
        h("td", {}, String(hh.hand_no)),
        h("td", {}, `${KIND_TEXT[hh.kind] ?? hh.kind}${hh.winner !== null ? ` · ${names[hh.winner]}` : ""}`),
        [0, 1].map((seat) => h("td", { class: "num" }, hh.winner === seat ? String(hh.points) : "")),
      ),
    );
    if (!rows.length) rows.push(h("tr", {}, h("td", { colspan: 4, class: "empty" }, "No hand finished yet")));
    return h(
      "section",
      { class: "scoreboard", "data-testid": "scoreboard" },
      h("h3", {}, `Scoreboard · playing to ${v.options?.target ?? 100}`),
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", {}, "Hand"), h("th", {}, "Result"), names.map((nm) => h("th", { class: "num" }, nm)))),
        h("tbody", {}, rows),
        h(
          "tfoot",
          {},
          h("tr", { class: "total" }, h("td", {}, "Total"), h("td", {}, ""), [0, 1].map((seat) => h("td", { class: "num", "data-testid": `score-total-${seat}` }, String(v.scores[seat])))),
          h("tr", {}, h("td", {}, "Hands won"), h("td", {}, v.draws ? `${v.draws} drawn` : ""), [0, 1].map((seat) => h("td", { class: "num" }, String(v.hands_won[seat])))),
        ),
      ),
    );
  }

  private finalBreakdown(v: GinView, names: string[], n: Names): HTMLElement {
    const g = v.game_result;
    if (!g) return h("div");
    const line = (label: string, vals: number[], testid: string, cls = "") =>
      h("tr", { class: cls, "data-testid": testid }, h("td", {}, label), [0, 1].map((seat) => h("td", { class: "num" }, String(vals[seat]))));
    const winner = g.winner === null ? "A tie!" : `${n.who(g.winner)} ${n.mine(g.winner) ? "win" : "wins"} the game`;
    return h(
      "section",
      { class: "final", "data-testid": "game-result" },
      h("h3", {}, "Game over"),
      h("p", { class: "winner", "data-testid": "game-winner" }, winner),
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", {}, ""), names.map((nm) => h("th", { class: "num" }, nm)))),
        h(
          "tbody",
          {},
          line("Hand points", g.hand_points, "final-hand-points"),
          g.shutout ? line("Shutout: doubled", g.counted_hand_points, "final-shutout") : null,
          line("Game bonus", g.game_bonus, "final-game-bonus"),
          line(`Line bonus (25 a hand won)`, g.line_bonus, "final-line-bonus"),
          line("Total", g.totals, "final-total", "total"),
        ),
      ),
    );
  }
}

function rankOf(face: string): number {
  const m = /(\d+)$/.exec(face);
  return m ? Number(m[1]) : 0;
}
