// Small shared helpers: room codes, local storage, seat colours.

const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/** The canonical code for user input (ignores case, spaces, dashes, underscores), or null. */
export function normalizeCode(raw: string): string | null {
  const code = raw.replace(/[\s\-_]/g, "").toUpperCase();
  if (code.length !== 10 && code.length !== 8) return null; // 8: rooms made before codes grew
  for (const ch of code) if (!CODE_ALPHABET.includes(ch)) return null;
  return code;
}

export function prettyCode(code: string): string {
  const half = Math.ceil(code.length / 2);
  return `${code.slice(0, half)}-${code.slice(half)}`;
}

const OPID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * A fresh operation id (`opid`, docs/protocol.md): 16 random characters of `A-Za-z0-9_-`. An
 * operation keeps its id when it is sent again, so the server applies it at most once.
 */
export function newOpid(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let out = "";
  for (const b of bytes) out += OPID_ALPHABET[b & 63];
  return out;
}

const SEAT_COLORS = ["#e0533d", "#2f7de1", "#2fa35a", "#d9a21b", "#8e5bd6", "#e0669e", "#1ba3a6", "#8a6a4a"];

export function seatColor(seat: number | null): string {
  return seat === null ? "#888" : SEAT_COLORS[seat % SEAT_COLORS.length];
}

// --- local storage (fails soft: private mode, quotas) --------------------------------------------

export function load(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function save(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* ignore */
  }
}

export const NAME_KEY = "cardtable:name";
const RECENT_KEY = "cardtable:recent";
export const tokenKey = (code: string): string => `cardtable:token:${code}`;

export interface Recent {
  code: string;
  at: number;
  name?: string;
}

export function recentRooms(): Recent[] {
  try {
    const got = JSON.parse(load(RECENT_KEY) || "[]");
    if (!Array.isArray(got)) return [];
    return got.filter((r) => r && typeof r.code === "string" && normalizeCode(r.code) === r.code).slice(0, 8);
  } catch {
    return [];
  }
}

export function rememberRoom(code: string): void {
  const list = recentRooms().filter((r) => r.code !== code);
  list.unshift({ code, at: Date.now() });
  save(RECENT_KEY, JSON.stringify(list.slice(0, 8)));
}

export function forgetRoom(code: string): void {
  save(RECENT_KEY, JSON.stringify(recentRooms().filter((r) => r.code !== code)));
}

export function timeAgo(at: number): string {
  const s = Math.max(0, (Date.now() - at) / 1000);
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return `${Math.floor(s / 86400)} days ago`;
}

export function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, v));
}

/** The URL query parameter `name` (tests use it to skip the name prompt). */
export function queryParam(name: string): string | null {
  return new URLSearchParams(location.search).get(name);
}
