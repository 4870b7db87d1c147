// Hand histories and their replay (docs/fairness.md, "In the room"): the room's finished hands
// (GET /api/rooms/{code}/hands), and one hand stepped through move by move, forwards and back,
// every card face up (the hand is over, so the server serves it whole), with "Verify this deal"
// running the browser's own checker (verify.ts) on the record and a download of it as JSON.
// A hand still being played cannot be opened: the server refuses it (hand_not_over).

import { h, setText } from "../core/dom";
import { cardLabel, type HandRecord, handsAt, stepCaption, stepTo } from "./steps";
import { verify } from "./verify";

interface Listed {
  n: number;
  game: string;
  deal: number;
  players: { name: string; computer: boolean }[];
}

const TITLES: Record<string, string> = { spades: "Spades", gin_rummy: "Gin Rummy", rummy: "Rummy", pennies: "Pennies", free: "Free play" };

function modal(testid: string, ...children: (Node | null)[]): { el: HTMLElement; box: HTMLElement; close: () => void } {
  const box = h("div", { class: "modal-box replay-box", role: "dialog", "aria-modal": "true" }, ...children);
  const el = h("div", { class: "modal replay-modal", "data-testid": testid }, box);
  const close = () => el.remove();
  el.addEventListener("pointerdown", (e) => e.target === el && close());
  el.addEventListener("keydown", (e) => {
    if (e.key === "Escape") close();
  });
  document.body.appendChild(el);
  return { el, box, close };
}

async function getJson(url: string): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  try {
    const r = await fetch(url, { cache: "no-store" });
    return { ok: r.ok, body: (await r.json()) as Record<string, unknown> };
  } catch {
    return { ok: false, body: { message: "The server did not answer: try again in a moment." } };
  }
}

/** The room's finished hands, each with a button to replay it. */
export async function openHands(code: string): Promise<void> {
  document.querySelector(".replay-modal")?.remove();
  const list = h("ul", { class: "hands-list", "data-testid": "hands-list" });
  const closeBtn = h("button", { type: "button", "data-testid": "hands-close" }, "Close");
  const m = modal("hands", h("h2", {}, "Hands played"), list, h("div", { class: "modal-buttons" }, closeBtn));
  closeBtn.addEventListener("click", m.close);
  const got = await getJson(`/api/rooms/${code}/hands`);
  const hands = (got.body.hands as Listed[] | undefined) ?? [];
  if (!got.ok) list.replaceChildren(h("li", {}, String(got.body.message ?? "The hands could not be read.")));
  else if (!hands.length) list.replaceChildren(h("li", {}, "No hand is over yet: a hand can be replayed once it is over."));
  else
    list.replaceChildren(
      ...hands.map((hand) => {
        const btn = h("button", { type: "button", "data-testid": `replay-${hand.n}` }, "Replay");
        btn.addEventListener("click", () => void openReplay(code, hand.n));
        const who = hand.players.map((p) => p.name).join(", ");
        return h(
          "li",
          {},
          h("span", {}, `${TITLES[hand.game] ?? hand.game}, ${hand.game === "free" ? "shuffle" : "deal"} ${hand.deal}: ${who}`),
          btn,
        );
      }),
    );
  closeBtn.focus();
}

/** One finished hand, stepped through; "Verify this deal" checks its record in the browser. */
async function openReplay(code: string, n: number): Promise<void> {
  document.querySelector(".replay-modal")?.remove();
  const got = await getJson(`/api/rooms/${code}/hands/${n}`);
  if (!got.ok) {
    const closeBtn = h("button", { type: "button" }, "Close");
    const m = modal(
      "replay",
      h("h2", {}, "Replay"),
      h("p", {}, String(got.body.message ?? "This hand cannot be opened.")),
      h("div", { class: "modal-buttons" }, closeBtn),
    );
    closeBtn.addEventListener("click", m.close);
    return;
  }
  const record = got.body as unknown as HandRecord;
  let at = 0;
  const caption = h("p", { class: "replay-caption", "data-testid": "replay-caption", "aria-live": "polite" });
  const zones = h("div", { class: "replay-zones", "data-testid": "replay-zones" });
  const hands = h("div", { class: "replay-hands", "data-testid": "replay-hands" });
  const verdict = h("p", { class: "replay-verdict", "data-testid": "replay-verdict", "aria-live": "polite" });
  const button = (label: string, testid: string, title: string) => h("button", { type: "button", "data-testid": testid, title }, label);
  const first = button("« First", "replay-first", "The deal");
  const back = button("◀ Back", "replay-back", "The move before (←)");
  const next = button("Next ▶", "replay-next", "The next move (→)");
  const last = button("Last »", "replay-last", "The end of the hand");
  const check = h("button", { type: "button", class: "primary", "data-testid": "replay-verify" }, "Verify this deal");
  const download = h(
    "a",
    { href: `/api/rooms/${code}/hands/${n}?download=1`, download: `${code}-hand-${n}.json`, "data-testid": "replay-download" },
    "Download (JSON)",
  );
  const closeBtn = h("button", { type: "button", "data-testid": "replay-close" }, "Close");
  const m = modal(
    "replay",
    h("h2", {}, `${TITLES[record.game] ?? record.game}, ${record.game === "free" ? "shuffle" : "deal"} ${record.deal}: replay`),
    caption,
    zones,
    hands,
    h("div", { class: "replay-steps" }, first, back, next, last),
    h("div", { class: "replay-check" }, check, download),
    verdict,
    h("div", { class: "modal-buttons" }, closeBtn),
  );
  hands.hidden = record.game === "free"; // a free-play shuffle: the pile only
  const show = () => {
    setText(caption, stepCaption(record, at));
    const step = record.steps[at];
    zones.replaceChildren(
      ...(step?.zones ?? [])
        .filter((z) => z.faces.length)
        .map((z) => h("div", { class: "replay-row" }, h("b", {}, `${z.label || z.id}: `), h("span", {}, z.faces.map(cardLabel).join(" ")))),
    );
    hands.replaceChildren(
      ...handsAt(record, at).map((p) =>
        h("div", { class: "replay-row" }, h("b", {}, `${p.name}: `), h("span", {}, p.cards.join(" ") || "—")),
      ),
    );
    (back as HTMLButtonElement).disabled = (first as HTMLButtonElement).disabled = at === 0;
    (next as HTMLButtonElement).disabled = (last as HTMLButtonElement).disabled = at >= record.steps.length - 1;
  };
  const go = (move: "first" | "back" | "next" | "last") => {
    at = stepTo(at, record.steps.length, move);
    show();
  };
  first.addEventListener("click", () => go("first"));
  back.addEventListener("click", () => go("back"));
  next.addEventListener("click", () => go("next"));
  last.addEventListener("click", () => go("last"));
  m.el.addEventListener("keydown", (e) => {
    if (e.key === "ArrowLeft") go("back");
    else if (e.key === "ArrowRight") go("next");
  });
  check.addEventListener("click", async () => {
    setText(verdict, "Checking…");
    const v = await verify(got.body);
    verdict.classList.toggle("bad", !v.ok);
    setText(
      verdict,
      v.ok
        ? "Verified: fair. The seed matches the commitment published before the deal, and every card is where the seed and the players' values put it."
        : `NOT verified: ${v.problems.join(" ")}`,
    );
  });
  closeBtn.addEventListener("click", m.close);
  show();
  next.focus();
}
