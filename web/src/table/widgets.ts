// The only per-game pieces of the page: widgets a game asks for by name in `game.widgets`.
// `bid_pad` (Spades): the bid controls as a pad of buttons. `knock_picker` (Gin Rummy): a Knock
// button that turns your hand into a chooser of the card to discard face down, each choice with
// the deadwood it leaves, a Gin! shortcut, and your deadwood now. Both only show controls the
// server sent; clicking one sends its action. `rank_chooser` (Pennies): cards dropped on "New
// meld" that could be a set of two ranks (a 2, an ace and a joker when 2s and aces are wild)
// are the player's to name: it asks "Set of 2s / Set of aces" and sends the meld with the rank.

import { faceName, parseFace, shortName } from "./cards";
import { h, setText, toggleClass } from "../core/dom";
import type { Control, GameAction } from "../core/types";

export interface WidgetHost {
  act(action: GameAction): void;
  changed(): void;
  /** Say something in a toast (a refused choice). */
  notice(text: string): void;
}

/** The bid pad: number bids in a grid, named ones (Nil, Blind nil) below them. */
export class BidPad {
  readonly el: HTMLElement;
  private key = "";

  constructor(private host: WidgetHost) {
    this.el = h("div", { class: "bid-pad", "data-testid": "bid-pad", role: "group", "aria-label": "Your bid", hidden: true });
  }

  render(controls: readonly Control[]): void {
    this.el.hidden = !controls.length;
    const key = JSON.stringify(controls.map((c) => [c.label, c.action]));
    if (key === this.key) return;
    this.key = key;
    const button = (c: Control) => {
      const bid = c.action.bid;
      const b = h(
        "button",
        {
          type: "button",
          class: `bid${c.action.blind ? " blind" : ""}`,
          "data-testid": "bid",
          "data-bid": typeof bid === "number" ? bid : null,
          "data-blind": c.action.blind ? "true" : null,
          title: typeof bid === "number" && /^\d+$/.test(c.label) ? `Bid ${c.label}` : c.label,
        },
        c.label,
      );
      b.addEventListener("click", () => this.host.act(c.action));
      return b;
    };
    const numbers = controls.filter((c) => /^\d+$/.test(c.label));
    const named = controls.filter((c) => !/^\d+$/.test(c.label));
    this.el.replaceChildren(
      h("div", { class: "widget-title" }, "Your bid: how many tricks will you take?"),
      h("div", { class: "bid-grid" }, numbers.map(button)),
      h("div", { class: "bid-named", hidden: !named.length }, named.map(button)),
    );
  }
}

interface KnockChoice {
  control: Control;
  card: string;
  /** Deadwood left after knocking with this card, when the engine's view says. */
  points: number | null;
}

/** Gin Rummy's knock picker. */
export class KnockPicker {
  /** In the game bar: Knock, Gin!, and your deadwood. */
  readonly bar: HTMLElement;
  /** Over the table while choosing: a button per card you may knock with. */
  readonly row: HTMLElement;
  private knockBtn: HTMLButtonElement;
  private ginBtn: HTMLButtonElement;
  private deadwood: HTMLElement;
  private choices: KnockChoice[] = [];
  private on = false;
  private rowKey = "";

  constructor(private host: WidgetHost) {
    this.knockBtn = h(
      "button",
      { type: "button", "data-testid": "game-knock", title: "Knock: choose the card to discard face down", "aria-pressed": "false" },
      "Knock",
    );
    this.knockBtn.addEventListener("click", () => {
      this.on = !this.on && this.choices.length > 0;
      this.host.changed();
    });
    this.ginBtn = h("button", { type: "button", class: "primary", "data-testid": "game-gin", title: "Knock with no deadwood" }, "Gin!");
    this.ginBtn.addEventListener("click", () => {
      const gin = this.choices.find((k) => k.points === 0);
      if (gin) this.choose(gin);
    });
    this.deadwood = h("span", { class: "deadwood", "data-testid": "deadwood" });
    this.bar = h("span", { class: "knock-picker", "data-testid": "knock-picker" }, this.deadwood, this.knockBtn, this.ginBtn);
    this.row = h("div", { class: "knock-pick", "data-testid": "knock-pick", hidden: true });
  }

  get active(): boolean {
    return this.on;
  }

  /**
   * `controls`: the knock group; `view`: the engine's view (its `knock_options` give each
   * choice's deadwood, `arrangement` yours now); `playing`: you hold cards in a hand being played.
   */
  render(controls: readonly Control[], view: Record<string, unknown> | null, playing: boolean, hint: string | null): void {
    const points = new Map<string, number>();
    const opts = view?.knock_options;
    if (Array.isArray(opts))
      for (const o of opts) if (o && typeof o.card === "string" && typeof o.points === "number") points.set(o.card, o.points);
    this.choices = controls
      .map((c) => {
        const card = typeof c.action.card === "string" ? c.action.card : (c.cards ?? [])[0];
        return { control: c, card, points: card !== undefined && points.has(card) ? (points.get(card) as number) : null };
      })
      .filter((k): k is KnockChoice => typeof k.card === "string")
      .sort((a, b) => (a.points ?? 99) - (b.points ?? 99));
    if (!this.choices.length) this.on = false;
    this.bar.hidden = !playing && !this.choices.length;
    this.knockBtn.disabled = !this.choices.length;
    // Laying off onto a knock: no knocking to come this hand, and the bar's one row is short.
    this.knockBtn.hidden = !this.choices.length && view?.phase === "layoff";
    this.knockBtn.title = this.choices.length ? "Knock: choose the card to discard face down" : hint || "You can't knock now";
    toggleClass(this.knockBtn, "active", this.on);
    this.knockBtn.setAttribute("aria-pressed", String(this.on));
    this.ginBtn.hidden = !this.choices.some((k) => k.points === 0);
    const arr = view?.arrangement as { points?: unknown } | null | undefined;
    const dw = arr && typeof arr.points === "number" && playing ? arr.points : null;
    this.deadwood.hidden = dw === null;
    if (dw !== null) setText(this.deadwood, `Deadwood ${dw}`);
    this.renderRow();
  }

  private renderRow(): void {
    this.row.hidden = !this.on;
    const key = this.on ? JSON.stringify(this.choices.map((k) => [k.card, k.points])) : "";
    if (key === this.rowKey) return;
    this.rowKey = key;
    if (!this.on) {
      this.row.replaceChildren();
      return;
    }
    const cancel = h("button", { type: "button", class: "small", "data-testid": "knock-cancel" }, "Cancel");
    cancel.addEventListener("click", () => {
      this.on = false;
      this.host.changed();
    });
    this.row.replaceChildren(
      h("span", { class: "pick-hint" }, `Knock: ${pointVerb()} the card to discard face down, or choose here:`),
      ...this.choices.map((k) => {
        const red = parseFace(k.card).red;
        const b = h(
          "button",
          {
            type: "button",
            class: `small pick${red ? " red" : ""}`,
            "data-testid": "knock-card",
            "data-card": k.card,
            title: k.control.label,
          },
          shortName(k.card),
          k.points === null ? null : h("span", { class: "pick-dw" }, k.points === 0 ? " Gin!" : ` deadwood ${k.points}`),
        );
        b.addEventListener("click", () => this.choose(k));
        return b;
      }),
      cancel,
    );
  }

  private choose(k: KnockChoice): void {
    this.on = false;
    this.host.act(k.control.action);
  }

  /** While choosing: the class of a hand card with this face ("pickable" or "unpickable"). */
  cardClass(face: string | undefined): string | null {
    if (!this.on) return null;
    return face !== undefined && this.choices.some((k) => k.card === face) ? "pickable" : "unpickable";
  }

  /** A click on a hand card while choosing; true when the click was used. */
  pick(face: string | undefined): boolean {
    if (!this.on) return false;
    const k = this.choices.find((c) => c.card === face);
    if (k) this.choose(k);
    else if (face) this.host.notice(`You can't knock by discarding the ${faceName(face)}: too much deadwood would be left.`);
    return true;
  }

  escape(): boolean {
    if (!this.on) return false;
    this.on = false;
    this.host.changed();
    return true;
  }
}

/** "tap" on a touch screen (a coarse pointer: a phone, a tablet), else "click". */
function pointVerb(): string {
  return typeof matchMedia === "function" && matchMedia("(pointer: coarse)").matches ? "tap" : "click";
}

function rankPlural(r: number): string {
  return ({ 1: "aces", 11: "jacks", 12: "queens", 13: "kings" } as Record<number, string>)[r] ?? `${r}s`;
}

/** Pennies' rank chooser: which rank is the set just dropped? */
export class RankChooser {
  readonly el: HTMLElement;

  constructor(private host: WidgetHost) {
    this.el = h("div", {
      class: "rank-chooser",
      "data-testid": "rank-chooser",
      role: "group",
      "aria-label": "Which rank is this set?",
      hidden: true,
    });
  }

  get active(): boolean {
    return !this.el.hidden;
  }

  /** Ask which of `ranks` the cards `faces` are a set of; a choice sends the meld. */
  ask(faces: readonly string[], ranks: readonly number[]): void {
    const cards = [...faces];
    const names = cards.map(faceName);
    const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names.join("");
    const choices = ranks.map((r) => {
      const b = h("button", { type: "button", class: "primary", "data-testid": "rank-choice", "data-rank": r }, `Set of ${rankPlural(r)}`);
      b.addEventListener("click", () => {
        this.close();
        this.host.act({ type: "meld", melds: [{ cards, rank: r }] });
      });
      return b;
    });
    const cancel = h("button", { type: "button", "data-testid": "rank-cancel" }, "Cancel");
    cancel.addEventListener("click", () => this.close());
    this.el.replaceChildren(
      h("div", { class: "widget-title" }, `The ${list} could be a set of ${ranks.map(rankPlural).join(" or of ")}: which?`),
      h("div", { class: "prompt-buttons" }, ...choices, cancel),
    );
    this.el.hidden = false;
    this.host.changed();
    choices[0]?.focus();
  }

  close(): void {
    if (this.el.hidden) return;
    this.el.hidden = true;
    this.el.replaceChildren();
    this.host.changed();
  }

  escape(): boolean {
    if (!this.active) return false;
    this.close();
    return true;
  }
}
