"""Gin Rummy on the table: where the cards lie, and which drags are which engine actions.

Drags: top of the stock into your hand = draw from the stock; top of the discard pile into your
hand = draw it (or take the upcard on the first turn); a card from your hand onto the discard
pile = discard it; a card from your hand onto one of the knocker's melds = lay it off.
Reordering your own hand is cosmetic. Knock, Gin, Big Gin, passing the upcard, finishing the
lay-offs and the next hand are game commands (no drag).
"""

from __future__ import annotations

from typing import Any

from plugins.base import Cosmetic, MoveIntent, Projection, Rejection, ZoneSpec
from plugins.gin_rummy.bot import choose_action
from plugins.gin_rummy.rules import ENGINE, GinRummy, GinState, current_melds

CENTER_Y = 425.0
MELD_Y = (250.0, 600.0)  # the reveal rows: seat 1's side at the top, seat 0's at the bottom


class GinRummyBinding:
    info = ENGINE.info
    engine: GinRummy = ENGINE

    def project(self, state: GinState) -> Projection:
        knock = state.knock
        hands = {0: list(state.hands[0]), 1: list(state.hands[1])}
        zones = [
            ZoneSpec("stock", "Stock", 560.0, CENTER_Y, tuple(state.stock)),
            ZoneSpec("discard", "Discard", 760.0, CENTER_Y, tuple(state.discard), up=True),
        ]
        revealed = state.phase in ("layoff", "hand_over", "game_over") and knock is not None
        if revealed:
            assert knock is not None
            k = knock.knocker
            melds = current_melds(knock)
            for i, kmeld in enumerate(melds):
                zones.append(ZoneSpec(f"meld{i}", f"Meld {i + 1}", 180.0 + 260 * i,
                                      MELD_Y[k == 0], tuple(kmeld), up=True, layout="row",
                                      w=230.0))
            laid = {c for m in melds for c in m}
            deadwood = tuple(c for c in knock.deadwood if c not in laid)
            zones.append(ZoneSpec(f"deadwood{k}", "Deadwood", 1220.0, MELD_Y[k == 0],
                                  deadwood, up=True, layout="row", w=300.0))
            if knock.discard:
                over = state.phase != "layoff"
                zones.append(ZoneSpec("knockdiscard", "Knock discard", 960.0, CENTER_Y,
                                      (knock.discard,), up=over))
            hands[k] = [c for c in hands[k] if c not in laid and c not in deadwood]
            d = 1 - k
            hands[d] = [c for c in hands[d] if c not in laid]
            if state.phase != "layoff" and state.history:
                reveal = state.history[-1].seats[d]
                shown: set[str] = set()
                for i, meld in enumerate(reveal.melds):
                    zones.append(ZoneSpec(f"dmeld{i}", f"Defender meld {i + 1}", 180.0 + 260 * i,
                                          MELD_Y[d == 0], tuple(meld), up=True, layout="row",
                                          w=230.0))
                    shown.update(meld)
                rest = tuple(c for c in hands[d] if c not in shown)
                zones.append(ZoneSpec(f"deadwood{d}", "Deadwood", 1220.0, MELD_Y[d == 0],
                                      rest, up=True, layout="row", w=300.0))
                shown.update(rest)
                hands[d] = [c for c in hands[d] if c not in shown]
        return Projection(zones=tuple(zones), hands={s: tuple(h) for s, h in hands.items()},
                          deal=state.hand_no)

    def action_for_move(
        self, state: GinState, move: MoveIntent
    ) -> dict[str, Any] | Cosmetic | Rejection:
        mine = f"hand{move.seat}"
        if move.source == mine and move.dest == mine:
            return Cosmetic()
        if move.dest == mine and move.source == "stock":
            return {"type": "draw", "source": "stock"}
        if move.dest == mine and move.source == "discard":
            if state.phase == "upcard":
                return {"type": "take_upcard"}
            return {"type": "draw", "source": "discard"}
        if move.source == mine and move.dest == "discard":
            return {"type": "discard", "card": move.face}
        if move.source == mine and move.dest.startswith("meld") and move.dest[4:].isdigit():
            return {"type": "lay_off", "card": move.face, "meld": int(move.dest[4:])}
        return Rejection("not_a_gin_move", "In Gin Rummy you draw from the stock or the discard "
                         "pile into your hand, then discard one card onto the discard pile.")


    def bot_action(self, state: GinState, seat: int, rng: Any) -> dict[str, Any] | None:
        if state.phase in ("hand_over", "game_over"):
            return None
        return choose_action(self.engine, state, seat, rng)


BINDING = GinRummyBinding()
