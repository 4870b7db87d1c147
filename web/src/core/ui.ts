// Generic UI pieces: context menu, prompt dialog, toasts, full-page screens. Text only.

import { h } from "./dom";

export interface MenuItem {
  label: string;
  key?: string;
  action: () => void;
  testid: string;
  danger?: boolean;
}

let openMenuEl: HTMLElement | null = null;

export function closeMenu(): void {
  openMenuEl?.remove();
  openMenuEl = null;
}

export function showMenu(title: string, items: (MenuItem | null)[], clientX: number, clientY: number): void {
  closeMenu();
  const list = h("div", { class: "menu", role: "menu", "data-testid": "context-menu" });
  if (title) list.appendChild(h("div", { class: "menu-title", "data-testid": "menu-title" }, title));
  // An item fires only on a press that began in the menu (or from the keyboard): the finger
  // that long-pressed to open the menu lifts over an item, and that lift is not a choice.
  let pressed = false;
  list.addEventListener("pointerdown", () => {
    pressed = true;
  });
  for (const it of items) {
    if (!it) {
      list.appendChild(h("div", { class: "menu-sep" }));
      continue;
    }
    const b = h(
      "button",
      { type: "button", role: "menuitem", class: it.danger ? "danger" : "", "data-testid": `menu-${it.testid}` },
      h("span", {}, it.label),
      it.key ? h("kbd", {}, it.key) : null,
    );
    b.addEventListener("click", (e) => {
      e.stopPropagation();
      if (!pressed && e.detail !== 0) return;
      closeMenu();
      it.action();
    });
    list.appendChild(b);
  }
  document.body.appendChild(list);
  const r = list.getBoundingClientRect();
  const x = Math.max(4, Math.min(clientX, window.innerWidth - r.width - 4));
  const y = Math.max(4, Math.min(clientY, window.innerHeight - r.height - 4));
  list.style.left = `${x}px`;
  list.style.top = `${y}px`;
  openMenuEl = list;
  (list.querySelector("button") as HTMLButtonElement | null)?.focus({ preventScroll: true });
}

document.addEventListener("pointerdown", (e) => {
  if (openMenuEl && !openMenuEl.contains(e.target as Node)) closeMenu();
});

// Escape closes an open menu before anything else hears the key (capture phase).
document.addEventListener(
  "keydown",
  (e) => {
    if (e.key !== "Escape" || !openMenuEl) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    closeMenu();
  },
  true,
);

export function dialogOpen(): boolean {
  return !!document.querySelector(".modal");
}

/** Ask for a value in a small modal. Resolves to the text, or null when cancelled. */
/** Prompts opened so far (each one's ids are its own). */
let prompts = 0;

export function prompt(
  title: string,
  opts: {
    value?: string;
    type?: "text" | "number";
    min?: number;
    max?: number;
    ok?: string;
    hint?: string;
    maxLength?: number;
    /** Refuse an empty answer, saying this (the dialog stays open). */
    required?: string;
  } = {},
): Promise<string | null> {
  return new Promise((resolve) => {
    // The field is named by the question (and described by the hint), for screen readers.
    const ids = `prompt-${++prompts}`;
    const input = h("input", {
      "aria-labelledby": `${ids}-title`,
      "aria-describedby": opts.hint ? `${ids}-hint` : null,
      type: opts.type || "text",
      value: opts.value ?? "",
      "data-testid": "prompt-input",
      min: opts.min,
      max: opts.max,
      maxlength: opts.maxLength,
      autocomplete: "off",
    });
    const ok = h("button", { type: "submit", class: "primary", "data-testid": "prompt-ok" }, opts.ok || "OK");
    const cancel = h("button", { type: "button", "data-testid": "prompt-cancel" }, "Cancel");
    const error = h("p", { class: "prompt-error", role: "alert", "data-testid": "prompt-error", hidden: true });
    const form = h(
      "form",
      { class: "modal-box", role: "dialog", "aria-modal": "true", "aria-labelledby": `${ids}-title` },
      h("h2", { id: `${ids}-title` }, title),
      opts.hint ? h("p", { class: "hint", id: `${ids}-hint` }, opts.hint) : null,
      input,
      error,
      h("div", { class: "modal-buttons" }, cancel, ok),
    );
    const modal = h("div", { class: "modal", "data-testid": "prompt" }, form);
    const done = (v: string | null) => {
      modal.remove();
      resolve(v);
    };
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      if (opts.required && !input.value.trim()) {
        error.textContent = opts.required;
        error.hidden = false;
        input.focus();
        return;
      }
      done(input.value);
    });
    cancel.addEventListener("click", () => done(null));
    modal.addEventListener("pointerdown", (e) => {
      if (e.target === modal) done(null);
    });
    modal.addEventListener("keydown", (e) => {
      if (e.key === "Escape") done(null);
      e.stopPropagation();
    });
    document.body.appendChild(modal);
    input.focus();
    input.select();
  });
}

let toastBox: HTMLElement | null = null;

/** `action`: a button in the toast (e.g. Undo); a click runs it and closes the toast. */
export function toast(
  text: string,
  kind: "error" | "info" = "info",
  ms = 4000,
  action?: { label: string; testid: string; run: () => void },
): void {
  if (!toastBox || !toastBox.isConnected) {
    toastBox = h("div", { class: "toasts", role: "status", "aria-live": "polite" });
    document.body.appendChild(toastBox);
  }
  // Above the hand strip (a room's own cards stay in sight), else at the bottom of the page.
  const strip = document.querySelector(".hand-strip")?.getBoundingClientRect();
  toastBox.style.bottom = strip && strip.height ? `${Math.max(24, window.innerHeight - strip.top + 12)}px` : "";
  const t = h("div", { class: `toast ${kind}`, "data-testid": "toast" }, text);
  if (action) {
    const b = h("button", { type: "button", class: "small toast-action", "data-testid": action.testid }, action.label);
    b.addEventListener("click", () => {
      action.run();
      t.remove();
    });
    t.append(" ", b);
  }
  toastBox.appendChild(t);
  while (toastBox.children.length > 4) toastBox.firstElementChild?.remove();
  window.setTimeout(() => {
    t.classList.add("gone");
    window.setTimeout(() => t.remove(), 400);
  }, ms);
}

/** A full-page message that replaces the table (room not found, disconnected, removed...). */
export function screen(
  testid: string,
  title: string,
  text: string,
  buttons: { label: string; testid: string; action: () => void; primary?: boolean }[],
): HTMLElement {
  document.querySelector(".screen")?.remove();
  const el = h(
    "div",
    { class: "screen", "data-testid": testid, role: "alertdialog" },
    h(
      "div",
      { class: "screen-box" },
      h("h1", {}, title),
      h("p", {}, text),
      h(
        "div",
        { class: "screen-buttons" },
        buttons.map((b) => {
          const btn = h("button", { type: "button", class: b.primary ? "primary" : "", "data-testid": b.testid }, b.label);
          btn.addEventListener("click", b.action);
          return btn;
        }),
      ),
    ),
  );
  document.body.appendChild(el);
  return el;
}

/** A yes/no question in a small modal. Resolves to true when confirmed. */
/** `safe`: the cancel button's label, and then it (not `ok`) is the focused, default choice. */
export function confirmDialog(title: string, text: string, ok: string, extra?: HTMLElement, safe?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const yes = h("button", { type: "submit", class: safe ? "" : "primary", "data-testid": "confirm-ok" }, ok);
    const no = h("button", { type: "button", class: safe ? "primary" : "", "data-testid": "confirm-cancel" }, safe ?? "Cancel");
    const form = h(
      "form",
      { class: "modal-box" },
      h("h2", {}, title),
      text ? h("p", { class: "hint" }, text) : null,
      extra ?? null,
      h("div", { class: "modal-buttons" }, no, yes),
    );
    const modal = h("div", { class: "modal", "data-testid": "confirm" }, form);
    const done = (v: boolean) => {
      modal.remove();
      resolve(v);
    };
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      done(true);
    });
    no.addEventListener("click", () => done(false));
    modal.addEventListener("pointerdown", (e) => e.target === modal && done(false));
    modal.addEventListener("keydown", (e) => {
      if (e.key === "Escape") done(false);
      e.stopPropagation();
    });
    document.body.appendChild(modal);
    (safe ? no : yes).focus();
  });
}
