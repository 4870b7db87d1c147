// Homemade cards (src/customface.ts, src/cards.ts): a custom face is the JSON string
// {"text","color","image"}; a picture face or back is the room's image URL, never invented.
import assert from "node:assert/strict";
import { test } from "node:test";
import { backUrl, faceName, faceUrl } from "../src/table/cards.ts";
import { customFace, imageUrl, isImageHash } from "../src/table/customface.ts";

const SHA = "ab".repeat(32);

test("a custom face is read from its JSON string; other faces are not custom", () => {
  assert.deepEqual(customFace('{"text":"Draw 2, then skip","color":"red","image":""}'), {
    text: "Draw 2, then skip",
    color: "red",
    image: "",
  });
  assert.equal(customFace("H12"), null);
  assert.equal(customFace("Yes"), null);
  assert.equal(customFace("{not json"), null);
  assert.equal(faceName('{"text":"Wild","color":"black"}'), "Wild");
});

test("only a sha256 names an image", () => {
  assert.ok(isImageHash(SHA));
  assert.ok(!isImageHash("blue"));
  assert.ok(!isImageHash(SHA.toUpperCase()));
  assert.ok(!isImageHash(SHA + "0"));
});

test("picture faces and backs are the room's image; text faces are drawn in their colour", () => {
  assert.equal(imageUrl(SHA, "ABCDEFGHJK"), `/api/rooms/ABCDEFGHJK/images/${SHA}`);
  assert.ok(faceUrl(JSON.stringify({ text: "Star", color: "", image: SHA })).endsWith(`/images/${SHA}`));
  assert.ok(backUrl(SHA).endsWith(`/images/${SHA}`));
  assert.ok(backUrl("blue").startsWith("data:image/svg+xml"));
  const red = decodeURIComponent(faceUrl(JSON.stringify({ text: "Hot", color: "red", image: "" })));
  assert.ok(red.includes('fill="red"') && red.includes(">Hot<"));
  const sneaky = decodeURIComponent(faceUrl(JSON.stringify({ text: "<b>", color: '"/><script>', image: "" })));
  assert.ok(!sneaky.includes("<script>") && !sneaky.includes("<b>"));
});
