// Homemade cards and uploaded pictures: a custom card's face is the JSON string
// `{"text","color","image"}` (docs/protocol.md); an image is named by its sha256 and served by
// the room (`/api/rooms/{code}/images/{sha256}`).

export interface CustomFace {
  text: string;
  color: string;
  image: string;
}

const SHA = /^[0-9a-f]{64}$/;

/** Is this a sha256 naming an uploaded image (a card's image, a back, the background)? */
export function isImageHash(v: string | null | undefined): v is string {
  return !!v && SHA.test(v);
}

/** The custom card a face string describes, or null for a standard or plain-text face. */
export function customFace(face: string): CustomFace | null {
  if (!face.startsWith("{")) return null;
  try {
    const o = JSON.parse(face) as Record<string, unknown>;
    if (!o || typeof o !== "object") return null;
    const str = (v: unknown) => (typeof v === "string" ? v : "");
    return { text: str(o.text), color: str(o.color), image: str(o.image) };
  } catch {
    return null;
  }
}

/** The room this page is in, from its address (`/r/CODE`). */
function roomCode(): string {
  if (typeof location === "undefined") return "";
  const m = /^\/r\/([A-Za-z0-9]+)/.exec(location.pathname);
  return m ? m[1] : "";
}

/** Where an uploaded image of this room is served (same origin: allowed by the CSP). */
export function imageUrl(hash: string, code = roomCode()): string {
  return `/api/rooms/${code}/images/${hash}`;
}
