// A game's controls sorted for the page (src/controls.ts): widgets, buttons, prompts, drags,
// picks, the countdown, sorting a hand, and the words for who won.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  andList,
  directControl,
  dragFits,
  dragHints,
  dropTargets,
  handOrder,
  pickAction,
  reorderMoves,
  setRanks,
  sortControls,
  sortFaces,
  timerLeft,
  winnersText,
  questionText,
  yesText,
  tapDraw,
} from "../src/game/controls.ts";

const bid = (n) => ({ action: { type: "bid", bid: n }, label: n === 0 ? "Nil" : String(n), kind: "button", group: "bid" });
const button = (type, label) => ({ action: { type }, label, kind: "button" });
const drag = (type, source, dest, cards) => ({
  action: { type, ...(cards ? { card: cards[0] } : {}) },
  label: type,
  kind: "drag",
  source,
  dest,
  ...(cards ? { cards } : {}),
});

test("grouped controls go to the widget the game lists, else they are plain buttons", () => {
  const controls = [bid(0), bid(1), bid(2), button("look", "Look at my cards")];
  const withPad = sortControls(controls, ["bid_pad"]);
  assert.deepEqual(
    withPad.widgets.get("bid_pad").map((c) => c.label),
    ["Nil", "1", "2"],
  );
  assert.deepEqual(
    withPad.buttons.map((c) => c.label),
    ["Look at my cards"],
  );
  const without = sortControls(controls, []);
  assert.equal(without.widgets.size, 0);
  assert.deepEqual(
    without.buttons.map((c) => c.label),
    ["Nil", "1", "2", "Look at my cards"],
  );
  // A widget of another game does not take these.
  assert.deepEqual(sortControls(controls, ["knock_picker"]).buttons.length, 4);
});

test("prompts are grouped with their decline; picks and drags are apart", () => {
  const controls = [
    { action: { type: "buy" }, label: "Buy the 7 of hearts for 1 penny?", kind: "prompt", group: "buy" },
    drag("play", "hand", "trick0", ["S1"]),
    { action: { type: "pass_cards" }, label: "Pass these 2 cards", kind: "button", pick: 2 },
    { action: { type: "decline" }, label: "No thanks", kind: "button", group: "buy" },
    { action: { type: "other" }, label: "Another question?", kind: "prompt" },
    button("next_deal", "Next deal"),
  ];
  const s = sortControls(controls, []);
  assert.deepEqual(
    s.prompts.map((g) => g.map((c) => c.action.type)),
    [["buy", "decline"], ["other"]],
  );
  assert.deepEqual(
    s.picks.map((c) => c.action.type),
    ["pass_cards"],
  );
  assert.deepEqual(
    s.drags.map((c) => c.action.type),
    ["play"],
  );
  assert.deepEqual(
    s.buttons.map((c) => c.action.type),
    ["next_deal"],
  );
});

test("a drag fits the cards it lists, from its source; without cards, the top card", () => {
  const discard = drag("discard", "hand", "discard", ["H7"]);
  const draw = drag("draw", "stock", "hand");
  assert.ok(dragFits(discard, [{ face: "H7", source: "hand", top: true }]));
  assert.ok(!dragFits(discard, [{ face: "H8", source: "hand", top: true }]));
  assert.ok(!dragFits(discard, [{ face: "H7", source: "discard", top: true }]), "wrong place");
  assert.ok(!dragFits(discard, [{ source: "hand", top: true }]), "a card we can't see");
  assert.ok(dragFits(draw, [{ source: "stock", top: true }]));
  assert.ok(!dragFits(draw, [{ source: "stock", top: false }]), "not the top card");
  assert.ok(
    !dragFits(draw, [
      { source: "stock", top: true },
      { source: "stock", top: false },
    ]),
  );
  assert.ok(!dragFits(button("pass", "Pass"), [{ face: "H7", source: "hand", top: true }]));
  // A meld laid down: several cards together, each among the control's cards.
  const meld = drag("meld", "hand", "newmeld", ["H5", "H6", "H7"]);
  const cards = ["H5", "H6", "H7"].map((face) => ({ face, source: "hand", top: true }));
  assert.ok(dragFits(meld, cards));
  assert.ok(!dragFits(meld, [...cards, { face: "S2", source: "hand", top: true }]));
});

test("drop targets, the one move of a card, and what glows", () => {
  const controls = [
    drag("discard", "hand", "discard", ["H7", "S2"]),
    drag("lay_off", "hand", "meld0", ["H7"]),
    drag("draw", "stock", "hand"),
    button("pass", "Pass"),
  ];
  const h7 = { face: "H7", source: "hand", top: true };
  const s2 = { face: "S2", source: "hand", top: true };
  assert.deepEqual([...dropTargets(controls, [h7])].sort(), ["discard", "meld0"]);
  assert.deepEqual([...dropTargets(controls, [s2])], ["discard"]);
  assert.deepEqual([...dropTargets(controls, [{ face: "C4", source: "hand", top: true }])], []);
  assert.equal(directControl(controls, s2)?.action.type, "discard");
  assert.equal(directControl(controls, h7), null, "two moves: drag it");
  assert.equal(directControl(controls, { source: "stock", top: true })?.action.type, "draw");
  assert.equal(directControl(controls, { face: "C4", source: "hand", top: true }), null);
  const hints = dragHints(controls);
  assert.deepEqual([...hints.handFaces].sort(), ["H7", "S2"]);
  assert.deepEqual([...hints.zones].sort(), ["discard", "meld0", "stock"]);
  assert.equal(hints.toHand, true);
});

test("a pick control sends exactly its number of chosen cards", () => {
  const pass = { action: { type: "pass_cards" }, label: "Pass these 2 cards", kind: "button", pick: 2 };
  assert.equal(pickAction(pass, ["S2"]), null);
  assert.equal(pickAction(pass, ["S2", "S3", "S4"]), null);
  assert.equal(pickAction(pass, ["S2", "S2"]), null);
  assert.deepEqual(pickAction(pass, ["S2", "H9"]), { type: "pass_cards", cards: ["S2", "H9"] });
  assert.equal(pass.action.cards, undefined, "the control itself is left alone");
  assert.equal(pickAction(button("pass", "Pass"), []), null);
});

test("the countdown runs from 1 to 0 and stops there", () => {
  const timer = { ends: 1000, seconds: 10 };
  assert.deepEqual(timerLeft(timer, 990), { left: 10, frac: 1 });
  assert.deepEqual(timerLeft(timer, 997.5), { left: 2.5, frac: 0.25 });
  assert.deepEqual(timerLeft(timer, 1003), { left: 0, frac: 0 });
  assert.equal(timerLeft(null, 0), null);
  assert.equal(timerLeft({ ends: 1000, seconds: 4 }, 990).frac, 1, "a late page never shows more than full");
});

test("sorting a hand: melds first, then by suit and rank", () => {
  assert.deepEqual(sortFaces(["H1", "S13", "H12", "D2", "C10", "S1", "J1"], true), ["S13", "S1", "H12", "H1", "C10", "D2", "J1"]);
  assert.deepEqual(sortFaces(["H1", "H12"], false), ["H1", "H12"]);
  const hand = ["D9", "C3", "C4", "H1", "S5", "C5", "D1", "S1"];
  assert.deepEqual(
    handOrder(hand, [
      ["C3", "C4", "C5"],
      ["H1", "D1", "S1"],
    ]),
    ["C3", "C4", "C5", "H1", "D1", "S1", "S5", "D9"],
  );
  assert.deepEqual(handOrder(hand, [["C3", "C4", "C6"]]), ["S1", "S5", "H1", "C3", "C4", "C5", "D1", "D9"], "a stale meld is skipped");
  assert.deepEqual(handOrder(["H1", "H13"], null), ["H13", "H1"], "no melds: the ace high");
});

test("reorderMoves: applying the moves gives the wanted order", () => {
  let seed = 3;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let t = 0; t < 200; t++) {
    const n = 1 + Math.floor(rnd() * 13);
    const cur = Array.from({ length: n }, (_, i) => `c${i}`);
    const want = [...cur].sort(() => rnd() - 0.5);
    const moves = reorderMoves(cur, want);
    const got = [...cur];
    for (const [id, index] of moves) {
      got.splice(got.indexOf(id), 1);
      got.splice(index, 0, id);
    }
    assert.deepEqual(got, want);
    assert.ok(moves.length <= n);
  }
  assert.deepEqual(reorderMoves(["a", "b"], ["a", "b"]), [], "already in order: nothing to send");
});

test("who won, in words for this page", () => {
  const players = [
    { player: 0, seat: 0, name: "Ana", team: 0 },
    { player: 1, seat: 1, name: "Ben", team: 1 },
    { player: 2, seat: 2, name: "Cy", team: 0 },
    { player: 3, seat: 3, name: "Dee", team: 1 },
  ];
  assert.equal(winnersText([0, 2], players, 0), "You and Cy win");
  assert.equal(winnersText([0, 2], players, 2), "You and Ana win");
  assert.equal(winnersText([1, 3], players, 0), "Ben and Dee win");
  assert.equal(winnersText([1, 3], players, null), "Ben and Dee win");
  assert.equal(winnersText([1], players.slice(0, 2), 0), "Ben wins");
  assert.equal(winnersText([0], players.slice(0, 2), 0), "You win");
  assert.equal(winnersText([0, 1], players.slice(0, 2), 0), "A tie");
  assert.equal(andList(["A", "B", "C"]), "A, B and C");
});

test("a prompt reads as a question, and its yes button says the verb", () => {
  assert.equal(yesText("Buy the 7 of hearts for a penny"), "Buy");
  assert.equal(questionText("Buy the 7 of hearts for a penny"), "Buy the 7 of hearts for a penny?");
  assert.equal(questionText("Buy the 7 of hearts for 1 penny?"), "Buy the 7 of hearts for 1 penny?");
  assert.equal(yesText("Do you want the upcard?"), "Yes");
  assert.equal(yesText("7 of hearts?"), "Yes");
});

test("a set that could be two ranks is asked about: 2s and aces wild, all wild cards", () => {
  const round5 = [0, 2, 1];
  assert.deepEqual(setRanks(["H2", "S1", "J1"], round5), [1, 2]);
  assert.deepEqual(setRanks(["H2", "D2", "S1"], round5), [1, 2]);
  assert.deepEqual(setRanks(["H2", "H2", "S1"], round5), [1]); // two 2 of hearts: aces only
  assert.deepEqual(setRanks(["H9", "S9", "C2"], round5), [9]);
  assert.deepEqual(setRanks(["H2", "S1", "J1"], [0, 2]), [1]); // aces not wild: a set of aces
  assert.deepEqual(setRanks(["H2", "S1"], round5), []); // not a set
  assert.deepEqual(setRanks(["J1", "J2", "J1"], round5), []);
  assert.deepEqual(setRanks(["H2", "S1", "xyz"], round5), []);
});

test("a single tap draws from the stock only when drawing is all the stock's top card can do", () => {
  const draw = { action: { type: "draw", source: "stock" }, label: "Draw from the stock", kind: "drag", source: "stock", dest: "hand" };
  const take = { action: { type: "draw", source: "discard" }, label: "Take the discard", kind: "drag", source: "discard", dest: "hand" };
  const stock = { source: "stock", top: true };
  assert.equal(tapDraw([draw, take], stock), draw);
  assert.equal(tapDraw([take], stock), null, "no draw from the stock offered");
  assert.equal(tapDraw([draw], { ...stock, top: false }), null, "not the top card");
  assert.equal(tapDraw([take], { source: "discard", top: true, face: "H3" }), null, "a face-up discard is a choice: drag it");
  const elsewhere = { ...draw, dest: "meld0" };
  assert.equal(tapDraw([draw, elsewhere], stock), null, "two places to go");
  assert.equal(tapDraw([draw], { source: "hand", top: true, face: "H3" }), null);
});
