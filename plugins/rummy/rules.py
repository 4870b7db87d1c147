"""The pure Rummy rules engine (basic rummy, 2-4 players): ``Rummy`` implements
``plugins.base.Engine`` (contract version 2). Rule numbers refer to ``shared/rules/rummy.md``.

No I/O and no global randomness: hand ``n`` is shuffled with ``random.Random(f"rummy:{seed}:{n}")``,
a reshuffled stock with ``random.Random(f"rummy:{seed}:{n}:reshuffle")`` and the first dealer is
drawn from ``random.Random(f"rummy:{seed}:first_dealer")``. ``new_game(..., deck=order)`` deals the
first hand from ``order`` instead: one card at a time clockwise starting left of the dealer
(``order[0]`` first), then the first discard, and the rest is the stock, ``order[n*k+1]`` on top.
A provably fair hand (docs/fairness.md) has a key instead (``new_game(..., deal_key=...)``, or
``deal_with`` before the next hand): its order is ``fair.shuffle(STANDARD, key)``, dealt like
``deck=``, and the reshuffled stock is ``fair.shuffle(pile, key, "reshuffle:1")``.
States are frozen msgspec structs; ``apply`` returns a new state or a :class:`Rejection`.

Players are ``0..n-1`` clockwise. Card codes come from :mod:`plugins.cards` (``S12`` queen of
spades); melds are checked by :mod:`plugins.melds`. Card points: ace 1, 2-10 face value, J/Q/K 10.

Actions (dicts with a ``"type"`` key)
-------------------------------------
On the wire, plain dicts; the flow's gate (``plugins.base.Flow``) turns each into its struct
in :mod:`plugins.rummy.actions` and hands it to the move's handler.

``{"type": "draw", "source": "stock" | "discard"}``
    Start the turn with the top stock card or the top discard (rule 4).
``{"type": "meld", "cards": ["H4", "H5", "H6"]}``
    Lay down one new meld from the hand: a set of 3-4 of a rank or a run of 3+ of a suit, ace
    low only (rule 3). Several melds are several actions.
``{"type": "lay_off", "card": "H7", "meld": 0}``
    Add one card to meld number ``meld`` of the shared meld list (the ``melds`` of the view,
    in the order they were laid down; melds belong to nobody). A run extends at either end, a
    set up to four. Allowed before the player has ever melded.
``{"type": "discard", "card": "C12"}``
    End the turn. Not the card taken from the discard pile this turn (rule 5). Discarding the
    last card goes out (rule 6); that card goes face down, not onto the pile.
``{"type": "next_hand"}``
    Any player, once the hand is over and the game is not: deal the next hand.

Melds and lay-offs may come in any order and number after the draw. A player who melds or
lays off every card goes out at once, with no discard (rule 6); going out on the very first
turn of a hand is allowed.

Phases: ``draw`` (the player to move must draw), ``play`` (drawn: meld, lay off, discard),
``hand_over``, ``game_over``.

Interpretations
---------------
* Going rummy (rule 8): the winner had not melded or laid off a single card in any earlier turn
  of the hand, so every card went down in the turn they went out (melds, lay-offs and the
  final discard, if any). The winner's hand points are then doubled.
* Rule 7: the stock "runs out" when the player to move must draw and the stock is empty; this
  is handled as the previous turn ends. The first time, every discard but the top card is
  shuffled into a new stock (the top card stays as the discard pile). The second time, or if
  the pile holds only its top card so no new stock can be made, the hand is a stalemate: no
  one scores, the deal passes on as usual.
* Rule 5 has a consequence: a meld or lay-off that would leave the player holding only the
  card taken from the discard pile this turn is refused (they could never discard it).
* Rule 8: only the winner of a hand scores; the game ends when a total reaches the target
  (option ``target``), and the highest total wins (the winner of that hand).

Rejection codes
---------------
``bad_player``, ``bad_action`` (not a dict, no type, bad source, cards not a list),
``unknown_action``, ``game_over``, ``wrong_phase``, ``not_your_turn``, ``bad_card`` (not a card
code), ``duplicate_card`` (a card listed twice in one meld), ``not_in_hand`` (including a card
already in a meld on the table), ``not_a_meld`` (the reason from :mod:`plugins.melds`),
``no_such_meld``, ``cannot_lay_off``, ``discard_taken_card``, ``keep_a_card`` (the rule-5
consequence above), ``empty_stock``, ``empty_discard``.

State (``RummyState``; ``dump`` gives the same keys as plain data)
-----------------------------------------------------------------
``options`` {target}, ``players``, ``seed``, ``hand_no`` (1-based), ``dealer``, ``phase``,
``turn`` (player to move, ``None`` when the hand is over), ``hands`` (sorted card lists),
``stock`` and ``discard`` (top card last), ``melds`` (the shared melds, in order laid down,
each in display order), ``drawn``/``drawn_from`` (this turn's draw), ``reshuffles`` (0 or 1 in
this hand), ``played`` (per player: melded or laid off in an earlier turn of this hand),
``played_now`` (the player to move has melded or laid off this turn), ``out_card`` (the last
card discarded face down by the winner), ``scores``, ``results`` (one ``HandResult`` per
finished hand: hand_no, dealer, winner (``None``: stalemate), rummy, points, left (each
player's cards left), values (their points)), ``moves`` (this hand's public moves),
``deal_key`` (hex: the key the next hand will use, cleared once used) and ``fair_key`` (hex:
the current hand's key; ``None`` for a seeded hand).

View (``view(state, player)``; ``None`` for a spectator)
-------------------------------------------------------
``game``, ``player``, ``players``, ``phase``, ``to_act``, ``hand_no``, ``dealer``, ``turn``,
``options``, ``target``, ``hand`` (own cards; ``None`` for spectators), ``hand_counts``,
``stock_count``, ``discard_pile`` (all public, top last), ``discard_top``, ``melds``,
``scores``, ``drawn`` (shown only to the drawer when it came from the stock), ``drawn_from``,
``taken`` (the card that may not be discarded this turn), ``reshuffles``, ``played``,
``played_now``, ``out_card`` (only to the player who laid it face down), ``history`` (this
hand's public moves: player, type, source, card, cards, meld; a stock draw never names the
card; the game's ``reshuffle`` and ``stalemate`` have player ``None``), ``hands_played``,
``last_result`` (the reveal of the hand just finished: cards left and points per player;
``None`` while a hand is being played), ``winner`` (once the game is over), ``groups`` (the
melds your own hand could make, as :func:`plugins.melds.best_arrangement` finds them (fewest
points left), for the page's "Group melds"; ``None`` for spectators).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import Struct
from msgspec.structs import replace

import plugins.rummy.actions as moves
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
from plugins.cards import (
    STANDARD,
    bad_card,
    card_name,
    card_names,
    is_card,
    points,
    rank,
    sort_cards,
    suit,
)
from plugins.melds import arrange, best_arrangement, check_meld, lay_off, lay_off_problem

DRAW = "draw"
PLAY = "play"
HAND_OVER = "hand_over"
GAME_OVER = "game_over"
PHASES = (DRAW, PLAY, HAND_OVER, GAME_OVER)
TARGETS = (100, 150, 200, 250, 500)
DECK_SET = frozenset(STANDARD)
_ORDER = {c: i for i, c in enumerate(STANDARD)}  # sort_cards order: suit, then rank
_RANK = {c: rank(c) for c in STANDARD}
_SUIT = {c: suit(c) for c in STANDARD}
_POINTS = {c: points(c) for c in STANDARD}


def deal_size(players: int) -> int:
    """Rule 1: ten cards each for two players, seven for three or four."""
    return 10 if players == 2 else 7


class Options(Struct, frozen=True):
    """Room options, resolved against :attr:`Rummy.info`."""

    target: int = 100


class Move(Struct, frozen=True):
    """One public move of the current hand (a stock draw never names its card)."""

    player: int | None
    type: str  # draw, meld, lay_off, discard, go_out, reshuffle, stalemate
    source: str | None = None
    card: str | None = None
    cards: tuple[str, ...] = ()
    meld: int | None = None


class HandResult(Struct, frozen=True):
    """How a hand ended: ``winner`` ``None`` is a stalemate; ``left``/``values`` per player."""

    hand_no: int
    dealer: int
    winner: int | None
    rummy: bool
    points: int
    left: tuple[tuple[str, ...], ...]
    values: tuple[int, ...]


class RummyState(Struct, frozen=True):
    """The whole game; the module docstring explains every field."""

    options: Options
    players: int
    seed: int
    hand_no: int
    dealer: int
    phase: str
    turn: int | None
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]
    discard: tuple[str, ...]
    melds: tuple[tuple[str, ...], ...] = ()
    drawn: str | None = None
    drawn_from: str | None = None
    reshuffles: int = 0
    played: tuple[bool, ...] = ()
    played_now: bool = False
    out_card: str | None = None
    scores: tuple[int, ...] = ()
    results: tuple[HandResult, ...] = ()
    moves: tuple[Move, ...] = ()
    deal_key: str | None = None
    fair_key: str | None = None


def _turn(state: RummyState) -> list[int]:
    return [] if state.turn is None else [state.turn]


# Who may do what, when (the flow's gate asks it for every move; see plugins.base.Flow).
_PHASES: dict[str, Phase[RummyState]] = {
    DRAW: Phase(frozenset({"draw"}), "You need to draw first, from the stock or the discard pile."),
    PLAY: Phase(
        frozenset({"meld", "lay_off", "discard"}),
        "You have drawn already: meld, lay off or discard.",
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


def _bad_player(state: RummyState) -> Rejection:
    return Rejection("bad_player", f"Only players 1 to {state.players} can make moves.")


def _bad_meld_cards(state: RummyState, player: int | None, value: object) -> Rejection:
    """A meld's ``cards`` that are not a non-empty list of card codes."""
    if isinstance(value, list) and value:
        for c in value:
            if not is_card(c):
                return bad_card(c)
    return Rejection("bad_action", 'Give the meld\'s cards as a list: "cards": [...].')


def _no_such_meld(state: RummyState, player: int | None, value: object) -> Rejection:
    if not state.melds:
        return Rejection("no_such_meld", "There are no melds on the table yet.")
    return Rejection(
        "no_such_meld", f"Choose a meld on the table by number, 0 to {len(state.melds) - 1}."
    )


def _set(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*values[:i], value, *values[i + 1 :])


def _without(hand: Sequence[str], gone: Sequence[str]) -> tuple[str, ...]:
    out = list(hand)
    for c in gone:
        out.remove(c)
    return tuple(out)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _seat(value: object, count: int) -> int | None:
    """``value`` if it is an index ``0..count-1`` (a player, a meld), else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < count:
        return value
    return None


def hand_points(cards: Sequence[str]) -> int:
    """Rule 8 card points: ace 1, 2-10 face value, J/Q/K 10."""
    return sum(_POINTS[c] for c in cards)


def _sorted(cards: Sequence[str]) -> tuple[str, ...]:
    """:func:`plugins.cards.sort_cards` for one deck, faster."""
    return tuple(sorted(cards, key=_ORDER.__getitem__))


def _fits(meld: Sequence[str], card: str) -> bool:
    """Fast lay-off test for one-deck melds (what :func:`plugins.melds.lay_off_problem`
    accepts): a set below four of the card's rank, or a run the card extends at an end.
    Melds on the table are in display order, so a run's ends are its first and last cards."""
    first, second = _RANK[meld[0]], _RANK[meld[1]]
    r = _RANK[card]
    if first == second:
        return len(meld) < 4 and r == first
    return _SUIT[card] == _SUIT[meld[0]] and (r == first - 1 or r == _RANK[meld[-1]] + 1)


def melds_in(hand: Sequence[str]) -> list[tuple[str, ...]]:
    """Every meld the hand could lay down now: sets of 3 or 4 of a rank, runs of 3+ of a suit."""
    by_rank: dict[int, list[str]] = {}
    by_suit: dict[str, list[int]] = {}
    for c in hand:
        by_rank.setdefault(_RANK[c], []).append(c)
        by_suit.setdefault(_SUIT[c], []).append(_RANK[c])
    out: list[tuple[str, ...]] = []
    for s in sorted(by_suit):
        have = set(by_suit[s])
        for lo in sorted(have):
            hi = lo
            while hi + 1 in have:
                hi += 1
                if hi - lo >= 2:
                    out.append(tuple(f"{s}{r}" for r in range(lo, hi + 1)))
    for r in sorted(by_rank):
        cards = _sorted(by_rank[r])
        for size in (3, 4):
            out.extend(combinations(cards, size))
    return out


class Rummy:
    """Basic Rummy for 2-4 players (rules 1-8 of ``shared/rules/rummy.md``)."""

    info = GameInfo(
        name="rummy",
        title="Rummy",
        min_players=2,
        max_players=4,
        options=(
            OptionSpec(
                "target", 100, TARGETS, "The game ends when a total reaches this.", "points to win"
            ),
        ),
    )

    def __init__(self) -> None:
        self._flow: Flow[RummyState] = Flow(
            title="Rummy",
            moves=moves.RummyAction,
            phases=_PHASES,
            handlers={
                "draw": self._do_draw,
                "meld": self._do_meld,
                "lay_off": self._do_lay_off,
                "discard": self._do_discard,
                "next_hand": self._do_next_hand,
            },
            players=lambda state: state.players,
            actors=_turn,
            example=("draw", "discard"),
            bad_action='A move needs a "type", such as "{}" or "{}".',
            bad_player=_bad_player,
            no_player=_bad_player,
            anyone=frozenset({"next_hand"}),
            elsewhere={"next_hand": "This hand is still being played."},
            fields={
                "source": _BAD_SOURCE,
                "cards": _bad_meld_cards,
                "card": lambda state, player, value: bad_card(value),
                "meld": _no_such_meld,
            },
        )

    # ------------------------------------------------------------------------ setup

    def new_game(
        self,
        players: int,
        options: dict[str, Any],
        seed: int,
        deck: Sequence[str] | None = None,
        deal_key: bytes | None = None,
    ) -> RummyState:
        """A fresh game with the first hand dealt (from ``deck`` when given, or shuffled with
        ``deal_key``)."""
        if not _is_int(players) or not 2 <= players <= 4:
            raise ValueError("Rummy is played by 2 to 4 players.")
        resolved = self.info.resolve_options(options)
        if isinstance(resolved, Rejection):
            raise ValueError(resolved.message)
        if deck is not None and (len(deck) != 52 or set(deck) != DECK_SET):
            raise ValueError("The deck must hold each of the 52 cards exactly once.")
        dealer = random.Random(f"rummy:{seed}:first_dealer").randrange(players)
        base = RummyState(
            options=Options(**resolved),
            players=players,
            seed=seed,
            hand_no=1,
            dealer=dealer,
            phase=DRAW,
            turn=None,
            hands=(),
            stock=(),
            discard=(),
            scores=(0,) * players,
            deal_key=deal_key.hex() if deal_key is not None else None,
        )
        return self._deal(base, 1, dealer, list(deck) if deck is not None else None)

    def _deal(
        self, state: RummyState, hand_no: int, dealer: int, order: list[str] | None = None
    ) -> RummyState:
        """Rules 1-2: deal one at a time clockwise from the dealer's left, turn up one card."""
        n = state.players
        key = state.deal_key if order is None else None
        if key is not None:
            order = fair.shuffle(STANDARD, fair.as_key(key), "deal")
        elif order is None:
            order = list(STANDARD)
            random.Random(f"rummy:{state.seed}:{hand_no}").shuffle(order)
        k = deal_size(n)
        hands: list[list[str]] = [[] for _ in range(n)]
        for i in range(n * k):
            hands[(dealer + 1 + i) % n].append(order[i])
        first = (dealer + 1) % n
        return replace(
            state,
            hand_no=hand_no,
            dealer=dealer,
            phase=DRAW,
            turn=first,
            hands=tuple(_sorted(h) for h in hands),
            stock=tuple(reversed(order[n * k + 1 :])),
            discard=(order[n * k],),
            melds=(),
            drawn=None,
            drawn_from=None,
            reshuffles=0,
            played=(False,) * n,
            played_now=False,
            out_card=None,
            moves=(),
            deal_key=None,
            fair_key=key,
        )

    def deal_with(self, state: RummyState, key: bytes) -> RummyState:
        """The state with the key the next hand will use (docs/fairness.md)."""
        return replace(state, deal_key=key.hex())

    def deal_record(self, state: RummyState) -> dict[str, Any] | None:
        """The current hand as dealt with its key: hand number, dealer, the canonical deck, the
        shuffled order and where each card went; ``None`` for a seeded hand."""
        if state.fair_key is None:
            return None
        n = state.players
        order = fair.shuffle(STANDARD, fair.as_key(state.fair_key), "deal")
        players = [str(p) for p in range(n)]
        dealt = fair.round_robin(len(order), players, (state.dealer + 1) % n, deal_size(n), True)
        return {
            "deal": state.hand_no,
            "dealer": state.dealer,
            "deck": list(STANDARD),
            "order": order,
            "dealt": dealt,
        }

    def teams(self, state: RummyState) -> list[list[int]]:
        """Everyone plays for themselves."""
        return [[p] for p in range(state.players)]

    # ---------------------------------------------------------------------- queries

    def to_act(self, state: RummyState) -> list[int]:
        """The player to move; everyone may start the next hand; nobody at game over."""
        if state.phase == HAND_OVER:
            return list(range(state.players))
        if state.phase in (DRAW, PLAY) and state.turn is not None:
            return [state.turn]
        return []

    def scheduled(self, state: RummyState) -> Scheduled | None:
        """Rummy never moves on by itself."""
        return None

    @staticmethod
    def taken(state: RummyState) -> str | None:
        """The card taken from the discard pile this turn (rule 5: not to be discarded)."""
        return state.drawn if state.drawn_from == "discard" else None

    def legal_actions(self, state: RummyState, player: int) -> list[dict[str, Any]]:
        """Every action ``player`` may make now; each applies without a rejection."""
        if _seat(player, state.players) is None:
            return []
        if state.phase == HAND_OVER:
            return [{"type": "next_hand"}]
        if state.phase not in (DRAW, PLAY) or player != state.turn:
            return []
        if state.phase == DRAW:
            out: list[dict[str, Any]] = []
            if state.stock:
                out.append({"type": "draw", "source": "stock"})
            if state.discard:
                out.append({"type": "draw", "source": "discard"})
            return out
        hand = state.hands[player]
        taken = self.taken(state)
        out = []
        for meld in melds_in(hand):
            if not _strands(_without(hand, meld), taken):
                out.append({"type": "meld", "cards": list(meld)})
        for card in hand:
            if _strands(_without(hand, (card,)), taken):
                continue
            for i, meld in enumerate(state.melds):
                if _fits(meld, card):
                    out.append({"type": "lay_off", "card": card, "meld": i})
        out.extend({"type": "discard", "card": c} for c in hand if c != taken)
        return out

    def view(self, state: RummyState, player: int | None) -> dict[str, Any]:
        """What ``player`` (``None``: a spectator) may see; the module docstring lists keys."""
        own = _seat(player, state.players)
        over = state.phase in (HAND_OVER, GAME_OVER)
        drawn = state.drawn
        if drawn is not None and state.drawn_from == "stock" and own != state.turn:
            drawn = None
        last = state.results[-1] if over and state.results else None
        out_card = state.out_card if last is not None and own == last.winner else None
        return {
            "game": self.info.name,
            "player": own,
            "players": state.players,
            "phase": state.phase,
            "to_act": self.to_act(state),
            "hand_no": state.hand_no,
            "dealer": state.dealer,
            "turn": state.turn,
            "options": msgspec.structs.asdict(state.options),
            "target": state.options.target,
            "hand": list(state.hands[own]) if own is not None else None,
            "hand_counts": [len(h) for h in state.hands],
            "stock_count": len(state.stock),
            "discard_pile": list(state.discard),
            "discard_top": state.discard[-1] if state.discard else None,
            "melds": [list(m) for m in state.melds],
            "scores": list(state.scores),
            "drawn": drawn,
            "drawn_from": state.drawn_from,
            "taken": self.taken(state),
            "reshuffles": state.reshuffles,
            "played": list(state.played),
            "played_now": state.played_now,
            "out_card": out_card,
            "history": list(msgspec.to_builtins(state.moves)),
            "hands_played": len(state.results),
            "last_result": plain(last) if last is not None else None,
            "winner": self._winner(state),
            "groups": best_arrangement(state.hands[own]).melds if own is not None else None,
        }

    @staticmethod
    def _winner(state: RummyState) -> int | None:
        if state.phase != GAME_OVER:
            return None
        return state.scores.index(max(state.scores))

    # ------------------------------------------------------------------ table texts

    def describe(
        self,
        before: RummyState,
        player: int | None,
        action: dict[str, Any],
        names: Sequence[str],
        after: RummyState | Rejection | None = None,
    ) -> str:
        """The public log line for ``action`` (stock draws and face-down cards unnamed)."""
        who = _name(names, player)
        if after is None:
            after = self.apply(before, player, action)
        if isinstance(after, Rejection):
            return f"{who} tried a move the rules don't allow: {after.message}"
        kind = action["type"]
        if kind == "next_hand":
            return (
                f"{who} started hand {after.hand_no}; {_name(names, after.dealer)} deals and "
                f"{_name(names, after.turn)} plays first."
            )
        line = ""
        if kind == "draw":
            if action["source"] == "stock":
                line = f"{who} drew from the stock"
            else:
                line = f"{who} took the {card_name(before.discard[-1])} from the discard pile"
        elif kind == "meld":
            meld = after.melds[-1]
            line = f"{who} melded the {card_names(meld)}"
        elif kind == "lay_off":
            i = action["meld"]
            line = (
                f"{who} laid off the {card_name(action['card'])} on meld {i + 1} "
                f"({card_names(after.melds[i])})"
            )
        elif kind == "discard":
            if after.out_card is not None and not after.hands[player or 0]:
                line = f"{who} discarded the last card face down"
            else:
                line = f"{who} discarded the {card_name(action['card'])}"
        return line + self._aftermath(before, after, names) + "."

    def _aftermath(self, before: RummyState, after: RummyState, names: Sequence[str]) -> str:
        """What the move led to: going out and the score, a reshuffle, a stalemate, the end."""
        text = ""
        if after.phase in (HAND_OVER, GAME_OVER) and len(after.results) > len(before.results):
            res = after.results[-1]
            if res.winner is None:
                text = ". The stock ran out again: stalemate, nobody scores this hand"
            else:
                base = res.points // 2 if res.rummy else res.points
                how = "went rummy" if res.rummy else "went out"
                text = f" and {how}: {base} points"
                if res.rummy:
                    text += f", doubled to {res.points}"
            if after.phase == GAME_OVER:
                w = self._winner(after)
                assert w is not None
                text += f". {_name(names, w)} wins the game with {after.scores[w]}"
        elif after.reshuffles > before.reshuffles:
            text = (
                ". The stock ran out: the discard pile but its top card was shuffled into a "
                "new stock"
            )
        return text

    def status(self, state: RummyState, names: Sequence[str]) -> str:
        """One line for everyone."""
        if state.phase == DRAW:
            return f"{_name(names, state.turn)} to draw"
        if state.phase == PLAY:
            return f"{_name(names, state.turn)} to meld, lay off or discard"
        if state.phase == GAME_OVER:
            w = self._winner(state)
            assert w is not None
            return f"{_name(names, w)} wins the game with {state.scores[w]}"
        res = state.results[-1]
        if res.winner is None:
            return "Stalemate: nobody scores this hand"
        how = "went rummy" if res.rummy else "went out"
        return f"{_name(names, res.winner)} {how} and scores {res.points}"

    def scoreboard(self, state: RummyState, names: Sequence[str]) -> Scoreboard:
        """One row per finished hand: the winner's points (stalemates score nothing)."""
        rows = []
        for r in state.results:
            label = f"Hand {r.hand_no}"
            if r.winner is None:
                label += " (stalemate)"
            elif r.rummy:
                label += " (rummy)"
            cells = tuple(r.points if p == r.winner else 0 for p in range(state.players))
            rows.append((label, cells))
        return Scoreboard(
            columns=tuple(_name(names, p) for p in range(state.players)),
            rows=tuple(rows),
            totals=state.scores,
            note=f"First to {state.options.target}; the highest total wins",
        )

    def reveal(self, state: RummyState) -> list[RevealLine] | None:
        """At the end of a hand: each player's cards left and their points."""
        if state.phase not in (HAND_OVER, GAME_OVER) or not state.results:
            return None
        res = state.results[-1]
        lines = []
        for p in range(state.players):
            if res.winner is None:
                note = "stalemate"
            elif p == res.winner:
                note = (
                    f"went rummy: scores {res.points} (doubled)"
                    if res.rummy
                    else f"went out: scores {res.points}"
                )
            else:
                note = ""
            lines.append(RevealLine(player=p, cards=res.left[p], points=res.values[p], note=note))
        return lines

    def outcome(self, state: RummyState) -> Outcome | None:
        """The highest total wins, once the game is over."""
        if state.phase != GAME_OVER:
            return None
        best = max(state.scores)
        return Outcome(
            winners=tuple(p for p, s in enumerate(state.scores) if s == best), scores=state.scores
        )

    # ---------------------------------------------------------------- dump and load

    def dump(self, state: RummyState) -> dict[str, Any]:
        """Plain data (str/int/bool/list/dict/None)."""
        return dump_state(state)

    def load(self, data: dict[str, Any]) -> RummyState:
        """The state back from :meth:`dump`; :class:`InvalidState` if it cannot happen."""
        return load_state(
            data,
            RummyState,
            "Rummy",
            lambda s: _problem(s) or fair.key_problem(s.deal_key, s.fair_key),
        )

    # ------------------------------------------------------------------------ apply

    def apply(
        self, state: RummyState, player: int | None, action: dict[str, Any]
    ) -> RummyState | Rejection:
        """The new state after ``player``'s ``action``, or why it is refused (the flow's gate:
        player, shape, phase, turn, fields; then the move's handler)."""
        return self._flow.apply(state, player, action)

    def _do_draw(
        self, state: RummyState, player: int, action: moves.Draw
    ) -> RummyState | Rejection:
        source = action.source
        if source == "stock":
            if not state.stock:
                return Rejection("empty_stock", "The stock is empty.")
            card = state.stock[-1]
            stock, discard = state.stock[:-1], state.discard
            move = Move(player, "draw", "stock")
        elif source == "discard":
            if not state.discard:
                return Rejection("empty_discard", "The discard pile is empty.")
            card = state.discard[-1]
            stock, discard = state.stock, state.discard[:-1]
            move = Move(player, "draw", "discard", card)
        hand = _sorted([*state.hands[player], card])
        return replace(
            state,
            phase=PLAY,
            hands=_set(state.hands, player, hand),
            stock=stock,
            discard=discard,
            drawn=card,
            drawn_from=source,
            moves=(*state.moves, move),
        )

    def _card_in_hand(self, state: RummyState, player: int, card: object) -> str | Rejection:
        if not is_card(card):
            return bad_card(card)
        assert isinstance(card, str)
        if card not in state.hands[player]:
            for i, meld in enumerate(state.melds):
                if card in meld:
                    return Rejection(
                        "not_in_hand",
                        f"The {card_name(card)} is already in meld {i + 1} on the table; a card "
                        "can be in only one meld.",
                    )
            return Rejection("not_in_hand", f"You don't hold the {card_name(card)}.")
        return card

    def _keeps_a_card(
        self, state: RummyState, player: int, gone: Sequence[str]
    ) -> tuple[str, ...] | Rejection:
        """The hand without ``gone``, unless only the card taken from the pile would be left."""
        rest = _without(state.hands[player], gone)
        taken = self.taken(state)
        if _strands(rest, taken):
            assert taken is not None
            return Rejection(
                "keep_a_card",
                f"That would leave you holding only the {card_name(taken)}, which you took "
                "from the discard pile this turn and may not discard.",
            )
        return rest

    def _do_meld(
        self, state: RummyState, player: int, action: moves.Meld
    ) -> RummyState | Rejection:
        cards = action.cards
        for c in cards:
            found = self._card_in_hand(state, player, c)
            if isinstance(found, Rejection):
                return found
        for i, c in enumerate(cards):
            if c in cards[:i]:
                return Rejection("duplicate_card", f"The {card_name(c)} is listed twice.")
        reason = check_meld(cards)
        if reason is not None:
            return Rejection("not_a_meld", f"That's not a meld: {reason}.")
        rest = self._keeps_a_card(state, player, cards)
        if isinstance(rest, Rejection):
            return rest
        meld = arrange(cards)
        after = replace(
            state,
            hands=_set(state.hands, player, rest),
            melds=(*state.melds, meld),
            played_now=True,
            moves=(*state.moves, Move(player, "meld", cards=meld, meld=len(state.melds))),
        )
        return self._went_out(after, player) if not rest else after

    def _do_lay_off(
        self, state: RummyState, player: int, action: moves.LayOff
    ) -> RummyState | Rejection:
        card = self._card_in_hand(state, player, action.card)
        if isinstance(card, Rejection):
            return card
        index = _seat(action.meld, len(state.melds))
        if index is None:
            return _no_such_meld(state, player, action.meld)
        problem = lay_off_problem(state.melds[index], card)
        if problem is not None:
            return Rejection("cannot_lay_off", f"You can't lay that off: {problem}.")
        rest = self._keeps_a_card(state, player, (card,))
        if isinstance(rest, Rejection):
            return rest
        melds = _set(state.melds, index, lay_off(state.melds[index], card))
        after = replace(
            state,
            hands=_set(state.hands, player, rest),
            melds=melds,
            played_now=True,
            moves=(*state.moves, Move(player, "lay_off", card=card, meld=index)),
        )
        return self._went_out(after, player) if not rest else after

    def _do_discard(
        self, state: RummyState, player: int, action: moves.Discard
    ) -> RummyState | Rejection:
        card = self._card_in_hand(state, player, action.card)
        if isinstance(card, Rejection):
            return card
        if card == self.taken(state):
            return Rejection(
                "discard_taken_card",
                f"You can't discard the {card_name(card)}: you took it from the "
                "discard pile this turn.",
            )
        rest = _without(state.hands[player], (card,))
        if not rest:
            after = replace(
                state,
                hands=_set(state.hands, player, rest),
                out_card=card,
                moves=(*state.moves, Move(player, "go_out")),
            )
            return self._went_out(after, player)
        after = replace(
            state,
            hands=_set(state.hands, player, rest),
            discard=(*state.discard, card),
            drawn=None,
            drawn_from=None,
            played_now=False,
            played=_set(state.played, player, state.played[player] or state.played_now),
            turn=(player + 1) % state.players,
            phase=DRAW,
            moves=(*state.moves, Move(player, "discard", card=card)),
        )
        return self._stock_check(after)

    def _stock_check(self, state: RummyState) -> RummyState:
        """Rule 7, at the start of a turn: reshuffle the first time the stock runs out;
        stalemate the second time (or when the pile has nothing under its top card)."""
        if state.stock:
            return state
        if state.reshuffles == 0 and len(state.discard) > 1:
            pile = list(state.discard[:-1])
            if state.fair_key is not None:
                pile = fair.shuffle(pile, fair.as_key(state.fair_key), "reshuffle:1")
            else:
                random.Random(f"rummy:{state.seed}:{state.hand_no}:reshuffle").shuffle(pile)
            return replace(
                state,
                stock=tuple(pile),
                discard=state.discard[-1:],
                reshuffles=1,
                moves=(*state.moves, Move(None, "reshuffle")),
            )
        result = HandResult(
            hand_no=state.hand_no,
            dealer=state.dealer,
            winner=None,
            rummy=False,
            points=0,
            left=state.hands,
            values=tuple(hand_points(h) for h in state.hands),
        )
        return replace(
            state,
            phase=HAND_OVER,
            turn=None,
            reshuffles=2,
            results=(*state.results, result),
            moves=(*state.moves, Move(None, "stalemate")),
        )

    def _went_out(self, state: RummyState, winner: int) -> RummyState:
        """Rule 8: the winner scores the others' cards, doubled when going rummy."""
        values = tuple(hand_points(h) for h in state.hands)
        rummy = not state.played[winner]
        total = sum(values) * (2 if rummy else 1)
        result = HandResult(
            hand_no=state.hand_no,
            dealer=state.dealer,
            winner=winner,
            rummy=rummy,
            points=total,
            left=state.hands,
            values=values,
        )
        scores = _set(state.scores, winner, state.scores[winner] + total)
        done = scores[winner] >= state.options.target
        return replace(
            state,
            phase=GAME_OVER if done else HAND_OVER,
            turn=None,
            drawn=None,
            drawn_from=None,
            played_now=False,
            scores=scores,
            results=(*state.results, result),
        )

    def _do_next_hand(self, state: RummyState, player: int, action: moves.NextHand) -> RummyState:
        return self._deal(state, state.hand_no + 1, (state.dealer + 1) % state.players)


# ---------------------------------------------------------------------------- helpers


def _strands(rest: Sequence[str], taken: str | None) -> bool:
    """Only the card taken from the discard pile would be left: it could never be discarded."""
    return taken is not None and len(rest) == 1 and rest[0] == taken


def _name(names: Sequence[str], player: int | None) -> str:
    if player is None:
        return "The game"
    if 0 <= player < len(names) and names[player]:
        return names[player]
    return f"Player {player + 1}"


# ----------------------------------------------------------------------- validation


def _problem(s: RummyState) -> str | None:
    """What makes ``s`` impossible, or ``None``."""
    n = s.players
    if not 2 <= n <= 4:
        return f"Rummy has 2 to 4 players, not {n}."
    if s.options.target not in TARGETS:
        return f"The target must be one of {', '.join(map(str, TARGETS))}."
    if s.phase not in PHASES:
        return f"Unknown phase {s.phase!r}."
    for name, size in (
        ("hands", len(s.hands)),
        ("scores", len(s.scores)),
        ("played", len(s.played)),
    ):
        if size != n:
            return f"There must be one entry of {name} per player ({n}), not {size}."
    if not 0 <= s.dealer < n:
        return f"The dealer must be a player 0 to {n - 1}."
    if s.hand_no < 1:
        return "Hands are numbered from 1."
    problem = _cards_problem(s) or _hands_problem(s) or _results_problem(s)
    if problem is not None:
        return problem
    for m in s.moves:
        if m.player is not None and not 0 <= m.player < n:
            return f"A move in the history names player {m.player}, who isn't playing."
    return None


def _cards_problem(s: RummyState) -> str | None:
    places: list[str] = [*s.stock, *s.discard]
    for h in s.hands:
        places.extend(h)
    for m in s.melds:
        places.extend(m)
    if s.out_card is not None:
        places.append(s.out_card)
    for c in places:
        if not is_card(c):
            return f"{c!r} is not a card."
    seen: set[str] = set()
    for c in places:
        if c in seen:
            return f"The {card_name(c)} is in two places."
        seen.add(c)
    if len(seen) != 52:
        missing = sort_cards(DECK_SET - seen)
        return f"{len(missing)} cards are missing, such as the {card_name(missing[0])}."
    for i, m in enumerate(s.melds):
        reason = check_meld(m)
        if reason is not None:
            return f"Meld {i + 1} on the table is not a meld: {reason}."
    for h in s.hands:
        if list(h) != sort_cards(h):
            return "Hands are kept sorted."
    return None


def _hands_problem(s: RummyState) -> str | None:
    n, k = s.players, deal_size(s.players)
    sizes = [len(h) for h in s.hands]
    if s.phase in (DRAW, PLAY):
        if s.turn is None or not 0 <= s.turn < n:
            return f"The player to move must be 0 to {n - 1}."
        if len(s.results) != s.hand_no - 1:
            return f"Hand {s.hand_no} is being played, so {s.hand_no - 1} hands have results."
        if s.out_card is not None:
            return "No card lies face down while a hand is being played."
        if s.reshuffles not in (0, 1):
            return "The stock is reshuffled at most once in a hand."
        for p in range(n):
            most = k + 1 if s.phase == PLAY and p == s.turn else k
            if not 1 <= sizes[p] <= most:
                return (
                    f"Player {p + 1} holds {sizes[p]} cards; in the {s.phase} phase that "
                    f"must be 1 to {most}."
                )
        if s.phase == DRAW:
            if s.drawn is not None or s.drawn_from is not None or s.played_now:
                return "Nothing has been drawn or played before the draw."
            if not s.stock or not s.discard:
                return "A turn starts with cards in the stock and the discard pile."
        elif s.drawn_from not in ("stock", "discard") or s.drawn is None:
            return "In the play phase the player has drawn from the stock or the discard pile."
        return None
    if s.turn is not None or s.drawn is not None or s.played_now:
        return "Nobody is to move once the hand is over."
    if len(s.results) != s.hand_no:
        return f"Hand {s.hand_no} is over, so it needs its result."
    last = s.results[-1]
    if last.left != s.hands:
        return "The last result must list the cards left in each hand."
    if any(size > k for size in sizes):
        return f"Nobody holds more than {k} cards once the hand is over."
    if last.winner is None:
        if s.out_card is not None or any(size == 0 for size in sizes):
            return "In a stalemate every player still holds cards."
    else:
        if sizes[last.winner] != 0:
            return "The winner of the hand must have no cards left."
        if any(sizes[p] == 0 for p in range(n) if p != last.winner):
            return "Only the winner of the hand can have no cards left."
    return None


def _results_problem(s: RummyState) -> str | None:
    n = s.players
    totals = [0] * n
    for i, r in enumerate(s.results):
        if r.hand_no != i + 1:
            return "Hand results must be numbered 1, 2, 3..."
        if r.dealer != (s.dealer - (s.hand_no - r.hand_no)) % n:
            return f"Hand {r.hand_no} had the wrong dealer: the deal passes clockwise."
        if len(r.left) != n or len(r.values) != n:
            return f"Hand {r.hand_no}'s result needs one entry per player."
        left = [c for h in r.left for c in h]
        if not all(is_card(c) for c in left) or len(set(left)) != len(left):
            return f"Hand {r.hand_no}'s result lists impossible cards left."
        if list(r.values) != [hand_points(h) for h in r.left]:
            return f"Hand {r.hand_no}'s card points don't match the cards left."
        if r.winner is None:
            if r.points or r.rummy:
                return f"Hand {r.hand_no} was a stalemate: nobody scores."
            continue
        if not 0 <= r.winner < n or r.left[r.winner]:
            return f"Hand {r.hand_no}'s winner must be a player with no cards left."
        if r.points != sum(r.values) * (2 if r.rummy else 1):
            return f"Hand {r.hand_no} scored {r.points}; the cards left say otherwise."
        totals[r.winner] += r.points
    if list(s.scores) != totals:
        return f"The scores {list(s.scores)} don't add up to the hands' points {totals}."
    reached = max(s.scores) >= s.options.target
    if reached != (s.phase == GAME_OVER):
        return f"The game is over exactly when a total reaches the target ({s.options.target})."
    if s.phase == GAME_OVER and s.results[-1].winner != s.scores.index(max(s.scores)):
        return "The game ends with the hand that took its winner to the target."
    return None


ENGINE = Rummy()

if TYPE_CHECKING:  # Rummy satisfies the plugin protocol
    _PROTOCOL_CHECK: Engine[RummyState] = ENGINE


fair.register_round_robin("rummy", deal_size, upcard=True)
fair.register_deck("rummy", lambda players: list(STANDARD))
