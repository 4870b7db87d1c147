// Pure parts of "playing with people": identities (src/identity.ts), the relation lists
// and chat lines from the server (src/social.ts), where an invite goes (src/social/rooms.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { BUILD, randomToken, validIdentity } from "../src/net/identity.ts";
import { rematchNote, roomUrl } from "../src/social/rooms.ts";
import { chatLine, parseRelations } from "../src/social/social.ts";

test("a made identity is one the server accepts", () => {
  const id = randomToken(22);
  const secret = randomToken(32);
  assert.match(id, /^[A-Za-z0-9_-]{22}$/);
  assert.ok(validIdentity({ id, secret }));
  assert.notEqual(randomToken(22), id);
});

test("damaged identities are refused", () => {
  assert.ok(!validIdentity(null));
  assert.ok(!validIdentity({ id: "short", secret: "x".repeat(32) }));
  assert.ok(!validIdentity({ id: "has space here", secret: "x".repeat(32) }));
  assert.ok(!validIdentity({ id: "abcdefgh", secret: "too-short" }));
});

test("without esbuild's define the build is 'dev'", () => {
  assert.equal(BUILD, "dev");
});

test("relations keep only strings", () => {
  const r = parseRelations({ block: ["a", 3], mute: "b", favourite: ["c"] });
  assert.deepEqual([...r.block], ["a"]);
  assert.deepEqual([...r.mute], []);
  assert.deepEqual([...r.favourite], ["c"]);
  assert.deepEqual([...parseRelations(null).block], []);
});

test("chat lines: well-formed ones kept, text untouched", () => {
  const line = chatLine({ code: "X", from: { player: "p1", identity: "idA", name: "Ana" }, text: "<b>hi</b>", at: 5 });
  assert.deepEqual(line, { from: { player: "p1", identity: "idA", name: "Ana" }, text: "<b>hi</b>", at: 5 });
  assert.equal(chatLine({ from: { player: "p1", name: "Ana" }, text: 3 }), null);
  assert.equal(chatLine({ from: "Ana", text: "x" }), null);
  assert.equal(chatLine({ from: { player: "p1", name: "Ana" }, text: "x" }).from.identity, undefined);
});

test("an accepted invite goes to its seat, or to the room to watch", () => {
  assert.equal(roomUrl("ABCD2345", 2), "/r/ABCD2345?seat=2");
  assert.equal(roomUrl("ABCD2345", 0), "/r/ABCD2345?seat=0");
  assert.equal(roomUrl("ABCD2345", null), "/r/ABCD2345");
  assert.equal(roomUrl("ABCD2345", "1"), "/r/ABCD2345");
});

test("a rematch says whom it invited and whom it could not", () => {
  const ben = { id: "b".repeat(8), name: "Ben" };
  const dee = { id: "d".repeat(8), name: "Dee" };
  assert.equal(rematchNote({ to: [ben], skipped: [] }), "Rematch: invited Ben.");
  assert.equal(
    rematchNote({ to: [], skipped: [dee] }),
    "Rematch: a new room of the same game. Couldn't invite Dee (offline, or not taking invitations).",
  );
});
