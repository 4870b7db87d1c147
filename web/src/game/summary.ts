// The end of a game, under its result on the sheet (game.ts draws the winners and final scores):
// what comes next. The host gets "Play again" (`host {action: "again"}`: a new game, the same
// seats, the same computers at their levels); everyone else reads "Waiting for the host…";
// everyone may go "Back to home". "Rematch" (everyone, on a room page) is a fresh room of the
// same game and computers with the same people invited again (social/invites.ts), where "Play
// again" deals again in this room.

import { h } from "../core/dom";
import { rematchHere } from "../social/invites";

export interface SummaryActions {
  /** Are you the room's host (only the host may start the next game)? */
  host: boolean;
  /** Host only: the next game with the same seats. */
  again(): void;
}

/** The footer of the game-over sheet. */
export function endOfGame(a: SummaryActions): HTMLElement {
  const home = h("button", { type: "button", "data-testid": "back-home" }, "Back to home");
  home.addEventListener("click", () => location.assign("/"));
  let next: HTMLElement;
  if (a.host) {
    const again = h(
      "button",
      { type: "button", class: "primary", "data-testid": "play-again", title: "A new game with the same players in the same seats" },
      "Play again",
    );
    again.addEventListener("click", () => {
      again.disabled = true; // one click, one new game: the sheet closes when it starts
      a.again();
    });
    next = again;
  } else {
    next = h("p", { class: "how", "data-testid": "waiting-for-host" }, "Waiting for the host…");
  }
  const go = rematchHere();
  let rematch: HTMLElement | null = null;
  if (go) {
    const b = h(
      "button",
      { type: "button", "data-testid": "rematch", title: "A new room of this game: the same computers, and the same people invited again" },
      "Rematch in a new room",
    );
    b.addEventListener("click", () => {
      b.disabled = true; // one click, one new room: the page goes there
      go(() => {
        b.disabled = false; // refused (the room's toast says why): may try again
      });
    });
    rematch = b;
  }
  return h("footer", { class: "sheet-foot end-of-game", "data-testid": "end-of-game" }, next, rematch, home);
}
