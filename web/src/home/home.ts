// The home page: your name, one click to play a game against computers (quickplay.ts), create a
// room (free play from a template, or a game with its options, both as the server lists them in
// `GET /api/games`), join by code, recent rooms.

import { backUrl, faceUrl } from "../table/cards";
import { h, setText } from "../core/dom";
import { libraryBox } from "../edit/gamefiles";
import { fetchGames, gameCaption, type OptionFields, optionFields } from "../game/options";
import { load, NAME_KEY, normalizeCode, prettyCode, recentRooms, save, timeAgo } from "../core/util";
import { quickPlayBox } from "./quickplay";

export function showHome(root: HTMLElement): void {
  document.title = "cardtable";
  const name = h("input", {
    id: "name",
    "data-testid": "name-input",
    maxlength: 32,
    placeholder: "e.g. Ana",
    autocomplete: "nickname",
    value: load(NAME_KEY) || "",
  });
  name.addEventListener("change", () => save(NAME_KEY, name.value.trim() || null));

  const template = h(
    "select",
    { id: "template", "data-testid": "template" },
    h("option", { value: "standard" }, "Standard deck (52 cards)"),
    h("option", { value: "standard-jokers" }, "Standard deck with jokers (54)"),
    h("option", { value: "blank" }, "Empty table"),
  );
  const seats = h("select", { id: "seats", "data-testid": "seats-select" });
  for (let n = 1; n <= 8; n++) seats.appendChild(h("option", { value: n, selected: n === 4 }, `${n} seat${n > 1 ? "s" : ""}`));
  const game = h("select", { id: "game", "data-testid": "game-select" }, h("option", { value: "" }, "Free play (any game, no rules)"));
  let opts: OptionFields | null = null;
  const freeFields = h(
    "div",
    { class: "fields" },
    h("label", { for: "template" }, "Cards"),
    template,
    h("label", { for: "seats" }, "Seats"),
    seats,
  );
  const gameFields = h("div", { class: "fields", hidden: true });
  const games = fetchGames().catch(() => []);
  void games.then((list) => {
    for (const g of list) game.appendChild(h("option", { value: g.name }, gameCaption(g)));
    game.dataset.loaded = "true";
  });
  game.addEventListener("change", async () => {
    const info = (await games).find((g) => g.name === game.value);
    opts = info ? optionFields(info) : null;
    gameFields.replaceChildren(...(opts ? [opts.el] : []));
    freeFields.hidden = !!info;
    gameFields.hidden = !info;
  });
  const createErr = h("p", { class: "err", "data-testid": "create-error", role: "alert" });
  const create = h("button", { type: "submit", class: "primary", "data-testid": "create-room" }, "Create a room");
  const createForm = h(
    "form",
    { class: "box" },
    h("h2", {}, "Start a table"),
    h("label", { for: "game" }, "Game"),
    game,
    freeFields,
    gameFields,
    create,
    createErr,
  );
  createForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    saveName(name);
    create.disabled = true;
    setText(createErr, "");
    try {
      const resp = await fetch("/api/rooms", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(
          game.value ? { game: game.value, options: opts?.values() ?? {} } : { template: template.value, seats: Number(seats.value) },
        ),
      });
      const body = await resp.json();
      if (!resp.ok) throw new Error(body.message || "Could not create a room.");
      location.assign(`/r/${body.code}`);
    } catch (err) {
      setText(createErr, err instanceof Error ? err.message : "Could not create a room.");
      create.disabled = false;
    }
  });

  const code = h("input", {
    id: "code",
    "data-testid": "join-code",
    placeholder: "ABCDE-FGHJK",
    autocomplete: "off",
    autocapitalize: "characters",
    spellcheck: "false",
    maxlength: 40,
  });
  const joinErr = h("p", { class: "err", "data-testid": "join-error", role: "alert" });
  const join = h("button", { type: "submit", class: "primary", "data-testid": "join-room" }, "Join");
  const joinForm = h(
    "form",
    { class: "box" },
    h("h2", {}, "Join a table"),
    h("label", { for: "code" }, "Room code"),
    h("div", { class: "row" }, code, join),
    joinErr,
  );
  joinForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    saveName(name);
    setText(joinErr, "");
    const c = normalizeCode(code.value);
    if (!c) {
      setText(joinErr, "A room code has 10 letters and digits, like ABCDE-FGHJK (older rooms: 8 letters).");
      return;
    }
    join.disabled = true;
    try {
      const resp = await fetch(`/api/rooms/${c}`);
      if (resp.status === 404) {
        setText(joinErr, `Room not found: there is no room ${prettyCode(c)}.`);
        join.disabled = false;
        return;
      }
      location.assign(`/r/${c}`);
    } catch {
      setText(joinErr, "Could not reach the server. Try again.");
      join.disabled = false;
    }
  });

  const recent = recentRooms();
  const recentBox = h(
    "section",
    { class: "box recent" },
    h("h2", {}, "Recent rooms"),
    recent.length
      ? h(
          "ul",
          { "data-testid": "recent-rooms" },
          recent.map((r) =>
            h(
              "li",
              {},
              h("a", { href: `/r/${r.code}`, "data-testid": "recent-room" }, prettyCode(r.code)),
              h("span", { class: "when" }, timeAgo(r.at)),
            ),
          ),
        )
      : h("p", { class: "hint" }, "Rooms you visit show up here."),
  );

  const fan = h("div", { class: "fan", "aria-hidden": "true" });
  ["S1", "H13", "D12", "C11", "J1"].forEach((f, i) => {
    const img = h("img", { alt: "", src: faceUrl(f), draggable: "false" });
    img.style.transform = `rotate(${(i - 2) * 9}deg) translateY(${Math.abs(i - 2) * 6}px)`;
    fan.appendChild(img);
  });
  const back = h("img", { alt: "", src: backUrl("blue"), draggable: "false", class: "fan-back" });
  fan.prepend(back);

  root.replaceChildren(
    h(
      "main",
      { class: "home" },
      h(
        "header",
        { class: "hero" },
        fan,
        h("h1", {}, "cardtable"),
        h("p", { class: "tagline" }, "A card table in your browser. Create a room, share the code, and play any card game together."),
      ),
      h("section", { class: "box" }, h("label", { for: "name" }, "Your name"), name),
      quickPlayBox(games, () => saveName(name)),
      h("div", { class: "boxes" }, createForm, joinForm),
      libraryBox(),
      recentBox,
    ),
  );
}

function saveName(input: HTMLInputElement): void {
  const v = input.value.trim();
  if (v) save(NAME_KEY, v.slice(0, 32));
}
