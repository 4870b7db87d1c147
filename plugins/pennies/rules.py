"""The pure Pennies ("Ten Pennies") rules engine: ``Pennies`` implements ``plugins.base.Engine``.

Rule numbers refer to ``shared/rules/pennies.md``. The engine has no I/O and no global
randomness: round ``k`` is shuffled with ``random.Random(f"pennies:{seed}:{k}")``, the first
dealer comes from ``random.Random(f"pennies:{seed}:first_dealer")`` and the ``i``-th reshuffle of
a round from ``random.Random(f"pennies:{seed}:{k}:reshuffle:{i}")``. A provably fair round
(docs/fairness.md) has a key instead (``new_game(..., deal_key=...)``, or ``deal_with`` before
the next round): its order is ``fair.shuffle(full_deck(n), key)``, dealt like ``deck=``, and its
``i``-th reshuffle (from 1) is ``fair.shuffle(pile, key, f"reshuffle:{i}")``. States are frozen
``msgspec`` structs; ``apply`` returns a new state (or a :class:`Rejection`) and never mutates.

Players are ``0..n-1`` clockwise (2-4 players). Cards are :mod:`plugins.cards` codes; 2 players
use two decks and 4 jokers, 3-4 players four decks and 8 jokers, so hands are multisets.

Actions (plain dicts with a ``"type"`` key)
-------------------------------------------
On the wire, plain dicts; the flow's gate (``plugins.base.Flow``) turns each into its struct
in :mod:`plugins.pennies.actions` and hands it to the move's handler.

``{"type": "buy"}``
    Phase 1, the mover (rule 5): pay a penny, take the top discard and 2 stock cards, go on to
    melding. In a buying window, the player offered the card: pay a penny, take it and 2 stock
    cards; the window closes and the mover goes on to melding.
``{"type": "decline"}``
    Phase 1, the mover: draw 1 stock card; the top discard is then offered to the other players
    one at a time in turn order (players with 0 pennies, and the player who discarded it, are
    skipped: rule 5).
``{"type": "pass"}``
    The player offered the discard refuses it (also the scheduled action when the offer lapses
    after ``buy_seconds``); the next player in order is asked, or the window closes.
``{"type": "meld", "melds": [{"cards": [...], "rank": r}, ...]}``
    Phase 2, the mover: lay down one or more sets (rule 6). ``rank`` (1 = ace .. 13 = king) is
    needed only when a meld could stand for two ranks: the player names it. A player's first
    meld of the round must meet the round's requirement in one turn: the sets may be laid one
    action at a time; they count as the first meld once together they meet it.
``{"type": "lay_off", "cards": [...], "meld": {"player": p, "index": i}}``
    Phase 2, the mover: add cards to meld ``i`` of player ``p``; before the first meld only
    onto a set the mover laid this turn.
``{"type": "discard", "card": "H5"}``
    Phase 3, the mover: discard and pass the turn left (rule 7). Sets laid this turn that do
    not meet the first meld go back to the hand first (``last_move.returned``, the reason in
    the log line).
``{"type": "next_round"}``
    Anyone, once a round is scored and the game is not over: deal the next round.

Phases: ``buy`` (the mover buys or declines), ``offer`` (a buying window: one other player is
asked), ``play`` (the mover melds, lays off and discards), ``round_over``, ``game_over``.

Rejection codes
---------------
``bad_player``, ``bad_action`` (malformed action), ``unknown_action``, ``game_over``,
``wrong_phase``, ``not_your_turn``, ``no_pennies``, ``empty_discard``, ``bad_card``,
``not_in_hand``, ``too_few_cards``, ``mixed_ranks``, ``all_wild`` (no natural card),
``duplicate_card`` (two identical natural cards), ``rank_needed``, ``bad_rank``,
``requirement_not_met`` (sets short of the first meld that would empty the hand), ``not_opened``
(lay-off before the first meld, other than onto a set laid this turn), ``no_such_meld``,
``cannot_lay_off``.

State (``PenniesState``; ``dump`` gives the same keys as plain data)
--------------------------------------------------------------------
``options`` {chart: 7 rows {first_meld, wild}, buy_seconds}, ``players``, ``seed``,
``round_no`` (1..7), ``dealer``, ``phase``, ``turn`` (the mover), ``hands`` (sorted),
``stock`` (``stock[0]`` is drawn next), ``discard`` (top is the last element), ``melds`` (per
player: {rank, cards}; the mover's sets short of the first meld lie there during its turn),
``opened`` (per player: first meld made this round), ``pennies``,
``spent`` (the spent pile), ``bought`` (per player: the discards bought this round, public),
``offer`` (``None`` or {card, player: asked now, queue: still to ask, discarder: never asked,
``None`` for the upcard}), ``reshuffles`` (this
round), ``history`` (one ``RoundResult`` per scored round: points, cards_left, paid,
shortfall, bought counts, who went out or ``None`` for a stalemate), ``result`` (``None``
until the game ends: winners, totals, pot, share, remainder), ``last_move`` (public: player,
type, card, cards, drawn, reshuffled, returned), ``deal_key`` (hex: the key the next round will
use, cleared once used), ``fair_key`` (hex: this round's key; ``None`` for a seeded round).

View keys
---------
``game``, ``player``, ``players``, ``round_no``, ``rounds``, ``dealer``, ``phase``, ``to_act``,
``turn``, ``hand`` (own, ``None`` for spectators), ``hand_counts``, ``stock_count``,
``discard_pile``, ``discard_top``, ``reshuffles``, ``melds`` (per player:
[{rank, cards}]), ``opened``, ``pennies``, ``spent``, ``shortfalls`` (per player, all rounds),
``bought``, ``requirement`` ({text, first_meld, wild, wild_ranks}), ``buy_window`` (``None``
or {card, mover, player, queue, seconds}), ``scores`` ({rounds: per-round card points, paid:
per-round pennies paid, totals}), ``last_move``, ``result``. The scoreboard has the full table.

Interpretations (beyond the items marked *ours* in the rules)
-------------------------------------------------------------
* The reshuffle (rule 9) happens whenever cards must come off a stock that holds too few; the
  discard pile's top card at that moment stays (when a buyer reshuffles, the bought card has
  already been taken). Stock cards left before a reshuffle stay on top.
* The buying window opens after the mover has drawn; the mover cannot meld until it closes.
* Each meld action is checked as a whole: its cards must all be in hand. The first meld of a
  round is the sets the mover has laid this turn once they contain, for each required set of
  ``k``, a different set of ``k`` or more cards (checked after each meld or lay-off onto them,
  and at the discard, which gives back sets short of it: everyone saw them face up, as at a
  real table). Sets short of it may not take the hand's last card.
* After round 7 the game ends at once (no ``next_round``): the lowest total wins the spent pile.
* The stock is rebuilt as often as it runs out (rule 9). A discard that leaves the stock empty
  and the discard pile holding only that card ends the round with nobody out (nothing is left
  to rebuild from); everyone scores and pays for the cards they hold (rule 10). A round can
  still go on for ever (once every rank on the table holds all four suits and the jokers are
  melded, players holding one card and no pennies can never go out): self-play drivers bound
  the turns of a round and report a round that reaches the bound.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from msgspec import Struct
from msgspec.structs import replace

import plugins.pennies.actions as moves
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
from plugins.cards import bad_card, card_name, deck, is_card, rank, rank_name, sort_key
from plugins.pennies.chart import (
    ROUNDS,
    and_list,
    check_chart,
    default_chart,
    plural,
    requirement_text,
    sets_text,
    wild_ranks,
    wild_text,
)

BUY = "buy"
OFFER = "offer"
PLAY = "play"
ROUND_OVER = "round_over"
GAME_OVER = "game_over"
PHASES = (BUY, OFFER, PLAY, ROUND_OVER, GAME_OVER)

HAND_SIZE = 11
START_PENNIES = 10
BUY_EXTRA = 2  # stock cards a buyer takes with the discard
MIN_SET = 3
BUY_SECONDS = (5, 10, 15, 20)


# ------------------------------------------------------------------------------------ state


class ChartRow(Struct, frozen=True):
    """One round of the chart: the first meld's set sizes and the wild card names."""

    first_meld: tuple[int, ...]
    wild: tuple[str, ...]


class Options(Struct, frozen=True):
    """Room options, resolved against :attr:`Pennies.info`."""

    chart: tuple[ChartRow, ...]
    buy_seconds: int = 10


class Meld(Struct, frozen=True):
    """A set on the table: the rank it stands for and its cards (naturals first)."""

    rank: int
    cards: tuple[str, ...]


class Offer(Struct, frozen=True):
    """An open buying window: ``card`` is offered to ``player``; ``queue`` is asked next."""

    card: str
    player: int
    queue: tuple[int, ...] = ()
    discarder: int | None = None  # who discarded ``card`` (never asked); None: the upcard


class RoundResult(Struct, frozen=True):
    """A scored round (rule 10), every tuple indexed by player."""

    round_no: int
    dealer: int
    went_out: int | None  # None: a stalemate (the stock ran out for good)
    points: tuple[int, ...]
    cards_left: tuple[int, ...]
    paid: tuple[int, ...]
    shortfall: tuple[int, ...]
    bought: tuple[int, ...]


class GameResult(Struct, frozen=True):
    """Rule 11: the lowest total wins and collects the spent pile (``pot``); tied winners get
    ``share`` each and ``remainder`` stays in the pile."""

    winners: tuple[int, ...]
    totals: tuple[int, ...]
    pot: int
    share: int
    remainder: int


class LastMove(Struct, frozen=True):
    """The last move, holding only what everyone may know."""

    player: int
    type: str
    card: str | None = None
    cards: tuple[str, ...] = ()
    drawn: int = 0
    reshuffled: bool = False
    returned: tuple[str, ...] = ()  # sets laid this turn short of the first meld, taken back


class PenniesState(Struct, frozen=True):
    """The whole game. See the module docstring for the meaning of every field."""

    options: Options
    players: int
    seed: int
    round_no: int
    dealer: int
    phase: str
    turn: int
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]
    discard: tuple[str, ...]
    melds: tuple[tuple[Meld, ...], ...]
    opened: tuple[bool, ...]
    pennies: tuple[int, ...]
    spent: int = 0
    bought: tuple[tuple[str, ...], ...] = ()
    offer: Offer | None = None
    reshuffles: int = 0
    history: tuple[RoundResult, ...] = ()
    result: GameResult | None = None
    last_move: LastMove | None = None
    deal_key: str | None = None
    fair_key: str | None = None


# ------------------------------------------------------------------------------- the cards

# Look-up tables for the hot paths (self-play runs hundreds of thousands of moves).
RANK: dict[str, int] = {c: rank(c) for c in deck(1, 2)}
_SORT: dict[str, tuple[int, int]] = {c: sort_key(c) for c in RANK}


def full_deck(players: int) -> list[str]:
    """Rule 2: 108 cards for 2 players, 216 for 3-4 (unshuffled)."""
    return deck(2, 4) if players == 2 else deck(4, 8)


def card_points(card: str) -> int:
    """Rule 10: joker 50, ace 20, 2 20, 10/J/Q/K 10, 3-9 5."""
    r = RANK[card]
    if r == 0:
        return 50
    if r <= 2:
        return 20
    return 10 if r >= 10 else 5


def sort_hand(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=_SORT.__getitem__))


def _with(hand: tuple[str, ...], cards: Iterable[str]) -> tuple[str, ...]:
    """A sorted hand with ``cards`` added, still sorted."""
    out = list(hand)
    for c in cards:
        bisect.insort(out, c, key=_SORT.__getitem__)
    return tuple(out)


def _without(hand: tuple[str, ...], cards: Iterable[str]) -> tuple[str, ...]:
    """A hand without one copy of each of ``cards`` (all held), order kept."""
    out = list(hand)
    for c in cards:
        out.remove(c)
    return tuple(out)


def arrange(cards: Iterable[str], set_rank: int) -> tuple[str, ...]:
    """A set's cards for display: its natural cards by suit, then the wild cards."""
    return tuple(sorted(cards, key=lambda c: (RANK[c] != set_rank, _SORT[c])))


def _a(r: int) -> str:
    word = rank_name(r)
    return f"an {word}" if r in (1, 8) else f"a {word}"


def _the(cards: Sequence[str]) -> str:
    """``"the 5 of hearts, queen of clubs and red joker"``."""
    return "the " + and_list([card_name(c) for c in cards])


def wild_words(wild: frozenset[int]) -> str:
    if not wild:
        return "no cards are wild this round"
    return f"only {and_list([plural(r) for r in sorted(wild)])} are wild this round"


# ------------------------------------------------------------------------------------- sets


def _naturals(cards: Iterable[str], r: int) -> list[str]:
    return [c for c in cards if RANK[c] == r]


def _duplicate(cards: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for c in cards:
        if c in seen:
            return c
        seen.add(c)
    return None


def _duplicate_rejection(card: str) -> Rejection:
    return Rejection(
        "duplicate_card",
        f"A set can't hold two identical natural cards: the {card_name(card)} is there twice.",
    )


def _check_as(cards: Sequence[str], r: int, wild: frozenset[int]) -> int | Rejection:
    """``r`` if ``cards`` form a set of rank ``r`` this round, else why not."""
    for c in cards:
        if RANK[c] != r and RANK[c] not in wild:
            return Rejection(
                "mixed_ranks",
                f"The {card_name(c)} is neither {_a(r)} nor wild, so it can't go in a set of "
                f"{plural(r)} ({wild_words(wild)}).",
            )
    naturals = _naturals(cards, r)
    if not naturals:
        return Rejection(
            "all_wild",
            f"A set needs at least one natural card: {_the(cards)} are all wild, with no "
            f"natural {rank_name(r)}.",
        )
    twice = _duplicate(naturals)
    if twice is not None:
        return _duplicate_rejection(twice)
    return r


def set_rank(
    cards: Sequence[str], wild: frozenset[int], named: int | None = None
) -> int | Rejection:
    """The rank ``cards`` form a set of (rule 6), or a :class:`Rejection` saying why not.

    ``named`` is the rank the player named; it is required only when two ranks fit."""
    if len(cards) < MIN_SET:
        return Rejection(
            "too_few_cards",
            f"A set needs at least {MIN_SET} cards; {_the(cards)} "
            f"{'is' if len(cards) == 1 else 'are'} only {len(cards)}.",
        )
    if named is not None:
        if not (isinstance(named, int) and not isinstance(named, bool) and 1 <= named <= 13):
            return Rejection("bad_rank", f"{named!r} is not a rank: use 1 (ace) to 13 (king).")
        return _check_as(cards, named, wild)
    present = sorted({RANK[c] for c in cards} - {0})
    fits = [r for r in present if all(RANK[c] == r or RANK[c] in wild for c in cards)]
    valid = [r for r in fits if _duplicate(_naturals(cards, r)) is None]
    if len(valid) == 1:
        return valid[0]
    if valid:
        options = " or of ".join(plural(r) for r in valid)
        return Rejection(
            "rank_needed",
            f"{_the(cards).capitalize()} could be a set of {options}: say which rank.",
        )
    if fits:
        twice = _duplicate(_naturals(cards, fits[0]))
        assert twice is not None
        return _duplicate_rejection(twice)
    if not present:
        if 0 in wild:
            return Rejection(
                "all_wild",
                "A set needs at least one natural card; jokers alone are not a set.",
            )
        return Rejection("mixed_ranks", f"Jokers are not a set: {wild_words(wild)}.")
    return Rejection(
        "mixed_ranks",
        f"{_the(cards).capitalize()} are not a set: a set is cards of one rank, and "
        f"{wild_words(wild)}.",
    )


def lay_off_problem(meld: Meld, cards: Sequence[str], wild: frozenset[int]) -> Rejection | None:
    """Why ``cards`` can't all be laid off onto ``meld`` (``None``: they can)."""
    naturals = set(_naturals(meld.cards, meld.rank))
    for c in cards:
        if RANK[c] == meld.rank:
            if c in naturals:
                return Rejection(
                    "duplicate_card",
                    f"The set of {plural(meld.rank)} already holds the {card_name(c)}; a set "
                    "can't hold two identical natural cards.",
                )
            naturals.add(c)
        elif RANK[c] not in wild:
            return Rejection(
                "cannot_lay_off",
                f"The {card_name(c)} doesn't fit the set of {plural(meld.rank)}: only "
                f"{plural(meld.rank)} and wild cards do ({wild_words(wild)}).",
            )
    return None


def meets(sizes: Sequence[int], requirement: Sequence[int]) -> bool:
    """Whether melds of ``sizes`` contain a different meld of ``k`` or more cards for every
    required ``k``."""
    if len(sizes) < len(requirement):
        return False
    have = sorted(sizes, reverse=True)
    need = sorted(requirement, reverse=True)
    return all(h >= n for h, n in zip(have, need, strict=False))


def still_needed(requirement: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...]:
    """The required set sizes that sets of ``sizes`` (laid this turn) leave to lay: each set
    covers the biggest requirement it meets that no bigger set has covered."""
    left = sorted(requirement, reverse=True)
    for size in sorted(sizes, reverse=True):
        k = next((k for k in left if k <= size), None)
        if k is not None:
            left.remove(k)
    return tuple(left)


def _tally(hand: Iterable[str]) -> dict[int, dict[str, int]]:
    """Rank -> {code: copies held}."""
    by_rank: dict[int, dict[str, int]] = {}
    for c in hand:
        codes = by_rank.setdefault(RANK[c], {})
        codes[c] = codes.get(c, 0) + 1
    return by_rank


def find_opening(
    hand: Sequence[str], requirement: Sequence[int], wild: frozenset[int]
) -> list[Meld] | None:
    """A first meld from ``hand`` meeting ``requirement`` (one set per required size, naturals
    first, the fewest wild cards), or ``None`` if the search finds none."""
    found = _find_opening(tuple(hand), tuple(requirement), wild)
    return None if found is None else list(found)


@functools.lru_cache(maxsize=4096)
def _find_opening(
    hand: tuple[str, ...], requirement: tuple[int, ...], wild: frozenset[int]
) -> tuple[Meld, ...] | None:
    need = sorted(requirement, reverse=True)
    if len(hand) < sum(need):
        return None
    by_rank = _tally(hand)
    pool = sum(sum(cnt.values()) for r, cnt in by_rank.items() if r in wild)
    distinct = {r: len(cnt) for r, cnt in by_rank.items() if r != 0}
    if not distinct or sum(max(0, k - max(distinct.values())) for k in need) > pool:
        return None  # a set holds at most that many different naturals; wild cards fill the rest
    # The ranks with the most different naturals, plus every wild rank held (a set of aces).
    best_tame = sorted((r for r in distinct if r not in wild), key=lambda r: (-distinct[r], -r))
    candidates = sorted(set(best_tame[: len(need) + 1]) | {r for r in distinct if r in wild})
    scored: list[tuple[int, tuple[int, ...]]] = []
    for combo in itertools.product(candidates, repeat=len(need)):
        if any(need[i] == need[i + 1] and combo[i] > combo[i + 1] for i in range(len(need) - 1)):
            continue
        cost = _wild_cost(combo, need, by_rank, wild, pool)
        if cost is not None:
            scored.append((cost, combo))
    for _, combo in sorted(scored):
        melds = _build(hand, combo, need, wild)
        if melds is not None:
            return tuple(melds)
    return None


def _wild_cost(
    combo: Sequence[int],
    need: Sequence[int],
    by_rank: dict[int, dict[str, int]],
    wild: frozenset[int],
    pool: int,
) -> int | None:
    """Wild cards the sets of ``combo`` need (an estimate), ``None`` if clearly impossible."""
    cost = 0
    for r in set(combo):
        sizes = [k for k, rr in zip(need, combo, strict=True) if rr == r]
        m = len(sizes)
        cnt = by_rank[r]
        spread = sum(min(n, m) for n in cnt.values())
        if spread < m:
            return None
        naturals = min(spread, sum(min(k, len(cnt)) for k in sizes))
        cost += sum(sizes) - naturals
        if r in wild:
            pool -= naturals
    return cost if cost <= pool else None


def _build(
    hand: Sequence[str], combo: Sequence[int], need: Sequence[int], wild: frozenset[int]
) -> list[Meld] | None:
    left = Counter(hand)
    chosen: list[list[str]] = []
    for r, k in zip(combo, need, strict=True):
        codes = sorted((c for c in left if RANK[c] == r and left[c] > 0), key=lambda c: -left[c])
        take = codes[:k]
        if not take:
            return None
        for c in take:
            left[c] -= 1
        chosen.append(take)
    fillers = sorted(
        (c for c in left.elements() if RANK[c] in wild), key=lambda c: (-card_points(c), c)
    )
    for meld, r, k in zip(chosen, combo, need, strict=True):
        while len(meld) < k:
            pick = next((c for c in fillers if RANK[c] != r), None)
            if pick is None:
                return None
            fillers.remove(pick)
            meld.append(pick)
    return [Meld(r, arrange(m, r)) for m, r in zip(chosen, combo, strict=True)]


def more_melds(hand: Sequence[str], wild: frozenset[int]) -> list[Meld]:
    """One example meld per rank ``hand`` can make a set of: every different natural card of
    the rank, topped up with wild cards to 3."""
    by_rank = _tally(hand)
    fillers = sorted((c for c in hand if RANK[c] in wild), key=lambda c: (-card_points(c), c))
    out: list[Meld] = []
    for r in sorted(by_rank):
        if r == 0:
            continue
        naturals = sorted(by_rank[r])
        extra = [c for c in fillers if RANK[c] != r][: max(0, MIN_SET - len(naturals))]
        if len(naturals) + len(extra) >= MIN_SET:
            out.append(Meld(r, arrange([*naturals, *extra], r)))
    return out


# ------------------------------------------------------------------------------- the engine


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _name(names: Sequence[str], player: int | None) -> str:
    if player is None:
        return "The game"
    if 0 <= player < len(names):
        return names[player]
    return f"Player {player + 1}"


def _set(values: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*values[:i], value, *values[i + 1 :])


def _offered_elsewhere(state: PenniesState) -> str:
    assert state.offer is not None
    return f"The {card_name(state.offer.card)} is being offered to another player."


# Who may do what, when (the flow's gate asks it for every move; see plugins.base.Flow). Who
# may act is the engine's to_act: the player whose turn it is, or the one a discard is being
# offered to out of turn (a buy outside one's turn).
_PHASES: dict[str, Phase[PenniesState]] = {
    BUY: Phase(
        frozenset({"buy", "decline"}),
        "First buy the top discard for a penny or decline it and draw from the stock.",
    ),
    OFFER: Phase(
        frozenset({"buy", "pass"}),
        "The discard is being offered: buy it or pass.",
        wait=_offered_elsewhere,
    ),
    PLAY: Phase(
        frozenset({"meld", "lay_off", "discard"}),
        "You have drawn: meld, lay off, or discard to end your turn.",
    ),
    ROUND_OVER: Phase(
        frozenset({"next_round"}),
        "This round is over; deal the next round to keep playing.",
        actors=EVERYONE,
    ),
    GAME_OVER: Phase(frozenset(), "The game is over.", over=True),
}


def _bad_player(state: PenniesState) -> Rejection:
    return Rejection("bad_player", f"Only players 1 to {state.players} can make moves.")


def _bad_cards(cards: object, how: str) -> Rejection:
    """A list of cards that is not a non-empty list of card codes; ``how`` shows the shape."""
    if isinstance(cards, list) and cards:
        bad = next((c for c in cards if not is_card(c, jokers=True)), None)
        if bad is not None:
            return bad_card(bad, jokers=True)
    return Rejection("bad_action", how)


def _bad_sets(state: PenniesState, player: int | None, specs: object) -> Rejection:
    """Which part of a meld's ``melds`` is malformed, in the words for that part."""
    if not isinstance(specs, list) or not specs:
        return Rejection(
            "bad_action", 'List the sets, e.g. "melds": [{"cards": ["H5", "S5", "J1"]}].'
        )
    for spec in specs:
        if not isinstance(spec, dict):
            return Rejection("bad_action", 'Each meld is written like {"cards": [...]}.')
        cards = spec.get("cards")
        if not isinstance(cards, list) or not all(is_card(c, jokers=True) for c in cards):
            return _bad_cards(cards, 'Each meld lists its "cards", e.g. ["H5", "S5", "J1"].')
        named = spec.get("rank")
        if named is not None and not (_is_int(named) and 1 <= named <= 13):
            return Rejection("bad_rank", f"{named!r} is not a rank: use 1 (ace) to 13 (king).")
    return Rejection("bad_action", 'Each meld is written like {"cards": [...]}.')


def _not_opened(state: PenniesState) -> Rejection:
    row = state.options.chart[state.round_no - 1]  # Pennies.requirement
    return Rejection(
        "not_opened",
        "You can lay off only after your first meld of the round "
        f"({sets_text(row.first_meld)}), or onto a set you laid this turn.",
    )


def _bad_target(state: PenniesState, player: int | None, target: object) -> Rejection:
    """A lay-off's ``meld`` that is not ``{"player": p, "index": i}``."""
    assert player is not None
    if not state.opened[player]:
        return _not_opened(state)
    if not isinstance(target, dict):
        return Rejection("bad_action", 'Say which meld: "meld": {"player": 0, "index": 0}.')
    return Rejection("no_such_meld", "There is no such meld on the table.")


class Pennies:
    """Pennies for 2-4 players (rules 1-11 of ``shared/rules/pennies.md``)."""

    info = GameInfo(
        name="pennies",
        title="Pennies",
        min_players=2,
        max_players=4,
        options=(
            OptionSpec(
                "chart",
                default_chart(),
                (),
                "The 7 rounds: the sets each round's first meld needs and its wild cards.",
                "Round chart",
                check=check_chart,
            ),
            OptionSpec(
                "buy_seconds",
                10,
                BUY_SECONDS,
                "How long each player has to answer an offer of the discard.",
                "Seconds to answer a buy offer",
            ),
        ),
    )

    def __init__(self) -> None:
        self._flow: Flow[PenniesState] = Flow(
            title="Pennies",
            moves=moves.PenniesAction,
            phases=_PHASES,
            handlers={
                "buy": self._do_buy,
                "decline": self._do_decline,
                "pass": self._do_pass,
                "meld": self._do_meld,
                "lay_off": self._do_lay_off,
                "discard": self._do_discard,
                "next_round": self._do_next_round,
            },
            players=lambda state: state.players,
            actors=self.to_act,
            example=("buy", "discard"),
            bad_player=_bad_player,
            no_player=_bad_player,
            anyone=frozenset({"next_round"}),
            lapse=frozenset({"pass"}),
            elsewhere={"next_round": "This round is still being played."},
            fields={
                "melds": _bad_sets,
                "meld": _bad_target,
                "cards": lambda state, player, cards: _bad_cards(
                    cards, 'List the cards, e.g. "cards": ["H5", "S5", "J1"].'
                ),
                "card": lambda state, player, card: bad_card(card, jokers=True),
            },
        )

    # ------------------------------------------------------------------------- setup

    def new_game(
        self,
        players: int,
        options: dict[str, Any],
        seed: int,
        deck: Sequence[str] | None = None,
        deal_key: bytes | None = None,
    ) -> PenniesState:
        """A fresh game: dealer drawn from ``seed``, round 1 dealt (from ``deck`` if given, or
        shuffled with ``deal_key``)."""
        if not _is_int(players) or not 2 <= players <= 4:
            raise ValueError("Pennies is played by 2 to 4 players.")
        resolved = self.info.resolve_options(options)
        if isinstance(resolved, Rejection):
            raise ValueError(resolved.message)
        chart = tuple(
            ChartRow(tuple(row["first_meld"]), tuple(row["wild"])) for row in resolved["chart"]
        )
        opts = Options(chart=chart, buy_seconds=resolved["buy_seconds"])
        if deck is not None and Counter(deck) != Counter(full_deck(players)):
            raise ValueError(
                f"The deck for {players} players must hold exactly "
                f"{len(full_deck(players))} cards: {'two' if players == 2 else 'four'} decks "
                "and their jokers."
            )
        dealer = random.Random(f"pennies:{seed}:first_dealer").randrange(players)
        base = PenniesState(
            options=opts,
            players=players,
            seed=seed,
            round_no=1,
            dealer=dealer,
            phase=BUY,
            turn=0,
            hands=(),
            stock=(),
            discard=(),
            melds=(),
            opened=(),
            pennies=(START_PENNIES,) * players,
            deal_key=deal_key.hex() if deal_key is not None else None,
        )
        return self._deal(base, 1, dealer, deck)

    def _deal(
        self, state: PenniesState, round_no: int, dealer: int, order: Sequence[str] | None
    ) -> PenniesState:
        """Rule 4: 11 cards each from the player left of the dealer, one upcard, the stock."""
        n = state.players
        key = state.deal_key if order is None else None
        if key is not None:
            cards = fair.shuffle(full_deck(n), fair.as_key(key), "deal")
        elif order is None:
            cards = full_deck(n)
            random.Random(f"pennies:{state.seed}:{round_no}").shuffle(cards)
        else:
            cards = list(order)
        first = (dealer + 1) % n
        hands: list[list[str]] = [[] for _ in range(n)]
        for i in range(HAND_SIZE * n):
            hands[(first + i) % n].append(cards[i])
        dealt = HAND_SIZE * n
        return replace(
            state,
            round_no=round_no,
            dealer=dealer,
            phase=BUY,
            turn=first,
            hands=tuple(sort_hand(h) for h in hands),
            stock=tuple(cards[dealt + 1 :]),
            discard=(cards[dealt],),
            melds=((),) * n,
            opened=(False,) * n,
            bought=((),) * n,
            offer=None,
            reshuffles=0,
            last_move=None,
            deal_key=None,
            fair_key=key,
        )

    def deal_with(self, state: PenniesState, key: bytes) -> PenniesState:
        """The state with the key the next round will use (docs/fairness.md)."""
        return replace(state, deal_key=key.hex())

    def deal_record(self, state: PenniesState) -> dict[str, Any] | None:
        """The current round as dealt with its key: round number, dealer, the canonical deck,
        the shuffled order and where each card went; ``None`` for a seeded round."""
        if state.fair_key is None:
            return None
        n = state.players
        deck = full_deck(n)
        order = fair.shuffle(deck, fair.as_key(state.fair_key), "deal")
        players = [str(p) for p in range(n)]
        dealt = fair.round_robin(len(order), players, (state.dealer + 1) % n, HAND_SIZE, True)
        return {
            "deal": state.round_no,
            "dealer": state.dealer,
            "deck": deck,
            "order": order,
            "dealt": dealt,
        }

    # ----------------------------------------------------------------------- queries

    def teams(self, state: PenniesState) -> list[list[int]]:
        return [[p] for p in range(state.players)]

    def requirement(self, state: PenniesState) -> ChartRow:
        """The current round's chart row."""
        return state.options.chart[state.round_no - 1]

    def wild(self, state: PenniesState) -> frozenset[int]:
        """The ranks (0 = joker) wild this round."""
        return _requirement_row(state.round_no, self.requirement(state))[1]

    def to_act(self, state: PenniesState) -> list[int]:
        if state.phase in (BUY, PLAY):
            return [state.turn]
        if state.phase == OFFER:
            assert state.offer is not None
            return [state.offer.player]
        if state.phase == ROUND_OVER:
            return list(range(state.players))
        return []

    def scheduled(self, state: PenniesState) -> Scheduled | None:
        """An unanswered offer lapses: the offered player passes after ``buy_seconds``."""
        if state.phase == OFFER and state.offer is not None:
            return Scheduled(
                float(state.options.buy_seconds), {"type": "pass"}, player=state.offer.player
            )
        return None

    def legal_actions(self, state: PenniesState, player: int) -> list[dict[str, Any]]:
        """Every action ``player`` may make now. Melds are listed by example: the first meld
        found for the requirement, then one set per rank the hand can make."""
        if not _is_int(player) or not 0 <= player < state.players:
            return []
        phase = state.phase
        if phase == ROUND_OVER:
            return [{"type": "next_round"}]
        if player not in self.to_act(state):
            return []
        if phase == BUY:
            out: list[dict[str, Any]] = []
            if state.pennies[player] > 0 and state.discard:
                out.append({"type": "buy"})
            out.append({"type": "decline"})
            return out
        if phase == OFFER:
            return [{"type": "buy"}, {"type": "pass"}]
        if phase != PLAY:
            return []
        hand = state.hands[player]
        wild = self.wild(state)
        out = [{"type": "discard", "card": c} for c in dict.fromkeys(hand)]
        if not state.opened[player]:
            laid = [len(m.cards) for m in state.melds[player]]
            need = still_needed(self.requirement(state).first_meld, laid)
            opening = find_opening(hand, need, wild) if need else None
            if opening is not None:
                out.append({"type": "meld", "melds": [_meld_data(m) for m in opening]})
                if len(opening) > 1:  # or one set at a time (rule 6: in one turn)
                    out += [{"type": "meld", "melds": [_meld_data(m)]} for m in opening]
            return out
        for m in more_melds(hand, wild):
            out.append({"type": "meld", "melds": [_meld_data(m)]})
        distinct = list(dict.fromkeys(hand))
        for p, area in enumerate(state.melds):
            for i, meld in enumerate(area):
                for c in distinct:
                    r = RANK[c]
                    if (r == meld.rank and c not in meld.cards) or (r != meld.rank and r in wild):
                        out.append(
                            {"type": "lay_off", "cards": [c], "meld": {"player": p, "index": i}}
                        )
        return out

    def view(self, state: PenniesState, player: int | None) -> dict[str, Any]:
        """What ``player`` (``None``: a spectator) may see; the module docstring lists the keys."""
        n = state.players
        own = player if _is_int(player) and 0 <= player < n else None  # type: ignore[operator]
        row = state.options.chart[state.round_no - 1]
        text, wild = _requirement_row(state.round_no, row)
        rounds = [list(h.points) for h in state.history]
        window = None
        if state.offer is not None:
            window = {
                "card": state.offer.card,
                "mover": state.turn,
                "player": state.offer.player,
                "queue": list(state.offer.queue),
                "seconds": state.options.buy_seconds,
            }
        return {
            "game": "pennies",
            "player": own,
            "players": n,
            "round_no": state.round_no,
            "rounds": ROUNDS,
            "dealer": state.dealer,
            "phase": state.phase,
            "to_act": self.to_act(state),
            "turn": state.turn,
            "hand": list(state.hands[own]) if own is not None else None,
            "hand_counts": [len(h) for h in state.hands],
            "stock_count": len(state.stock),
            "discard_pile": list(state.discard),
            "discard_top": state.discard[-1] if state.discard else None,
            "reshuffles": state.reshuffles,
            "melds": [
                [{"rank": m.rank, "cards": list(m.cards)} for m in area] for area in state.melds
            ],
            "opened": list(state.opened),
            "pennies": list(state.pennies),
            "spent": state.spent,
            "shortfalls": _column_sums([h.shortfall for h in state.history], n),
            "bought": [list(b) for b in state.bought],
            "requirement": {
                "text": text,
                "first_meld": list(row.first_meld),
                "wild": list(row.wild),
                "wild_ranks": sorted(wild),
            },
            "buy_window": window,
            "scores": {
                "rounds": rounds,
                "paid": [list(h.paid) for h in state.history],
                "totals": _column_sums(rounds, n),
            },
            "last_move": plain(state.last_move) if state.last_move else None,
            "result": plain(state.result) if state.result else None,
        }

    def status(self, state: PenniesState, names: Sequence[str]) -> str:
        phase = state.phase
        mover = _name(names, state.turn)
        if phase == BUY:
            top = state.discard[-1] if state.discard else None
            if state.pennies[state.turn] == 0 or top is None:
                return f"{mover} to draw"
            return f"{mover} to buy the {card_name(top)} or draw"
        if phase == OFFER:
            assert state.offer is not None
            return f"{_name(names, state.offer.player)} may buy the {card_name(state.offer.card)}"
        if phase == PLAY:
            return f"{mover} to meld or discard"
        last = state.history[-1]
        if phase == ROUND_OVER:
            if last.went_out is None:
                return f"Round {last.round_no} over: the stock ran out (a stalemate)"
            return f"Round {last.round_no} over: {_name(names, last.went_out)} went out"
        assert state.result is not None
        return self._result_line(state.result, names)

    def _result_line(self, result: GameResult, names: Sequence[str]) -> str:
        who = and_list([_name(names, p) for p in result.winners])
        low = result.totals[result.winners[0]]
        pennies = f"{result.pot} {'penny' if result.pot == 1 else 'pennies'}"
        if len(result.winners) == 1:
            return f"{who} wins with {low} and collects the spent pile of {pennies}"
        line = f"{who} tie at {low} and split {pennies}: {result.share} each"
        if result.remainder:
            verb = "stays" if result.remainder == 1 else "stay"
            line += f", {result.remainder} {verb} in the spent pile"
        return line

    def scoreboard(self, state: PenniesState, names: Sequence[str]) -> Scoreboard:
        rows = []
        for h in state.history:
            cells: list[int | str] = []
            for p in range(state.players):
                if p == h.went_out:
                    cells.append(f"{h.points[p]} (out)")
                    continue
                cell = f"{h.points[p]} (paid {h.paid[p]}"
                cell += f", {h.shortfall[p]} short)" if h.shortfall[p] else ")"
                cells.append(cell)
            rows.append((f"Round {h.round_no}", tuple(cells)))
        if state.result is not None:
            note = self._result_line(state.result, names)
        else:
            note = (
                f"Round {state.round_no} of {ROUNDS}; lowest total wins; spent pile: {state.spent}"
            )
        return Scoreboard(
            columns=tuple(_name(names, p) for p in range(state.players)),
            rows=tuple(rows),
            totals=_totals(state),
            note=note,
        )

    def reveal(self, state: PenniesState) -> list[RevealLine] | None:
        if state.phase not in (ROUND_OVER, GAME_OVER) or not state.history:
            return None
        last = state.history[-1]
        out = []
        for p in range(state.players):
            if p == last.went_out:
                note = "went out"
            else:
                note = f"paid {last.paid[p]} {'penny' if last.paid[p] == 1 else 'pennies'}"
                if last.shortfall[p]:
                    note += f", {last.shortfall[p]} short"
            out.append(
                RevealLine(
                    player=p,
                    melds=tuple(m.cards for m in state.melds[p]),
                    cards=state.hands[p],
                    points=last.points[p],
                    note=note,
                )
            )
        return out

    def outcome(self, state: PenniesState) -> Outcome | None:
        if state.result is None:
            return None
        return Outcome(winners=state.result.winners, scores=state.result.totals)

    # ------------------------------------------------------------------------- apply

    def apply(
        self, state: PenniesState, player: int | None, action: dict[str, Any]
    ) -> PenniesState | Rejection:
        """Apply ``action`` by ``player``: a new state, or a :class:`Rejection` saying why not
        (the flow's gate: player, shape, phase, turn, fields; then the move's handler). An
        unanswered offer lapses as the game's ``pass`` (``player`` ``None``)."""
        return self._flow.apply(state, player, action)

    def _draw(self, state: PenniesState, count: int) -> tuple[tuple[str, ...], PenniesState, bool]:
        """Take ``count`` stock cards, reshuffling the discard pile under its top card into the
        stock first if the stock is short (rule 9); short even then: what there is (rule 5)."""
        stock, discard, reshuffled = state.stock, state.discard, False
        if len(stock) < count and len(discard) > 1:
            extra = list(discard[:-1])
            if state.fair_key is not None:
                label = f"reshuffle:{state.reshuffles + 1}"
                extra = fair.shuffle(extra, fair.as_key(state.fair_key), label)
            else:
                rng = random.Random(
                    f"pennies:{state.seed}:{state.round_no}:reshuffle:{state.reshuffles}"
                )
                rng.shuffle(extra)
            stock, discard, reshuffled = stock + tuple(extra), discard[-1:], True
        after = replace(
            state,
            stock=stock[count:],
            discard=discard,
            reshuffles=state.reshuffles + reshuffled,
        )
        return stock[:count], after, reshuffled

    def _take_discard(self, state: PenniesState, player: int) -> PenniesState:
        """``player`` pays a penny for the top discard and takes 2 stock cards with it."""
        card = state.discard[-1]
        paid = replace(
            state,
            discard=state.discard[:-1],
            pennies=_set(state.pennies, player, state.pennies[player] - 1),
            spent=state.spent + 1,
            bought=_set(state.bought, player, (*state.bought[player], card)),
        )
        drawn, after, reshuffled = self._draw(paid, BUY_EXTRA)
        hand = _with(state.hands[player], (card, *drawn))
        return replace(
            after,
            hands=_set(after.hands, player, hand),
            phase=PLAY,
            offer=None,
            last_move=LastMove(player, "buy", card, (), len(drawn), reshuffled),
        )

    def _do_buy(
        self, state: PenniesState, player: int, action: moves.Buy
    ) -> PenniesState | Rejection:
        if state.pennies[player] <= 0:
            return Rejection(
                "no_pennies", "You have no pennies left, so you can't buy: decline and draw."
            )
        if not state.discard:
            return Rejection("empty_discard", "There is no discard to buy: decline and draw.")
        return self._take_discard(state, player)

    def _do_decline(self, state: PenniesState, player: int, action: moves.Decline) -> PenniesState:
        top = state.discard[-1] if state.discard else None
        drawn, after, reshuffled = self._draw(state, 1)
        after = replace(
            after,
            hands=_set(after.hands, player, _with(state.hands[player], drawn)),
            phase=PLAY,
            last_move=LastMove(player, "decline", top, (), len(drawn), reshuffled),
        )
        if top is None:
            return after
        n = state.players
        by = _discarder(state)
        queue = tuple(
            p for p in ((player + i) % n for i in range(1, n)) if after.pennies[p] > 0 and p != by
        )
        if not queue:
            return after
        return replace(after, phase=OFFER, offer=Offer(top, queue[0], queue[1:], by))

    def _do_pass(self, state: PenniesState, player: int, action: moves.Pass) -> PenniesState:
        offer = state.offer
        assert offer is not None
        move = LastMove(player, "pass", offer.card)
        if offer.queue:
            nxt = Offer(offer.card, offer.queue[0], offer.queue[1:])
            return replace(state, offer=nxt, last_move=move)
        return replace(state, phase=PLAY, offer=None, last_move=move)

    def _cards_from_hand(
        self, state: PenniesState, player: int, cards: Any
    ) -> list[str] | Rejection:
        if not isinstance(cards, list) or not cards:
            return Rejection("bad_action", 'List the cards, e.g. "cards": ["H5", "S5", "J1"].')
        for c in cards:
            if not is_card(c, jokers=True):
                return bad_card(c, jokers=True)
        have = Counter(state.hands[player])
        want = Counter(cards)
        for c, k in want.items():
            if have[c] < k:
                held = have[c]
                if held == 0:
                    return Rejection("not_in_hand", f"You don't hold the {card_name(c)}.")
                return Rejection(
                    "not_in_hand",
                    f"You hold the {card_name(c)} only {'once' if held == 1 else f'{held} times'}.",
                )
        return list(cards)

    def _do_meld(
        self, state: PenniesState, player: int, action: moves.Meld
    ) -> PenniesState | Rejection:
        wild = self.wild(state)
        melds: list[Meld] = []
        every: list[str] = []
        for spec in action.melds:
            cards = spec.cards
            bad = next((c for c in cards if not is_card(c, jokers=True)), None)
            if bad is not None:
                return bad_card(bad, jokers=True)
            got = set_rank(cards, wild, spec.rank)
            if isinstance(got, Rejection):
                return got
            melds.append(Meld(got, arrange(cards, got)))
            every.extend(cards)
        held = self._cards_from_hand(state, player, every)
        if isinstance(held, Rejection):
            return held
        hand = _without(state.hands[player], every)
        laid = (*state.melds[player], *melds)
        opened = self._opens(state, player, laid, hand)
        if isinstance(opened, Rejection):
            return opened
        after = replace(
            state,
            hands=_set(state.hands, player, hand),
            melds=_set(state.melds, player, laid),
            opened=_set(state.opened, player, opened),
            last_move=LastMove(player, "meld", None, tuple(every)),
        )
        return self._maybe_out(after, player)

    def _opens(
        self, state: PenniesState, player: int, laid: Sequence[Meld], hand: Sequence[str]
    ) -> bool | Rejection:
        """Rule 6: whether ``player``'s sets ``laid`` this turn make their first meld (``True``
        once opened). Sets short of it stay on the table until the discard (which gives them
        back), so they may not take the last card of the hand."""
        if state.opened[player]:
            return True
        if meets([len(m.cards) for m in laid], self.requirement(state).first_meld):
            return True
        if not hand:
            return Rejection(
                "requirement_not_met",
                f"{self._short_of(state, laid, 'Your')} You would have no card left to discard.",
            )
        return False

    def _short_of(self, state: PenniesState, laid: Sequence[Meld], whose: str) -> str:
        """Why the sets ``laid`` this turn are not yet the round's first meld (a sentence
        starting with ``whose``)."""
        row = self.requirement(state)
        return (
            f"{whose} first meld this round must be {sets_text(row.first_meld)}, laid down in one "
            f"turn (wild: {wild_text(row.wild)}); {_offered(laid)} "
            f"{'does' if len(laid) == 1 else 'do'} not meet that."
        )

    def _do_lay_off(
        self, state: PenniesState, player: int, action: moves.LayOff
    ) -> PenniesState | Rejection:
        owner, index = action.meld.player, action.meld.index
        own = state.melds[player]
        pending = owner == player and 0 <= index < len(own)  # before the first meld: onto a
        if not state.opened[player] and not pending:  # set laid this turn only
            return _not_opened(state)
        if not (0 <= owner < state.players and 0 <= index < len(state.melds[owner])):
            return Rejection("no_such_meld", "There is no such meld on the table.")
        held = self._cards_from_hand(state, player, list(action.cards))
        if isinstance(held, Rejection):
            return held
        meld = state.melds[owner][index]
        problem = lay_off_problem(meld, held, self.wild(state))
        if problem is not None:
            return problem
        grown = Meld(meld.rank, arrange([*meld.cards, *held], meld.rank))
        area = _set(state.melds[owner], index, grown)
        hand = _without(state.hands[player], held)
        opened = self._opens(state, player, area if owner == player else own, hand)
        if isinstance(opened, Rejection):
            return opened
        after = replace(
            state,
            hands=_set(state.hands, player, hand),
            melds=_set(state.melds, owner, area),
            opened=_set(state.opened, player, opened),
            last_move=LastMove(player, "lay_off", None, tuple(held)),
        )
        return self._maybe_out(after, player)

    def _do_discard(
        self, state: PenniesState, player: int, action: moves.Discard
    ) -> PenniesState | Rejection:
        card = action.card
        if not is_card(card, jokers=True):
            return bad_card(card, jokers=True)
        hand = list(state.hands[player])
        if card not in hand:
            return Rejection("not_in_hand", f"You don't hold the {card_name(card)}.")
        hand.remove(card)
        # Rule 6: sets laid this turn that are not the first meld go back to the hand.
        short = () if state.opened[player] else state.melds[player]
        back = tuple(c for m in short for c in m.cards)
        after = replace(
            state,
            hands=_set(state.hands, player, _with(tuple(hand), back)),
            melds=_set(state.melds, player, ()) if back else state.melds,
            discard=(*state.discard, card),
            last_move=LastMove(player, "discard", card, returned=back),
        )
        if not after.hands[player]:
            return self._end_round(after, player)
        if not after.stock and len(after.discard) <= 1:
            return self._end_round(after, None)  # rule 9: nothing left to rebuild the stock
        return replace(after, phase=BUY, turn=(player + 1) % state.players)

    def _do_next_round(
        self, state: PenniesState, player: int, action: moves.NextRound
    ) -> PenniesState:
        after = self._deal(state, state.round_no + 1, (state.dealer + 1) % state.players, None)
        return replace(after, last_move=LastMove(player, "next_round"))

    def _maybe_out(self, state: PenniesState, player: int) -> PenniesState:
        """Rule 8: melding or laying off the last card ends the round at once."""
        return self._end_round(state, player) if not state.hands[player] else state

    # ----------------------------------------------------------------------- scoring

    def _end_round(self, state: PenniesState, out: int | None) -> PenniesState:
        """Rule 10: card points, a penny per card left (what each can pay); rule 11 after 7."""
        n = state.players
        points = tuple(sum(card_points(c) for c in h) for h in state.hands)
        left = tuple(len(h) for h in state.hands)
        paid = tuple(min(left[p], state.pennies[p]) for p in range(n))
        result = RoundResult(
            round_no=state.round_no,
            dealer=state.dealer,
            went_out=out,
            points=points,
            cards_left=left,
            paid=paid,
            shortfall=tuple(left[p] - paid[p] for p in range(n)),
            bought=tuple(len(b) for b in state.bought),
        )
        after = replace(
            state,
            phase=ROUND_OVER,
            offer=None,
            pennies=tuple(state.pennies[p] - paid[p] for p in range(n)),
            spent=state.spent + sum(paid),
            history=(*state.history, result),
        )
        if state.round_no < ROUNDS:
            return after
        totals = _totals(after)
        low = min(totals)
        winners = tuple(p for p in range(n) if totals[p] == low)
        share, remainder = divmod(after.spent, len(winners))
        final = GameResult(winners, totals, after.spent, share, remainder)
        pennies = tuple(after.pennies[p] + (share if p in winners else 0) for p in range(n))
        return replace(after, phase=GAME_OVER, pennies=pennies, spent=remainder, result=final)

    # -------------------------------------------------------------------------- text

    def describe(
        self,
        before: PenniesState,
        player: int | None,
        action: dict[str, Any],
        names: Sequence[str],
        after: PenniesState | Rejection | None = None,
    ) -> str:
        """The public log line for ``action`` applied to ``before``."""
        if after is None:
            after = self.apply(before, player, action)
        if player is None and before.offer is not None:
            player = before.offer.player
        who = _name(names, player)
        kind = action.get("type") if isinstance(action, dict) else None
        if isinstance(after, Rejection):
            return f"{who} tried a move that isn't allowed: {after.message}"
        move = after.last_move
        assert move is not None
        tail = ""
        if move.reshuffled:
            tail += "; the discard pile was shuffled into a new stock"
        if after.phase in (ROUND_OVER, GAME_OVER) and before.phase == PLAY:
            if after.history[-1].went_out is None:
                tail += f"; the stock is used up, so round {before.round_no} ends in a stalemate"
            else:
                tail += f", and went out, ending round {before.round_no}"
        if kind == "buy":
            card = card_name(move.card or "")
            took = f"{move.drawn} card{'s' if move.drawn != 1 else ''} from the stock"
            if before.phase == OFFER:
                return f"{who} bought the {card} out of turn for a penny, with {took}{tail}"
            return f"{who} bought the {card} for a penny, with {took}{tail}"
        if kind == "decline":
            drew = "drew from the stock" if move.drawn else "could not draw: the stock is empty"
            if before.discard:
                return f"{who} declined the {card_name(before.discard[-1])} and {drew}{tail}"
            return f"{who} {drew}{tail}"
        if kind == "pass":
            return f"{who} passed on the {card_name(move.card or '')}"
        if kind == "meld":
            new = after.melds[player][len(before.melds[player]) :]  # type: ignore[index]
            sets = "; ".join(f"a set of {plural(m.rank)} ({_the(m.cards)})" for m in new)
            return f"{who} laid down {sets}{tail}"
        if kind == "lay_off":
            target = action["meld"]
            owner = (
                "their own" if target["player"] == player else f"{_name(names, target['player'])}'s"
            )
            meld = before.melds[target["player"]][target["index"]]
            return f"{who} laid off {_the(move.cards)} on {owner} set of {plural(meld.rank)}{tail}"
        if kind == "discard":
            line = f"{who} discarded the {card_name(move.card or '')}{tail}"
            if not move.returned:
                return line
            why = self._short_of(before, before.melds[move.player], "the")
            return f"{who} took back {_the(move.returned)}: {why[:-1]}. {line}"
        return f"{who} started round {after.round_no}"

    # ------------------------------------------------------------------- persistence

    def dump(self, state: PenniesState) -> dict[str, Any]:
        """The state as plain data (str/int/bool/list/dict/None), for msgpack or JSON."""
        return dump_state(state)

    def load(self, data: dict[str, Any]) -> PenniesState:
        """Rebuild a state from :meth:`dump` output; :class:`InvalidState` if it can't happen."""
        return load_state(data, PenniesState, "Pennies", self._problem)

    def _problem(self, s: PenniesState) -> str | None:
        n = s.players
        if fair.key_problem(s.deal_key, s.fair_key):
            return fair.key_problem(s.deal_key, s.fair_key)
        if not 2 <= n <= 4:
            return f"Pennies has 2 to 4 players, not {n}."
        chart_problem = check_chart(plain(s.options.chart))
        if chart_problem is not None:
            return f"The chart is invalid: {chart_problem}"
        if s.options.buy_seconds not in BUY_SECONDS:
            return f"buy_seconds must be one of {', '.join(map(str, BUY_SECONDS))}."
        if s.phase not in PHASES:
            return f"Unknown phase {s.phase!r}."
        if not 1 <= s.round_no <= ROUNDS:
            return f"The round must be 1 to {ROUNDS}, not {s.round_no}."
        for field in ("hands", "melds", "opened", "pennies", "bought"):
            if len(getattr(s, field)) != n:
                return f"{field} must have one entry per player ({n})."
        if not (0 <= s.dealer < n and 0 <= s.turn < n):
            return "The dealer and the player to move must be players of this game."
        cards = [c for h in s.hands for c in h]
        cards += [c for area in s.melds for m in area for c in m.cards]
        cards += [*s.stock, *s.discard]
        bad = next((c for c in cards if not is_card(c, jokers=True)), None)
        if bad is not None:
            return f"{bad!r} is not a card."
        want, have = Counter(full_deck(n)), Counter(cards)
        if have != want:
            wrong = sorted(set(want) | set(have), key=sort_key)
            c = next(c for c in wrong if have[c] != want[c])
            return (
                f"Every card must be in play exactly as often as the decks hold it: the "
                f"{card_name(c)} appears {have[c]} times, not {want[c]}."
            )
        wild = wild_ranks(s.options.chart[s.round_no - 1].wild)
        requirement = s.options.chart[s.round_no - 1].first_meld
        for p in range(n):
            for m in s.melds[p]:
                got = set_rank(m.cards, wild, m.rank)
                if isinstance(got, Rejection):
                    return f"Player {p + 1} has a meld that is not a set: {got.message}"
            if s.melds[p] and not s.opened[p]:
                if s.phase != PLAY or p != s.turn:  # sets short of it last only for the turn
                    return f"Player {p + 1} has melds but has not made a first meld."
                if meets([len(m.cards) for m in s.melds[p]], requirement):
                    return f"Player {p + 1}'s sets meet the first meld, so it has been made."
            if s.opened[p] and not meets([len(m.cards) for m in s.melds[p]], requirement):
                return f"Player {p + 1}'s melds don't meet the round's first-meld requirement."
            bad = next((c for c in s.bought[p] if not is_card(c, jokers=True)), None)
            if bad is not None:
                return f"{bad!r} is not a card."
        if any(x < 0 for x in s.pennies) or s.spent < 0:
            return "Pennies can't be negative."
        if sum(s.pennies) + s.spent != START_PENNIES * n:
            return (
                f"The pennies don't add up: players hold {sum(s.pennies)} and the spent pile "
                f"{s.spent}, but {START_PENNIES * n} were handed out."
            )
        scored = s.round_no if s.phase in (ROUND_OVER, GAME_OVER) else s.round_no - 1
        if len(s.history) != scored:
            return f"{scored} rounds should have been scored, not {len(s.history)}."
        for i, h in enumerate(s.history):
            problem = _round_problem(h, i + 1, n)
            if problem is not None:
                return problem
        collected = [0] * n
        if s.phase == GAME_OVER:
            if s.round_no != ROUNDS or s.result is None:
                return f"The game ends only after round {ROUNDS}, with a result."
            totals = _totals(s)
            low = min(totals)
            winners = tuple(p for p in range(n) if totals[p] == low)
            r = s.result
            if r.totals != totals or r.winners != winners:
                return "The result doesn't match the round scores."
            if (r.share, r.remainder) != divmod(r.pot, len(winners)) or s.spent != r.remainder:
                return "The spent pile was not shared out as rule 11 says."
            for p in winners:
                collected[p] = r.share
        elif s.result is not None:
            return "A game still being played has no result."
        for p in range(n):
            buys = sum(h.bought[p] for h in s.history) + (
                0 if s.phase in (ROUND_OVER, GAME_OVER) else len(s.bought[p])
            )
            paid = sum(h.paid[p] for h in s.history)
            if s.pennies[p] != START_PENNIES - buys - paid + collected[p]:
                return (
                    f"Player {p + 1} should hold {START_PENNIES - buys - paid + collected[p]} "
                    f"pennies after {buys} buys and paying {paid}, not {s.pennies[p]}."
                )
        return self._hand_problem(s, requirement)

    def _hand_problem(self, s: PenniesState, requirement: Sequence[int]) -> str | None:
        n = s.players
        sizes = [len(h) for h in s.hands]
        on_table = sum(len(m.cards) for area in s.melds for m in area)
        held = sum(sizes) + on_table
        buys = sum(len(b) for b in s.bought)
        if s.reshuffles < 0:
            return "The stock can't have been rebuilt a negative number of times."
        exhausted = not s.stock and len(s.discard) <= 1  # nothing left to rebuild it from
        if s.phase in (ROUND_OVER, GAME_OVER):
            out = s.history[-1].went_out
            if out is None and not exhausted:
                return (
                    "A round ends without anyone going out only when the stock is empty and "
                    "the discard pile holds no more than its top card."
                )
            if out is not None and sizes[out] != 0:
                return f"Player {out + 1} went out but still holds cards."
            if s.offer is not None:
                return "No buying window can be open once the round is over."
            points = tuple(sum(card_points(c) for c in h) for h in s.hands)
            if s.history[-1].points != points or s.history[-1].cards_left != tuple(sizes):
                return "The round's scores don't match the cards left in hand."
            return None
        if 0 in sizes:
            return f"Player {sizes.index(0) + 1} has no cards, but the round goes on."
        if s.phase == BUY and exhausted:
            return "The stock can't be rebuilt, so the round should have ended."
        drawn = 0 if s.phase == BUY or exhausted else 1
        low, high = HAND_SIZE * n + drawn, HAND_SIZE * n + drawn + (BUY_EXTRA + 1) * buys
        if not low <= held <= high:
            return (
                f"The hands and melds hold {held} cards; with {buys} buys this round they "
                f"should hold {low} to {high}."
            )
        if s.phase == OFFER:
            o = s.offer
            if o is None:
                return "A buying window needs an offer."
            asked = (o.player, *o.queue)
            if s.turn in asked or len(set(asked)) != len(asked):
                return "The mover can't be offered their own discard, nor anyone twice."
            if o.discarder is not None and (o.discarder in asked or not 0 <= o.discarder < n):
                return "The player who discarded the card is never offered it back."
            if not all(0 <= p < n and s.pennies[p] > 0 for p in asked):
                return "Only players with pennies can be offered the discard."
            if not s.discard or s.discard[-1] != o.card:
                return "The card on offer must be the top of the discard pile."
        elif s.offer is not None:
            return "Only a buying window has an offer."
        return None


def _round_problem(h: RoundResult, number: int, n: int) -> str | None:
    fields = (h.points, h.cards_left, h.paid, h.shortfall, h.bought)
    if h.round_no != number or any(len(f) != n for f in fields):
        return f"Round {number}'s score line is malformed."
    if not 0 <= h.dealer < n:
        return f"Round {number}: the dealer must be a player of this game."
    if h.went_out is not None and (not 0 <= h.went_out < n or h.cards_left[h.went_out] != 0):
        return f"Round {number}: the player who went out must have no cards left."
    for p in range(n):
        if h.paid[p] + h.shortfall[p] != h.cards_left[p] or min(h.paid[p], h.shortfall[p]) < 0:
            return f"Round {number}: a penny is paid (or owed) for each card left in hand."
        if not 5 * h.cards_left[p] <= h.points[p] <= 50 * h.cards_left[p]:
            return f"Round {number}: the points don't fit the number of cards left."
    return None


def _discarder(state: PenniesState) -> int | None:
    """Who discarded the top of the discard pile (rule 5: never offered it back); ``None`` for
    the round's upcard. In the buying phase the top card is the last move's discard, if any."""
    move = state.last_move
    if move is not None and move.type == "discard" and state.discard[-1:] == (move.card,):
        return move.player
    return None


def _totals(state: PenniesState) -> tuple[int, ...]:
    if not state.history:
        return (0,) * state.players
    return tuple(sum(x) for x in zip(*(h.points for h in state.history), strict=True))


@functools.lru_cache(maxsize=256)
def _requirement_row(round_no: int, row: ChartRow) -> tuple[str, frozenset[int]]:
    return requirement_text(round_no, row.first_meld, row.wild), wild_ranks(row.wild)


def _column_sums(rows: Sequence[Sequence[int]], n: int) -> list[int]:
    """Per-player sums of per-round rows."""
    return [sum(col) for col in zip(*rows, strict=True)] if rows else [0] * n


def _meld_data(meld: Meld) -> dict[str, Any]:
    return {"cards": list(meld.cards), "rank": meld.rank}


def _offered(melds: Sequence[Meld]) -> str:
    sizes = and_list([f"{len(m.cards)} {plural(m.rank)}" for m in melds])
    return f"a meld of {sizes}" if len(melds) == 1 else f"melds of {sizes}"


ENGINE = Pennies()

if TYPE_CHECKING:  # Pennies satisfies the plugin protocol
    _PROTOCOL_CHECK: Engine[PenniesState] = ENGINE


fair.register_round_robin("pennies", lambda players: HAND_SIZE, upcard=True)
fair.register_deck("pennies", full_deck)
