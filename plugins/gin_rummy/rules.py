"""The pure Gin Rummy rules engine: ``GinRummy`` implements ``plugins.base.RulesEngine``.

The engine has no I/O and no global randomness: each hand is shuffled with
``random.Random(f"gin_rummy:{seed}:{hand_no}")`` and the first dealer is drawn from
``random.Random(f"gin_rummy:{seed}:first_dealer")``, so a game is reproducible from its seed.
States are frozen ``msgspec`` structs; ``apply`` returns a new state (or a :class:`Rejection`)
and never mutates its input. Rule numbers refer to ``shared/rules/gin_rummy.md``.

Seats are 0 and 1. Card codes are described in :mod:`plugins.gin_rummy.melds` (``H1`` = ace of
hearts, ``S12`` = queen of spades).

Actions (plain dicts with a ``"type"`` key)
-------------------------------------------
``{"type": "take_upcard"}``
    First turn only (rule 5): take the face-up card offered, then discard.
``{"type": "pass"}``
    First turn only: refuse the upcard. Non-dealer first, then dealer; if both pass the
    non-dealer must draw from the stock.
``{"type": "draw", "source": "stock" | "discard"}``
    Draw the top card of the stock or of the discard pile (rule 6).
``{"type": "discard", "card": "H5"}``
    End the turn by discarding a card (not one just taken from the discard pile).
``{"type": "knock", "card": "H5"}``
    Discard ``H5`` face down and knock (rule 7); the 10 cards left are arranged with
    :func:`best_arrangement` and their deadwood must be at most the knock limit. With 0
    deadwood this is Gin (rule 8) and is scored at once.
``{"type": "big_gin"}``
    All 11 cards (after drawing) form melds: declare Big Gin without discarding; scored at once.
``{"type": "lay_off", "card": "H4", "meld": 0}``
    Defender only, after a (non-gin) knock: put a card from the hand onto the knocker's meld
    number ``meld`` (an index into the knocker's melds as shown in the view; runs extend at
    either end, sets complete to 4). Repeatable; a laid-off card can make room for the next.
``{"type": "finish_layoff"}``
    Defender is done laying off; the remaining cards are arranged with
    :func:`best_arrangement` and the hand is scored.
``{"type": "next_hand"}``
    Either seat, after a hand ended, if the game is not over: deal the next hand.

Phases: ``upcard`` (first-turn offer), ``draw``, ``discard`` (holding 11 cards), ``layoff``
(defender's turn after a knock), ``hand_over``, ``game_over``.

Rejection codes
---------------
``bad_seat``, ``bad_action`` (not a dict, no type, bad draw source), ``unknown_action``,
``game_over``, ``wrong_phase``, ``not_your_turn``, ``bad_card`` (not a card code),
``not_in_hand``, ``discard_taken_card``, ``upcard_refused`` (drawing the upcard after both
players passed it), ``empty_discard``, ``empty_stock``, ``deadwood_too_high``, ``not_big_gin``,
``knocker_cannot_lay_off``, ``bad_meld`` (no such meld index), ``cannot_lay_off``.

State (``GinState``; ``dump`` gives the same keys as plain data)
-----------------------------------------------------------------
``options`` {knock_limit, gin_bonus, big_gin_bonus, undercut_bonus, target}, ``seed``,
``hand_no`` (1-based), ``dealer``, ``phase``, ``turn`` (seat to act, ``None`` when the hand is
over), ``hands`` (two sorted card lists), ``stock`` (top is the last element), ``discard``
(top is the last element), ``passes`` (upcard passes), ``stock_only`` (both passed: the first
draw must be from the stock), ``drawn`` / ``drawn_from`` (card drawn this turn and its source:
``upcard``, ``discard`` or ``stock``), ``knock`` (``None`` or {knocker, kind, discard, melds,
deadwood, points, layoffs: [{card, meld}]}; kept until the next deal), ``scores`` (running hand
points), ``hands_won``, ``draws``, ``history`` (one ``HandResult`` per finished hand),
``game_result`` (``None`` until the game ends), ``last_move`` ({seat, type, source, card} with
only public information).

``HandResult``: hand_no, dealer, kind (``knock``, ``gin``, ``big_gin``, ``undercut``,
``draw``), knocker, winner, points (to the winner), bonus (gin/big gin/undercut bonus part),
knock_discard, layoffs, seats (per seat: melds, deadwood, points - the hand-end reveal).

``GameResult``: winner (highest grand total, ``None`` on a tie), reached_target, shutout,
hands_won, hand_points (as played), counted_hand_points (doubled for a shutout), game_bonus,
line_bonus, totals - each a two-element list indexed by seat.

View (``view(state, seat)``; ``seat=None`` for a spectator)
-----------------------------------------------------------
``game``, ``seat``, ``hand_no``, ``dealer``, ``phase``, ``turn``, ``options``, ``hand`` (own
cards, ``None`` for spectators), ``arrangement`` (own best melds/deadwood/points or ``None``),
``hand_counts``, ``stock_count``, ``discard_top``, ``discard_pile`` (the whole pile is public),
``upcard_passes``, ``stock_only``, ``drawn`` (the card drawn this turn: shown to everyone if it
came from the discard pile, otherwise only to the drawer), ``drawn_from``, ``knock`` (``None``
or {knocker, kind, melds: the knocker's melds with lay-offs applied - the indices ``lay_off``
uses, laid_out: the melds as knocked, deadwood, points, layoffs, discard: the face-down
discard, shown only to the knocker until the hand ends}), ``scores``, ``hands_won``, ``draws``,
``last_move``, ``last_result`` (the full reveal of the last finished hand: both seats' melds,
deadwood and points, the lay-offs, the knock discard), ``history`` (one summary per finished
hand: hand_no, kind, winner, points), ``game_result`` (the breakdown once the game is over).
The opponent's hand and the stock appear only as counts.

Interpretations
---------------
* Rule 4/10 "the same dealer rule": the deal alternates after every hand, draws included.
* Rule 5: taking the upcard is that turn's draw, so the upcard may not be discarded at once.
* Rule 7: a knock's counted deadwood is that of the best arrangement of the 10 cards left
  after the chosen discard; the knocker's melds are that arrangement (when several
  arrangements tie, the engine's deterministic choice is used). The knock discard may not be
  a card just taken from the discard pile either.
* Rule 10: the hand is a draw as soon as a player discards without knocking while the stock
  holds 2 cards or fewer; the player who drew down to 2 may still knock or declare Big Gin.
* Rule 9: lay-offs are explicit; the defender may lay off any card of the hand (even one from
  the defender's own meld) onto the knocker's melds as extended so far.
* Rules 14-16: the game bonus (100) and the line bonus (25 a hand) are fixed; the shutout
  doubles the hand points of the player who reached the target when the opponent won no hand
  and no hand was drawn. A tie in grand totals has ``winner`` ``None``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import Struct
from msgspec.structs import replace

from plugins.base import GameInfo, OptionSpec, Rejection, RulesEngine
from plugins.gin_rummy.melds import (
    Arrangement,
    best_arrangement,
    can_lay_off,
    card_name,
    deadwood_points,
    deadwood_value,
    extend_meld,
    full_deck,
    is_card,
    sort_cards,
)

UPCARD = "upcard"
DRAW = "draw"
DISCARD = "discard"
LAYOFF = "layoff"
HAND_OVER = "hand_over"
GAME_OVER = "game_over"

GAME_BONUS = 100
LINE_BONUS = 25
DRAW_AT_STOCK = 2


class Options(Struct, frozen=True):
    """Room options, resolved against :attr:`GinRummy.info`."""

    knock_limit: int = 10
    gin_bonus: int = 25
    big_gin_bonus: int = 31
    undercut_bonus: int = 25
    target: int = 100


class Layoff(Struct, frozen=True):
    """One card the defender laid off onto the knocker's meld number ``meld``."""

    card: str
    meld: int


class Knock(Struct, frozen=True):
    """A knock, Gin or Big Gin on the table: the knocker's laid-out cards and the lay-offs."""

    knocker: int
    kind: str  # "knock" | "gin" | "big_gin"
    discard: str | None
    melds: tuple[tuple[str, ...], ...]
    deadwood: tuple[str, ...]
    points: int
    layoffs: tuple[Layoff, ...] = ()


class SeatReveal(Struct, frozen=True):
    """One seat's cards at the end of a hand."""

    melds: tuple[tuple[str, ...], ...]
    deadwood: tuple[str, ...]
    points: int


class HandResult(Struct, frozen=True):
    """How a hand ended and what it scored."""

    hand_no: int
    dealer: int
    kind: str  # "knock" | "gin" | "big_gin" | "undercut" | "draw"
    knocker: int | None
    winner: int | None
    points: int
    bonus: int
    knock_discard: str | None
    layoffs: tuple[Layoff, ...]
    seats: tuple[SeatReveal, SeatReveal]


class GameResult(Struct, frozen=True):
    """The final breakdown (rules 14-16); every pair is indexed by seat."""

    winner: int | None
    reached_target: int
    shutout: bool
    hands_won: tuple[int, int]
    hand_points: tuple[int, int]
    counted_hand_points: tuple[int, int]
    game_bonus: tuple[int, int]
    line_bonus: tuple[int, int]
    totals: tuple[int, int]


class LastMove(Struct, frozen=True):
    """The last move, holding only what every seat may know."""

    seat: int
    type: str
    source: str | None = None
    card: str | None = None


class GinState(Struct, frozen=True):
    """The whole game. See the module docstring for the meaning of every field."""

    options: Options
    seed: int
    hand_no: int
    dealer: int
    phase: str
    turn: int | None
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    stock: tuple[str, ...]
    discard: tuple[str, ...]
    passes: int = 0
    stock_only: bool = False
    drawn: str | None = None
    drawn_from: str | None = None
    knock: Knock | None = None
    scores: tuple[int, int] = (0, 0)
    hands_won: tuple[int, int] = (0, 0)
    draws: int = 0
    history: tuple[HandResult, ...] = ()
    game_result: GameResult | None = None
    last_move: LastMove | None = None


Handler = Callable[[GinState, int, dict[str, Any]], "GinState | Rejection"]

_ACTIONS = (
    "take_upcard",
    "pass",
    "draw",
    "discard",
    "knock",
    "big_gin",
    "lay_off",
    "finish_layoff",
    "next_hand",
)
_ALLOWED: dict[str, frozenset[str]] = {
    UPCARD: frozenset({"take_upcard", "pass"}),
    DRAW: frozenset({"draw"}),
    DISCARD: frozenset({"discard", "knock", "big_gin"}),
    LAYOFF: frozenset({"lay_off", "finish_layoff"}),
    HAND_OVER: frozenset({"next_hand"}),
    GAME_OVER: frozenset(),
}
_HINT: dict[str, str] = {
    UPCARD: "It's the first turn: take the face-up card or pass.",
    DRAW: "You need to draw first, from the stock or the discard pile.",
    DISCARD: "You have already drawn; now discard, knock or declare Big Gin.",
    LAYOFF: "The hand was knocked: lay off cards onto the knocker's melds, or finish.",
    HAND_OVER: "This hand is over; start the next hand to keep playing.",
    GAME_OVER: "The game is over.",
}


def _other(seat: int) -> int:
    return 1 - seat


def _is_seat(seat: object) -> bool:
    return isinstance(seat, int) and not isinstance(seat, bool) and seat in (0, 1)


def _pair(seat: int, value: Any, other: Any) -> tuple[Any, Any]:
    return (value, other) if seat == 0 else (other, value)


def _set_seat(pair: tuple[Any, Any], seat: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def _melds_tuple(melds: list[list[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(m) for m in melds)


def _reveal(arr: Arrangement) -> SeatReveal:
    return SeatReveal(
        melds=_melds_tuple(arr.melds), deadwood=tuple(arr.deadwood), points=arr.points
    )


def current_melds(knock: Knock) -> list[list[str]]:
    """The knocker's melds with every lay-off so far applied, in the original meld order."""
    melds = [list(m) for m in knock.melds]
    for lo in knock.layoffs:
        melds[lo.meld] = extend_meld(melds[lo.meld], lo.card)
    return melds


class GinRummy:
    """Two-player Gin Rummy (rules 1-16 of ``shared/rules/gin_rummy.md``)."""

    info = GameInfo(
        name="gin_rummy",
        title="Gin Rummy",
        min_players=2,
        max_players=2,
        options=(
            OptionSpec(
                "knock_limit",
                10,
                tuple(range(0, 11)),
                "Most deadwood a player may knock with (0 allows only Gin).",
            ),
            OptionSpec("gin_bonus", 25, (20, 25), "Bonus for going Gin."),
            OptionSpec("big_gin_bonus", 31, (25, 31, 50), "Bonus for Big Gin (11 cards melded)."),
            OptionSpec("undercut_bonus", 25, (10, 20, 25), "Bonus to a defender who undercuts."),
            OptionSpec("target", 100, (100, 250, 500), "Points that end the game."),
        ),
    )

    def __init__(self) -> None:
        self._handlers: dict[str, Handler] = {
            "take_upcard": self._do_take_upcard,
            "pass": self._do_pass,
            "draw": self._do_draw,
            "discard": self._do_discard,
            "knock": self._do_knock,
            "big_gin": self._do_big_gin,
            "lay_off": self._do_lay_off,
            "finish_layoff": self._do_finish_layoff,
            "next_hand": self._do_next_hand,
        }

    # ----------------------------------------------------------------- setup

    def new_game(self, players: int, options: dict[str, Any], seed: int) -> GinState:
        """A fresh game: dealer drawn from ``seed``, first hand dealt, upcard on offer."""
        if players != 2:
            raise ValueError("Gin Rummy is played by exactly 2 players.")
        resolved = self.info.resolve_options(options)
        if isinstance(resolved, Rejection):
            raise ValueError(resolved.message)
        opts = Options(**resolved)
        dealer = random.Random(f"gin_rummy:{seed}:first_dealer").randrange(2)
        return self._deal(opts, seed, 1, dealer)

    def _deal(self, options: Options, seed: int, hand_no: int, dealer: int) -> GinState:
        deck = full_deck()
        random.Random(f"gin_rummy:{seed}:{hand_no}").shuffle(deck)
        hands: tuple[list[str], list[str]] = ([], [])
        first = _other(dealer)
        for i in range(20):
            hands[(first + i) % 2].append(deck.pop())
        upcard = deck.pop()
        return GinState(
            options=options,
            seed=seed,
            hand_no=hand_no,
            dealer=dealer,
            phase=UPCARD,
            turn=first,
            hands=(tuple(sort_cards(hands[0])), tuple(sort_cards(hands[1]))),
            stock=tuple(deck),
            discard=(upcard,),
        )

    # ------------------------------------------------------------- queries

    def legal_actions(self, state: GinState, seat: int) -> list[dict[str, Any]]:
        """Every action ``seat`` may make now; each one applies without a rejection."""
        if not _is_seat(seat):
            return []
        phase = state.phase
        if phase == GAME_OVER:
            return []
        if phase == HAND_OVER:
            return [{"type": "next_hand"}]
        hand = state.hands[seat]
        if phase == LAYOFF:
            assert state.knock is not None
            if seat == state.knock.knocker:
                return []
            melds = current_melds(state.knock)
            out: list[dict[str, Any]] = [
                {"type": "lay_off", "card": c, "meld": j}
                for c in hand
                for j, m in enumerate(melds)
                if can_lay_off(m, c)
            ]
            out.append({"type": "finish_layoff"})
            return out
        if seat != state.turn:
            return []
        if phase == UPCARD:
            return [{"type": "take_upcard"}, {"type": "pass"}]
        if phase == DRAW:
            out = []
            if state.stock:
                out.append({"type": "draw", "source": "stock"})
            if state.discard and not state.stock_only:
                out.append({"type": "draw", "source": "discard"})
            return out
        # DISCARD: 11 cards in hand.
        taken = self._taken(state)
        out = [{"type": "discard", "card": c} for c in hand if c != taken]
        whole = best_arrangement(hand)
        limit = state.options.knock_limit
        dead = set(whole.deadwood)
        for c in hand:
            if c == taken:
                continue
            # Removing c keeps every meld of ``whole`` if c is deadwood; otherwise the melds
            # can only shrink, so ``whole.points - value(c)`` is a lower bound.
            points = whole.points - deadwood_value(c)
            if c not in dead and points <= limit:
                points = deadwood_points(x for x in hand if x != c)
            if points <= limit:
                out.append({"type": "knock", "card": c})
        if whole.points == 0:
            out.append({"type": "big_gin"})
        return out

    @staticmethod
    def _taken(state: GinState) -> str | None:
        """The card taken from the discard pile this turn, which may not be discarded."""
        return state.drawn if state.drawn_from in ("upcard", "discard") else None

    def view(self, state: GinState, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (``None``: a spectator) may see; the module docstring lists the keys."""
        own = seat if seat is not None and _is_seat(seat) else None
        ended = state.phase in (HAND_OVER, GAME_OVER)
        drawn = None
        if state.drawn is not None and (state.drawn_from != "stock" or own == state.turn):
            drawn = state.drawn
        knock_view = None
        if state.knock is not None:
            k = state.knock
            knock_view = {
                "knocker": k.knocker,
                "kind": k.kind,
                "melds": current_melds(k),
                "laid_out": [list(m) for m in k.melds],
                "deadwood": list(k.deadwood),
                "points": k.points,
                "layoffs": [{"card": lo.card, "meld": lo.meld} for lo in k.layoffs],
                "discard": k.discard if (ended or own == k.knocker) else None,
            }
        arrangement = None
        if own is not None:
            arr = best_arrangement(state.hands[own])
            arrangement = {"melds": arr.melds, "deadwood": arr.deadwood, "points": arr.points}
        return {
            "game": self.info.name,
            "seat": own,
            "hand_no": state.hand_no,
            "dealer": state.dealer,
            "phase": state.phase,
            "turn": state.turn,
            "options": msgspec.structs.asdict(state.options),
            "hand": list(state.hands[own]) if own is not None else None,
            "arrangement": arrangement,
            "hand_counts": [len(state.hands[0]), len(state.hands[1])],
            "stock_count": len(state.stock),
            "discard_top": state.discard[-1] if state.discard else None,
            "discard_pile": list(state.discard),
            "upcard_passes": state.passes,
            "stock_only": state.stock_only,
            "drawn": drawn,
            "drawn_from": state.drawn_from,
            "knock": knock_view,
            "scores": list(state.scores),
            "hands_won": list(state.hands_won),
            "draws": state.draws,
            "last_move": msgspec.structs.asdict(state.last_move) if state.last_move else None,
            "last_result": _plain(state.history[-1]) if state.history else None,
            "history": [
                {"hand_no": h.hand_no, "kind": h.kind, "winner": h.winner, "points": h.points}
                for h in state.history
            ],
            "game_result": _plain(state.game_result) if state.game_result else None,
        }

    def dump(self, state: GinState) -> dict[str, Any]:
        """The state as plain data (str/int/bool/list/dict/None), for msgpack or JSON."""
        data = _plain(state)
        assert isinstance(data, dict)
        return data

    def load(self, data: dict[str, Any]) -> GinState:
        """Rebuild a state from :meth:`dump` output."""
        return msgspec.convert(data, GinState)

    # ---------------------------------------------------------------- apply

    def apply(self, state: GinState, seat: int, action: dict[str, Any]) -> GinState | Rejection:
        """Apply ``action`` by ``seat``: a new state, or a :class:`Rejection` saying why not."""
        if not _is_seat(seat):
            return Rejection("bad_seat", "Only the two players (seats 0 and 1) can make moves.")
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            return Rejection(
                "bad_action", 'A move must have a "type", such as "draw" or "discard".'
            )
        kind = action["type"]
        if kind not in _ACTIONS:
            return Rejection("unknown_action", f"Gin Rummy has no move called {kind!r}.")
        phase = state.phase
        if phase == GAME_OVER:
            return Rejection("game_over", "The game is over; no more moves can be made.")
        if phase == HAND_OVER:
            if kind != "next_hand":
                return Rejection("wrong_phase", _HINT[HAND_OVER])
        elif kind == "next_hand":
            return Rejection("wrong_phase", "This hand is still being played.")
        elif phase == LAYOFF:
            assert state.knock is not None
            if seat == state.knock.knocker:
                if kind == "lay_off":
                    return Rejection("knocker_cannot_lay_off", "The knocker never lays off cards.")
                return Rejection(
                    "not_your_turn", "It's not your turn: your opponent is laying off cards."
                )
        elif seat != state.turn:
            return Rejection("not_your_turn", "It's not your turn.")
        if kind not in _ALLOWED[phase]:
            if kind == "take_upcard" and phase == DRAW and state.stock_only:
                return _upcard_refused()
            return Rejection("wrong_phase", _HINT[phase])
        return self._handlers[kind](state, seat, action)

    # Each handler runs only in its phase, for the seat to act.

    def _do_take_upcard(self, state: GinState, seat: int, action: dict[str, Any]) -> GinState:
        card = state.discard[-1]
        return replace(
            state,
            phase=DISCARD,
            hands=_set_seat(state.hands, seat, tuple(sort_cards([*state.hands[seat], card]))),
            discard=state.discard[:-1],
            drawn=card,
            drawn_from="upcard",
            last_move=LastMove(seat, "take_upcard", "discard", card),
        )

    def _do_pass(self, state: GinState, seat: int, action: dict[str, Any]) -> GinState:
        move = LastMove(seat, "pass")
        if state.passes == 0:
            return replace(state, passes=1, turn=state.dealer, last_move=move)
        return replace(
            state,
            passes=2,
            phase=DRAW,
            turn=_other(state.dealer),
            stock_only=True,
            last_move=move,
        )

    def _do_draw(self, state: GinState, seat: int, action: dict[str, Any]) -> GinState | Rejection:
        source = action.get("source")
        if source == "discard":
            if state.stock_only:
                return _upcard_refused()
            if not state.discard:
                return Rejection("empty_discard", "The discard pile is empty.")
            card = state.discard[-1]
            discard, stock = state.discard[:-1], state.stock
            move = LastMove(seat, "draw", "discard", card)
        elif source == "stock":
            if not state.stock:
                return Rejection("empty_stock", "The stock is empty.")
            card = state.stock[-1]
            discard, stock = state.discard, state.stock[:-1]
            move = LastMove(seat, "draw", "stock")
        else:
            return Rejection(
                "bad_action", 'Say where to draw from: "source" must be "stock" or "discard".'
            )
        return replace(
            state,
            phase=DISCARD,
            hands=_set_seat(state.hands, seat, tuple(sort_cards([*state.hands[seat], card]))),
            stock=stock,
            discard=discard,
            stock_only=False,
            drawn=card,
            drawn_from=source,
            last_move=move,
        )

    def _card_to_play(self, state: GinState, seat: int, action: dict[str, Any]) -> str | Rejection:
        card = action.get("card")
        if not is_card(card):
            return _bad_card(card)
        assert isinstance(card, str)
        if card not in state.hands[seat]:
            return Rejection("not_in_hand", f"You don't hold the {card_name(card)}.")
        if card == self._taken(state):
            return Rejection(
                "discard_taken_card",
                "You can't discard the card you just took from the discard pile.",
            )
        return card

    def _do_discard(
        self, state: GinState, seat: int, action: dict[str, Any]
    ) -> GinState | Rejection:
        card = self._card_to_play(state, seat, action)
        if isinstance(card, Rejection):
            return card
        hand = tuple(c for c in state.hands[seat] if c != card)
        after = replace(
            state,
            hands=_set_seat(state.hands, seat, hand),
            discard=(*state.discard, card),
            drawn=None,
            drawn_from=None,
            last_move=LastMove(seat, "discard", None, card),
        )
        if len(state.stock) <= DRAW_AT_STOCK:
            return self._end_drawn_hand(after)
        return replace(after, phase=DRAW, turn=_other(seat))

    def _do_knock(self, state: GinState, seat: int, action: dict[str, Any]) -> GinState | Rejection:
        card = self._card_to_play(state, seat, action)
        if isinstance(card, Rejection):
            return card
        hand = tuple(c for c in state.hands[seat] if c != card)
        arr = best_arrangement(hand)
        limit = state.options.knock_limit
        if arr.points > limit:
            rule = f"the knock limit is {limit}" if limit else "only Gin (0 deadwood) may knock"
            return Rejection(
                "deadwood_too_high",
                f"You can't knock: after discarding the {card_name(card)} your deadwood would "
                f"be {arr.points}, and {rule}.",
            )
        gin = arr.points == 0
        knock = Knock(
            knocker=seat,
            kind="gin" if gin else "knock",
            discard=card,
            melds=_melds_tuple(arr.melds),
            deadwood=tuple(arr.deadwood),
            points=arr.points,
        )
        after = replace(
            state,
            hands=_set_seat(state.hands, seat, hand),
            drawn=None,
            drawn_from=None,
            knock=knock,
            last_move=LastMove(seat, "gin" if gin else "knock"),
        )
        if gin:
            return self._end_knocked_hand(after)
        return replace(after, phase=LAYOFF, turn=_other(seat))

    def _do_big_gin(
        self, state: GinState, seat: int, action: dict[str, Any]
    ) -> GinState | Rejection:
        arr = best_arrangement(state.hands[seat])
        if arr.points:
            return Rejection(
                "not_big_gin",
                "Big Gin needs all 11 of your cards in melds; you would still have "
                f"{arr.points} points of deadwood.",
            )
        knock = Knock(
            knocker=seat,
            kind="big_gin",
            discard=None,
            melds=_melds_tuple(arr.melds),
            deadwood=(),
            points=0,
        )
        after = replace(
            state, drawn=None, drawn_from=None, knock=knock, last_move=LastMove(seat, "big_gin")
        )
        return self._end_knocked_hand(after)

    def _do_lay_off(
        self, state: GinState, seat: int, action: dict[str, Any]
    ) -> GinState | Rejection:
        knock = state.knock
        assert knock is not None
        card = action.get("card")
        if not is_card(card):
            return _bad_card(card)
        assert isinstance(card, str)
        if card not in state.hands[seat]:
            return Rejection("not_in_hand", f"You don't hold the {card_name(card)}.")
        index = action.get("meld")
        melds = current_melds(knock)
        if not (isinstance(index, int) and not isinstance(index, bool)) or not (
            0 <= index < len(melds)
        ):
            return Rejection(
                "bad_meld",
                f"Choose one of the knocker's melds by number, from 0 to {len(melds) - 1}.",
            )
        if not can_lay_off(melds[index], card):
            return Rejection(
                "cannot_lay_off",
                f"The {card_name(card)} doesn't extend the knocker's meld "
                f"{' '.join(melds[index])}.",
            )
        hand = tuple(c for c in state.hands[seat] if c != card)
        return replace(
            state,
            hands=_set_seat(state.hands, seat, hand),
            knock=replace(knock, layoffs=(*knock.layoffs, Layoff(card, index))),
            last_move=LastMove(seat, "lay_off", None, card),
        )

    def _do_finish_layoff(self, state: GinState, seat: int, action: dict[str, Any]) -> GinState:
        return self._end_knocked_hand(replace(state, last_move=LastMove(seat, "finish_layoff")))

    def _do_next_hand(self, state: GinState, seat: int, action: dict[str, Any]) -> GinState:
        fresh = self._deal(state.options, state.seed, state.hand_no + 1, _other(state.dealer))
        return replace(
            fresh,
            scores=state.scores,
            hands_won=state.hands_won,
            draws=state.draws,
            history=state.history,
            last_move=LastMove(seat, "next_hand"),
        )

    # -------------------------------------------------------------- scoring

    def _end_drawn_hand(self, state: GinState) -> GinState:
        """Rule 10: nobody scores."""
        result = HandResult(
            hand_no=state.hand_no,
            dealer=state.dealer,
            kind="draw",
            knocker=None,
            winner=None,
            points=0,
            bonus=0,
            knock_discard=None,
            layoffs=(),
            seats=(
                _reveal(best_arrangement(state.hands[0])),
                _reveal(best_arrangement(state.hands[1])),
            ),
        )
        return replace(
            state,
            phase=HAND_OVER,
            turn=None,
            draws=state.draws + 1,
            history=(*state.history, result),
        )

    def _end_knocked_hand(self, state: GinState) -> GinState:
        """Rules 11-13, then 14-16 if a running total reached the target."""
        knock = state.knock
        assert knock is not None
        opts = state.options
        knocker = knock.knocker
        defender = _other(knocker)
        defence = best_arrangement(state.hands[defender])
        dd, kd = defence.points, knock.points
        if knock.kind == "gin":
            kind, winner, bonus, points = "gin", knocker, opts.gin_bonus, opts.gin_bonus + dd
        elif knock.kind == "big_gin":
            bonus = opts.big_gin_bonus
            kind, winner, points = "big_gin", knocker, bonus + dd
        elif dd <= kd:
            bonus = opts.undercut_bonus
            kind, winner, points = "undercut", defender, bonus + kd - dd
        else:
            kind, winner, bonus, points = "knock", knocker, 0, dd - kd
        knocker_reveal = SeatReveal(melds=knock.melds, deadwood=knock.deadwood, points=kd)
        result = HandResult(
            hand_no=state.hand_no,
            dealer=state.dealer,
            kind=kind,
            knocker=knocker,
            winner=winner,
            points=points,
            bonus=bonus,
            knock_discard=knock.discard,
            layoffs=knock.layoffs,
            seats=_pair(knocker, knocker_reveal, _reveal(defence)),
        )
        scores = _set_seat(state.scores, winner, state.scores[winner] + points)
        won = _set_seat(state.hands_won, winner, state.hands_won[winner] + 1)
        after = replace(
            state,
            phase=HAND_OVER,
            turn=None,
            scores=scores,
            hands_won=won,
            history=(*state.history, result),
        )
        if scores[winner] >= opts.target:
            return replace(after, phase=GAME_OVER, game_result=game_result(after, winner))
        return after


def game_result(state: GinState, reached: int) -> GameResult:
    """Rules 15-16: the grand totals once seat ``reached`` got to the target."""
    other = _other(reached)
    shutout = state.hands_won[other] == 0 and state.draws == 0
    counted = list(state.scores)
    if shutout:
        counted[reached] *= 2
    game_bonus = _pair(reached, GAME_BONUS, 0)
    line = (LINE_BONUS * state.hands_won[0], LINE_BONUS * state.hands_won[1])
    totals = tuple(counted[s] + game_bonus[s] + line[s] for s in (0, 1))
    winner = None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
    return GameResult(
        winner=winner,
        reached_target=reached,
        shutout=shutout,
        hands_won=state.hands_won,
        hand_points=state.scores,
        counted_hand_points=(counted[0], counted[1]),
        game_bonus=game_bonus,
        line_bonus=line,
        totals=(totals[0], totals[1]),
    )


def _plain(obj: Any) -> Any:
    """Structs and tuples as plain dicts and lists (msgpack-compatible primitives)."""
    return msgspec.msgpack.decode(msgspec.msgpack.encode(obj))


def _bad_card(card: object) -> Rejection:
    if card is None:
        return Rejection(
            "bad_card", "Say which card, written like H5 (five of hearts) or S12 (queen of spades)."
        )
    return Rejection(
        "bad_card",
        f"That is not a card: {card!r}. Cards are written like H5 (five of hearts), "
        "S12 (queen of spades) or C1 (ace of clubs).",
    )


def _upcard_refused() -> Rejection:
    return Rejection(
        "upcard_refused",
        "Both players passed on the upcard, so you must draw from the stock.",
    )


ENGINE = GinRummy()

if TYPE_CHECKING:  # GinRummy satisfies the plugin protocol
    _PROTOCOL_CHECK: RulesEngine[GinState] = ENGINE
