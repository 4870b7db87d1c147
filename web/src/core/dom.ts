// Tiny DOM helpers. User text only ever goes in through text nodes (never innerHTML).

type Attrs = Record<string, string | number | boolean | null | undefined>;
type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = String(v);
    else if (k === "text") el.textContent = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el: Node, children: (Child | Child[])[]): void {
  for (const c of children) {
    if (Array.isArray(c)) append(el, c);
    else if (c === null || c === undefined || c === false) continue;
    else if (typeof c === "string" || typeof c === "number") el.appendChild(document.createTextNode(String(c)));
    else el.appendChild(c);
  }
}

/** Set textContent only when it changed (keeps the DOM quiet). */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

export function toggleClass(el: Element, cls: string, on: boolean): void {
  if (el.classList.contains(cls) !== on) el.classList.toggle(cls, on);
}

/**
 * Put `next` in `parent`, keeping in place each current child that equals (`isEqualNode`) the new
 * one at its position, so that a redraw with nothing changed leaves the nodes alone: a click
 * whose press and release straddle a redraw still lands on the button it began on. A kept node
 * keeps its own listeners, so what a listener does must follow from what its node shows (put ids
 * in `data-*` attributes).
 */
export function patchChildren(parent: Element, next: readonly Node[]): void {
  next.forEach((node, i) => {
    const cur = parent.childNodes[i];
    if (!cur) parent.appendChild(node);
    else if (!cur.isEqualNode(node)) parent.replaceChild(node, cur);
  });
  while (parent.childNodes.length > next.length) parent.lastChild?.remove();
}
