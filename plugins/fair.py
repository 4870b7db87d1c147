"""Provably fair deals: the server's commitment, the deal key, the keyed shuffle, the verifier.

Pure, no I/O (docs/fairness.md gives the algorithm in words; web/src/fair/verify.ts is the
browser's independent twin). The server picks a 32-byte seed per deal and publishes
``commitment(seed, room, deal)`` before any player's value is accepted; the deal key mixes the
seed with every seat's value (``deal_key``); a deal's order is ``shuffle(canonical_deck, key)``,
a Fisher-Yates shuffle driven by an HMAC-SHA256 counter stream. ``verify(record)`` checks a
revealed deal record and says in plain words what, if anything, is wrong.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import struct
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")

VERSION = 1
COMMIT_TAG = b"cardtable-fair-v1\0"
DEAL_TAG = b"cardtable-deal-v1\0"
SEED_BYTES = 32
VALUE_HEX = 32  # a player's value: 16 bytes as 32 lowercase hex characters
_HEX = frozenset("0123456789abcdef")
_SPAN = 2**32

# Per-game dealing patterns, registered by the engines' modules (``register_dealing``) so this
# module imports no game: ``pattern(record)`` returns the ``dealt`` list the game's own dealing
# gives for the record's ``order`` (or None when it cannot tell, e.g. an unknown player count).
Dealing = Callable[[Mapping[str, Any]], "list[str] | None"]
_DEALINGS: dict[str, Dealing] = {}
# Each game's canonical deck for a number of players, registered the same way (``register_deck``):
# a record of that game verifies only with exactly that deck, so an empty or short deal cannot.
_DECKS: dict[str, Callable[[int], list[str]]] = {}


@dataclass(frozen=True)
class Verdict:
    """The verifier's answer: ``ok`` when ``problems`` is empty; each problem is a sentence."""

    ok: bool
    problems: list[str] = field(default_factory=list)


def new_seed(rng: random.Random) -> bytes:
    """A fresh 32-byte server seed from the room's injected random source."""
    return rng.getrandbits(8 * SEED_BYTES).to_bytes(SEED_BYTES, "big")


def _frame(room: str, deal: int) -> bytes:
    return room.encode() + b"\0" + str(deal).encode() + b"\0"


def commitment(seed: bytes, room: str, deal: int) -> str:
    """``sha256("cardtable-fair-v1\\0" || room || "\\0" || str(deal) || "\\0" || seed)`` as hex."""
    return hashlib.sha256(COMMIT_TAG + _frame(room, deal) + bytes(seed)).hexdigest()


def valid_value(v: object) -> bool:
    """A player's value: exactly 32 lowercase hex characters (16 bytes)."""
    return isinstance(v, str) and len(v) == VALUE_HEX and set(v) <= _HEX


def deal_key(seed: bytes, room: str, deal: int, values: Sequence[str | None]) -> bytes:
    """``HMAC-SHA256(seed, "cardtable-deal-v1\\0" || room || "\\0" || str(deal) || "\\0" ||
    ",".join(v or "-"))``: the key of deal ``deal``, ``values`` by seat (None: nothing sent)."""
    joined = ",".join(v if v else "-" for v in values).encode()
    return hmac.new(bytes(seed), DEAL_TAG + _frame(room, deal) + joined, hashlib.sha256).digest()


def stream(key: bytes, label: str = "deal") -> Iterator[int]:
    """Consecutive 4-byte big-endian integers of the blocks
    ``HMAC-SHA256(key, label || "\\0" || uint64_be(counter))``, counter 0, 1, 2..."""
    prefix = label.encode() + b"\0"
    counter = 0
    while True:
        block = hmac.new(key, prefix + struct.pack(">Q", counter), hashlib.sha256).digest()
        yield from struct.unpack(">8I", block)
        counter += 1


def shuffle(items: Sequence[T], key: bytes, label: str = "deal") -> list[T]:
    """Fisher-Yates from the end, each index drawn by rejection sampling from ``stream``:
    for i = n-1..1, ``j = u % (i+1)`` for the first ``u < 2**32 - 2**32 % (i+1)``."""
    out = list(items)
    draws = stream(bytes(key), label)
    for i in range(len(out) - 1, 0, -1):
        bound = i + 1
        limit = _SPAN - _SPAN % bound
        u = next(draws)
        while u >= limit:
            u = next(draws)
        j = u % bound
        out[i], out[j] = out[j], out[i]
    return out


def as_key(key: bytes | str) -> bytes:
    """A key as stored in a state (bytes, or hex when a store keeps strings) back to bytes."""
    return bytes.fromhex(key) if isinstance(key, str) else bytes(key)


def key_problem(*keys: str | None) -> str | None:
    """What is wrong with a state's stored deal keys (64 lowercase hex characters or None)."""
    if all(k is None or _hex_bytes(k, SEED_BYTES) is not None for k in keys):
        return None
    return "A deal key must be 64 lowercase hex characters."


def register_dealing(game: str, pattern: Dealing) -> None:
    """Let ``verify`` check ``dealt`` for ``game`` against the game's own dealing."""
    _DEALINGS[game] = pattern


def register_deck(game: str, deck: Callable[[int], list[str]]) -> None:
    """Let ``verify`` require ``game``'s full canonical deck (``deck(players)``, in order)."""
    _DECKS[game] = deck


def full_deck(record: Mapping[str, Any]) -> list[str] | None:
    """The canonical deck the record's game deals from (None: a game that registered none, such
    as free play). The players are those the record lists, else the hands ``dealt`` names."""
    make = _DECKS.get(str(record.get("game")))
    if make is None:
        return None
    players = record.get("players")
    if isinstance(players, list) and players:
        return make(len(players))
    dealt = record.get("dealt")
    return make(len({str(d) for d in dealt if str(d).isdigit()}) if isinstance(dealt, list) else 0)


def round_robin(
    total: int, players: Sequence[str], first: int, per_hand: int, upcard: bool
) -> list[str]:
    """Where each of ``total`` cards goes in the usual deal: one at a time to ``players`` in
    turn, starting with ``players[first]``, ``per_hand`` each; then, with ``upcard``, one card
    to the ``discard`` and the rest to the ``stock``."""
    n = len(players)
    hands = [players[(first + i) % n] for i in range(min(total, n * per_hand))]
    rest = total - len(hands)
    tail = (["discard"] + ["stock"] * (rest - 1) if rest else []) if upcard else ["stock"] * rest
    return hands + tail


def register_round_robin(game: str, per_hand: Callable[[int], int], upcard: bool) -> None:
    """Register a ``round_robin`` deal for ``game`` (``per_hand(n)`` cards for ``n`` players).
    The players are the hands named in the record's ``dealt`` (numbers, in ascending order);
    the first card goes to the one after ``dealer`` when the record names it, else to whoever
    ``dealt`` says got it (the check is then of the rotation, the hand sizes and the rest)."""

    def pattern(record: Mapping[str, Any]) -> list[str] | None:
        dealt = [str(where) for where in record.get("dealt") or []]
        hands = sorted({d for d in dealt if d.isdigit()}, key=int)
        if not hands:
            return None
        dealer = record.get("dealer")
        if isinstance(dealer, int) and str(dealer) in hands:
            first = (hands.index(str(dealer)) + 1) % len(hands)
        else:
            first = hands.index(dealt[0]) if dealt[0] in hands else 0
        return round_robin(len(dealt), hands, first, per_hand(len(hands)), upcard)

    register_dealing(game, pattern)


def _hex_bytes(value: object, size: int) -> bytes | None:
    if not isinstance(value, str) or len(value) != 2 * size or not set(value) <= _HEX:
        return None
    return bytes.fromhex(value)


def _card_key(card: object) -> str:
    """Cards compared as canonical JSON-ish text, so dict or list cards count too."""
    return repr(card)


def verify(record: Mapping[str, Any]) -> Verdict:
    """Check one deal record (docs/fairness.md, "The record"): the seed is revealed and matches
    the commitment; ``order`` is the keyed shuffle of ``deck``; ``dealt`` has one entry per card
    and, for a game that registered its dealing, is where that game deals each card."""
    problems: list[str] = []
    if not isinstance(record, Mapping):
        return Verdict(False, ["The record is not a JSON object."])
    if record.get("version") != VERSION:
        shown = json.dumps(record.get("version"))
        problems.append(f"Unknown record version {shown} (expected {VERSION}).")
    room, deal = record.get("room"), record.get("deal")
    if not isinstance(room, str) or not room:
        problems.append("The record names no room.")
    if not isinstance(deal, int) or isinstance(deal, bool) or deal < 0:
        problems.append("The record has no valid deal number.")
    raw_seed = record.get("seed")
    seed = _hex_bytes(raw_seed, SEED_BYTES)
    if raw_seed is None:
        problems.append("The seed is not revealed yet: nothing can be checked until it is.")
    elif seed is None:
        problems.append("The seed is not 64 lowercase hex characters.")
    values = record.get("values")
    if not isinstance(values, list) or not all(v is None or valid_value(v) for v in values):
        problems.append("The players' values must be a list of 32-hex-character strings or null.")
        values = None
    deck, order, dealt = record.get("deck"), record.get("order"), record.get("dealt")
    if not isinstance(deck, list) or not isinstance(order, list):
        problems.append("The record must list the canonical deck and the shuffled order.")
        deck = order = None
    else:
        if Counter(map(_card_key, deck)) != Counter(map(_card_key, order)):
            problems.append(
                "The order is not a rearrangement of the deck: a card was added or lost."
            )
        full = full_deck(record)
        if full is not None and deck != full:
            problems.append(
                f"The deck is not the game's full deck ({len(full)} cards in their usual order)."
            )
        elif full is None and not deck:
            problems.append("The deck is empty: there is no deal to check.")
    if not isinstance(dealt, list) or order is not None and len(dealt) != len(order):
        problems.append("The record must say where each card of the order went, one per card.")
        dealt = None
    if problems or seed is None or values is None or deck is None or order is None:
        return Verdict(False, problems)
    assert isinstance(room, str) and isinstance(deal, int)
    if commitment(seed, room, deal) != record.get("commitment"):
        problems.append("The seed does not match the commitment published before the deal.")
    expected = shuffle(deck, deal_key(seed, room, deal, values), "deal")
    wrong = _differ(expected, order)
    if wrong:
        problems.append(f"{wrong} not where the seed puts them.")
    pattern = _DEALINGS.get(str(record.get("game")))
    should = pattern(record) if pattern is not None and dealt is not None else None
    if should is not None and dealt is not None:
        moved = _differ(should, [str(where) for where in dealt])
        if moved:
            problems.append(f"{moved} not dealt where the game deals them.")
    return Verdict(not problems, problems)


def _differ(want: Sequence[Any], got: Sequence[Any]) -> str:
    """Empty when equal, else e.g. ``2 card(s) (positions 0, 1) are``."""
    wrong = [i for i, (a, b) in enumerate(zip(want, got, strict=True)) if a != b]
    if not wrong:
        return ""
    shown = ", ".join(str(i) for i in wrong[:5]) + (" ..." if len(wrong) > 5 else "")
    return f"{len(wrong)} card(s) (positions {shown}) are"
