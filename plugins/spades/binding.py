"""Spades on the table: four places round the table, the trick in the middle, won tricks by
each player; drags and buttons mapped to engine actions. Bids, tricks taken and each side's bags
(rule 12) are no markers: the page shows them on each player's seat plate, from the game view
(``bids``, ``tricks_taken``, ``bags``), beside the player's name rather than loose on the table.

Drags: a card from your hand onto the middle (any ``trick<p>`` zone) = play it. Reordering your
own hand is cosmetic. Bids, looking at blind cards, passing 2 cards and the next deal are
controls (buttons; bids are grouped for the page's bid pad).
"""

from __future__ import annotations

import functools
from typing import Any

from plugins.base import Control, Cosmetic, Drop, Projection, Rejection, ZoneSpec
from plugins.cards import card_name
from plugins.layout import at, slots
from plugins.spades.rules import ENGINE, Spades, SpadesState

SLOTS = slots(4)
TRICK_REACH = 300.0  # how far from its place towards the middle a player's trick card lies
WON_SIDE = 330.0  # won tricks lie to the player's right


def _at(player: int, forward: float, side: float) -> tuple[float, float]:
    return at(SLOTS[player], forward, side)


# The projection's places are frozen and depend on a few values each: each one is
# built once per value and shared (a move changes two or three of them; the rest are the same
# objects as before, which makes the server's comparison with the last projection cheap).


@functools.cache
def _trick_zone(p: int, card: str | None) -> ZoneSpec:
    x, y = _at(p, TRICK_REACH, 0.0)
    faces = (card,) if card is not None else ()
    return ZoneSpec(f"trick{p}", "", x - 55, y - 75, faces, up=True, owner=p, drop=True)


@functools.lru_cache(maxsize=4096)
def _won_zone(p: int, cards: tuple[str, ...]) -> ZoneSpec:
    wx, wy = _at(p, 0.0, WON_SIDE)
    return ZoneSpec(f"won{p}", "Tricks", wx - 55, wy - 75, cards, owner=p)


class SpadesBinding:
    info = ENGINE.info
    engine: Spades = ENGINE
    widgets = ("bid_pad",)

    def project(self, state: SpadesState) -> Projection:
        trick = {((state.leader or 0) + i) % 4: c for i, c in enumerate(state.trick)}
        won: dict[int, list[str]] = {p: [] for p in range(4)}
        for t in state.tricks:
            won[t.winner].extend(t.cards)
        zones: list[ZoneSpec] = []
        for p in range(4):
            zones.append(_trick_zone(p, trick.get(p)))
            zones.append(_won_zone(p, tuple(won[p])))
        hands = {p: tuple(h) for p, h in enumerate(state.hands)}
        return Projection(zones=tuple(zones), hands=hands, deal=state.deal_no, slots=SLOTS)

    def interpret(self, state: SpadesState, drop: Drop) -> dict[str, Any] | Cosmetic | Rejection:
        if drop.source == "hand" and drop.dest == "hand":
            return Cosmetic()
        if drop.source == "hand" and drop.dest.startswith("trick") and len(drop.cards) == 1:
            return {"type": "play", "card": drop.cards[0]}
        if len(drop.cards) > 1:
            return Rejection("one_card", "In Spades you play one card at a time.")
        return Rejection(
            "not_a_spades_move",
            "In Spades you play a card by dragging it from your hand to the middle of the table.",
        )

    def controls(
        self, state: SpadesState, player: int, legal: list[dict[str, Any]] | None = None
    ) -> list[Control]:
        out: list[Control] = []
        for action in legal if legal is not None else self.engine.legal_actions(state, player):
            kind = action["type"]
            if kind == "bid":
                bid = action["bid"]
                label = ("Blind nil" if action.get("blind") else "Nil") if bid == 0 else str(bid)
                out.append(Control(action, label, group="bid"))
            elif kind == "play":
                card = action["card"]
                out.append(
                    Control(
                        action,
                        f"Play the {card_name(card)}",
                        kind="drag",
                        source="hand",
                        dest=f"trick{player}",
                        cards=(card,),
                    )
                )
            elif kind == "look":
                out.append(Control(action, "Look at my cards"))
            elif kind == "pass_cards":
                if not any(c.action["type"] == "pass_cards" for c in out):
                    out.append(Control({"type": "pass_cards"}, "Pass these 2 cards", pick=2))
            elif kind == "next_deal":
                out.append(Control(action, "Next deal"))
        return out

    def hint(
        self, state: SpadesState, player: int, view: dict[str, Any] | None = None
    ) -> str | None:
        return None


BINDING = SpadesBinding()
