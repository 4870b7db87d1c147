// The seat plates on the page: one element per engine player over the table, filled from
// plates.ts (what each shows) and put where `placePlates` finds room (clear of the hands, the
// zones and the other plates, inside the table). The plate of the player to act glows; a
// computer's says "thinking…", a timed move counts down on it. In free play the other seated
// players have plates too (name, cards held, online or away), at their seats round the table.

import { h, setText, toggleClass } from "../core/dom";
import type { Game } from "../core/types";
import type { Geom } from "../table/geom";
import { handPlaces } from "../table/seating";
import type { State } from "../table/state";
import { timerLeft } from "./controls";
import {
  type Box,
  fanBox,
  freeFrames,
  freePlateInfos,
  obstacleBoxes,
  type PlateAsk,
  type PlateInfo,
  placeFrames,
  placePlates,
  plateInfos,
} from "./plates";

interface PlateEl {
  el: HTMLElement;
  name: HTMLElement;
  tag: HTMLElement;
  cards: HTMLElement;
  stats: HTMLElement;
  status: HTMLElement;
  turn: HTMLElement;
  ring: SVGCircleElement;
  secs: HTMLElement;
  content: string;
}

const SVG = "http://www.w3.org/2000/svg";
const RING = 2 * Math.PI * 8;

function levelText(level: string): string {
  return level.charAt(0).toUpperCase() + level.slice(1);
}

export class SeatPlates {
  private els = new Map<number, PlateEl>();
  private placeKey = "";

  constructor(private layer: HTMLElement) {}

  private make(): PlateEl {
    const ring = document.createElementNS(SVG, "circle");
    ring.setAttribute("cx", "10");
    ring.setAttribute("cy", "10");
    ring.setAttribute("r", "8");
    ring.setAttribute("class", "plate-ring-fill");
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 20 20");
    svg.setAttribute("class", "plate-ring");
    svg.setAttribute("aria-hidden", "true");
    const track = document.createElementNS(SVG, "circle");
    for (const [k, v] of [
      ["cx", "10"],
      ["cy", "10"],
      ["r", "8"],
      ["class", "plate-ring-track"],
    ])
      track.setAttribute(k, v);
    svg.append(track, ring);
    const secs = h("span", { class: "plate-secs", "data-testid": "plate-countdown" });
    const name = h("span", { class: "plate-name", "data-testid": "plate-name" });
    const tag = h("span", { class: "plate-tag", "data-testid": "plate-computer" });
    const cards = h("span", { class: "plate-cards", "data-testid": "plate-cards" });
    const stats = h("div", { class: "plate-stats" });
    const status = h("span", { class: "plate-status", "data-testid": "plate-status", hidden: true });
    const turn = h("div", { class: "plate-turn", "data-testid": "plate-turn" });
    const el = h(
      "div",
      { class: "seat-plate", "data-testid": "seat-plate", role: "group" },
      h("div", { class: "plate-head" }, name, tag),
      h("div", { class: "plate-row" }, cards, stats, status),
      turn,
    );
    this.layer.appendChild(el);
    return { el, name, tag, cards, stats, status, turn, ring, secs, content: "" };
  }

  private fill(p: PlateEl, info: PlateInfo, game: Game | null): void {
    const content = JSON.stringify([info, !!game?.timer]);
    if (p.content === content) return;
    p.content = content;
    const el = p.el;
    el.dataset.player = String(info.player);
    el.dataset.seat = String(info.seat);
    el.dataset.place = String(info.place);
    toggleClass(el, "you", info.you);
    toggleClass(el, "acting", info.acting);
    toggleClass(el, "bot", info.bot);
    toggleClass(el, "free", !game);
    toggleClass(el, "away", info.status === "away");
    p.status.hidden = !info.status;
    setText(p.status, info.status ?? "");
    setText(p.name, info.you ? `${info.name} (you)` : info.name);
    p.tag.hidden = !info.bot;
    setText(p.tag, !info.bot ? "" : info.level ? `Computer · ${levelText(info.level)}` : "Computer");
    p.cards.hidden = info.cards === null;
    setText(p.cards, info.cards === null ? "" : `${info.cards} card${info.cards === 1 ? "" : "s"}`);
    p.stats.replaceChildren(
      ...info.stats.map((st) => h("span", { class: "plate-stat", "data-testid": "plate-stat", "data-stat": st.key }, st.text)),
    );
    // The turn line keeps its room when empty, so a plate's size does not change with the turn.
    const words = info.thinking ? "thinking…" : info.acting ? (info.you ? "your turn" : "to play") : "";
    p.turn.replaceChildren(...(info.timed ? [p.ring.ownerSVGElement as SVGSVGElement, p.secs] : []), h("span", {}, words));
    toggleClass(p.turn, "idle", !info.acting);
    const what = [
      info.name,
      info.bot ? (info.level ? `computer, ${info.level}` : "computer") : "",
      p.cards.textContent ?? "",
      info.status ?? "",
    ];
    el.setAttribute("aria-label", [...what, ...info.stats.map((s) => s.text), words].filter(Boolean).join(", "));
  }

  /** `avoid`: an element over the table (the dock with a question) the plates keep clear of. */
  render(s: State, g: Geom, avoid: HTMLElement | null = null): void {
    const game = s.game;
    // A rule game's plates once it is seated; in free play, the other seated players'.
    const infos = game ? plateInfos(game, s.view, s.players) : freePlateInfos(s.players, s.view, s.me.seat, s.seats);
    const seen = new Set<number>();
    for (const info of infos) {
      seen.add(info.player);
      let p = this.els.get(info.player);
      if (!p) {
        p = this.make();
        this.els.set(info.player, p);
      }
      this.fill(p, info, game);
    }
    for (const [k, p] of this.els)
      if (!seen.has(k)) {
        p.el.remove();
        this.els.delete(k);
      }
    if (!infos.length) {
      this.placeKey = "";
      return;
    }
    this.tick(game);
    // Plates are drawn a little larger than the table's scale where that is small (readable).
    const k = Math.max(0.72, Math.min(1, g.s * 1.6));
    const fans = new Map(handPlaces(s.view, game, s.table).map((f) => [f.player, fanBox(f.x, f.y, f.n, f.rot)]));
    const asks: PlateAsk[] = infos.map((info) => {
      const el = (this.els.get(info.player) as PlateEl).el;
      return { place: info.place, w: (el.offsetWidth * k) / g.s, h: (el.offsetHeight * k) / g.s, fan: fans.get(info.player) ?? null };
    });
    const obstacles = obstacleBoxes(s.view, 1 / g.s);
    if (avoid) {
      const [r, st] = [avoid.getBoundingClientRect(), this.layer.getBoundingClientRect()];
      if (r.width && r.height)
        obstacles.push({ x: (r.left - st.left - g.ox) / g.s, y: (r.top - st.top - g.oy) / g.s, w: r.width / g.s, h: r.height / g.s });
    }
    const key = JSON.stringify([asks, obstacles, g.s, g.ox, g.oy, g.tw, g.th]);
    if (key === this.placeKey) return;
    this.placeKey = key;
    let boxes: Box[];
    if (game) boxes = placePlates(placeFrames(game, s.table, s.view), asks, obstacles, { w: g.tw, h: g.th });
    else {
      // Free play: round the part of the table in view (a phone shows part of it), so that the
      // plates stay on screen however the table is zoomed or panned.
      const x0 = Math.max(0, -g.ox / g.s);
      const y0 = Math.max(0, -g.oy / g.s);
      const vis = { w: Math.min(g.tw, (g.w - g.ox) / g.s) - x0, h: Math.min(g.th, (g.hand.y - g.oy) / g.s) - y0 };
      const n = Math.max(s.seats, ...infos.map((i) => i.seat + 1));
      const moved = obstacles.map((b) => ({ ...b, x: b.x - x0, y: b.y - y0 }));
      boxes = placePlates(freeFrames(n, vis), asks, moved, vis).map((b) => ({ ...b, x: b.x + x0, y: b.y + y0 }));
    }
    infos.forEach((info, i) => {
      const b = boxes[i];
      const el = (this.els.get(info.player) as PlateEl).el;
      el.style.transform = `translate(${g.ox + b.x * g.s}px, ${g.oy + b.y * g.s}px) scale(${k})`;
    });
  }

  /** The countdown on the acting player's plate (called by the game bar's ticker too). */
  tick(game: Game | null): void {
    const t = game ? timerLeft(game.timer, Date.now() / 1000) : null;
    for (const p of this.els.values()) {
      if (!p.el.classList.contains("acting") || !t) continue;
      p.ring.setAttribute("stroke-dasharray", `${(RING * t.frac).toFixed(2)} ${RING.toFixed(2)}`);
      setText(p.secs, String(Math.ceil(t.left)));
    }
  }
}
