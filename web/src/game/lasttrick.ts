// "Last trick", for any trick game whose view carries `last_trick` ({leader, cards, winner}:
// public, so everyone sees it, spectators too): a button in the game bar's controls row opens a
// small panel over the table with the previous trick's cards, who played each and who won it.
// `lastTrick` (pure) reads the view; `LastTrickView` draws it.

import { h } from "../core/dom";
import type { Game } from "../core/types";
import { faceName, faceUrl } from "../table/cards";

export interface LastTrick {
  /** The cards in the order played, the leader's first, each with its player. */
  plays: { player: number; card: string }[];
  winner: number;
}

/** The previous trick from the game view, or null (none yet, or the game has no tricks). */
export function lastTrick(g: Game | null): LastTrick | null {
  const view = (g?.view ?? null) as Record<string, unknown> | null;
  const t = view?.last_trick as { leader?: unknown; cards?: unknown; winner?: unknown } | null | undefined;
  if (!t || !Array.isArray(t.cards) || typeof t.leader !== "number" || typeof t.winner !== "number") return null;
  const n = g?.players.length || t.cards.length;
  const plays = t.cards
    .filter((c): c is string => typeof c === "string")
    .map((card, i) => ({ player: ((t.leader as number) + i) % n, card }));
  return plays.length ? { plays, winner: t.winner } : null;
}

export class LastTrickView {
  readonly button: HTMLButtonElement;
  readonly panel: HTMLElement;
  private open = false;
  private key = "";

  constructor(private changed: () => void) {
    this.button = h(
      "button",
      {
        type: "button",
        class: "toggle",
        "data-testid": "last-trick-btn",
        "aria-pressed": "false",
        title: "The previous trick: who played what, who won it",
        hidden: true,
      },
      "Last trick",
    );
    this.button.addEventListener("click", () => this.toggle(!this.open));
    this.panel = h("div", { class: "last-trick", "data-testid": "last-trick", role: "dialog", "aria-label": "Last trick", hidden: true });
    this.panel.addEventListener("keydown", (e) => {
      if (e.key === "Escape") this.toggle(false);
    });
  }

  /** Close it; true if it was open (Escape). */
  escape(): boolean {
    if (!this.open) return false;
    this.toggle(false);
    return true;
  }

  private toggle(open: boolean): void {
    this.open = open;
    this.button.setAttribute("aria-pressed", String(open));
    this.changed();
  }

  /** `nameOf` names a player ("You" for the viewer). */
  render(g: Game | null, nameOf: (player: number) => string): void {
    const t = lastTrick(g);
    this.button.hidden = !t;
    if (!t) this.open = false;
    this.panel.hidden = !this.open || !t;
    if (!t || !this.open) {
      this.key = "";
      return;
    }
    const key = JSON.stringify([t, t.plays.map((p) => nameOf(p.player))]);
    if (key === this.key) return;
    this.key = key;
    const close = h("button", { type: "button", class: "small", "data-testid": "last-trick-close", title: "Close (Esc)" }, "Close");
    close.addEventListener("click", () => this.toggle(false));
    const winner = nameOf(t.winner);
    this.panel.replaceChildren(
      h("div", { class: "last-trick-head" }, h("strong", {}, "Last trick"), close),
      h(
        "div",
        { class: "last-trick-cards" },
        t.plays.map((p) =>
          h(
            "figure",
            {
              class: `last-trick-play${p.player === t.winner ? " won" : ""}`,
              "data-testid": "last-trick-card",
              "data-player": p.player,
              "data-face": p.card,
            },
            h("img", { src: faceUrl(p.card), alt: faceName(p.card), draggable: "false" }),
            h("figcaption", {}, nameOf(p.player)),
          ),
        ),
      ),
      h("div", { class: "last-trick-winner", "data-testid": "last-trick-winner" }, `${winner} won it`),
    );
  }
}
