// The button builder: a button's steps as rows of menus, no JSON and no ids anywhere. Each row
// is one step (steprows.ts, the pure half): its kind, its targets picked from a list of object
// names or by clicking the object on the table ("Pick on table": the dialog steps aside until
// the click), its numbers as number inputs. Rows reorder by dragging their handle, or with the
// up/down buttons (keyboard, touch). "Try it" saves the button as it stands and presses it.
//
// Stable data-testids (other tests drive the builder with them):
//   bb-dialog      the dialog                      bb-name        the button's name (input)
//   bb-steps       the list of rows                bb-step        one row (data-index, data-kind)
//   bb-summary     a row in a sentence             bb-problem     what is wrong with a row
//   bb-handle      a row's drag handle             bb-up, bb-down, bb-remove   a row's buttons
//   bb-target      a row's target (select of names; option values are ids)
//   bb-dest        a row's destination (select)    bb-pick-target, bb-pick-dest   "Pick on table"
//   bb-n           a row's number                  bb-face        face up / down / over (select)
//   bb-from        a gather row's source piles (checkboxes, value: the pile's id)
//   bb-hands, bb-loose, bb-all                      a row's checkboxes
//   bb-add         "Add step"                      bb-kind-<kind> a kind of step to add
//                  (deal, move, shuffle, flip, gather, set, add, chips, addchips)
//   bb-picking     the banner while picking on the table   bb-pick-cancel  its Cancel
//   bb-error       the list's problem              bb-try, bb-save, bb-cancel   the dialog's buttons

import { h } from "../core/dom";
import type { ButtonObj, Obj } from "../core/types";
import { toast } from "../core/ui";
import type { Op, Step } from "../net/protocol.gen";
import {
  describe,
  displayNames,
  fieldsOf,
  moveRow,
  type Named,
  namedTargets,
  newRow,
  ROW_KINDS,
  type Role,
  type Row,
  rowOf,
  stepOf,
  validate,
} from "./steprows";

/** What the builder needs from the room page. */
export interface BuilderPorts {
  readonly s: { readonly view: ReadonlyMap<string, Obj> };
  send(op: Op): void;
  /** Where a new button goes on the table. */
  spot(): { x: number; y: number };
}

const FACES: [Row["face"], string][] = [
  ["down", "Face down"],
  ["up", "Face up"],
  ["over", "Turned over"],
];

/** The object a click on the table means: a pile for any of its cards or its badge. */
function objectAt(view: ReadonlyMap<string, Obj>, target: EventTarget | null): Obj | null {
  if (!(target instanceof Element)) return null;
  const badge = target.closest<HTMLElement>("[data-stack]");
  if (badge?.dataset.stack) return view.get(badge.dataset.stack) ?? null;
  const el = target.closest<HTMLElement>(".obj[data-id]");
  const o = el?.dataset.id ? view.get(el.dataset.id) : undefined;
  if (!o) return null;
  if (o.t === "card" && o.parent) return view.get(o.parent) ?? null;
  return o;
}

function roleOf(o: Obj): Role | null {
  return o.t === "stack" ? "pile" : o.t === "counter" ? "counter" : o.t === "chips" ? "chips" : null;
}

function roleWord(role: Role): string {
  return role === "pile" ? "pile or zone" : role === "counter" ? "counter" : "stack of chips";
}

/** Open the builder for button `b` (null: a new one). Resolves when the dialog closes. */
export function openButtonBuilder(room: BuilderPorts, b: ButtonObj | null): Promise<void> {
  return new Promise((resolve) => {
    let buttonId = b?.id ?? null;
    let rows: Row[] = (b?.steps ?? []).map(rowOf);
    let dragFrom = -1;
    const targets = (): Named[] => namedTargets(room.s.view.values());
    const names = (): Map<string, string> => displayNames(room.s.view.values());

    const name = h("input", { "data-testid": "bb-name", value: b?.label || "Button", maxlength: 40, autocomplete: "off" });
    const list = h("ol", { class: "bb-steps", "data-testid": "bb-steps" });
    const kinds = h(
      "div",
      { class: "bb-kinds", hidden: true, role: "group", "aria-label": "Kind of step" },
      ROW_KINDS.map((k) => {
        const btn = h("button", { type: "button", "data-testid": `bb-kind-${k.kind}` }, k.label);
        btn.addEventListener("click", () => {
          rows = [...rows, newRow(k.kind, targets())];
          kinds.hidden = true;
          add.setAttribute("aria-expanded", "false");
          render(rows.length - 1, "bb-target");
        });
        return btn;
      }),
    );
    const add = h("button", { type: "button", "data-testid": "bb-add", "aria-expanded": "false" }, "+ Add step");
    add.addEventListener("click", () => {
      kinds.hidden = !kinds.hidden;
      add.setAttribute("aria-expanded", String(!kinds.hidden));
      if (!kinds.hidden) kinds.querySelector("button")?.focus();
    });
    const error = h("p", { class: "bb-error", "data-testid": "bb-error", role: "alert" });
    const cancel = h("button", { type: "button", "data-testid": "bb-cancel" }, "Cancel");
    const tryIt = h("button", { type: "button", "data-testid": "bb-try", title: "Save it as it stands and press it" }, "Try it");
    const save = h("button", { type: "submit", class: "primary", "data-testid": "bb-save" }, b ? "Save" : "Add button");
    const form = h(
      "form",
      { class: "modal-box bb-box" },
      h("h2", {}, b ? "Edit the button" : "A new button"),
      h("p", { class: "hint" }, "Pressing it runs the steps in order, all together: if one can't, none happens."),
      h("label", { class: "edit-field" }, h("span", {}, "Name"), name),
      list,
      h("div", { class: "bb-add-row" }, add, kinds),
      error,
      h("div", { class: "modal-buttons" }, cancel, tryIt, save),
    );
    const modal = h("div", { class: "modal", "data-testid": "bb-dialog" }, form);

    const close = () => {
      modal.remove();
      resolve();
    };

    /** Rebuild the rows; focus `testid` in row `focusRow` afterwards (keyboard users stay put). */
    function render(focusRow = -1, testid = ""): void {
      const nm = names();
      const all = targets();
      list.replaceChildren(...rows.map((row, i) => rowEl(row, i, nm, all)));
      if (focusRow >= 0) list.querySelectorAll<HTMLElement>(`[data-index="${focusRow}"] [data-testid="${testid}"]`)[0]?.focus();
      error.textContent = "";
    }

    function refresh(i: number): void {
      const li = list.querySelector<HTMLElement>(`[data-index="${i}"]`);
      if (!li) return;
      const problem = validate([rows[i]], targets()).rows[0];
      const summary = li.querySelector('[data-testid="bb-summary"]');
      if (summary) summary.textContent = describe(rows[i], names());
      const p = li.querySelector<HTMLElement>('[data-testid="bb-problem"]');
      if (!p) return;
      p.textContent = problem ?? "";
      p.hidden = !problem;
    }

    function set(i: number, patch: Partial<Row>): void {
      rows = rows.map((r, j) => (j === i ? { ...r, ...patch } : r));
      refresh(i);
      error.textContent = "";
    }

    function move(i: number, to: number, testid: string): void {
      if (to < 0 || to >= rows.length) return;
      rows = moveRow(rows, i, to);
      render(to, testid);
    }

    function options(role: Role, all: Named[], value: string): HTMLOptionElement[] {
      const out = all.filter((t) => t.role === role).map((t) => h("option", { value: t.id, selected: t.id === value }, t.name));
      if (!value || !out.some((o) => o.value === value))
        out.unshift(h("option", { value: "", selected: true }, `Pick a ${roleWord(role)}…`));
      return out;
    }

    function rowEl(row: Row, i: number, nm: Map<string, string>, all: Named[]): HTMLElement {
      const handle = h(
        "span",
        { class: "bb-handle", "data-testid": "bb-handle", draggable: "true", title: "Drag to reorder", "aria-hidden": "true" },
        "⠿",
      );
      const up = h("button", { type: "button", "data-testid": "bb-up", "aria-label": `Move step ${i + 1} up`, disabled: i === 0 }, "↑");
      const down = h(
        "button",
        { type: "button", "data-testid": "bb-down", "aria-label": `Move step ${i + 1} down`, disabled: i === rows.length - 1 },
        "↓",
      );
      const remove = h("button", { type: "button", "data-testid": "bb-remove", "aria-label": `Remove step ${i + 1}` }, "✕");
      up.addEventListener("click", () => move(i, i - 1, i - 1 === 0 ? "bb-down" : "bb-up"));
      down.addEventListener("click", () => move(i, i + 1, i + 1 === rows.length - 1 ? "bb-up" : "bb-down"));
      remove.addEventListener("click", () => {
        rows = rows.filter((_, j) => j !== i);
        render();
        add.focus();
      });
      const problem = validate([row], all).rows[0];
      const fields = fieldsOf(row.kind).map((f) => fieldEl(row, i, f, all));
      const li = h(
        "li",
        { class: "bb-step", "data-testid": "bb-step", "data-index": i, "data-kind": row.kind },
        h(
          "div",
          { class: "bb-head" },
          handle,
          h("span", { class: "bb-num" }, `${i + 1}.`),
          h("span", { class: "bb-summary", "data-testid": "bb-summary" }, describe(row, nm)),
          up,
          down,
          remove,
        ),
        h("div", { class: "bb-fields" }, fields),
        h("p", { class: "bb-problem", "data-testid": "bb-problem", hidden: !problem }, problem ?? ""),
      );
      handle.addEventListener("dragstart", (e) => {
        dragFrom = i;
        e.dataTransfer?.setData("text/plain", String(i));
        if (e.dataTransfer) e.dataTransfer.effectAllowed = "move";
        li.classList.add("dragging");
      });
      handle.addEventListener("dragend", () => li.classList.remove("dragging"));
      li.addEventListener("dragover", (e) => {
        if (dragFrom < 0) return;
        e.preventDefault();
        li.classList.add("drop-here");
      });
      li.addEventListener("dragleave", () => li.classList.remove("drop-here"));
      li.addEventListener("drop", (e) => {
        e.preventDefault();
        const from = dragFrom;
        dragFrom = -1;
        if (from >= 0 && from !== i) move(from, i, "bb-handle");
        else render();
      });
      return li;
    }

    function fieldEl(row: Row, i: number, f: ReturnType<typeof fieldsOf>[number], all: Named[]): HTMLElement {
      const wrap = (...kids: HTMLElement[]) => h("label", { class: "edit-field bb-field" }, h("span", {}, f.label), ...kids);
      if (f.name === "target" || f.name === "dest") {
        const key = f.name;
        const role = f.role ?? "pile";
        const sel = h("select", { "data-testid": `bb-${key}`, "aria-label": `Step ${i + 1}: ${f.label}` }, options(role, all, row[key]));
        sel.addEventListener("change", () => set(i, { [key]: sel.value }));
        const pick = h(
          "button",
          {
            type: "button",
            class: "bb-pick",
            "data-testid": `bb-pick-${key}`,
            title: `Click a ${roleWord(role)} on the table`,
            "aria-label": `Pick on table (step ${i + 1}, ${f.label})`,
          },
          "Pick on table",
        );
        pick.addEventListener("click", () => pickOnTable(i, key, role));
        return h("div", { class: "edit-field bb-field" }, h("span", {}, f.label), h("div", { class: "bb-pickrow" }, sel, pick));
      }
      if (f.name === "n") {
        const n = h("input", {
          type: "number",
          "data-testid": "bb-n",
          value: row.n,
          min: f.min,
          max: f.max,
          step: 1,
          inputmode: "numeric",
        });
        n.addEventListener("input", () => set(i, { n: n.value === "" ? Number.NaN : Number(n.value) }));
        return wrap(n);
      }
      if (f.name === "face") {
        const choices = row.kind === "flip" ? FACES : FACES.slice(0, 2);
        const sel = h(
          "select",
          { "data-testid": "bb-face" },
          choices.map(([v, l]) => h("option", { value: v, selected: v === row.face }, l)),
        );
        sel.addEventListener("change", () => set(i, { face: sel.value as Row["face"] }));
        return wrap(sel);
      }
      if (f.name === "from") {
        const boxes = all
          .filter((t) => t.role === "pile")
          .map((t) => {
            const box = h("input", { type: "checkbox", "data-testid": "bb-from", value: t.id, checked: row.from.includes(t.id) });
            box.addEventListener("change", () => {
              const from = rows[i].from.filter((id) => id !== t.id);
              set(i, { from: box.checked ? [...from, t.id] : from });
            });
            return h("label", { class: "bb-check" }, box, h("span", {}, t.name));
          });
        return h("fieldset", { class: "bb-from" }, h("legend", {}, f.label), boxes);
      }
      const key = f.name;
      const box = h("input", { type: "checkbox", "data-testid": `bb-${key}`, checked: row[key] });
      box.addEventListener("change", () => set(i, { [key]: box.checked }));
      return h("label", { class: "bb-check" }, box, h("span", {}, f.label));
    }

    /** The dialog steps aside; the next click on a fitting object on the table picks it. */
    function pickOnTable(i: number, key: "target" | "dest", role: Role): void {
      const text = h("span", {}, `Click a ${roleWord(role)} on the table.`);
      const stop = h("button", { type: "button", "data-testid": "bb-pick-cancel" }, "Cancel");
      const banner = h("div", { class: "bb-picking", "data-testid": "bb-picking", role: "status" }, text, stop);
      modal.hidden = true;
      document.body.appendChild(banner);
      const swallow = (e: Event) => {
        if (banner.contains(e.target as Node) || modal.contains(e.target as Node)) return;
        e.preventDefault();
        e.stopImmediatePropagation();
        if (e.type === "click" && !banner.isConnected) unswallow();
      };
      const unswallow = () => {
        for (const t of ["pointerup", "mouseup", "click", "contextmenu"]) window.removeEventListener(t, swallow, true);
      };
      const end = (picked: string | null) => {
        window.removeEventListener("pointerdown", onDown, true);
        window.removeEventListener("keydown", onKey, true);
        banner.remove();
        modal.hidden = false;
        // The press that picked still ends (pointerup, click): keep it from the table a moment.
        window.setTimeout(unswallow, 400);
        if (picked !== null) rows = rows.map((r, j) => (j === i ? { ...r, [key]: picked } : r));
        render(i, `bb-pick-${key}`);
      };
      const onDown = (e: PointerEvent) => {
        if (banner.contains(e.target as Node)) return;
        swallow(e);
        const o = objectAt(room.s.view, e.target);
        if (o && roleOf(o) === role) end(o.id);
        else text.textContent = `That's not a ${roleWord(role)}: click a ${roleWord(role)}, or Cancel.`;
      };
      const onKey = (e: KeyboardEvent) => {
        if (e.key !== "Escape") return;
        e.stopImmediatePropagation();
        end(null);
      };
      for (const t of ["pointerup", "mouseup", "click", "contextmenu"]) window.addEventListener(t, swallow, true);
      window.addEventListener("pointerdown", onDown, true);
      window.addEventListener("keydown", onKey, true);
      stop.addEventListener("click", () => end(null));
      stop.focus();
    }

    /** The steps as they stand, or null (and the problems shown) if a row is wrong. */
    function checked(): Step[] | null {
      const v = validate(rows, targets());
      const bad = v.rows.findIndex((p) => p !== null);
      if (v.list || bad >= 0) {
        error.textContent = v.list ?? `Step ${bad + 1}: ${v.rows[bad]}`;
        rows.forEach((_, j) => refresh(j));
        return null;
      }
      return rows.map(stepOf);
    }

    function label(): string {
      return name.value.trim().slice(0, 40) || "Button";
    }

    /** Send the button; a new one is created, then known by its id once the table has it. */
    function store(steps: Step[]): Promise<string | null> {
      if (buttonId) {
        room.send({ op: "update", id: buttonId, label: label(), steps });
        return Promise.resolve(buttonId);
      }
      const before = new Set(room.s.view.keys());
      room.send({ op: "create", kind: "button", ...room.spot(), label: label(), steps });
      return new Promise((done) => {
        let tries = 0;
        const look = () => {
          const made = [...room.s.view.values()].find((o) => o.t === "button" && !before.has(o.id) && o.label === label());
          if (made) done(made.id);
          else if (++tries > 50) done(null);
          else window.setTimeout(look, 100);
        };
        look();
      });
    }

    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const steps = checked();
      if (!steps) return;
      void store(steps);
      close();
    });
    tryIt.addEventListener("click", async () => {
      const steps = checked();
      if (!steps) return;
      tryIt.disabled = true;
      const id = await store(steps);
      tryIt.disabled = false;
      if (!id) {
        toast("The button was not saved: try again.", "error");
        return;
      }
      buttonId = id;
      save.textContent = "Save";
      room.send({ op: "press", id });
    });
    cancel.addEventListener("click", close);
    modal.addEventListener("keydown", (e) => {
      if (e.key === "Escape") close();
      e.stopPropagation();
    });
    document.body.appendChild(modal);
    render();
    name.focus();
  });
}
