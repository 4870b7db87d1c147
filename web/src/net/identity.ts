// Who this browser is, without an account: a random id and secret kept in local storage, sent in
// `hello` with the display name and the page's build (injected by build.mjs as __BUILD__). Also
// the "App out of date" banner shown when the server's build differs.

import type { Socket } from "socket.io-client";
import { h } from "../core/dom";
import { load, NAME_KEY } from "../core/util";
import type { ErrorBody, HelloOk } from "./protocol.gen";

declare const __BUILD__: string | undefined;

/** The build this page was made from: the server refuses `hello` from another one. */
export const BUILD: string = typeof __BUILD__ === "string" ? __BUILD__ : "dev";

const IDENTITY_KEY = "cardtable:identity";
export const STORAGE_NEEDED = "Multiplayer needs this site to keep a little data in your browser (local storage). Allow it and reload.";
const OUT_OF_DATE = "App out of date — reload to keep playing";

export interface Identity {
  id: string;
  secret: string;
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/** `n` random characters of the id alphabet (A-Za-z0-9_-). */
export function randomToken(n: number): string {
  const bytes = new Uint8Array(n);
  crypto.getRandomValues(bytes);
  let out = "";
  for (const b of bytes) out += ALPHABET[b & 63];
  return out;
}

/** Whether a stored value is a usable identity (id 8-64 of the alphabet, secret 16-128 chars). */
export function validIdentity(v: unknown): v is Identity {
  if (!v || typeof v !== "object") return false;
  const { id, secret } = v as Record<string, unknown>;
  return (
    typeof id === "string" && /^[A-Za-z0-9_-]{8,64}$/.test(id) && typeof secret === "string" && secret.length >= 16 && secret.length <= 128
  );
}

/** Whether local storage can be written (refused in some private modes and by site settings). */
export function storageWorks(): boolean {
  try {
    const k = "cardtable:probe";
    localStorage.setItem(k, "1");
    localStorage.removeItem(k);
    return true;
  } catch {
    return false;
  }
}

/** This browser's identity, made and stored the first time; null when storage is refused. */
function myIdentity(): Identity | null {
  if (!storageWorks()) return null;
  try {
    const got: unknown = JSON.parse(localStorage.getItem(IDENTITY_KEY) || "null");
    if (validIdentity(got)) return got;
  } catch {
    /* a damaged value: make a new identity */
  }
  const made = { id: randomToken(22), secret: randomToken(32) };
  try {
    localStorage.setItem(IDENTITY_KEY, JSON.stringify(made));
  } catch {
    return null;
  }
  return made;
}

/** An `error` event's body (from the server's schema). */
export type ServerErr = ErrorBody;

export type HelloResult = { ok: true; id: string; name: string } | { ok: false; error: ServerErr | null };

let helloRef = 0;

/**
 * Send `hello` on `socket` and wait for `hello_ok` (or the error for it). Without storage there
 * is no identity to send: the result is `{ok: false, error: null}` and nothing is sent.
 */
export function hello(socket: Socket): Promise<HelloResult> {
  const me = myIdentity();
  if (!me) return Promise.resolve({ ok: false, error: null });
  const ref = `hello${++helloRef}`;
  const name = (load(NAME_KEY) || "").trim().slice(0, 32);
  return new Promise((resolve) => {
    const done = (r: HelloResult): void => {
      socket.off("hello_ok", onOk);
      socket.off("error", onErr);
      resolve(r);
    };
    const onOk = (d: Partial<HelloOk>): void => {
      if (d && d.ref === ref) done({ ok: true, id: String(d.id), name: String(d.name ?? "") });
    };
    const onErr = (e: ServerErr): void => {
      if (e && (e.ref === ref || e.code === "out_of_date")) {
        if (e.code === "out_of_date") showOutOfDate();
        done({ ok: false, error: e });
      }
    };
    socket.on("hello_ok", onOk);
    socket.on("error", onErr);
    socket.emit("hello", { id: me.id, secret: me.secret, ...(name ? { name } : {}), build: BUILD, ref });
  });
}

/** The banner at the top of the page: this page is older than the server; reload. */
export function showOutOfDate(): void {
  if (document.querySelector("[data-testid=out-of-date]")) return;
  const reload = h("button", { type: "button", class: "primary small", "data-testid": "reload" }, "Reload");
  reload.addEventListener("click", () => location.reload());
  document.body.prepend(
    h("div", { class: "out-of-date", role: "alert", "data-testid": "out-of-date" }, h("span", {}, OUT_OF_DATE), reload),
  );
}
