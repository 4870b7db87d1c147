// Viewer-relative seating (src/seating.ts): every page puts its own player at the bottom and
// moves each player's objects with them, keeping their place relative to that player.
import assert from "node:assert/strict";
import { test } from "node:test";
import { frames, handPlaces, moveBox, movePoint, relative, seatView } from "../src/table/seating.ts";

// The server's Spades layout (plugins/spades/binding.py): places with "forward" to the middle.
const SPADES = [
  [800, 880, 0, -1],
  [130, 500, 1, 0],
  [800, 120, 0, 1],
  [1470, 500, -1, 0],
];
const at = (slots, p, forward, side) => {
  const [x, y, fx, fy] = slots[p];
  return { x: x + forward * fx + side * -fy, y: y + forward * fy + side * fx };
};
const close = (a, b, msg) => {
  assert.ok(Math.abs(a.x - b.x) < 1e-9 && Math.abs(a.y - b.y) < 1e-9, `${msg}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
};

function rng(seed) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

test("a place without a direction points at the table centre", () => {
  const f = frames([
    [800, 880],
    [130, 500],
    [800, 120],
    [1470, 500],
    [800, 500],
  ]);
  assert.deepEqual(
    f.slice(0, 4).map((x) => [x.fx, x.fy]),
    [
      [0, -1],
      [1, 0],
      [0, 1],
      [-1, 0],
    ],
  );
  assert.deepEqual([f[4].fx, f[4].fy], [0, -1], "a place at the centre itself faces up");
  const g = frames([[0, 0, 3, 4]]);
  assert.ok(Math.abs(g[0].fx - 0.6) < 1e-12 && Math.abs(g[0].fy - 0.8) < 1e-12, "directions are made unit length");
});

test("each viewer sits at place 0; a spectator sees player 0 there", () => {
  assert.deepEqual(
    [0, 1, 2, 3].map((p) => relative(p, 2, 4)),
    [2, 3, 0, 1],
  );
  assert.deepEqual(
    [0, 1, 2, 3].map((p) => relative(p, null, 4)),
    [0, 1, 2, 3],
  );
  assert.deepEqual(
    [0, 1].map((p) => relative(p, 1, 2)),
    [1, 0],
  );
});

test("an object keeps its place relative to its owner, seen from every seat", () => {
  const f = frames(SPADES);
  const f2 = frames(SPADES.map(([x, y]) => [x, y])); // the same places, directions left out
  const r = rng(7);
  for (let i = 0; i < 400; i++) {
    const p = Math.floor(r() * 4);
    const me = Math.floor(r() * 4);
    const forward = r() * 400 - 100;
    const side = r() * 700 - 350;
    const laidOut = at(SPADES, p, forward, side);
    const q = relative(p, me, 4);
    const want = at(SPADES, q, forward, side);
    close(movePoint(f[p], f[q], laidOut.x, laidOut.y), want, `player ${p} seen by ${me}`);
    close(movePoint(f2[p], f2[q], laidOut.x, laidOut.y), want, "derived directions");
  }
});

test("moving is rigid and undone by moving back", () => {
  const f = frames(SPADES);
  const r = rng(11);
  for (let i = 0; i < 300; i++) {
    const [p, q] = [Math.floor(r() * 4), Math.floor(r() * 4)];
    const a = { x: r() * 1600, y: r() * 1000 };
    const b = { x: r() * 1600, y: r() * 1000 };
    const a2 = movePoint(f[p], f[q], a.x, a.y);
    const b2 = movePoint(f[p], f[q], b.x, b.y);
    assert.ok(Math.abs(Math.hypot(a.x - b.x, a.y - b.y) - Math.hypot(a2.x - b2.x, a2.y - b2.y)) < 1e-6, "distances are kept");
    close(movePoint(f[q], f[p], a2.x, a2.y), a, "there and back");
  }
  close(movePoint(f[2], f[2], 123, 456), { x: 123, y: 456 }, "a player's own frame changes nothing");
});

test("a box moves by its centre and keeps its size", () => {
  const [bottom, top] = frames([
    [800, 880],
    [800, 120],
  ]);
  // 100 units in front of the top player, 50 to their right (the viewer's left).
  const got = moveBox(top, bottom, { x: 750 - 55, y: 220 - 75, w: 110, h: 150 });
  close(got, { x: 800 + 50 - 55, y: 780 - 75 }, "the top player's box, seen from the top seat");
});

function spadesObjects() {
  const objs = new Map();
  const add = (o) => objs.set(o.id, { z: 0, rot: 0, locked: true, v: 1, ...o });
  for (let p = 0; p < 4; p++) {
    const c = at(SPADES, p, 300, 0);
    add({
      t: "stack",
      id: `trick${p}`,
      x: c.x - 55,
      y: c.y - 75,
      w: 110,
      h: 150,
      cards: [],
      layout: "pile",
      holder: true,
      label: "",
      owner: p,
    });
    const b = at(SPADES, p, 120, -260);
    add({ t: "label", id: `bid${p}`, x: b.x, y: b.y, text: "Bid 3", owner: p });
    add({ t: "hand", id: `hand${p}`, x: 0, y: 0, seat: p, n: 13 - p, ...(p === 1 ? { cards: ["c1"] } : {}) });
  }
  add({ t: "counter", id: "score0", x: 1380, y: 60, value: 0, step: 1, label: "Side A score" });
  add({ t: "card", id: "c1", x: 0, y: 0, face: "S1", back: "blue", up: false, parent: "hand1" });
  return objs;
}

function spadesGame(me, seats = [0, 1, 2, 3]) {
  return {
    name: "spades",
    title: "Spades",
    waiting: false,
    me,
    players: seats.map((seat, player) => ({ player, seat, name: ["Ana", "Ben", "Cy", "Dee"][player], team: player % 2, bot: false })),
    slots: SPADES.map(([x, y]) => [x, y]),
  };
}

test("seatView: player 0 and spectators see the table as laid out", () => {
  const objs = spadesObjects();
  assert.equal(seatView(objs, spadesGame(0)), objs);
  assert.equal(seatView(objs, spadesGame(null)), objs);
  assert.equal(seatView(objs, null), objs, "free play");
  assert.equal(seatView(objs, { ...spadesGame(1), waiting: true, players: [] }), objs, "a game not started");
});

test("seatView: each page finds its own zones in front of it, the others' round the table", () => {
  const objs = spadesObjects();
  const before = JSON.stringify([...objs.values()]);
  for (const me of [1, 2, 3]) {
    const view = seatView(objs, spadesGame(me));
    for (let p = 0; p < 4; p++) {
      const q = relative(p, me, 4);
      const trick = view.get(`trick${p}`);
      const where = objs.get(`trick${q}`);
      close(trick, where, `player ${p}'s trick zone for viewer ${me}`);
      assert.equal(trick.w, 110);
    }
    assert.equal(view.get("score0"), objs.get("score0"), "shared objects stay");
    assert.equal(view.get("hand2"), objs.get("hand2"), "hands are not on the table");
    assert.equal(view.get("c1"), objs.get("c1"));
  }
  assert.equal(JSON.stringify([...objs.values()]), before, "the server's objects are never changed");
});

test("seatView: owners are table seats, found through the game's players", () => {
  // Engine player 0 sits in seat 2, player 1 in seat 0 (e.g. seats taken out of order).
  const objs = new Map([
    [
      "meld",
      {
        t: "stack",
        id: "meld",
        x: 180,
        y: 250,
        w: 230,
        h: 150,
        cards: [],
        layout: "row",
        holder: true,
        label: "",
        owner: 0,
        z: 0,
        rot: 0,
        locked: true,
        v: 1,
      },
    ],
  ]);
  const game = {
    name: "gin_rummy",
    waiting: false,
    me: 0,
    players: [
      { player: 0, seat: 2, name: "A" },
      { player: 1, seat: 0, name: "B" },
    ],
    slots: [
      [800, 880],
      [800, 120],
    ],
  };
  // Table seat 0 is engine player 1, at the top; the viewer (player 0) sees it at the top too.
  assert.equal(seatView(objs, game), objs);
  const view = seatView(objs, { ...game, me: 1 });
  const m = view.get("meld");
  // Player 1's meld row, 505 to the left of the top place as laid out, now 505 to the viewer's
  // right of the bottom place, and as far in front of it as it was.
  close(m, { x: 800 + 505 - 115, y: 880 - 205 - 75 }, "turned half round");
});

test("handPlaces: the other players' hands at their places, facing the centre", () => {
  const objs = spadesObjects();
  const places = handPlaces(objs, spadesGame(1));
  assert.deepEqual(
    places.map((p) => [p.player, p.name, p.n]),
    [
      [0, "Ana", 13],
      [2, "Cy", 11],
      [3, "Dee", 10],
    ],
  );
  // Viewer 1 at the bottom: player 2 on the left, 3 at the top, 0 on the right.
  assert.deepEqual(
    places.map((p) => [p.x, p.y, p.rot]),
    [
      [1470, 500, 270],
      [130, 500, 90],
      [800, 120, 180],
    ],
  );
  const watching = handPlaces(objs, spadesGame(null));
  assert.deepEqual(
    watching.map((p) => [p.player, p.rot]),
    [
      [0, 0],
      [1, 90],
      [2, 180],
      [3, 270],
    ],
  );
  assert.deepEqual(handPlaces(objs, null), []);
});
