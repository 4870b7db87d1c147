// Seat plates (src/game/plates.ts): what each plate shows, read from the game view, and where it
// goes: inside the table, clear of every zone, hand and other plate, for 2, 3 and 4 players on the
// landscape table and on a phone's portrait one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fanBox, gameStats, obstacleBoxes, placeFrames, placePlates, plateInfos } from "../src/game/plates.ts";
import { handPlaces, portraitFrame, seatView } from "../src/table/seating.ts";

const SLOTS = {
  2: [
    [800, 880, 0, -1],
    [800, 120, 0, 1],
  ],
  3: [
    [800, 880, 0, -1],
    [130, 500, 1, 0],
    [1470, 500, -1, 0],
  ],
  4: [
    [800, 880, 0, -1],
    [130, 500, 1, 0],
    [800, 120, 0, 1],
    [1470, 500, -1, 0],
  ],
};

function spadesGame(me = 1) {
  return {
    name: "spades",
    waiting: false,
    me,
    to_act: [2],
    timer: null,
    outcome: null,
    scoreboard: null,
    players: [0, 1, 2, 3].map((p) => ({ player: p, seat: p, name: ["Ana", "Ben", "Cy", "Dee"][p], team: p % 2, bot: p >= 2 })),
    slots: SLOTS[4],
    view: {
      teams: [
        [0, 2],
        [1, 3],
      ],
      bids: [3, 0, null, 4],
      blind: [false, false, false, false],
      tricks_taken: [1, 0, 2, 0],
      bags: [2, 5],
      hand_counts: [12, 12, 11, 12],
    },
  };
}

test("a Spades plate shows the bid, the tricks taken and the side's bags", () => {
  const g = spadesGame();
  assert.deepEqual(
    gameStats(g, 0).map((s) => s.text),
    ["Bid 3", "Took 1", "Bags 2"],
  );
  assert.deepEqual(
    gameStats(g, 1).map((s) => s.text),
    ["Bid Nil", "Took 0", "Bags 5"],
  );
  assert.deepEqual(
    gameStats(g, 2).map((s) => s.text),
    ["Bid –", "Took 2", "Bags 2"],
  );
});

test("Pennies shows pennies and score; Gin and Rummy the score", () => {
  const pennies = { name: "pennies", players: [{}, {}, {}], view: { pennies: [9, 12, 3], scores: { totals: [40, 5, 0] } } };
  assert.deepEqual(
    gameStats(pennies, 1).map((s) => s.text),
    ["Pennies 12", "Score 5"],
  );
  const gin = { name: "gin_rummy", players: [{}, {}], view: { scores: [25, 61] } };
  assert.deepEqual(
    gameStats(gin, 1).map((s) => [s.key, s.text]),
    [["score", "Score 61"]],
  );
});

test("at game over a plate shows the final score, bonuses included, as the sheet does", () => {
  // Gin's view keeps the running points (121, 38); the outcome adds the game and box bonuses.
  const gin = { name: "gin_rummy", players: [{}, {}], view: { scores: [121, 38] }, outcome: { winners: [0], scores: [371, 188] } };
  assert.deepEqual(
    [0, 1].map((p) => gameStats(gin, p).map((s) => s.text)),
    [["Score 371"], ["Score 188"]],
  );
  const pennies = {
    name: "pennies",
    players: [{}, {}],
    view: { pennies: [3, 0], scores: { totals: [80, 140] } },
    outcome: { winners: [0], scores: [80, 140] },
  };
  assert.deepEqual(
    gameStats(pennies, 1).map((s) => s.text),
    ["Pennies 0", "Score 140"],
  );
});

test("plates: your own at the bottom, the one to act marked, a computer's level when sent", () => {
  const g = spadesGame(1);
  g.players[2].level = "hard";
  g.timer = { ends: 1e12, seconds: 1 };
  const infos = plateInfos(g, new Map());
  assert.deepEqual(
    infos.map((i) => [i.name, i.place, i.you, i.cards]),
    [
      ["Ana", 3, false, 12],
      ["Ben", 0, true, 12],
      ["Cy", 1, false, 11],
      ["Dee", 2, false, 12],
    ],
  );
  const cy = infos[2];
  assert.ok(cy.acting && cy.thinking && cy.timed && cy.bot);
  assert.equal(cy.level, "hard");
  assert.equal(infos[3].level, null, "no level sent");
  assert.ok(!infos[0].acting && !infos[1].acting);
  // A spectator sees from player 0's place; nobody is "you".
  const watching = plateInfos({ ...g, me: null }, new Map());
  assert.deepEqual(
    watching.map((i) => [i.place, i.you]),
    [
      [0, false],
      [1, false],
      [2, false],
      [3, false],
    ],
  );
  assert.deepEqual(plateInfos({ ...g, waiting: true, players: [] }, new Map()), []);
});

const crosses = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** A table as a game lays it out: a zone in front of each place and one to its right. */
function tableFor(n) {
  const objs = new Map();
  SLOTS[n].forEach(([x, y, fx, fy], p) => {
    const tx = x + 300 * fx;
    const ty = y + 300 * fy;
    objs.set(`trick${p}`, {
      id: `trick${p}`,
      t: "stack",
      x: tx - 55,
      y: ty - 75,
      w: 110,
      h: 150,
      cards: [],
      label: "",
      layout: "pile",
      owner: p,
      z: 1,
    });
    const wx = x - 330 * fy;
    const wy = y + 330 * fx;
    objs.set(`won${p}`, {
      id: `won${p}`,
      t: "stack",
      x: wx - 55,
      y: wy - 75,
      w: 110,
      h: 150,
      cards: [],
      label: "Tricks",
      layout: "pile",
      owner: p,
      z: 1,
    });
    objs.set(`hand${p}`, { id: `hand${p}`, t: "hand", seat: p, n: 13, x: 0, y: 0, z: 0 });
  });
  return objs;
}

function gameFor(n, me) {
  return {
    name: "rummy",
    waiting: false,
    me,
    to_act: [0],
    timer: null,
    outcome: null,
    scoreboard: null,
    players: Array.from({ length: n }, (_, p) => ({ player: p, seat: p, name: `P${p}`, team: p, bot: p > 0 })),
    slots: SLOTS[n],
    view: { scores: Array(n).fill(0), hand_counts: Array(n).fill(13) },
  };
}

for (const n of [2, 3, 4])
  for (const [where, table, size] of [
    ["landscape", null, { w: 1600, h: 1000 }],
    ["portrait", { w: 900, h: 1270 }, { w: 900, h: 1270 }],
  ])
    for (const me of [0, 1, null])
      test(`${n} plates on the ${where} table (viewer ${me}) lie inside it, clear of zones, hands and each other`, () => {
        const game = gameFor(n, me);
        const objs = seatView(tableFor(n), game, table);
        const fans = new Map(handPlaces(objs, game, table).map((f) => [f.player, fanBox(f.x, f.y, f.n, f.rot)]));
        const infos = plateInfos(game, objs);
        // A phone's plates are larger in table units (drawn at a readable size on a small table).
        const [w, h] = where === "portrait" ? [300, 150] : [230, 100];
        const asks = infos.map((i) => ({ place: i.place, w, h, fan: fans.get(i.player) ?? null }));
        const obstacles = obstacleBoxes(objs);
        const boxes = placePlates(placeFrames(game, table), asks, obstacles, size);
        boxes.forEach((b, i) => {
          assert.ok(b.x >= 0 && b.y >= 0 && b.x + b.w <= size.w && b.y + b.h <= size.h, `plate ${i} inside: ${JSON.stringify(b)}`);
          for (const o of [...obstacles, ...fans.values()]) assert.ok(!crosses(b, o), `plate ${i} clear of ${JSON.stringify(o)}`);
          boxes.forEach((c, j) => assert.ok(i === j || !crosses(b, c), `plates ${i} and ${j} apart`));
        });
        // Each plate near its own place: closer to it than to any other place.
        const places = placeFrames(game, table);
        infos.forEach((info, i) => {
          const c = { x: boxes[i].x + w / 2, y: boxes[i].y + h / 2 };
          const d = places.map((f) => Math.hypot(f.x - c.x, f.y - c.y));
          assert.equal(d.indexOf(Math.min(...d)), info.place, `plate ${i} by its place`);
        });
      });

test("placeFrames turns a phone's places onto its portrait table", () => {
  const g = gameFor(4, 0);
  const t = { w: 900, h: 1270 };
  assert.deepEqual(placeFrames(g, t)[2], portraitFrame({ x: 800, y: 120, fx: 0, fy: 1 }, t));
  assert.deepEqual(placeFrames({ ...g, waiting: true }, t), []);
});
