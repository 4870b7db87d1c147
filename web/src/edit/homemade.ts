// Homemade-game objects the generic renderer does not draw: automation buttons (`button`:
// pressed with `op press`), the table background (the `board` object) and objects of kinds this
// page does not know (drawn as a plain tag so nothing silently disappears).

import { isImageHash, imageUrl } from "../table/customface";
import { h, setText } from "../core/dom";
import type { BoardObj, ButtonObj } from "../core/types";
import { OBJECT_KINDS } from "../net/protocol.gen";
import type { Renderer } from "../table/render";
import type { State } from "../table/state";

const KNOWN = new Set<string>(OBJECT_KINDS);

export interface HomemadeActions {
  press(id: string): void;
  /** Right-click (or long-press) on a button: its editing menu, when editing. */
  menu(b: ButtonObj, clientX: number, clientY: number): void;
}

export function boardOf(s: State): BoardObj | null {
  const b = s.view.get("board");
  return b?.t === "board" ? b : null;
}

/** Drawn over a chosen table colour: the felt's light centre and dark rim, see-through. */
const COLOUR_SHADE = "radial-gradient(ellipse at 50% 45%, rgba(255, 255, 255, 0.1), rgba(0, 0, 0, 0) 55%, rgba(0, 0, 0, 0.22))";

export class Homemade {
  private els = new Map<string, { el: HTMLElement; label: HTMLElement }>();
  private bg = "";

  constructor(
    private r: Renderer,
    private actions: HomemadeActions,
  ) {}

  render(s: State): void {
    const g = this.r.geom;
    const bg = boardOf(s)?.background ?? "";
    if (bg !== this.bg) {
      this.bg = bg;
      const felt = this.r.felt;
      // A colour shows under a light, see-through shading (the stylesheet's opaque felt
      // gradient is background-image, which covered background-color: the colour never showed).
      felt.style.backgroundImage = isImageHash(bg) ? `url("${imageUrl(bg)}")` : bg ? COLOUR_SHADE : "";
      felt.style.backgroundSize = isImageHash(bg) ? "cover" : "";
      felt.style.backgroundColor = bg && !isImageHash(bg) ? bg : "";
      felt.dataset.background = bg;
    }
    const seen = new Set<string>();
    for (const raw of s.view.values()) {
      // A kind this page does not know (a newer server) is drawn as a tag: read it loosely.
      const o = raw as { t: string; id: string; x: number; y: number; z: number };
      if (raw.t === "button") {
        const b = raw;
        seen.add(b.id);
        const rec = this.els.get(b.id) ?? this.make(b.id, "auto-button", "obj auto-button");
        setText(rec.label, b.label || "Button");
        this.place(rec.el, b.x, b.y, b.w || 150, b.h || 48, b.z);
        (rec.el as HTMLElement & { obj?: ButtonObj }).obj = b;
      } else if (!KNOWN.has(o.t) && typeof o.x === "number") {
        seen.add(o.id);
        const rec = this.els.get(o.id) ?? this.make(o.id, "unknown-object", "obj unknown-object");
        setText(rec.label, `(${o.t})`);
        this.place(rec.el, o.x, o.y, 110, 40, o.z);
      }
    }
    for (const [id, rec] of this.els)
      if (!seen.has(id)) {
        rec.el.remove();
        this.els.delete(id);
      }
    void g;
  }

  private place(el: HTMLElement, x: number, y: number, w: number, hh: number, z: number): void {
    const g = this.r.geom;
    el.style.transform = `translate(${g.ox + x * g.s}px, ${g.oy + y * g.s}px)`;
    el.style.width = `${w * g.s}px`;
    el.style.height = `${hh * g.s}px`;
    el.style.fontSize = `${Math.max(9, 16 * g.s)}px`;
    el.style.zIndex = String(10 + Math.min(z, 1000) * 1100 + 1099);
  }

  private make(id: string, testid: string, cls: string): { el: HTMLElement; label: HTMLElement } {
    const label = h("span", { class: "auto-button-label" });
    const el = h("div", { class: cls, "data-testid": testid, "data-button": id, role: "button", tabindex: 0 }, label);
    const obj = () => (el as HTMLElement & { obj?: ButtonObj }).obj;
    if (testid === "auto-button") {
      // The stage's drag code must not see these presses: a button is pressed, not dragged.
      el.addEventListener("pointerdown", (e) => e.stopPropagation());
      el.addEventListener("click", (e) => {
        e.stopPropagation();
        this.actions.press(id);
      });
      el.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          this.actions.press(id);
        }
      });
      el.addEventListener("contextmenu", (e) => {
        e.preventDefault();
        e.stopPropagation();
        const b = obj();
        if (b) this.actions.menu(b, e.clientX, e.clientY);
      });
    }
    this.r.layer.appendChild(el);
    const rec = { el, label };
    this.els.set(id, rec);
    return rec;
  }
}
