"""The pure Spades rules engine: ``Spades`` implements ``plugins.base.Engine`` (contract v2).

Rule numbers refer to ``shared/rules/spades.md``. Four players, partners opposite: the sides
are players ``[0, 2]`` (side 0) and ``[1, 3]`` (side 1); play goes clockwise ``0, 1, 2, 3``.
The engine has no I/O and no global randomness: deal ``n`` is shuffled with
``random.Random(f"spades:{seed}:{n}")`` and the first dealer comes from
``random.Random(f"spades:{seed}:first_dealer")``. ``new_game(..., deck=...)`` deals the given
52 cards instead for the first deal, ``deck[0]`` to the dealer's left (see :func:`stack_deck`).
A provably fair deal (docs/fairness.md) has a key instead: ``new_game(..., deal_key=...)`` or
``deal_with(state, key)`` before the next deal; that deal's order is
``fair.shuffle(STANDARD, key)``, dealt the same way, and ``deal_record`` gives it.
States are frozen ``msgspec`` structs; ``apply`` never mutates its input.

Scoring is the pure function :func:`score_side` (rules 11-13); :func:`game_winner` decides
rule 14.

Actions (plain dicts with a ``"type"`` key)
-------------------------------------------
On the wire, plain dicts; the flow's gate (``plugins.base.Flow``) turns each into its struct
in :mod:`plugins.spades.actions` and hands it to the move's handler.

``{"type": "bid", "bid": 0..13}``
    The player to bid (rule 4); 0 is nil (rule 5). ``{"type": "bid", "bid": 0, "blind": true}``
    is blind nil (rule 6): only with the ``blind_nil`` option, by a player whose side trailed by
    100 or more when the cards were dealt and who has not looked at the cards yet.
``{"type": "look"}``
    A player whose cards were dealt face down (blind nil possible) picks them up. Allowed at any
    time during the bidding, also out of turn; bidding anything also picks them up.
``{"type": "pass_cards", "cards": ["C2", "D3"]}``
    After a blind nil bid: first the bidder's partner passes 2 cards to the bidder, then the
    bidder passes 2 back (any 2, the received ones included).
``{"type": "play", "card": "H12"}``
    Play a card to the trick (rules 7-10).
``{"type": "gather"}``
    The game's own action (player ``None``): the finished trick goes to its winner, who leads
    next. ``scheduled()`` asks for it 1 second after the fourth card; the trick stays visible
    until then. After the 13th trick the deal is scored.
``{"type": "next_deal"}``
    Any player, once a deal is scored and the game is not over: the deal passes clockwise.

Phases: ``bidding``, ``exchange`` (blind nil cards), ``playing``, ``trick_done`` (four cards
on the table, waiting for ``gather``), ``deal_over``, ``game_over``.

Rejection codes
---------------
``bad_player``, ``bad_action`` (not a dict, no type), ``unknown_action``, ``game_over``,
``wrong_phase``, ``not_your_turn``, ``automatic_action`` (a player sent ``gather``),
``bad_bid``, ``blind_nil_not_allowed``, ``already_looked``, ``bad_card``, ``not_in_hand``,
``bad_pass`` (not exactly 2 different cards), ``must_follow_suit``, ``spades_not_broken``.

State (``SpadesState``; ``dump`` gives the same keys as plain data)
-------------------------------------------------------------------
``options`` {target, blind_nil}, ``seed``, ``deal_no`` (1-based), ``dealer``, ``phase``,
``turn`` (player to bid, pass or play; ``None`` otherwise), ``hands`` (four lists in display
order), ``bids`` (``None`` until made), ``blind`` (blind nil bids), ``unseen`` (cards still face
down to their owner), ``exchange`` (``None`` or {blind, partner, given, returned}), ``leader``
(of the current trick), ``trick`` (cards played to it, the leader's first), ``tricks`` (the
finished tricks of this deal: {leader, cards, winner}), ``spades_broken``, ``scores`` and
``bags`` (per side), ``history`` (one ``DealResult`` per scored deal), ``winner`` (the winning
side once the game is over), ``deal_key`` (hex: the key the next deal will use, cleared once
used) and ``fair_key`` (hex: the key of the current deal; ``None`` for a seeded deal).

View (``view(state, player)``; ``None`` for a spectator)
--------------------------------------------------------
``game``, ``player``, ``phase``, ``to_act``, ``turn``, ``deal_no``, ``dealer``, ``leader``,
``options``, ``teams``, ``hand`` (own cards sorted diamonds, clubs, hearts, spades, ace high;
``None`` for spectators and while the cards are still face down), ``hand_hidden``,
``hand_counts``, ``stock_count`` (always 0), ``bids``, ``blind``, ``unseen``, ``trick``
([{player, card}] in play order), ``trick_winner`` (once four cards lie), ``tricks_taken``
(per player), ``played`` (this deal's finished tricks, public), ``last_trick``,
``spades_broken``, ``exchange`` ({blind, partner, step, received: the cards this viewer was
passed and has not passed back, or ``None``}), ``scores``, ``bags``, ``contracts`` (per
side: the non-nil bids added up), ``history`` (every ``DealResult`` as plain data: deal_no,
dealer, bids, blind, tricks, and per side the ``SideResult`` fields), ``winner``.

Interpretations
---------------
* Rule 6: eligibility is fixed when the cards are dealt (the side's score is 100 or more below
  the other side's). Eligible players get their cards face down and may look at any time
  during the bidding. At most one blind nil per side. Blind nil is scored like nil with 200.
* Rule 12: should a deal push the bags to 20 or more, the 100-point loss applies once per 10.
* Rule 13: with both partners bidding nil the side has no contract; every trick a failed nil
  bidder takes is a bag worth 1 point.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from msgspec import Struct
from msgspec.structs import replace

from plugins import fair
from plugins.base import (
    EVERYONE,
    Engine,
    Flow,
    GameInfo,
    InvalidState,
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
from plugins.cards import STANDARD, SUIT_NAMES, bad_card, card_name, rank_high, suit
from plugins.spades.actions import Bid, Look, NextDeal, PassCards, Play, SpadesAction

PLAYERS = 4
HAND_SIZE = 13
MAX_BID = 13
TEAMS = ((0, 2), (1, 3))
BAG_LIMIT = 10
BAG_PENALTY = 100
NIL_POINTS = 100
BLIND_NIL_POINTS = 200
BLIND_NIL_DEFICIT = 100
EXCHANGE_CARDS = 2
GATHER_DELAY = 1.0
TARGETS = (200, 300, 500)

BIDDING = "bidding"
EXCHANGE = "exchange"
PLAYING = "playing"
TRICK_DONE = "trick_done"
DEAL_OVER = "deal_over"
GAME_OVER = "game_over"
PHASES = (BIDDING, EXCHANGE, PLAYING, TRICK_DONE, DEAL_OVER, GAME_OVER)

SPADE = "S"
DISPLAY_SUITS = "DCHS"
_HIGH = {c: rank_high(c) for c in STANDARD}
_ORDER = {c: (DISPLAY_SUITS.index(suit(c)), _HIGH[c]) for c in STANDARD}
_DECK = frozenset(STANDARD)


class Options(Struct, frozen=True):
    """Room options, resolved against :attr:`Spades.info`."""

    target: int = 500
    blind_nil: bool = False


class Trick(Struct, frozen=True):
    """A finished trick: the leader, the four cards from the leader on, and who won it."""

    leader: int
    cards: tuple[str, ...]
    winner: int


class Exchange(Struct, frozen=True):
    """The blind nil card exchange: ``given`` by the partner, ``returned`` by the bidder."""

    blind: int
    partner: int
    given: tuple[str, ...] = ()
    returned: tuple[str, ...] = ()


class SideResult(Struct, frozen=True):
    """One side's score for one deal (:func:`score_side`).

    ``bid`` is the contract (the non-nil bids added up), ``tricks`` every trick the side took,
    ``counted`` the tricks of its non-nil bidders; ``points`` is the deal's total: contract
    points + nil points + ``bags_gained`` (1 each) + ``penalty``. ``score`` and ``bags`` are
    the side's totals after the deal.
    """

    bid: int
    tricks: int
    counted: int
    contract_points: int
    nil_points: int
    bags_gained: int
    penalty: int
    points: int
    score: int
    bags: int


class DealResult(Struct, frozen=True):
    """A scored deal: bids, blind nils and tricks per player, and both sides' results."""

    deal_no: int
    dealer: int
    bids: tuple[int, ...]
    blind: tuple[bool, ...]
    tricks: tuple[int, ...]
    sides: tuple[SideResult, ...]


class SpadesState(Struct, frozen=True):
    """The whole game. See the module docstring for the meaning of every field."""

    options: Options
    seed: int
    deal_no: int
    dealer: int
    phase: str
    turn: int | None
    hands: tuple[tuple[str, ...], ...]
    bids: tuple[int | None, ...] = (None, None, None, None)
    blind: tuple[bool, ...] = (False, False, False, False)
    unseen: tuple[bool, ...] = (False, False, False, False)
    exchange: Exchange | None = None
    leader: int | None = None
    trick: tuple[str, ...] = ()
    tricks: tuple[Trick, ...] = ()
    spades_broken: bool = False
    scores: tuple[int, ...] = (0, 0)
    bags: tuple[int, ...] = (0, 0)
    history: tuple[DealResult, ...] = ()
    winner: int | None = None
    deal_key: str | None = None
    fair_key: str | None = None


# ------------------------------------------------------------------------- pure helpers


def side_of(player: int) -> int:
    """0 for players 0 and 2, 1 for players 1 and 3."""
    return player % 2


def partner_of(player: int) -> int:
    return (player + 2) % PLAYERS


def sort_hand(cards: Sequence[str]) -> tuple[str, ...]:
    """Diamonds, clubs, hearts, spades (colours alternate, trumps last); ace high."""
    return tuple(sorted(cards, key=_ORDER.__getitem__))


def beats(card: str, best: str) -> bool:
    """Whether ``card`` takes the trick from ``best``, the card winning it so far (rule 9)."""
    if suit(card) == suit(best):
        return _HIGH[card] > _HIGH[best]
    return suit(card) == SPADE


def trick_winner(leader: int, cards: Sequence[str]) -> int:
    """Rule 9: the highest spade, else the highest card of the suit led."""
    best = 0
    for i in range(1, len(cards)):
        if beats(cards[i], cards[best]):
            best = i
    return (leader + best) % PLAYERS


def score_side(
    score: int,
    bags: int,
    bids: Sequence[int],
    tricks: Sequence[int],
    blind: Sequence[bool] | None = None,
) -> SideResult:
    """Rules 11-13 for one side: its score and bags before the deal, each partner's bid
    (0 = nil), tricks taken and blind-nil flag. Returns the deal's points and the new totals.

    >>> score_side(337, 7, (3, 2), (4, 3)).score   # the worked example: 5 bid, 7 taken
    389
    """
    flags = tuple(blind) if blind is not None else (False,) * len(bids)
    contract = sum(b for b in bids if b > 0)
    counted = sum(t for b, t in zip(bids, tricks, strict=True) if b > 0)
    nil_points = 0
    nil_bags = 0
    for b, t, is_blind in zip(bids, tricks, flags, strict=True):
        if b == 0:
            value = BLIND_NIL_POINTS if is_blind else NIL_POINTS
            if t == 0:
                nil_points += value
            else:
                nil_points -= value
                nil_bags += t
    overtricks = 0
    if contract == 0:
        contract_points = 0
    elif counted >= contract:
        contract_points = 10 * contract
        overtricks = counted - contract
    else:
        contract_points = -10 * contract
    gained = overtricks + nil_bags
    total_bags = bags + gained
    penalties = total_bags // BAG_LIMIT
    total_bags -= penalties * BAG_LIMIT
    penalty = -BAG_PENALTY * penalties
    points = contract_points + nil_points + gained + penalty
    return SideResult(
        bid=contract,
        tricks=sum(tricks),
        counted=counted,
        contract_points=contract_points,
        nil_points=nil_points,
        bags_gained=gained,
        penalty=penalty,
        points=points,
        score=score + points,
        bags=total_bags,
    )


def score_deal(
    scores: Sequence[int],
    bags: Sequence[int],
    bids: Sequence[int],
    tricks: Sequence[int],
    blind: Sequence[bool],
) -> tuple[SideResult, SideResult]:
    """Both sides' :func:`score_side` for a deal given per-player bids, tricks and flags."""
    results = tuple(
        score_side(
            scores[s],
            bags[s],
            [bids[p] for p in TEAMS[s]],
            [tricks[p] for p in TEAMS[s]],
            [blind[p] for p in TEAMS[s]],
        )
        for s in (0, 1)
    )
    return results[0], results[1]


def game_winner(scores: Sequence[int], target: int) -> int | None:
    """Rule 14: the side that reached ``target``; both: the higher; equal (or none): ``None``."""
    reached = [s for s in (0, 1) if scores[s] >= target]
    if not reached:
        return None
    if len(reached) == 1:
        return reached[0]
    if scores[0] == scores[1]:
        return None
    return 0 if scores[0] > scores[1] else 1


def stack_deck(hands: Sequence[Sequence[str]], dealer: int) -> list[str]:
    """The 52-card deck order that deals ``hands[p]`` to each player ``p`` (rule 3: one card
    at a time from the dealer's left), for ``new_game(..., deck=...)``."""
    order = []
    for i in range(PLAYERS * HAND_SIZE):
        order.append(hands[(dealer + 1 + i) % PLAYERS][i // PLAYERS])
    return order


def side_name(side: int, names: Sequence[str]) -> str:
    """A side is named by its two players: ``"Ana & Cy"``."""
    a, b = TEAMS[side]
    return f"{_name(names, a)} & {_name(names, b)}"


def _name(names: Sequence[str], player: int) -> str:
    return names[player] if 0 <= player < len(names) else f"Player {player + 1}"


def _is_player(player: object) -> bool:
    return isinstance(player, int) and not isinstance(player, bool) and 0 <= player < PLAYERS


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1 :]


def _bid_text(bid: int | None, blind: bool) -> str:
    if bid is None:
        return "-"
    if bid == 0:
        return "blind nil" if blind else "nil"
    return str(bid)


def _bags_text(side: SideResult) -> str:
    """A side's bags after a deal: ``"3"``, ``"5 (+2)"``, or ``"1 (+4, 10 removed)"``."""
    if not side.bags_gained:
        return str(side.bags)
    removed = -side.penalty // BAG_PENALTY * BAG_LIMIT
    extra = f", {removed} removed" if removed else ""
    return f"{side.bags} (+{side.bags_gained}{extra})"


# A state shares its finished tricks and its deals' history (tuples of frozen structs) with the
# states before it: a card played changes neither. So ``view`` turns each such tuple into plain
# data once, not once per view of every state, and ``scoreboard`` is built once per history,
# scores and names: each kept by the tuple's identity (an entry holds its tuple, so its id is not
# reused while kept), the oldest entry dropped beyond _MEMO entries. Every view of the same
# tricks shares those lists: views are read, never changed.
_MEMO = 512
_PLAIN: dict[int, tuple[tuple[Any, ...], Any]] = {}
_BOARDS: dict[tuple[object, ...], tuple[tuple[Any, ...], Scoreboard]] = {}


def _kept(memo: dict[Any, Any], key: Any, entry: Any) -> None:
    if len(memo) >= _MEMO:
        del memo[next(iter(memo))]
    memo[key] = entry


def _plain_once(part: tuple[Any, ...]) -> Any:
    """``plain(part)``, worked out once for this tuple."""
    hit = _PLAIN.get(id(part))
    if hit is not None and hit[0] is part:
        return hit[1]
    out = plain(part)
    _kept(_PLAIN, id(part), (part, out))
    return out


def _trick_count(state: SpadesState) -> list[int]:
    taken = [0] * PLAYERS
    for t in state.tricks:
        taken[t.winner] += 1
    return taken


# --------------------------------------------------------------------------------- engine


def _turn(state: SpadesState) -> list[int]:
    return [] if state.turn is None else [state.turn]


# Who may do what, when (the flow's gate asks it for every move; see plugins.base.Flow).
_PHASES: dict[str, Phase[SpadesState]] = {
    BIDDING: Phase(
        frozenset({"bid", "look"}),
        "Everyone bids first: the bidding goes once round the table.",
        wait="It's not your turn to bid.",
    ),
    EXCHANGE: Phase(
        frozenset({"pass_cards"}),
        "The blind nil bidder and partner are passing cards to each other.",
        wait="It's not your turn to pass cards.",
    ),
    PLAYING: Phase(
        frozenset({"play"}),
        "The cards are being played: play a card when it's your turn.",
        wait="It's not your turn to play.",
    ),
    TRICK_DONE: Phase(frozenset({"gather"}), "The trick is being gathered."),
    DEAL_OVER: Phase(
        frozenset({"next_deal"}),
        "This deal is over; start the next deal to keep playing.",
        actors=EVERYONE,
    ),
    GAME_OVER: Phase(frozenset(), "The game is over.", over=True),
}
_BAD_BID = Rejection("bad_bid", "Bid a whole number of tricks from 0 (nil) to 13.")
_BAD_BLIND = Rejection("bad_bid", 'Say "blind": true for blind nil, or leave it out.')
_BAD_PASS = Rejection("bad_pass", "Pass exactly 2 different cards, written like C2 (2 of clubs).")


class Spades:
    """Four-player partnership Spades (rules 1-14 of ``shared/rules/spades.md``)."""

    info = GameInfo(
        name="spades",
        title="Spades",
        min_players=PLAYERS,
        max_players=PLAYERS,
        options=(
            OptionSpec(
                "target",
                500,
                TARGETS,
                "The first side to reach this score wins the game.",
                label="Points to win",
            ),
            OptionSpec(
                "blind_nil",
                False,
                (False, True),
                "A player whose side trails by 100 or more may bid nil before looking at "
                "the cards (200 points); partners then exchange 2 cards.",
                label="Blind nil",
            ),
        ),
    )

    def __init__(self) -> None:
        self._flow: Flow[SpadesState] = Flow(
            title="Spades",
            moves=SpadesAction,
            phases=_PHASES,
            handlers={
                "bid": self._do_bid,
                "look": self._do_look,
                "pass_cards": self._do_pass_cards,
                "play": self._do_play,
                "gather": lambda state, player, action: self._do_gather(state),
                "next_deal": self._do_next_deal,
            },
            players=lambda state: PLAYERS,
            actors=_turn,
            example=("bid", "play"),
            bad_player=lambda state: Rejection(
                "bad_player", "Only the four seated players can make moves in Spades."
            ),
            no_player=lambda state: Rejection(
                "bad_player", "Every move except gathering a trick needs a player."
            ),
            anyone=frozenset({"look", "next_deal"}),
            automatic=Rejection(
                "automatic_action", "Tricks are gathered automatically; you can't do it."
            ),
            automatic_moves=frozenset({"gather"}),
            elsewhere={
                "next_deal": "This deal is still being played.",
                "gather": "There is no finished trick to gather.",
            },
            fields={
                "bid": _BAD_BID,
                "blind": _BAD_BLIND,
                "cards": _BAD_PASS,
                "card": lambda state, player, value: bad_card(value),
            },
        )

    # ---------------------------------------------------------------------------- setup

    def new_game(
        self,
        players: int,
        options: dict[str, Any],
        seed: int,
        deck: Sequence[str] | None = None,
        deal_key: bytes | None = None,
    ) -> SpadesState:
        """A fresh game: the first dealer drawn from ``seed``, the first deal dealt (from
        ``deck``, or shuffled with ``deal_key`` when given)."""
        if players != PLAYERS:
            raise ValueError("Spades is played by exactly 4 players.")
        resolved = self.info.resolve_options(options)
        if isinstance(resolved, Rejection):
            raise ValueError(resolved.message)
        if deck is not None and sorted(deck) != sorted(STANDARD):
            raise ValueError("The deck must hold each of the 52 cards exactly once.")
        opts = Options(**resolved)
        dealer = random.Random(f"spades:{seed}:first_dealer").randrange(PLAYERS)
        base = SpadesState(
            options=opts,
            seed=seed,
            deal_no=0,
            dealer=dealer,
            phase=DEAL_OVER,
            turn=None,
            hands=((), (), (), ()),
            deal_key=deal_key.hex() if deal_key is not None else None,
        )
        return self._deal(base, 1, dealer, deck)

    def _deal(
        self, state: SpadesState, deal_no: int, dealer: int, deck: Sequence[str] | None = None
    ) -> SpadesState:
        key = state.deal_key if deck is None else None
        if key is not None:
            cards = fair.shuffle(STANDARD, fair.as_key(key), "deal")
        elif deck is None:
            cards = list(STANDARD)
            random.Random(f"spades:{state.seed}:{deal_no}").shuffle(cards)
        else:
            cards = list(deck)
        hands: list[list[str]] = [[], [], [], []]
        for i, card in enumerate(cards):
            hands[(dealer + 1 + i) % PLAYERS].append(card)
        scores = state.scores
        unseen = tuple(
            state.options.blind_nil and _trailing_side(scores, side_of(p)) for p in range(PLAYERS)
        )
        return replace(
            state,
            deal_no=deal_no,
            dealer=dealer,
            phase=BIDDING,
            turn=(dealer + 1) % PLAYERS,
            hands=tuple(sort_hand(h) for h in hands),
            bids=(None, None, None, None),
            blind=(False, False, False, False),
            unseen=unseen,
            exchange=None,
            leader=None,
            trick=(),
            tricks=(),
            spades_broken=False,
            deal_key=None,
            fair_key=key,
        )

    def deal_with(self, state: SpadesState, key: bytes) -> SpadesState:
        """The state with the key the next deal will use (docs/fairness.md)."""
        return replace(state, deal_key=key.hex())

    def deal_record(self, state: SpadesState) -> dict[str, Any] | None:
        """The current deal as dealt with its key: deal number, dealer, the canonical deck, the
        shuffled order and where each card went (players' numbers); ``None`` for a seeded deal."""
        if state.fair_key is None:
            return None
        order = fair.shuffle(STANDARD, fair.as_key(state.fair_key), "deal")
        players = [str(p) for p in range(PLAYERS)]
        dealt = fair.round_robin(len(order), players, (state.dealer + 1) % PLAYERS, 13, False)
        deck = list(STANDARD)
        return {
            "deal": state.deal_no,
            "dealer": state.dealer,
            "deck": deck,
            "order": order,
            "dealt": dealt,
        }

    # -------------------------------------------------------------------------- queries

    def teams(self, state: SpadesState) -> list[list[int]]:
        return [list(t) for t in TEAMS]

    def to_act(self, state: SpadesState) -> list[int]:
        """The player to move; in the bidding also anyone whose cards are still face down
        (they may look); after a deal, everyone (anyone may start the next deal)."""
        phase = state.phase
        if phase == DEAL_OVER:
            return list(range(PLAYERS))
        if state.turn is None:
            return []
        if phase == BIDDING:
            order = [(state.turn + i) % PLAYERS for i in range(PLAYERS)]
            return [p for p in order if p == state.turn or state.unseen[p]]
        return [state.turn]

    def playable(self, state: SpadesState, player: int) -> list[str]:
        """The cards ``player`` may play now (rules 7, 8 and 10); empty if not their turn."""
        if state.phase != PLAYING or state.turn != player:
            return []
        hand = state.hands[player]
        if state.trick:
            led = suit(state.trick[0])
            same = [c for c in hand if suit(c) == led]
            return same or list(hand)
        if state.spades_broken:
            return list(hand)
        others = [c for c in hand if suit(c) != SPADE]
        return others or list(hand)

    def legal_actions(self, state: SpadesState, player: int) -> list[dict[str, Any]]:
        """Every action ``player`` may make now (all pairs of cards in the exchange)."""
        if not _is_player(player):
            return []
        phase = state.phase
        if phase == DEAL_OVER:
            return [{"type": "next_deal"}]
        if phase == PLAYING:
            return [{"type": "play", "card": c} for c in self.playable(state, player)]
        if phase == BIDDING:
            out: list[dict[str, Any]] = []
            if player == state.turn:
                out = [{"type": "bid", "bid": b} for b in range(MAX_BID + 1)]
                if self._may_bid_blind(state, player):
                    out.append({"type": "bid", "bid": 0, "blind": True})
            if state.unseen[player]:
                out.append({"type": "look"})
            return out
        if phase == EXCHANGE and player == state.turn:
            return [
                {"type": "pass_cards", "cards": list(pair)}
                for pair in combinations(state.hands[player], EXCHANGE_CARDS)
            ]
        return []

    @staticmethod
    def _may_bid_blind(state: SpadesState, player: int) -> bool:
        return state.unseen[player] and not state.blind[partner_of(player)]

    def scheduled(self, state: SpadesState) -> Scheduled | None:
        if state.phase == TRICK_DONE:
            return Scheduled(GATHER_DELAY, {"type": "gather"})
        return None

    def outcome(self, state: SpadesState) -> Outcome | None:
        if state.phase != GAME_OVER or state.winner is None:
            return None
        scores = tuple(state.scores[side_of(p)] for p in range(PLAYERS))
        return Outcome(winners=TEAMS[state.winner], scores=scores)

    # ----------------------------------------------------------------------------- apply

    def apply(
        self, state: SpadesState, player: int | None, action: dict[str, Any]
    ) -> SpadesState | Rejection:
        """Apply ``action`` by ``player`` (``None``: the game's own ``gather``): the flow's gate
        (player, shape, phase, turn, fields), then the move's handler."""
        return self._flow.apply(state, player, action)

    def _do_bid(self, state: SpadesState, player: int, action: Bid) -> SpadesState | Rejection:
        bid, blind = action.bid, action.blind
        if blind:
            problem = self._blind_problem(state, player, bid)
            if problem is not None:
                return Rejection("blind_nil_not_allowed", problem)
        bidder = player
        bids = _set(state.bids, bidder, bid)
        flags = _set(state.blind, bidder, blind)
        unseen = _set(state.unseen, bidder, False)
        after = replace(state, bids=bids, blind=flags, unseen=unseen)
        if any(b is None for b in bids):
            return replace(after, turn=(bidder + 1) % PLAYERS)
        unseen_none = (False,) * PLAYERS
        if True in flags:
            blind_player = flags.index(True)
            partner = partner_of(blind_player)
            return replace(
                after,
                phase=EXCHANGE,
                turn=partner,
                unseen=unseen_none,
                exchange=Exchange(blind=blind_player, partner=partner),
            )
        return self._start_play(replace(after, unseen=unseen_none))

    def _blind_problem(self, state: SpadesState, player: int, bid: int) -> str | None:
        if bid != 0:
            return "Only nil can be bid blind: a blind bid must be 0."
        if not state.options.blind_nil:
            return "Blind nil is not allowed in this game."
        if state.blind[partner_of(player)]:
            return "Your partner already bid blind nil; only one blind nil per side."
        if not state.unseen[player]:
            if _trailing_side(state.scores, side_of(player)):
                return "You have already looked at your cards, so you can't bid blind nil."
            return "Blind nil is only allowed when your side trails by 100 or more."
        return None

    def _do_look(self, state: SpadesState, player: int, action: Look) -> SpadesState | Rejection:
        if not state.unseen[player]:
            return Rejection("already_looked", "Your cards are already face up.")
        return replace(state, unseen=_set(state.unseen, player, False))

    def _do_pass_cards(
        self, state: SpadesState, player: int, action: PassCards
    ) -> SpadesState | Rejection:
        ex = state.exchange
        assert ex is not None
        cards = action.cards
        if not all(c in _DECK for c in cards) or cards[0] == cards[1]:
            return _BAD_PASS
        hand = state.hands[player]
        for c in cards:
            if c not in hand:
                return Rejection("not_in_hand", f"You don't hold the {card_name(c)}.")
        to = ex.blind if player == ex.partner else ex.partner
        kept = tuple(c for c in hand if c not in cards)
        received = sort_hand([*state.hands[to], *cards])
        hands = _set(_set(state.hands, player, kept), to, received)
        if player == ex.partner:
            return replace(
                state, hands=hands, turn=ex.blind, exchange=replace(ex, given=tuple(cards))
            )
        return self._start_play(
            replace(state, hands=hands, exchange=replace(ex, returned=tuple(cards)))
        )

    def _start_play(self, state: SpadesState) -> SpadesState:
        first = (state.dealer + 1) % PLAYERS
        return replace(state, phase=PLAYING, turn=first, leader=first)

    def _do_play(self, state: SpadesState, player: int, action: Play) -> SpadesState | Rejection:
        card = action.card
        if card not in _DECK:
            return bad_card(card)
        hand = state.hands[player]
        if card not in hand:
            return Rejection("not_in_hand", f"You don't hold the {card_name(card)}.")
        if state.trick:
            led = suit(state.trick[0])
            if suit(card) != led:
                follow = [c for c in hand if suit(c) == led]
                if follow:
                    return Rejection(
                        "must_follow_suit",
                        f"You must follow suit: {SUIT_NAMES[led]} were led and you hold the "
                        f"{card_name(follow[0])}.",
                    )
        elif (
            suit(card) == SPADE and not state.spades_broken and any(suit(c) != SPADE for c in hand)
        ):
            if not state.tricks:
                msg = "The first trick can't be led with a spade while you hold another suit."
            else:
                msg = "Spades haven't been broken yet: lead another suit."
            return Rejection("spades_not_broken", f"You can't lead the {card_name(card)}. {msg}")
        trick = (*state.trick, card)
        after = replace(
            state,
            hands=_set(state.hands, player, tuple(c for c in hand if c != card)),
            trick=trick,
            spades_broken=state.spades_broken or suit(card) == SPADE,
        )
        if len(trick) < PLAYERS:
            return replace(after, turn=(player + 1) % PLAYERS)
        return replace(after, phase=TRICK_DONE, turn=None)

    def _do_gather(self, state: SpadesState) -> SpadesState:
        assert state.leader is not None
        winner = trick_winner(state.leader, state.trick)
        tricks = (*state.tricks, Trick(state.leader, state.trick, winner))
        after = replace(state, trick=(), tricks=tricks)
        if len(tricks) < HAND_SIZE:
            return replace(after, phase=PLAYING, turn=winner, leader=winner)
        return self._score(replace(after, leader=None))

    def _score(self, state: SpadesState) -> SpadesState:
        bids = tuple(b if b is not None else 0 for b in state.bids)
        taken = tuple(_trick_count(state))
        sides = score_deal(state.scores, state.bags, bids, taken, state.blind)
        result = DealResult(
            deal_no=state.deal_no,
            dealer=state.dealer,
            bids=bids,
            blind=state.blind,
            tricks=taken,
            sides=sides,
        )
        scores = (sides[0].score, sides[1].score)
        after = replace(
            state,
            turn=None,
            scores=scores,
            bags=(sides[0].bags, sides[1].bags),
            history=(*state.history, result),
        )
        winner = game_winner(scores, state.options.target)
        if winner is None:
            return replace(after, phase=DEAL_OVER)
        return replace(after, phase=GAME_OVER, winner=winner)

    def _do_next_deal(self, state: SpadesState, player: int, action: NextDeal) -> SpadesState:
        return self._deal(state, state.deal_no + 1, (state.dealer + 1) % PLAYERS)

    # ------------------------------------------------------------------------------ view

    def view(self, state: SpadesState, player: int | None) -> dict[str, Any]:
        """What ``player`` (``None``: a spectator) may see; the module docstring lists keys."""
        own = player if _is_player(player) else None
        hidden = own is not None and state.unseen[own]
        hand = None if own is None or hidden else list(state.hands[own])
        taken = _trick_count(state)
        played = _plain_once(state.tricks)
        leader = state.leader
        trick = (
            [{"player": (leader + i) % PLAYERS, "card": c} for i, c in enumerate(state.trick)]
            if leader is not None
            else []
        )
        done = state.phase == TRICK_DONE and leader is not None
        contracts = [0, 0]
        for p, b in enumerate(state.bids):
            if b:
                contracts[p % 2] += b
        return {
            "game": self.info.name,
            "player": own,
            "phase": state.phase,
            "to_act": self.to_act(state),
            "turn": state.turn,
            "deal_no": state.deal_no,
            "dealer": state.dealer,
            "leader": leader,
            "options": {"target": state.options.target, "blind_nil": state.options.blind_nil},
            "teams": [[0, 2], [1, 3]],
            "hand": hand,
            "hand_hidden": hidden,
            "hand_counts": [len(h) for h in state.hands],
            "stock_count": 0,
            "bids": list(state.bids),
            "blind": list(state.blind),
            "unseen": list(state.unseen),
            "trick": trick,
            "trick_winner": trick_winner(leader, state.trick)
            if done and leader is not None
            else None,
            "tricks_taken": taken,
            "played": played,
            "last_trick": dict(played[-1], cards=list(played[-1]["cards"])) if played else None,
            "spades_broken": state.spades_broken,
            "exchange": self._exchange_view(state, own),
            "scores": list(state.scores),
            "bags": list(state.bags),
            "contracts": contracts,
            "history": _plain_once(state.history),
            "winner": state.winner,
        }

    @staticmethod
    def _exchange_view(state: SpadesState, own: int | None) -> dict[str, Any] | None:
        ex = state.exchange
        if ex is None:
            return None
        cards: tuple[str, ...] = ()
        if own == ex.blind:
            cards = ex.given
        elif own == ex.partner:
            cards = ex.returned
        received: list[str] | None = None
        if cards and own is not None:
            # A received card passed straight back is the partner's now: no longer shown.
            played = {c for t in state.tricks for c in t.cards} | set(state.trick)
            received = [c for c in cards if c in state.hands[own] or c in played]
        step = "give" if not ex.given else "return" if not ex.returned else "done"
        return {"blind": ex.blind, "partner": ex.partner, "step": step, "received": received}

    # ---------------------------------------------------------------------------- words

    def describe(
        self,
        before: SpadesState,
        player: int | None,
        action: dict[str, Any],
        names: Sequence[str],
        after: SpadesState | Rejection | None = None,
    ) -> str:
        kind = action.get("type") if isinstance(action, dict) else None
        who = _name(names, player) if player is not None and _is_player(player) else "The game"
        if kind == "bid":
            bid = action.get("bid")
            if action.get("blind"):
                return f"{who} bid blind nil"
            return f"{who} bid nil" if bid == 0 else f"{who} bid {bid}"
        if kind == "look":
            return f"{who} looked at their cards"
        if kind == "pass_cards" and before.exchange is not None and player is not None:
            to = (
                before.exchange.blind
                if player == before.exchange.partner
                else before.exchange.partner
            )
            return f"{who} passed 2 cards to {_name(names, to)}"
        if kind == "play":
            card = action.get("card")
            verb = "led" if not before.trick else "played"
            if isinstance(card, str) and card in _DECK:
                return f"{who} {verb} the {card_name(card)}"
            return f"{who} played a card"
        if kind == "gather" and before.leader is not None and len(before.trick) == PLAYERS:
            winner = trick_winner(before.leader, before.trick)
            card = before.trick[(winner - before.leader) % PLAYERS]
            return f"{_name(names, winner)} won the trick with the {card_name(card)}"
        if kind == "next_deal":
            dealer = _name(names, (before.dealer + 1) % PLAYERS)
            return f"{who} started deal {before.deal_no + 1}; {dealer} deals"
        return f"{who} made a move"

    def status(self, state: SpadesState, names: Sequence[str]) -> str:
        phase = state.phase
        if phase == GAME_OVER and state.winner is not None:
            w = state.winner
            return f"{side_name(w, names)} won the game {state.scores[w]} to {state.scores[1 - w]}"
        if phase == DEAL_OVER:
            a, b = state.scores
            return (
                f"Deal {state.deal_no} is over: {side_name(0, names)} {a}, "
                f"{side_name(1, names)} {b}"
            )
        if phase == TRICK_DONE and state.leader is not None:
            return f"{_name(names, trick_winner(state.leader, state.trick))} won the trick"
        if state.turn is None:
            return ""
        who = _name(names, state.turn)
        if phase == BIDDING:
            return f"{who} to bid"
        if phase == EXCHANGE and state.exchange is not None:
            to = (
                state.exchange.blind
                if state.turn == state.exchange.partner
                else state.exchange.partner
            )
            return f"{who} to pass 2 cards to {_name(names, to)}"
        return f"{who} to play"

    def scoreboard(self, state: SpadesState, names: Sequence[str]) -> Scoreboard:
        """One column per side (the deal's bid, tricks and points), then one per side for its
        bags (rule 12): the count after the deal, with the bags gained and any 10 removed.
        Built once per history, scores and names (the same object back)."""
        key = (id(state.history), state.scores, state.bags, state.options.target, tuple(names))
        hit = _BOARDS.get(key)
        if hit is not None and hit[0] is state.history:
            return hit[1]
        board = self._scoreboard(state, names)
        _kept(_BOARDS, key, (state.history, board))
        return board

    def _scoreboard(self, state: SpadesState, names: Sequence[str]) -> Scoreboard:
        rows = []
        for d in state.history:
            cells: list[int | str] = []
            for s, side in enumerate(d.sides):
                parts = [_bid_text(d.bids[p], d.blind[p]) for p in TEAMS[s] if d.bids[p] == 0]
                if side.bid:
                    parts.insert(0, str(side.bid))
                text = f"bid {' + '.join(parts)}, took {side.tricks}: {side.points:+d}"
                if side.penalty:
                    text += f" (bags {side.penalty:+d})"
                cells.append(text)
            for side in d.sides:
                cells.append(_bags_text(side))
            rows.append((f"Deal {d.deal_no}", tuple(cells)))
        return Scoreboard(
            columns=(
                side_name(0, names),
                side_name(1, names),
                f"{side_name(0, names)} bags",
                f"{side_name(1, names)} bags",
            ),
            rows=tuple(rows),
            totals=(*state.scores, *state.bags),
            note=f"First to {state.options.target}; {BAG_LIMIT} bags cost {BAG_PENALTY}",
            scored=2,
        )

    def reveal(self, state: SpadesState) -> list[RevealLine] | None:
        """After a deal: the cards each player held (as played), with bid and tricks."""
        if state.phase not in (DEAL_OVER, GAME_OVER) or not state.history:
            return None
        last = state.history[-1]
        held: list[list[str]] = [[], [], [], []]
        for t in state.tricks:
            for i, c in enumerate(t.cards):
                held[(t.leader + i) % PLAYERS].append(c)
        lines = []
        for p in range(PLAYERS):
            bid = _bid_text(last.bids[p], last.blind[p])
            n = last.tricks[p]
            lines.append(
                RevealLine(
                    player=p,
                    cards=sort_hand(held[p]),
                    points=last.sides[side_of(p)].points,
                    note=f"bid {bid}, took {n} trick{'s' if n != 1 else ''}",
                )
            )
        return lines

    # ---------------------------------------------------------------------- dump / load

    def dump(self, state: SpadesState) -> dict[str, Any]:
        """The state as plain data (str/int/bool/list/dict/None) for msgpack."""
        return dump_state(state)

    def load(self, data: dict[str, Any]) -> SpadesState:
        """The state back from :meth:`dump`; :class:`InvalidState` if it cannot happen."""
        state = load_state(data, SpadesState, "Spades", _problem)
        return replace(state, hands=tuple(sort_hand(h) for h in state.hands))


# -------------------------------------------------------------------------- validation


def _problem(state: SpadesState) -> str | None:
    try:
        _validate(state)
    except InvalidState as exc:
        return str(exc)
    return fair.key_problem(state.deal_key, state.fair_key)


def _check(ok: bool, message: str) -> None:
    if not ok:
        raise InvalidState(message)


def _validate(state: SpadesState) -> None:
    _check(state.options.target in TARGETS, f"The target must be one of {TARGETS}.")
    _check(state.phase in PHASES, f"Unknown phase {state.phase!r}.")
    _check(state.deal_no >= 1, "Deals are numbered from 1.")
    _check(_is_player(state.dealer), f"The dealer must be player 0-3, not {state.dealer!r}.")
    for name in ("hands", "bids", "blind", "unseen"):
        _check(len(getattr(state, name)) == PLAYERS, f"{name} needs one entry per player.")
    for name in ("scores", "bags"):
        _check(len(getattr(state, name)) == 2, f"{name} needs one entry per side.")
    for name in ("turn", "leader", "winner"):
        value = getattr(state, name)
        _check(value is None or _is_player(value), f"{name} must be a player 0-3 or None.")

    seen: dict[str, int] = {}
    for where in (*state.hands, state.trick, *(t.cards for t in state.tricks)):
        for card in where:
            _check(card in _DECK, f"{card!r} is not a card.")
            seen[card] = seen.get(card, 0) + 1
    doubled = sorted(c for c, n in seen.items() if n > 1)
    missing = sorted(_DECK - seen.keys())
    _check(not doubled, f"Cards held twice: {', '.join(card_name(c) for c in doubled)}.")
    _check(not missing, f"Cards missing: {', '.join(card_name(c) for c in missing)}.")

    for b in state.bids:
        _check(b is None or 0 <= b <= MAX_BID, f"A bid must be 0 to 13, not {b}.")
    for p in range(PLAYERS):
        _check(not state.blind[p] or state.bids[p] == 0, "Only a nil bid can be blind.")
    for team in TEAMS:
        _check(sum(state.blind[p] for p in team) <= 1, "Only one blind nil per side.")
    _check(state.options.blind_nil or not any(state.blind), "Blind nil is switched off.")

    phase = state.phase
    first = (state.dealer + 1) % PLAYERS
    sizes = [len(h) for h in state.hands]
    made = [b is not None for b in state.bids]
    if phase == BIDDING:
        k = sum(made)
        order = [(first + i) % PLAYERS for i in range(PLAYERS)]
        _check(
            k < PLAYERS and all(made[p] == (i < k) for i, p in enumerate(order)),
            "The bids must have been made in turn from the dealer's left.",
        )
        _check(state.turn == order[k], "The turn must be the next bidder's.")
        for p in range(PLAYERS):
            if state.unseen[p]:
                _check(not made[p], "A player who bid has seen the cards.")
                _check(
                    state.options.blind_nil and _trailing_side(state.scores, side_of(p)),
                    "Only a side trailing by 100 or more gets its cards face down.",
                )
    else:
        _check(all(made), f"Every player has bid by the {phase} phase.")
        _check(not any(state.unseen), "Every player has seen the cards after the bidding.")
    if phase in (BIDDING, EXCHANGE):
        _check(
            not state.trick and not state.tricks and state.leader is None,
            "No card is played before the bidding and the exchange end.",
        )
    ex = state.exchange
    if phase == BIDDING:
        _check(ex is None, "There is no exchange during the bidding.")
    elif any(state.blind):
        blind_player = state.blind.index(True)
        _check(
            ex is not None and ex.blind == blind_player and ex.partner == partner_of(blind_player),
            "A blind nil bid needs its exchange record.",
        )
        assert ex is not None
        for cards in (ex.given, ex.returned):
            _check(
                len(cards) in (0, EXCHANGE_CARDS)
                and len(set(cards)) == len(cards)
                and all(c in _DECK for c in cards),
                "An exchange passes 2 different cards.",
            )
        if phase == EXCHANGE:
            _check(not ex.returned, "The exchange is over once the cards are returned.")
            _check(
                state.turn == (ex.blind if ex.given else ex.partner),
                "The turn must be the player passing cards.",
            )
        else:
            _check(
                len(ex.given) == len(ex.returned) == EXCHANGE_CARDS,
                "Play starts only after both partners passed 2 cards.",
            )
    else:
        _check(ex is None, "There is an exchange record without a blind nil bid.")
        _check(phase != EXCHANGE, "The exchange phase needs a blind nil bid.")

    if phase in (BIDDING, EXCHANGE):
        expected = [HAND_SIZE] * PLAYERS
        if phase == EXCHANGE and ex is not None and ex.given:
            expected[ex.partner] -= EXCHANGE_CARDS
            expected[ex.blind] += EXCHANGE_CARDS
        _check(sizes == expected, f"Hand sizes {sizes} don't fit the {phase} phase.")
    elif phase in (PLAYING, TRICK_DONE):
        _check(state.leader is not None, "A trick in play needs its leader.")
        assert state.leader is not None
        n = len(state.trick)
        done = len(state.tricks)
        if phase == PLAYING:
            _check(n < PLAYERS and done < HAND_SIZE, "A full trick must be gathered first.")
            _check(state.turn == (state.leader + n) % PLAYERS, "The turn must follow the trick.")
        else:
            _check(n == PLAYERS and done < HAND_SIZE, "A finished trick has four cards.")
            _check(state.turn is None, "Nobody plays while a trick is gathered.")
        lead = state.tricks[-1].winner if state.tricks else first
        _check(
            state.leader == lead, "The winner of the last trick leads (the dealer's left first)."
        )
        for i in range(PLAYERS):
            p = (state.leader + i) % PLAYERS
            want = HAND_SIZE - done - (1 if i < n else 0)
            _check(sizes[p] == want, f"Player {p} should hold {want} cards, not {sizes[p]}.")
    else:
        _check(
            all(s == 0 for s in sizes) and not state.trick and len(state.tricks) == HAND_SIZE,
            "A scored deal has all 13 tricks played.",
        )
        _check(state.turn is None and state.leader is None, "Nobody is to play after a deal.")
    if phase in (BIDDING, EXCHANGE):
        _check(state.turn is not None, f"Someone must be to act in the {phase} phase.")

    expected_leader = first
    for t in state.tricks:
        _check(len(t.cards) == PLAYERS, "A finished trick has four cards.")
        _check(t.leader == expected_leader, "Each trick is led by the winner of the one before.")
        _check(t.winner == trick_winner(t.leader, t.cards), "A trick's winner is wrong.")
        expected_leader = t.winner
    broken = any(suit(c) == SPADE for t in state.tricks for c in t.cards) or any(
        suit(c) == SPADE for c in state.trick
    )
    _check(state.spades_broken == broken, "spades_broken must say whether a spade was played.")

    scored = phase in (DEAL_OVER, GAME_OVER)
    _check(
        len(state.history) == state.deal_no - (0 if scored else 1),
        "There must be one history entry per scored deal.",
    )
    score, bags = (0, 0), (0, 0)
    for i, d in enumerate(state.history):
        _check(d.deal_no == i + 1 and _is_player(d.dealer), "History deals are numbered 1, 2...")
        _check(
            len(d.bids) == len(d.blind) == len(d.tricks) == PLAYERS and len(d.sides) == 2,
            "A history entry has one bid and trick count per player.",
        )
        _check(
            all(0 <= b <= MAX_BID for b in d.bids)
            and sum(d.tricks) == HAND_SIZE
            and min(d.tricks) >= 0,
            "A scored deal has valid bids and 13 tricks.",
        )
        sides = score_deal(score, bags, d.bids, d.tricks, d.blind)
        _check(tuple(d.sides) == sides, f"Deal {d.deal_no}'s scores don't add up.")
        score = (sides[0].score, sides[1].score)
        bags = (sides[0].bags, sides[1].bags)
        if i < len(state.history) - 1:
            _check(
                game_winner(score, state.options.target) is None,
                "The game went on after a side won.",
            )
    _check(
        tuple(state.scores) == score and tuple(state.bags) == bags,
        "The scores and bags must be the history's totals.",
    )
    if scored:
        last = state.history[-1]
        _check(
            tuple(last.bids) == tuple(state.bids)
            and tuple(last.blind) == tuple(state.blind)
            and list(last.tricks) == _trick_count(state),
            "The last history entry must be this deal's.",
        )
    winner = game_winner(state.scores, state.options.target)
    if phase == GAME_OVER:
        _check(
            state.winner is not None and state.winner in (0, 1) and state.winner == winner,
            "A finished game needs the side that won it.",
        )
    else:
        _check(state.winner is None, "Only a finished game has a winner.")
        _check(winner is None, "A side has won, so the game must be over.")


def _trailing_side(scores: Sequence[int], side: int) -> bool:
    return scores[side] <= scores[1 - side] - BLIND_NIL_DEFICIT


ENGINE = Spades()

if TYPE_CHECKING:  # Spades satisfies the plugin protocol
    _PROTOCOL_CHECK: Engine[SpadesState] = ENGINE


fair.register_round_robin("spades", lambda players: 13, upcard=False)
fair.register_deck("spades", lambda players: list(STANDARD))
