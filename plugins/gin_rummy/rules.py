"""The pure Gin Rummy rules engine: ``GinRummy`` implements ``plugins.base.Engine`` (contract
version 2).

The engine has no I/O and no global randomness: each hand is shuffled with
``random.Random(f"gin_rummy:{seed}:{hand_no}")`` and the first dealer is drawn from
``random.Random(f"gin_rummy:{seed}:first_dealer")``, so a game is reproducible from its seed.
``new_game(..., deck=...)`` deals the first hand from a given order instead: ``deck[0]`` is
dealt first (to the non-dealer, then alternately, 10 cards each), ``deck[20]`` is the upcard
and ``deck[21]`` the top of the stock, ``deck[51]`` its bottom. A provably fair hand
(docs/fairness.md) has a key instead (``new_game(..., deal_key=...)``, or ``deal_with`` before
the next hand): its order is ``fair.shuffle(deck(), key)``, dealt like ``deck=``; ``deal_record``
gives it. States are frozen ``msgspec``
structs; ``apply`` returns a new state (or a :class:`Rejection`) and never mutates its input.
Rule numbers refer to ``shared/rules/gin_rummy.md``.

Players are 0 and 1; ``teams`` is ``[[0], [1]]``; Gin has no timed moves, so ``scheduled`` is
always ``None`` and ``apply(state, None, ...)`` is refused. Card codes are described in
:mod:`plugins.cards` (``H1`` = ace of hearts, ``S12`` = queen of spades); messages and log
lines name cards with :func:`plugins.cards.card_name` ("queen of spades", "7 of hearts").

Actions (plain dicts with a ``"type"`` key)
-------------------------------------------
On the wire, plain dicts; the flow's gate (``plugins.base.Flow``) turns each into its struct
in :mod:`plugins.gin_rummy.actions` and hands it to the move's handler.

``{"type": "take_upcard"}``
    First turn only (rule 5): take the face-up card offered, then discard.
``{"type": "pass"}``
    First turn only: refuse the upcard. Non-dealer first, then dealer; if both pass the
    non-dealer must draw from the stock.
``{"type": "draw", "source": "stock" | "discard"}``
    Draw the top card of the stock or of the discard pile (rule 6).
``{"type": "discard", "card": "H5"}``
    End the turn by discarding a card (not one just taken from the discard pile).
``{"type": "knock", "card": "H5", "melds": [["S4", "S5", "S6"], ...]}``
    Discard ``H5`` face down and knock (rule 7). ``melds`` (optional) is the knocker's own
    layout of the 10 cards left: valid melds, no card twice, all from the hand; everything
    else is deadwood, which must be at most the knock limit. Without ``melds`` the engine
    lays out :func:`best_arrangement`. The melds laid out are what the defender lays off onto
    and what is scored; with 0 deadwood this is Gin (rule 8) and is scored at once.
    ``legal_actions`` lists knocks without ``melds``.
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
    Either player, after a hand ended, if the game is not over: deal the next hand.

Phases: ``upcard`` (first-turn offer), ``draw``, ``discard`` (holding 11 cards), ``layoff``
(defender's turn after a knock), ``hand_over``, ``game_over``.

Rejection codes
---------------
``bad_seat`` (not player 0 or 1), ``no_scheduled_moves`` (``player`` ``None``: Gin has no
automatic moves), ``bad_action`` (not a dict, no type, bad draw source), ``unknown_action``,
``game_over``, ``wrong_phase``, ``not_your_turn``, ``bad_card`` (not a card code),
``not_in_hand``, ``discard_taken_card``, ``upcard_refused`` (drawing the upcard after both
players passed it), ``empty_discard``, ``empty_stock``, ``deadwood_too_high``, ``not_big_gin``,
``bad_melds`` (``melds`` is not a list of lists of card codes), ``not_a_meld``,
``meld_overlap`` (a card in two melds), ``knock_card_in_meld`` (the knock discard put in a
meld), ``knocker_cannot_lay_off``, ``bad_meld`` (no such meld index), ``cannot_lay_off``.

State (``GinState``; ``dump`` gives the same keys as plain data)
-----------------------------------------------------------------
``options`` {knock_limit, gin_bonus, big_gin_bonus, undercut_bonus, target}, ``seed``,
``hand_no`` (1-based), ``dealer``, ``phase``, ``turn`` (player to act, ``None`` when the hand
is over), ``hands`` (two sorted card lists), ``stock`` (top is the last element), ``discard``
(top is the last element), ``passes`` (upcard passes), ``stock_only`` (both passed: the first
draw must be from the stock), ``drawn`` / ``drawn_from`` (card drawn this turn and its source:
``upcard``, ``discard`` or ``stock``), ``picked`` (per player: cards taken face up from the
discard pile this hand and still held - public knowledge), ``knock`` (``None`` or {knocker,
kind, discard, melds, deadwood, points, layoffs: [{card, meld}]}; kept until the next deal),
``scores`` (running hand points), ``hands_won``, ``draws``, ``history`` (one ``HandResult`` per
finished hand), ``game_result`` (``None`` until the game ends), ``last_move`` ({seat, type,
source, card} with only public information).

``HandResult``: hand_no, dealer, kind (``knock``, ``gin``, ``big_gin``, ``undercut``,
``draw``), knocker, winner, points (to the winner), bonus (gin/big gin/undercut bonus part),
knock_discard, layoffs, seats (per player: melds, deadwood, points - the hand-end reveal; the
knocker's melds as laid out, before lay-offs).

``GameResult``: winner (highest grand total, ``None`` on a tie), reached_target, shutout,
hands_won, hand_points (as played), counted_hand_points (doubled for a shutout), game_bonus,
line_bonus, totals - each a two-element list indexed by player.

View (``view(state, player)``; ``player=None`` for a spectator)
---------------------------------------------------------------
``game``, ``player`` and ``seat`` (both the viewer or ``None``), ``to_act``, ``hand_no``,
``dealer``, ``phase``, ``turn``, ``options``, ``hand`` (own cards, ``None`` for spectators),
``arrangement`` (own best melds/deadwood/points or ``None``), ``knock_options`` (in the
viewer's own discard phase: one entry per card that may be discarded to knock - {card, melds,
deadwood, points, gin} with the best arrangement of the 10 cards left; otherwise empty),
``knock_blocked`` (in the viewer's own discard phase when no knock is possible, the reason:
"Your deadwood would be 23; the limit is 10." with the least deadwood any discard leaves;
otherwise ``None``), ``hand_counts``, ``stock_count``, ``discard_top``, ``discard_pile`` (the
whole pile is public), ``known_cards`` (per player, the ``picked`` cards: taken face up and
still held), ``upcard_passes``, ``stock_only``, ``drawn`` (the card drawn this turn: shown to
everyone if it came from the discard pile, otherwise only to the drawer), ``drawn_from``,
``knock`` (``None`` or {knocker, kind, melds: the knocker's melds with lay-offs applied - the
indices ``lay_off`` uses, laid_out: the melds as knocked, deadwood, points, layoffs, discard:
the face-down discard, shown only to the knocker until the hand ends}), ``scores``,
``hands_won``, ``draws``, ``last_move``, ``last_result`` (the full reveal of the last finished
hand: both players' melds, deadwood and points, the lay-offs, the knock discard), ``history``
(one summary per finished hand: hand_no, kind, winner, points), ``game_result`` (the breakdown
once the game is over). The opponent's hand and the stock appear only as counts.

Contract v2 texts: ``describe`` ("Ana discarded the queen of clubs", "Ben drew from the stock",
"Ana knocked with 6 deadwood", "Ben laid off the 4 of spades"; a stock card and the face-down
knock discard are never named), ``status`` ("Ana to draw", "Ben to discard", "Ana knocked: Ben
may lay off"), ``scoreboard`` (a row per finished hand with the points to its winner; once the
game is over, rows for the shutout doubling, game bonus and line bonus, so the rows add up to
the totals; note "First to 100"), ``reveal`` (after a hand: each player's melds - the
knocker's with the lay-offs on them - deadwood cards, deadwood points, and a note saying who
scored what).

``load`` refuses (:class:`InvalidState`, saying why) data that is not a state, unknown options
or phases, a card missing or held twice (across hands, stock, discard pile, lay-offs and the
knock discard), hand sizes that do not fit the phase, a bad player to move or dealer, a first
turn or drawn card that cannot be, a knock whose melds, deadwood or lay-offs are wrong, and a
history whose hands, deal order, points, scores or game result do not add up.

Interpretations
---------------
* Rule 4/10 "the same dealer rule": the deal alternates after every hand, draws included.
* Rule 5: taking the upcard is that turn's draw, so the upcard may not be discarded at once.
* Rule 7: the knocker chooses the melds (any valid layout within the knock limit); without a
  choice the engine lays out the best arrangement of the 10 cards left (when several tie, its
  deterministic choice). The knock discard may not be a card just taken from the discard pile
  either. A layout with deadwood is a knock even if a Gin layout of the same cards existed.
* Rule 10: the hand is a draw as soon as a player discards without knocking while the stock
  holds 2 cards or fewer; the player who drew down to 2 may still knock or declare Big Gin.
* Rule 9: lay-offs are explicit; the defender may lay off any card of the hand (even one from
  the defender's own meld) onto the knocker's melds as extended so far.
* Rules 14-16: the game bonus (100) and the line bonus (25 a hand) are fixed; the shutout
  doubles the hand points of the player who reached the target when the opponent won no hand
  and no hand was drawn. A tie in grand totals has ``winner`` ``None`` (``outcome`` then lists
  both players as winners).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import Struct
from msgspec.structs import replace

import plugins.gin_rummy.actions as moves
from plugins import fair
from plugins.base import (
    EVERYONE,
    Engine,
    Flow,
    GameInfo,
    OptionSpec,
    Outcome,
    Phase,
    Rejection,
    RevealLine,
    Scheduled,
    Scoreboard,
    dump_state,
    load_state,
    plain,
)
from plugins.cards import bad_card, card_name, card_names, is_card, sort_cards
from plugins.cards import deck as full_deck
from plugins.melds import Deadwood as Arrangement
from plugins.melds import (
    arrangement_of,
    best_arrangement,
    can_lay_off,
    deadwood_points,
    deadwood_value,
    extend_meld,
    is_meld,
)

UPCARD = "upcard"
DRAW = "draw"
DISCARD = "discard"
LAYOFF = "layoff"
HAND_OVER = "hand_over"
GAME_OVER = "game_over"
PHASES = (UPCARD, DRAW, DISCARD, LAYOFF, HAND_OVER, GAME_OVER)

GAME_BONUS = 100
LINE_BONUS = 25
DRAW_AT_STOCK = 2
HAND_SIZE = 10
_DECK = frozenset(full_deck())
_WON_KINDS = frozenset({"knock", "gin", "big_gin", "undercut"})


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
    """One player's cards at the end of a hand."""

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
    """The final breakdown (rules 14-16); every pair is indexed by player."""

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
    """The last move, holding only what every player may know."""

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
    picked: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    knock: Knock | None = None
    scores: tuple[int, int] = (0, 0)
    hands_won: tuple[int, int] = (0, 0)
    draws: int = 0
    history: tuple[HandResult, ...] = ()
    game_result: GameResult | None = None
    last_move: LastMove | None = None
    deal_key: str | None = None
    fair_key: str | None = None


def _turn(state: GinState) -> list[int]:
    return [] if state.turn is None else [state.turn]


def _draw_misplaced(state: GinState) -> Rejection | None:
    """``take_upcard`` in the draw phase: after both passed, say the stock is the only source."""
    return _upcard_refused() if state.stock_only else None


# Who may do what, when (the flow's gate asks it for every move; see plugins.base.Flow).
_PHASES: dict[str, Phase[GinState]] = {
    UPCARD: Phase(
        frozenset({"take_upcard", "pass"}), "It's the first turn: take the face-up card or pass."
    ),
    DRAW: Phase(
        frozenset({"draw"}),
        "You need to draw first, from the stock or the discard pile.",
        misplaced={"take_upcard": _draw_misplaced},
    ),
    DISCARD: Phase(
        frozenset({"discard", "knock", "big_gin"}),
        "You have already drawn; now discard, knock or declare Big Gin.",
    ),
    LAYOFF: Phase(
        frozenset({"lay_off", "finish_layoff"}),
        "The hand was knocked: lay off cards onto the knocker's melds, or finish.",
        wait="It's not your turn: your opponent is laying off cards.",
        waiting={
            "lay_off": Rejection("knocker_cannot_lay_off", "The knocker never lays off cards.")
        },
    ),
    HAND_OVER: Phase(
        frozenset({"next_hand"}),
        "This hand is over; start the next hand to keep playing.",
        actors=EVERYONE,
    ),
    GAME_OVER: Phase(frozenset(), "The game is over.", over=True),
}
_BAD_SOURCE = Rejection(
    "bad_action", 'Say where to draw from: "source" must be "stock" or "discard".'
)
_BAD_MELDS = Rejection(
    "bad_melds", 'Give "melds" as a list of melds, each a list of cards such as ["H4", "H5", "H6"].'
)


def _bad_meld_number(state: GinState, player: int | None, value: object) -> Rejection:
    assert state.knock is not None
    last = len(current_melds(state.knock)) - 1
    return Rejection("bad_meld", f"Choose one of the knocker's melds by number, from 0 to {last}.")


_MELD_RULE = (
    "a meld is 3 or 4 cards of one rank, or 3 or more cards of one suit in sequence (ace low)"
)


def _other(player: int) -> int:
    return 1 - player


def _is_seat(player: object) -> bool:
    return isinstance(player, int) and not isinstance(player, bool) and player in (0, 1)


def _pair(player: int, value: Any, other: Any) -> tuple[Any, Any]:
    return (value, other) if player == 0 else (other, value)


def _set_seat(pair: tuple[Any, Any], player: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if player == 0 else (pair[0], value)


def _melds_tuple(melds: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(m) for m in melds)


def _reveal(arr: Arrangement) -> SeatReveal:
    return SeatReveal(
        melds=_melds_tuple(arr.melds), deadwood=tuple(arr.deadwood), points=arr.points
    )


def _without(cards: tuple[str, ...], card: str) -> tuple[str, ...]:
    return tuple(c for c in cards if c != card)


def _name(names: Sequence[str], player: int | None) -> str:
    if player is not None and 0 <= player < len(names) and names[player]:
        return names[player]
    return "The game" if player is None else f"Player {player + 1}"


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
        self._flow: Flow[GinState] = Flow(
            title="Gin Rummy",
            moves=moves.GinAction,
            phases=_PHASES,
            handlers={
                "take_upcard": self._do_take_upcard,
                "pass": self._do_pass,
                "draw": self._do_draw,
                "discard": self._do_discard,
                "knock": self._do_knock,
                "big_gin": self._do_big_gin,
                "lay_off": self._do_lay_off,
                "finish_layoff": self._do_finish_layoff,
                "next_hand": self._do_next_hand,
            },
            players=lambda state: 2,
            actors=_turn,
            example=("draw", "discard"),
            bad_player=lambda state: Rejection(
                "bad_seat", "Only the two players (seats 0 and 1) can make moves."
            ),
            no_player=lambda state: Rejection(
                "no_scheduled_moves", "Gin Rummy has no automatic moves; players make every move."
            ),
            anyone=frozenset({"next_hand"}),
            elsewhere={"next_hand": "This hand is still being played."},
            fields={
                "source": _BAD_SOURCE,
                "card": lambda state, player, value: bad_card(value),
                "melds": _BAD_MELDS,
                "meld": _bad_meld_number,
            },
        )

    # ----------------------------------------------------------------- setup

    def new_game(
        self,
        players: int,
        options: dict[str, Any],
        seed: int,
        deck: Sequence[str] | None = None,
        deal_key: bytes | None = None,
    ) -> GinState:
        """A fresh game: dealer drawn from ``seed``, first hand dealt (from ``deck`` when given,
        see the module docstring, or shuffled with ``deal_key``), upcard on offer.
        ``ValueError`` for a bad player count, option or deck."""
        if players != 2:
            raise ValueError("Gin Rummy is played by exactly 2 players.")
        resolved = self.info.resolve_options(options)
        if isinstance(resolved, Rejection):
            raise ValueError(resolved.message)
        opts = Options(**resolved)
        if deck is not None:
            order = list(deck)
            if len(order) != 52 or set(order) != set(full_deck()):
                raise ValueError("The deck must hold each of the 52 cards exactly once.")
        else:
            order = None
        dealer = random.Random(f"gin_rummy:{seed}:first_dealer").randrange(2)
        key = deal_key.hex() if deal_key is not None and order is None else None
        return self._deal(opts, seed, 1, dealer, order, key)

    def _deal(
        self,
        options: Options,
        seed: int,
        hand_no: int,
        dealer: int,
        order: list[str] | None = None,
        key: str | None = None,
    ) -> GinState:
        if key is not None:
            order = fair.shuffle(full_deck(), fair.as_key(key), "deal")
        elif order is None:
            shuffled = full_deck()
            random.Random(f"gin_rummy:{seed}:{hand_no}").shuffle(shuffled)
            order = shuffled[::-1]  # dealt from the end of the shuffled list
        hands: tuple[list[str], list[str]] = ([], [])
        first = _other(dealer)
        for i in range(2 * HAND_SIZE):
            hands[(first + i) % 2].append(order[i])
        return GinState(
            options=options,
            seed=seed,
            hand_no=hand_no,
            dealer=dealer,
            phase=UPCARD,
            turn=first,
            hands=(tuple(sort_cards(hands[0])), tuple(sort_cards(hands[1]))),
            stock=tuple(reversed(order[2 * HAND_SIZE + 1 :])),
            discard=(order[2 * HAND_SIZE],),
            fair_key=key,
        )

    def deal_with(self, state: GinState, key: bytes) -> GinState:
        """The state with the key the next hand will use (docs/fairness.md)."""
        return replace(state, deal_key=key.hex())

    def deal_record(self, state: GinState) -> dict[str, Any] | None:
        """The current hand as dealt with its key: hand number, dealer, the canonical deck, the
        shuffled order and where each card went; ``None`` for a seeded hand."""
        if state.fair_key is None:
            return None
        deck = full_deck()
        order = fair.shuffle(deck, fair.as_key(state.fair_key), "deal")
        dealt = fair.round_robin(len(order), ["0", "1"], _other(state.dealer), HAND_SIZE, True)
        return {
            "deal": state.hand_no,
            "dealer": state.dealer,
            "deck": deck,
            "order": order,
            "dealt": dealt,
        }

    # ------------------------------------------------------------- queries

    def teams(self, state: GinState) -> list[list[int]]:
        """Each player on their own: ``[[0], [1]]``."""
        return [[0], [1]]

    def to_act(self, state: GinState) -> list[int]:
        """The player to move; both players once a hand is over (either deals on); nobody at
        game over."""
        if state.phase == GAME_OVER:
            return []
        if state.phase == HAND_OVER:
            return [0, 1]
        return [state.turn] if state.turn is not None else []

    def scheduled(self, state: GinState) -> Scheduled | None:
        """Always ``None``: every Gin Rummy move is a player's."""
        return None

    def legal_actions(self, state: GinState, player: int) -> list[dict[str, Any]]:
        """Every action ``player`` may make now; each one applies without a rejection."""
        if not _is_seat(player):
            return []
        phase = state.phase
        if phase == GAME_OVER:
            return []
        if phase == HAND_OVER:
            return [{"type": "next_hand"}]
        hand = state.hands[player]
        if phase == LAYOFF:
            assert state.knock is not None
            if player == state.knock.knocker:
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
        if player != state.turn:
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
        knocks, _ = _discard_points(hand, taken, state.options.knock_limit)
        out += [{"type": "knock", "card": c} for c in hand if c in knocks]
        if deadwood_points(hand) == 0:
            out.append({"type": "big_gin"})
        return out

    @staticmethod
    def _taken(state: GinState) -> str | None:
        """The card taken from the discard pile this turn, which may not be discarded."""
        return state.drawn if state.drawn_from in ("upcard", "discard") else None

    def _knock_view(
        self, state: GinState, own: int | None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """``knock_options`` and ``knock_blocked`` for the viewer ``own``."""
        if own is None or state.phase != DISCARD or state.turn != own:
            return [], None
        hand = state.hands[own]
        limit = state.options.knock_limit
        knocks, least = _discard_points(hand, self._taken(state), limit)
        options: list[dict[str, Any]] = []
        for c in hand:
            if c in knocks:
                arr = best_arrangement(x for x in hand if x != c)
                options.append(
                    {
                        "card": c,
                        "melds": arr.melds,
                        "deadwood": arr.deadwood,
                        "points": arr.points,
                        "gin": arr.points == 0,
                    }
                )
        if options or least is None:
            return options, None
        rule = f"the limit is {limit}" if limit else "only Gin (0 deadwood) may knock"
        return [], f"Your deadwood would be {least}; {rule}."

    def view(self, state: GinState, player: int | None) -> dict[str, Any]:
        """What ``player`` (``None``: a spectator) may see; the module docstring lists the
        keys."""
        own = player if player is not None and _is_seat(player) else None
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
        knock_options, knock_blocked = self._knock_view(state, own)
        return {
            "game": self.info.name,
            "player": own,
            "seat": own,
            "to_act": self.to_act(state),
            "hand_no": state.hand_no,
            "dealer": state.dealer,
            "phase": state.phase,
            "turn": state.turn,
            "options": msgspec.structs.asdict(state.options),
            "hand": list(state.hands[own]) if own is not None else None,
            "arrangement": arrangement,
            "knock_options": knock_options,
            "knock_blocked": knock_blocked,
            "hand_counts": [len(state.hands[0]), len(state.hands[1])],
            "stock_count": len(state.stock),
            "discard_top": state.discard[-1] if state.discard else None,
            "discard_pile": list(state.discard),
            "known_cards": [list(state.picked[0]), list(state.picked[1])],
            "upcard_passes": state.passes,
            "stock_only": state.stock_only,
            "drawn": drawn,
            "drawn_from": state.drawn_from,
            "knock": knock_view,
            "scores": list(state.scores),
            "hands_won": list(state.hands_won),
            "draws": state.draws,
            "last_move": msgspec.structs.asdict(state.last_move) if state.last_move else None,
            "last_result": plain(state.history[-1]) if state.history else None,
            "history": [
                {"hand_no": h.hand_no, "kind": h.kind, "winner": h.winner, "points": h.points}
                for h in state.history
            ],
            "game_result": plain(state.game_result) if state.game_result else None,
        }

    # ------------------------------------------------------------ v2 texts

    def describe(
        self,
        before: GinState,
        player: int | None,
        action: dict[str, Any],
        names: Sequence[str],
        after: GinState | Rejection | None = None,
    ) -> str:
        """The public log line for ``action`` by ``player`` on ``before``."""
        who = _name(names, player)
        if after is None:
            after = self.apply(before, player, action)
        if isinstance(after, Rejection) or player is None:
            return f"{who} tried a move the rules don't allow"
        kind = action["type"]
        if kind == "take_upcard":
            return f"{who} took the upcard, the {card_name(before.discard[-1])}"
        if kind == "pass":
            if after.stock_only:
                return f"{who} passed on the upcard too; {_name(names, after.turn)} draws first"
            return f"{who} passed on the upcard"
        if kind == "draw":
            if action["source"] == "stock":
                return f"{who} drew from the stock"
            return f"{who} took the {card_name(before.discard[-1])} from the discard pile"
        if kind == "discard":
            line = f"{who} discarded the {card_name(action['card'])}"
            if after.phase == HAND_OVER:
                line += (
                    f"; only {len(after.stock)} cards are left in the stock, so the hand is a draw"
                )
            return line
        if kind == "lay_off":
            return f"{who} laid off the {card_name(action['card'])}"
        if kind == "next_hand":
            return f"{who} dealt on: hand {after.hand_no}, {_name(names, after.dealer)} deals"
        knock = after.knock
        assert knock is not None
        if kind == "knock" and knock.kind == "knock":
            return f"{who} knocked with {knock.points} deadwood"
        # Gin, Big Gin and the end of the lay-offs all end the hand.
        start = {
            "knock": f"{who} went Gin",
            "big_gin": f"{who} declared Big Gin",
            "finish_layoff": f"{who} finished laying off",
        }[kind]
        return f"{start}: {self._result_text(after, names)}"

    def _result_text(self, state: GinState, names: Sequence[str]) -> str:
        """What the last hand scored, and the game's end if it came."""
        res = state.history[-1]
        if res.winner is None:
            return "the hand is a draw"
        winner = _name(names, res.winner)
        if res.kind == "undercut":
            text = f"{winner} undercut {_name(names, res.knocker)} and scores {res.points}"
        else:
            text = f"{winner} scores {res.points}"
        if state.phase == GAME_OVER:
            text += f"; {self._game_text(state, names)}"
        return text

    @staticmethod
    def _game_text(state: GinState, names: Sequence[str]) -> str:
        g = state.game_result
        assert g is not None
        if g.winner is None:
            return f"the game is a tie at {g.totals[0]}"
        loser = _other(g.winner)
        return f"{_name(names, g.winner)} wins the game, {g.totals[g.winner]} to {g.totals[loser]}"

    def status(self, state: GinState, names: Sequence[str]) -> str:
        """One short line for everyone: whose move it is, or how the hand or game ended."""
        phase = state.phase
        if phase == GAME_OVER:
            text = self._game_text(state, names)
            return text[0].upper() + text[1:]
        if phase == HAND_OVER:
            text = self._result_text(state, names)
            return text[0].upper() + text[1:]
        who = _name(names, state.turn)
        if phase == UPCARD:
            return f"{who} to take the upcard or pass"
        if phase == DRAW:
            return f"{who} to draw from the stock" if state.stock_only else f"{who} to draw"
        if phase == DISCARD:
            return f"{who} to discard"
        assert state.knock is not None
        return f"{_name(names, state.knock.knocker)} knocked: {who} may lay off"

    def scoreboard(self, state: GinState, names: Sequence[str]) -> Scoreboard:
        """A row per finished hand (points to its winner); at game over the shutout, game
        bonus and line bonus rows, so that the rows always add up to the totals."""
        rows: list[tuple[str, tuple[int | str, ...]]] = []
        for h in state.history:
            cells = (0, 0) if h.winner is None else _pair(h.winner, h.points, 0)
            rows.append((f"Hand {h.hand_no} ({h.kind.replace('_', ' ')})", cells))
        totals = state.scores
        g = state.game_result
        if g is not None:
            if g.shutout:
                doubled = tuple(g.counted_hand_points[p] - g.hand_points[p] for p in (0, 1))
                rows.append(("Shutout (hand points doubled)", doubled))
            rows.append(("Game bonus", g.game_bonus))
            rows.append((f"Line bonus ({LINE_BONUS} a hand won)", g.line_bonus))
            totals = g.totals
        return Scoreboard(
            columns=(_name(names, 0), _name(names, 1)),
            rows=tuple(rows),
            totals=tuple(totals),
            note=f"First to {state.options.target}",
        )

    def reveal(self, state: GinState) -> list[RevealLine] | None:
        """After a hand: both players' melds (the knocker's with the lay-offs on them),
        deadwood cards and deadwood points; ``None`` while a hand is being played."""
        if state.phase not in (HAND_OVER, GAME_OVER) or not state.history:
            return None
        res = state.history[-1]
        lines: list[RevealLine] = []
        for p in (0, 1):
            seat = res.seats[p]
            melds = [list(m) for m in seat.melds]
            notes: list[str] = []
            if res.knocker == p:
                for lo in res.layoffs:
                    melds[lo.meld] = extend_meld(melds[lo.meld], lo.card)
                notes.append(
                    {"gin": "Gin", "big_gin": "Big Gin"}.get(
                        res.kind, f"Knocked with {seat.points} deadwood"
                    )
                )
                if res.knock_discard is not None:
                    notes.append(f"discarded the {card_name(res.knock_discard)} face down")
            elif res.knocker is not None and res.layoffs:
                notes.append(f"Laid off the {card_names(lo.card for lo in res.layoffs)}")
            if res.winner == p:
                notes.append(f"scores {res.points}")
            elif res.winner is None:
                notes.append("the hand is a draw")
            note = "; ".join(notes)
            lines.append(
                RevealLine(
                    player=p,
                    melds=_melds_tuple(melds),
                    cards=seat.deadwood,
                    points=seat.points,
                    note=note[:1].upper() + note[1:],
                )
            )
        return lines

    def outcome(self, state: GinState) -> Outcome | None:
        """Winner and grand totals once the game is over (both players on a tie)."""
        g = state.game_result
        if state.phase != GAME_OVER or g is None:
            return None
        winners = (0, 1) if g.winner is None else (g.winner,)
        return Outcome(winners=winners, scores=g.totals)

    # ------------------------------------------------------------ dump / load

    def dump(self, state: GinState) -> dict[str, Any]:
        """The state as plain data (str/int/bool/list/dict/None), for msgpack or JSON."""
        return dump_state(state)

    def load(self, data: dict[str, Any]) -> GinState:
        """Rebuild a state from :meth:`dump` output; :class:`InvalidState` if it cannot
        happen (the message says why)."""
        return load_state(
            data,
            GinState,
            "Gin Rummy",
            lambda s: _check_state(s, self.info) or fair.key_problem(s.deal_key, s.fair_key),
        )

    # ---------------------------------------------------------------- apply

    def apply(
        self, state: GinState, player: int | None, action: dict[str, Any]
    ) -> GinState | Rejection:
        """Apply ``action`` by ``player``: a new state, or a :class:`Rejection` saying why not
        (the flow's gate: player, shape, phase, turn, fields; then the move's handler)."""
        return self._flow.apply(state, player, action)

    # Each handler runs only in its phase, for the player to act.

    def _take(self, state: GinState, player: int, card: str) -> GinState:
        """``player`` takes the face-up ``card`` (already off the pile in ``state``)."""
        return replace(
            state,
            phase=DISCARD,
            hands=_set_seat(state.hands, player, tuple(sort_cards([*state.hands[player], card]))),
            picked=_set_seat(state.picked, player, (*state.picked[player], card)),
            drawn=card,
        )

    def _do_take_upcard(self, state: GinState, player: int, action: moves.TakeUpcard) -> GinState:
        card = state.discard[-1]
        after = replace(
            state,
            discard=state.discard[:-1],
            drawn_from="upcard",
            last_move=LastMove(player, "take_upcard", "discard", card),
        )
        return self._take(after, player, card)

    def _do_pass(self, state: GinState, player: int, action: moves.Pass) -> GinState:
        move = LastMove(player, "pass")
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

    def _do_draw(self, state: GinState, player: int, action: moves.Draw) -> GinState | Rejection:
        source = action.source
        if source == "discard":
            if state.stock_only:
                return _upcard_refused()
            if not state.discard:
                return Rejection("empty_discard", "The discard pile is empty.")
            card = state.discard[-1]
            after = replace(
                state,
                discard=state.discard[:-1],
                drawn_from="discard",
                last_move=LastMove(player, "draw", "discard", card),
            )
            return self._take(after, player, card)
        if not state.stock:
            return Rejection("empty_stock", "The stock is empty.")
        card = state.stock[-1]
        return replace(
            state,
            phase=DISCARD,
            hands=_set_seat(state.hands, player, tuple(sort_cards([*state.hands[player], card]))),
            stock=state.stock[:-1],
            stock_only=False,
            drawn=card,
            drawn_from="stock",
            last_move=LastMove(player, "draw", "stock"),
        )

    def _card_to_play(
        self, state: GinState, player: int, action: moves.Discard | moves.Knock
    ) -> str | Rejection:
        card = action.card
        if not is_card(card):
            return bad_card(card)
        if card not in state.hands[player]:
            return Rejection("not_in_hand", f"You don't hold the {card_name(card)}.")
        if card == self._taken(state):
            return Rejection(
                "discard_taken_card",
                f"You can't discard the {card_name(card)}: you just took it from the discard pile.",
            )
        return card

    def _let_go(self, state: GinState, player: int, card: str) -> GinState:
        """``player``'s hand (and public picks) without ``card``; the turn's draw is over."""
        return replace(
            state,
            hands=_set_seat(state.hands, player, _without(state.hands[player], card)),
            picked=_set_seat(state.picked, player, _without(state.picked[player], card)),
            drawn=None,
            drawn_from=None,
        )

    def _do_discard(
        self, state: GinState, player: int, action: moves.Discard
    ) -> GinState | Rejection:
        card = self._card_to_play(state, player, action)
        if isinstance(card, Rejection):
            return card
        after = replace(
            self._let_go(state, player, card),
            discard=(*state.discard, card),
            last_move=LastMove(player, "discard", None, card),
        )
        if len(state.stock) <= DRAW_AT_STOCK:
            return self._end_drawn_hand(after)
        return replace(after, phase=DRAW, turn=_other(player))

    def _do_knock(self, state: GinState, player: int, action: moves.Knock) -> GinState | Rejection:
        card = self._card_to_play(state, player, action)
        if isinstance(card, Rejection):
            return card
        hand = _without(state.hands[player], card)
        limit = state.options.knock_limit
        rule = f"the knock limit is {limit}" if limit else "only Gin (0 deadwood) may knock"
        chosen = action.melds
        if chosen is None:
            arr = best_arrangement(hand)
            if arr.points > limit:
                return Rejection(
                    "deadwood_too_high",
                    f"You can't knock: after discarding the {card_name(card)} your deadwood "
                    f"would be {arr.points}, and {rule}.",
                )
        else:
            picked = _chosen_arrangement(hand, card, chosen)
            if isinstance(picked, Rejection):
                return picked
            arr = picked
            if arr.points > limit:
                best = deadwood_points(hand)
                hint = f" (your best layout leaves {best})" if best < arr.points else ""
                return Rejection(
                    "deadwood_too_high",
                    f"You can't knock with those melds: your deadwood would be {arr.points} "
                    f"({card_names(arr.deadwood)}), and {rule}{hint}.",
                )
        gin = arr.points == 0
        knock = Knock(
            knocker=player,
            kind="gin" if gin else "knock",
            discard=card,
            melds=_melds_tuple(arr.melds),
            deadwood=tuple(arr.deadwood),
            points=arr.points,
        )
        after = replace(
            self._let_go(state, player, card),
            knock=knock,
            last_move=LastMove(player, "gin" if gin else "knock"),
        )
        if gin:
            return self._end_knocked_hand(after)
        return replace(after, phase=LAYOFF, turn=_other(player))

    def _do_big_gin(
        self, state: GinState, player: int, action: moves.BigGin
    ) -> GinState | Rejection:
        arr = best_arrangement(state.hands[player])
        if arr.points:
            return Rejection(
                "not_big_gin",
                "Big Gin needs all 11 of your cards in melds; you would still have "
                f"{arr.points} points of deadwood.",
            )
        knock = Knock(
            knocker=player,
            kind="big_gin",
            discard=None,
            melds=_melds_tuple(arr.melds),
            deadwood=(),
            points=0,
        )
        after = replace(
            state, drawn=None, drawn_from=None, knock=knock, last_move=LastMove(player, "big_gin")
        )
        return self._end_knocked_hand(after)

    def _do_lay_off(
        self, state: GinState, player: int, action: moves.LayOff
    ) -> GinState | Rejection:
        knock = state.knock
        assert knock is not None
        card = action.card
        if not is_card(card):
            return bad_card(card)
        if card not in state.hands[player]:
            return Rejection("not_in_hand", f"You don't hold the {card_name(card)}.")
        index = action.meld
        melds = current_melds(knock)
        if not 0 <= index < len(melds):
            return _bad_meld_number(state, player, index)
        if not can_lay_off(melds[index], card):
            return Rejection(
                "cannot_lay_off",
                f"The {card_name(card)} doesn't extend the knocker's meld of the "
                f"{card_names(melds[index])}.",
            )
        return replace(
            self._let_go(state, player, card),
            knock=replace(knock, layoffs=(*knock.layoffs, Layoff(card, index))),
            last_move=LastMove(player, "lay_off", None, card),
        )

    def _do_finish_layoff(
        self, state: GinState, player: int, action: moves.FinishLayoff
    ) -> GinState:
        return self._end_knocked_hand(replace(state, last_move=LastMove(player, "finish_layoff")))

    def _do_next_hand(self, state: GinState, player: int, action: moves.NextHand) -> GinState:
        fresh = self._deal(
            state.options,
            state.seed,
            state.hand_no + 1,
            _other(state.dealer),
            key=state.deal_key,
        )
        return replace(
            fresh,
            scores=state.scores,
            hands_won=state.hands_won,
            draws=state.draws,
            history=state.history,
            last_move=LastMove(player, "next_hand"),
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
    """Rules 15-16: the grand totals once player ``reached`` got to the target."""
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


@lru_cache(maxsize=1 << 12)
def _discard_points(
    hand: tuple[str, ...], taken: str | None, limit: int
) -> tuple[frozenset[str], int | None]:
    """For a hand of 11: the discards that allow a knock, and the least deadwood any allowed
    discard (not ``taken``) leaves. Cached: the view and ``legal_actions`` ask about the same
    hand."""
    whole = best_arrangement(hand)
    dead = set(whole.deadwood)
    knocks: set[str] = set()
    least: int | None = None
    # Deadwood cards first, highest first: their exact results prune most melded cards.
    for c in sorted(hand, key=lambda x: (x not in dead, -deadwood_value(x))):
        if c == taken:
            continue
        # Removing deadwood keeps every meld; removing a melded card can only shrink the
        # melds, so ``whole.points - value`` is then a lower bound.
        points = whole.points - deadwood_value(c)
        if c not in dead:
            if points > limit and least is not None and points >= least:
                continue
            points = deadwood_points(x for x in hand if x != c)
        least = points if least is None else min(least, points)
        if points <= limit:
            knocks.add(c)
    return frozenset(knocks), least


def _chosen_arrangement(hand: tuple[str, ...], card: str, melds: object) -> Arrangement | Rejection:
    """The knocker's own layout of ``hand`` (the cards left after discarding ``card``)."""
    shape = Rejection(
        "bad_melds",
        'Give "melds" as a list of melds, each a list of cards such as ["H4", "H5", "H6"].',
    )
    if not isinstance(melds, list | tuple):
        return shape
    if not all(isinstance(m, list | tuple) and all(is_card(c) for c in m) for m in melds):
        return shape
    if any(card in meld for meld in melds):
        return Rejection(
            "knock_card_in_meld",
            f"The {card_name(card)} is the card you are discarding; it can't be in a meld.",
        )
    seen: set[str] = set()
    for meld in melds:
        for c in meld:
            if c not in hand:
                return Rejection("not_in_hand", f"You don't hold the {card_name(c)}.")
            if c in seen:
                return Rejection(
                    "meld_overlap",
                    f"The {card_name(c)} is in two of your melds; a card belongs to one meld "
                    "at most.",
                )
            seen.add(c)
        if not is_meld(meld):
            return Rejection(
                "not_a_meld",
                f"The {card_names(sort_cards(meld))} don't form a meld: {_MELD_RULE}.",
            )
    return arrangement_of(hand, melds)


def _check_state(state: GinState, info: GameInfo) -> str | None:
    """Why ``state`` cannot happen in a game, or ``None`` if it can."""
    problem = info.resolve_options(msgspec.structs.asdict(state.options))
    if isinstance(problem, Rejection):
        return f"Bad options: {problem.message}"
    if state.phase not in PHASES:
        return f"Unknown phase {state.phase!r}."
    if not _is_seat(state.dealer):
        return f"The dealer must be player 0 or 1, not {state.dealer}."
    ended = state.phase in (HAND_OVER, GAME_OVER)
    if ended != (state.turn is None):
        if ended:
            return "Nobody moves once the hand is over, but the state names a player to move."
        return "A hand in play needs a player to move."
    if state.turn is not None and not _is_seat(state.turn):
        return f"The player to move must be 0 or 1, not {state.turn}."
    problem_text = (
        _check_cards(state)
        or _check_first_turn(state)
        or _check_hand_sizes(state)
        or _check_knock(state)
        or _check_history(state)
    )
    return problem_text or None


def _check_cards(state: GinState) -> str:
    places: list[str] = [*state.hands[0], *state.hands[1], *state.stock, *state.discard]
    if state.knock is not None:
        places += [lo.card for lo in state.knock.layoffs]
        if state.knock.discard is not None:
            places.append(state.knock.discard)
    if len(places) != len(_DECK) or set(places) != _DECK:
        bad = sorted({c for c in places if not is_card(c)})
        if bad:
            return f"Not card codes: {', '.join(map(repr, bad))}."
        counts: dict[str, int] = {}
        for c in places:
            counts[c] = counts.get(c, 0) + 1
        twice = sort_cards(c for c, n in counts.items() if n > 1)
        if twice:
            return f"Cards appear more than once: the {card_names(twice)}."
        return f"Cards are missing: the {card_names(sort_cards(_DECK - set(counts)))}."
    for p in (0, 1):
        if len(set(state.picked[p])) != len(state.picked[p]) or not set(state.picked[p]) <= set(
            state.hands[p]
        ):
            return f"Player {p}'s cards taken from the discard pile must still be in the hand."
    if state.phase == DRAW and len(state.stock) <= DRAW_AT_STOCK:
        return f"A hand ends once the stock is down to {DRAW_AT_STOCK} cards."
    if state.phase in (DISCARD, LAYOFF) and len(state.stock) < DRAW_AT_STOCK:
        return f"A hand ends once the stock is down to {DRAW_AT_STOCK} cards."
    return ""


def _check_first_turn(state: GinState) -> str:
    if not 0 <= state.passes <= 2:
        return f"The upcard can be passed twice at most, not {state.passes} times."
    if state.phase == UPCARD:
        if state.passes > 1 or len(state.discard) != 1 or len(state.stock) != 31:
            return "The upcard is offered only before any card is drawn."
        expected = _other(state.dealer) if state.passes == 0 else state.dealer
        if state.turn != expected:
            return "The upcard is offered to the non-dealer first, then to the dealer."
    if state.stock_only and (
        state.phase != DRAW or state.passes != 2 or state.turn != _other(state.dealer)
    ):
        return "Only the non-dealer's first draw after two passes is stock-only."
    if (state.drawn is None) != (state.drawn_from is None):
        return "A drawn card needs its source, and a source its card."
    if state.phase == DISCARD:
        if state.drawn is None or state.drawn_from not in ("upcard", "discard", "stock"):
            return "A player discarding must have drawn this turn."
        assert state.turn is not None
        if state.drawn not in state.hands[state.turn]:
            return "The card drawn this turn must be in the drawer's hand."
    elif state.drawn is not None:
        return "A card can only have been drawn this turn in the discard phase."
    return ""


def _check_hand_sizes(state: GinState) -> str:
    sizes = (len(state.hands[0]), len(state.hands[1]))
    phase = state.phase
    knock = state.knock
    if phase in (UPCARD, DRAW):
        expected = (HAND_SIZE, HAND_SIZE)
    elif phase == DISCARD:
        assert state.turn is not None
        expected = _pair(state.turn, HAND_SIZE + 1, HAND_SIZE)
    elif knock is None:
        expected = (HAND_SIZE, HAND_SIZE)
    else:
        kept = HAND_SIZE + 1 if knock.kind == "big_gin" else HAND_SIZE
        expected = _pair(knock.knocker, kept, HAND_SIZE - len(knock.layoffs))
    if sizes != expected:
        return (
            f"In the {phase} phase the hands should hold {expected[0]} and {expected[1]} "
            f"cards, not {sizes[0]} and {sizes[1]}."
        )
    return ""


def _check_knock(state: GinState) -> str:
    knock = state.knock
    if state.phase in (UPCARD, DRAW, DISCARD):
        return "A knock belongs to the lay-off phase or a finished hand." if knock else ""
    if knock is None:
        return "The lay-off phase needs a knock." if state.phase == LAYOFF else ""
    k = knock.knocker
    if not _is_seat(k):
        return f"The knocker must be player 0 or 1, not {k}."
    if state.phase == LAYOFF and (knock.kind != "knock" or state.turn != _other(k)):
        return "After a knock the defender lays off."
    if knock.kind not in ("knock", "gin", "big_gin"):
        return f"Unknown kind of knock {knock.kind!r}."
    laid = [c for m in knock.melds for c in m] + list(knock.deadwood)
    if not all(is_meld(m) for m in knock.melds) or len(set(laid)) != len(laid):
        return "The knocker's melds must be valid and share no card."
    if sorted(laid) != sorted(state.hands[k]):
        return "The knocker's melds and deadwood must be exactly the knocker's hand."
    points = sum(deadwood_value(c) for c in knock.deadwood)
    if points != knock.points:
        return f"The knocker's deadwood counts {points}, not {knock.points}."
    if knock.kind == "knock" and not 0 < points <= state.options.knock_limit:
        return f"A knock needs 1 to {state.options.knock_limit} deadwood, not {points}."
    if knock.kind != "knock" and (points or knock.layoffs):
        return "Gin and Big Gin have no deadwood and no lay-offs."
    if (knock.kind == "big_gin") != (knock.discard is None):
        return "Every knock but Big Gin discards a card face down."
    melds = [list(m) for m in knock.melds]
    for lo in knock.layoffs:
        if not 0 <= lo.meld < len(melds) or not can_lay_off(melds[lo.meld], lo.card):
            return f"The {card_name(lo.card)} can't be laid off onto meld {lo.meld}."
        melds[lo.meld] = extend_meld(melds[lo.meld], lo.card)
    return ""


def _hand_score(opts: Options, h: HandResult) -> tuple[int, int]:
    """(bonus, points) a finished knocked hand must have scored (rules 11-13)."""
    assert h.knocker is not None
    kd, dd = h.seats[h.knocker].points, h.seats[_other(h.knocker)].points
    if h.kind == "gin":
        return opts.gin_bonus, opts.gin_bonus + dd
    if h.kind == "big_gin":
        return opts.big_gin_bonus, opts.big_gin_bonus + dd
    if h.kind == "undercut":
        return opts.undercut_bonus, opts.undercut_bonus + kd - dd
    return 0, dd - kd


def _check_history(state: GinState) -> str:
    ended = state.phase in (HAND_OVER, GAME_OVER)
    finished = state.hand_no if ended else state.hand_no - 1
    if state.hand_no < 1 or len(state.history) != finished:
        return (
            f"Hand {state.hand_no} {'is over' if ended else 'is in play'}, so the history "
            f"should hold {finished} hands, not {len(state.history)}."
        )
    scores = [0, 0]
    won = [0, 0]
    draws = 0
    dealer = None
    for i, h in enumerate(state.history):
        if h.hand_no != i + 1:
            return "The history must list hands 1, 2, 3... in order."
        if dealer is not None and h.dealer != _other(dealer):
            return "The deal must alternate every hand."
        dealer = h.dealer
        if h.points < 0:
            return f"Hand {h.hand_no} scored negative points."
        if h.winner is None:
            if h.kind != "draw" or h.points or h.bonus:
                return f"Hand {h.hand_no} has a bad result."
            draws += 1
            continue
        if h.kind not in _WON_KINDS or h.winner not in (0, 1) or h.knocker not in (0, 1):
            return f"Hand {h.hand_no} has a bad result."
        if (h.bonus, h.points) != _hand_score(state.options, h):
            return f"Hand {h.hand_no}'s points do not follow from its deadwood."
        scores[h.winner] += h.points
        won[h.winner] += 1
    if dealer is not None and state.dealer != (dealer if ended else _other(dealer)):
        return "The deal must alternate every hand."
    for p in (0, 1):
        if state.scores[p] != scores[p] or state.hands_won[p] != won[p]:
            return f"Player {p}'s score does not match the hands played."
    if state.draws != draws:
        return "The count of drawn hands does not match the hands played."
    if ended and state.history[-1].kind != "draw":
        knock, last = state.knock, state.history[-1]
        if knock is None or knock.knocker != last.knocker:
            return "A knocked hand that is over keeps its knock on the table."
        if (
            last.layoffs != knock.layoffs
            or last.knock_discard != knock.discard
            or last.seats[knock.knocker].melds != knock.melds
        ):
            return "The last hand's result does not match the knock on the table."
    elif ended and state.knock is not None:
        return "A drawn hand has no knock."
    if state.phase == GAME_OVER:
        reached = state.history[-1].winner
        if reached is None or state.scores[reached] < state.options.target:
            return "The game ends only when a player reaches the target."
        if state.game_result != game_result(state, reached):
            return "The game result does not match the scores."
    else:
        if state.game_result is not None:
            return "Only a finished game has a result."
        if max(state.scores) >= state.options.target:
            return "A player reached the target, so the game should be over."
    if state.last_move is not None and not _is_seat(state.last_move.seat):
        return "The last move must be by player 0 or 1."
    return ""


def _upcard_refused() -> Rejection:
    return Rejection(
        "upcard_refused",
        "Both players passed on the upcard, so you must draw from the stock.",
    )


ENGINE = GinRummy()

if TYPE_CHECKING:  # GinRummy satisfies the plugin protocol
    _PROTOCOL_CHECK: Engine[GinState] = ENGINE


fair.register_round_robin("gin_rummy", lambda players: HAND_SIZE, upcard=True)
fair.register_deck("gin_rummy", lambda players: full_deck())
