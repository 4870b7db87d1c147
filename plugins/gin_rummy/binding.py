"""Gin Rummy on the table: where the cards lie, and which drags are which engine actions.

Drags: top of the stock into your hand = draw from the stock; top of the discard pile into your
hand = draw it (or take the upcard on the first turn); a card from your hand onto the discard
pile = discard it; a card from your hand onto one of the knocker's melds = lay it off.
Reordering your own hand is cosmetic. Knock, Gin, Big Gin, passing the upcard, finishing the
lay-offs and the next hand are controls (buttons; knocks are grouped for the knock picker).
The two places: player 0 at the bottom, player 1 at the top; each page shows its own at the
bottom.
"""

from __future__ import annotations

from typing import Any

from plugins.base import Control, Cosmetic, Drop, Projection, Rejection, ZoneSpec
from plugins.cards import card_name
from plugins.gin_rummy.rules import ENGINE, GinRummy, GinState, current_melds
from plugins.layout import slots

CENTER_Y = 425.0
MELD_Y = (600.0, 250.0)  # the reveal rows: player 0's side at the bottom, player 1's at the top
SLOTS = slots(2)


class GinRummyBinding:
    info = ENGINE.info
    engine: GinRummy = ENGINE
    widgets = ("knock_picker",)

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
                zones.append(
                    ZoneSpec(
                        f"meld{i}",
                        f"Meld {i + 1}",
                        180.0 + 260 * i,
                        MELD_Y[k],
                        tuple(kmeld),
                        up=True,
                        layout="row",
                        w=230.0,
                        owner=k,
                        drop=True,
                    )
                )
            laid = {c for m in melds for c in m}
            deadwood = tuple(c for c in knock.deadwood if c not in laid)
            zones.append(
                ZoneSpec(
                    f"deadwood{k}",
                    "Deadwood",
                    1220.0,
                    MELD_Y[k],
                    deadwood,
                    up=True,
                    layout="row",
                    w=300.0,
                    owner=k,
                )
            )
            if knock.discard:
                over = state.phase != "layoff"
                zones.append(
                    ZoneSpec(
                        "knockdiscard", "Knock discard", 960.0, CENTER_Y, (knock.discard,), up=over
                    )
                )
            hands[k] = [c for c in hands[k] if c not in laid and c not in deadwood]
            d = 1 - k
            hands[d] = [c for c in hands[d] if c not in laid]
            if state.phase != "layoff" and state.history:
                reveal = state.history[-1].seats[d]
                shown: set[str] = set()
                for i, meld in enumerate(reveal.melds):
                    zones.append(
                        ZoneSpec(
                            f"dmeld{i}",
                            f"Defender meld {i + 1}",
                            180.0 + 260 * i,
                            MELD_Y[d],
                            tuple(meld),
                            up=True,
                            layout="row",
                            w=230.0,
                            owner=d,
                        )
                    )
                    shown.update(meld)
                rest = tuple(c for c in hands[d] if c not in shown)
                zones.append(
                    ZoneSpec(
                        f"deadwood{d}",
                        "Deadwood",
                        1220.0,
                        MELD_Y[d],
                        rest,
                        up=True,
                        layout="row",
                        w=300.0,
                        owner=d,
                    )
                )
                shown.update(rest)
                hands[d] = [c for c in hands[d] if c not in shown]
        return Projection(
            zones=tuple(zones),
            hands={s: tuple(h) for s, h in hands.items()},
            deal=state.hand_no,
            slots=SLOTS,
        )

    def interpret(self, state: GinState, drop: Drop) -> dict[str, Any] | Cosmetic | Rejection:
        if len(drop.cards) != 1:
            return Rejection("one_card", "In Gin Rummy cards move one at a time.")
        face = drop.cards[0]
        if drop.source == "hand" and drop.dest == "hand":
            return Cosmetic()
        if drop.dest == "hand" and drop.source == "stock":
            return {"type": "draw", "source": "stock"}
        if drop.dest == "hand" and drop.source == "discard":
            if state.phase == "upcard":
                return {"type": "take_upcard"}
            return {"type": "draw", "source": "discard"}
        if drop.source == "hand" and drop.dest == "discard":
            return {"type": "discard", "card": face}
        if drop.source == "hand" and drop.dest.startswith("meld") and drop.dest[4:].isdigit():
            return {"type": "lay_off", "card": face, "meld": int(drop.dest[4:])}
        return Rejection(
            "not_a_gin_move",
            "In Gin Rummy you draw from the stock or the discard "
            "pile into your hand, then discard one card onto the discard pile.",
        )

    def controls(
        self, state: GinState, player: int, legal: list[dict[str, Any]] | None = None
    ) -> list[Control]:
        out: list[Control] = []
        for action in legal if legal is not None else self.engine.legal_actions(state, player):
            kind = action["type"]
            card = action.get("card")
            if kind == "take_upcard":
                out.append(
                    Control(action, "Take the upcard", kind="drag", source="discard", dest="hand")
                )
            elif kind == "pass":
                out.append(Control(action, "Pass"))
            elif kind == "draw":
                src = action["source"]
                out.append(
                    Control(action, f"Draw from the {src}", kind="drag", source=src, dest="hand")
                )
            elif kind == "discard" and card is not None:
                out.append(
                    Control(
                        action,
                        f"Discard the {card_name(card)}",
                        kind="drag",
                        source="hand",
                        dest="discard",
                        cards=(card,),
                    )
                )
            elif kind == "knock" and card is not None:
                out.append(
                    Control(
                        action,
                        f"Knock, discarding the {card_name(card)}",
                        cards=(card,),
                        group="knock",
                    )
                )
            elif kind == "big_gin":
                out.append(Control(action, "Big Gin!"))
            elif kind == "lay_off" and card is not None:
                out.append(
                    Control(
                        action,
                        f"Lay off the {card_name(card)}",
                        kind="drag",
                        source="hand",
                        dest=f"meld{action['meld']}",
                        cards=(card,),
                    )
                )
            elif kind == "finish_layoff":
                out.append(Control(action, "Done laying off"))
            elif kind == "next_hand":
                out.append(Control(action, "Next hand"))
        return out

    def hint(self, state: GinState, player: int, view: dict[str, Any] | None = None) -> str | None:
        if view is None:
            view = self.engine.view(state, player)
        blocked = view.get("knock_blocked")
        return str(blocked) if blocked else None


BINDING = GinRummyBinding()
