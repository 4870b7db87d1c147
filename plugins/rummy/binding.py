"""Rummy on the table: the stock and discard pile in the middle, one shared meld area (melds
belong to nobody), each player's hand at their place.

Drags: the top of the stock or of the discard pile into your hand = draw; cards selected in
your hand dropped together on "New meld" = lay down that meld; one card onto a meld = lay it
off; a card onto the discard pile = discard it (the last card goes out face down). Reordering
your own hand is cosmetic. The next hand is a button.
"""

from __future__ import annotations

from typing import Any

from plugins.base import Control, Cosmetic, Drop, Projection, Rejection, ZoneSpec
from plugins.cards import card_name, card_names
from plugins.layout import CARD_H, Segment, flow, slots
from plugins.rummy.rules import ENGINE, Rummy, RummyState

NEW_MELD = "newmeld"
# The melds, under the stock row: four rows between the hands drawn at the sides (x 172 and
# 1428 at most), each meld as wide as its cards; when they fill up, every fan closes up.
MELD_ROWS: list[Segment] = [(465.0 + 148.0 * k, 240.0, 1360.0) for k in range(4)]


def meld_zone(i: int) -> str:
    return f"meld{i}"


class RummyBinding:
    info = ENGINE.info
    engine: Rummy = ENGINE
    widgets: tuple[str, ...] = ()

    def project(self, state: RummyState) -> Projection:
        zones = [
            ZoneSpec("stock", "Stock", 520.0, 230.0, tuple(state.stock)),
            ZoneSpec("discard", "Discard", 680.0, 230.0, tuple(state.discard), up=True, drop=True),
            ZoneSpec(NEW_MELD, "New meld", 860.0, 230.0, (), layout="row", w=230.0, drop=True),
        ]
        spots = flow([len(m) for m in state.melds], MELD_ROWS)
        for i, (meld, (x, y, w)) in enumerate(zip(state.melds, spots, strict=True)):
            zones.append(
                ZoneSpec(
                    meld_zone(i),
                    "",
                    x - w / 2,
                    y - CARD_H / 2,
                    tuple(meld),
                    up=True,
                    layout="row",
                    w=w,
                    h=CARD_H,
                    drop=True,
                )
            )
        return Projection(
            zones=tuple(zones),
            hands={p: tuple(h) for p, h in enumerate(state.hands)},
            deal=state.hand_no,
            slots=slots(len(state.hands)),
        )

    def interpret(self, state: RummyState, drop: Drop) -> dict[str, Any] | Cosmetic | Rejection:
        src, dest, cards = drop.source, drop.dest, drop.cards
        if src == "hand" and dest == "hand":
            return Cosmetic()
        if dest == "hand" and src in ("stock", "discard") and len(cards) == 1:
            return {"type": "draw", "source": src}
        if src == "hand" and dest == NEW_MELD:
            return {"type": "meld", "cards": list(cards)}
        if src == "hand" and dest.startswith("meld") and dest[4:].isdigit():
            if len(cards) != 1:
                return Rejection("one_card", "Lay off one card at a time.")
            return {"type": "lay_off", "card": cards[0], "meld": int(dest[4:])}
        if src == "hand" and dest == "discard" and len(cards) == 1:
            return {"type": "discard", "card": cards[0]}
        return Rejection(
            "not_a_rummy_move",
            "In Rummy you draw from the stock or the discard "
            "pile, lay down melds on 'New meld', lay off onto melds, and discard.",
        )

    def controls(
        self, state: RummyState, player: int, legal: list[dict[str, Any]] | None = None
    ) -> list[Control]:
        out: list[Control] = []
        for action in legal if legal is not None else self.engine.legal_actions(state, player):
            kind = action["type"]
            if kind == "draw":
                src = action["source"]
                out.append(
                    Control(action, f"Draw from the {src}", kind="drag", source=src, dest="hand")
                )
            elif kind == "meld":
                cards = tuple(action["cards"])
                out.append(
                    Control(
                        action,
                        f"Meld the {card_names(cards)}",
                        kind="drag",
                        source="hand",
                        dest=NEW_MELD,
                        cards=cards,
                    )
                )
            elif kind == "lay_off":
                card = action["card"]
                out.append(
                    Control(
                        action,
                        f"Lay off the {card_name(card)}",
                        kind="drag",
                        source="hand",
                        dest=meld_zone(action["meld"]),
                        cards=(card,),
                    )
                )
            elif kind == "discard":
                card = action["card"]
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
            elif kind == "next_hand":
                out.append(Control(action, "Next hand"))
        return out

    def hint(
        self, state: RummyState, player: int, view: dict[str, Any] | None = None
    ) -> str | None:
        return None


BINDING = RummyBinding()
