"""A room's blob, spliced from the pieces of its previous commit.

Every commit writes the whole room, but a move changes one object and one player's undo stack.
Encoding the rest again walks some 2,000 scattered Python objects, and with the caches cold
(as they are between two commits on a busy server) that costs far more than the bytes suggest
(``bench.latency``: a 25 KB room, 0.13 ms). :class:`Pieces` keeps the msgpack of each table
object and each undo entry as this process committed them, and :func:`encode_room` splices them
in with ``msgspec.Raw``, encoding only what the change touched: the bytes are exactly
``encode_table(table)``'s (the store, other processes and stored rooms see no difference).

Why a piece is still right one commit later, on the table this process committed (the room
service hands the next operation that very table):

* a table object the change does not name is unchanged: every object an operation changes is
  in ``change.dirty`` (or ``removed``), the set :func:`server.table.apply.stamp` gives the new
  version, the same rule that makes ``(id, v)`` name one content;
* an undo entry is never changed in place once made (``apply._pop_undo`` replaces the ones it
  re-dates), so a stack whose top is the same object is the same stack, and an entry below the
  new top that is the same object as before is the same entry; the old top, copied below the
  new one (``older`` emptied), is its own bytes.

A table decoded from the store (another process committed, a restart, a refusal or a lost race
dropped the copy) starts new pieces: the stored bytes of an object are not always those of its
decoded copy (an ``int`` in a ``float`` field, ``10``, decodes as ``10.0``), and a commit a
failover lost may have left pieces under a version another commit took since. Pieces join the
cache only through :meth:`Pieces.keep`, which the room service calls once the store has taken
the commit, so a refused or retried attempt never seeds them.

Check mode (``CARDTABLE_CHECK_ENCODE=1``, which the test suite sets): every spliced blob is
compared byte for byte with ``encode_table(table)``, and a difference raises
:class:`EncodeMismatch` naming the pieces that differ.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import msgspec

from server.table.change import Change
from server.table.objects import Table, UndoEntry, encode_table

CHECK_ENV = "CARDTABLE_CHECK_ENCODE"

_encode = msgspec.msgpack.Encoder().encode
_asdict = msgspec.structs.asdict
_OLDER_EMPTY = b"\xa5older\x90"  # an undo entry's last field, ``older``, as an empty array


class EncodeMismatch(AssertionError):
    """A spliced blob differs from the whole table's encoding (check mode): something changed
    a piece this process had encoded without the change naming it."""


@dataclass
class _Stack:
    """A player's undo stack as encoded: its top entry (the object itself), the whole stack's
    bytes, the top entry's own bytes (``older`` empty), and the length of each older entry's
    bytes, which end the stack's, one after the other."""

    top: UndoEntry
    raw: msgspec.Raw
    own: bytes
    sizes: list[int]

    def body(self) -> memoryview:
        """The older entries' bytes, joined."""
        whole = memoryview(self.raw)
        return whole[len(whole) - sum(self.sizes) :]


@dataclass
class Spliced:
    """One encode's blob, and its pieces, for :meth:`Pieces.keep` if the commit lands."""

    blob: bytes
    version: int
    raws: dict[str, msgspec.Raw]
    stacks: dict[str, _Stack]


def _check_default() -> bool:
    return os.environ.get(CHECK_ENV, "") not in ("", "0")


@dataclass
class Pieces:
    """One room's pieces as of the commit at ``version`` (-1: none yet): each object's bytes,
    by id, and each player's undo stack."""

    raws: dict[str, msgspec.Raw] = field(default_factory=dict)
    stacks: dict[str, _Stack] = field(default_factory=dict)
    version: int = -1
    check: bool = field(default_factory=_check_default)

    def keep(self, spliced: Spliced) -> None:
        """The commit that wrote ``spliced.blob`` landed: its pieces are the room's now (and
        only they: those of objects and stacks gone since are dropped)."""
        self.raws, self.stacks, self.version = spliced.raws, spliced.stacks, spliced.version


def encode_room(
    pieces: Pieces, table: Table, change: Change | None = None, reuse: bool = True
) -> Spliced:
    """``encode_table(table)``'s bytes, and the pieces to keep if the commit lands.

    ``change`` made ``table`` out of the table the pieces were kept for, if their version is
    the one before: then the objects it names are encoded and the others' bytes taken from
    ``pieces``; otherwise every object is encoded. ``reuse`` False: nothing is taken from
    ``pieces`` (an edit that may have changed anything)."""
    objs = table.objects
    raws: dict[str, msgspec.Raw] | None = None
    if reuse and change is not None and pieces.version == table.version - 1:
        raws = pieces.raws.copy()
        for oid in change.dirty | change.removed:
            obj = objs.get(oid)
            if obj is None:
                raws.pop(oid, None)
            else:
                raws[oid] = msgspec.Raw(_encode(obj))
        if len(raws) != len(objs) or list(raws) != list(objs):
            # The same objects in another order (one removed and added again), or else one
            # came or went outside the change: then encode them all.
            same = raws.keys() == objs.keys()
            raws = {oid: raws[oid] for oid in objs} if same else None
    if raws is None:
        raws = {oid: msgspec.Raw(_encode(obj)) for oid, obj in objs.items()}
    known = pieces.stacks if reuse else {}
    stacks: dict[str, _Stack] = {}
    undo: dict[str, msgspec.Raw] = {}
    for player, top in table.undo.items():
        stack = known.get(player)
        if stack is None or stack.top is not top:
            stack = _stack(top, stack)
            if stack is None:  # not as apply.py makes stacks: encoded whole, not kept
                undo[player] = msgspec.Raw(_encode(top))
                continue
        stacks[player] = stack
        undo[player] = stack.raw
    fields = _asdict(table)
    fields["objects"] = raws
    fields["undo"] = undo
    blob = _encode(fields)
    if pieces.check:
        _compare(blob, table, raws, undo)
    return Spliced(blob, table.version, raws, stacks)


def _stack(top: UndoEntry, was: _Stack | None) -> _Stack | None:
    """A player's stack, ``top`` on top, its older entries' bytes taken from the player's stack
    as it was (``was``) where they are its entries (the same objects), or its top copied below
    the new one; the rest encoded. ``None``: an older entry has entries below it."""
    new = top.older
    parts: list[bytes | memoryview]
    if was is None:
        if any(e.older for e in new):
            return None
        parts = [_encode(e) for e in new]
        sizes = [len(part) for part in parts]
    else:
        # ``was`` holds its entries, so their ids are nobody else's.
        old, n = was.top.older, len(new)
        own_key = (was.top.version, tuple(was.top.expect.items()))
        ids = list(map(id, new))
        drop = len(old) + 1 - n  # the oldest entries a push dropped (a deep stack keeps 20)
        if (
            n
            and drop >= 0
            and ids[:-1] == list(map(id, old[drop:]))
            and (new[-1].version, tuple(new[-1].expect.items())) == own_key
            and not new[-1].older
        ):  # an operation pushed: the top it covered is now an older entry
            parts = [was.body()[sum(was.sizes[:drop]) :], was.own]
            sizes = [*was.sizes[drop:], len(was.own)]
        elif n < len(old) and ids == list(map(id, old[:n])):  # an undo popped, re-dated none
            body = was.body()
            parts = [body[: len(body) - sum(was.sizes[n:])]]
            sizes = was.sizes[:n]
        else:
            found = _older(new, was, own_key)
            if found is None:
                return None
            parts, sizes = found, [len(part) for part in found]
    own = _encode(msgspec.structs.replace(top, older=[]))
    if not own.endswith(_OLDER_EMPTY):
        return None
    # The whole stack is the top's own bytes with its empty ``older`` array replaced.
    raw = msgspec.Raw(b"".join((own[:-1], _array_header(len(sizes)), *parts)))
    return _Stack(top, raw, own, sizes)


def _older(
    new: list[UndoEntry], was: _Stack, own_key: tuple[int, tuple[tuple[str, int], ...]]
) -> list[bytes | memoryview] | None:
    """The bytes of each of ``new`` (older entries): ``was``'s where it is the same entry (the
    same object, or its top copied below), the rest encoded; ``None``: one has entries below."""
    body, at = was.body(), 0
    same: dict[int, memoryview] = {}
    for e, size in zip(was.top.older, was.sizes, strict=True):
        same[id(e)] = body[at : at + size]
        at += size
    older: list[bytes | memoryview] = []
    for e in new:
        if e.older:
            return None
        part: bytes | memoryview | None = same.get(id(e))
        if part is None:  # its top copied below (one operation at one version), or new
            own = (e.version, tuple(e.expect.items())) == own_key
            part = was.own if own else _encode(e)
        older.append(part)
    return older


def _array_header(n: int) -> bytes:
    """A msgpack array's header, for ``n`` items."""
    if n < 16:
        return bytes((0x90 | n,))
    if n < 1 << 16:
        return b"\xdc" + n.to_bytes(2, "big")
    return b"\xdd" + n.to_bytes(4, "big")


def _compare(
    blob: bytes, table: Table, raws: dict[str, msgspec.Raw], undo: dict[str, msgspec.Raw]
) -> None:
    """Check mode: ``blob`` must be ``encode_table(table)``; if not, say which pieces differ."""
    if blob == encode_table(table):
        return
    bad = [f"object {oid}" for oid, raw in raws.items() if raw != _raw(table.objects[oid])]
    bad += [f"undo of {p}" for p, raw in undo.items() if raw != _raw(table.undo[p])]
    raise EncodeMismatch(
        f"room {table.code} v{table.version}: the spliced blob differs from encode_table "
        f"({', '.join(bad) or 'outside the pieces'}): a piece changed that the change did "
        "not name (an object changed without being marked dirty?)"
    )


def _raw(value: object) -> msgspec.Raw:
    return msgspec.Raw(_encode(value))
