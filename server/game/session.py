"""One game state per commit: the engine's state, decoded once, and what every view shares.

A room's game slot (:class:`server.table.objects.GameSlot`) stores the engine's dump. The
process keeps beside it a :class:`Session`: the engine state itself, its projection onto the
table, who may act, and the seat-independent part of the game view (phase, status, to_act,
scoreboard, reveal, outcome, slots), each worked out at most once for that state. A move makes
a new state and so a new session (:func:`begin`); the glue reads the state from the session
instead of loading the dump again, and each view adds only what is its own (``view``,
``controls``, ``hint``, ``legal``), built once per state and engine player (:meth:`Session.own`:
the binding's ``controls`` and ``hint`` get the legal actions and the view already built).

The engine's full check (``engine.load``) runs where a state comes from outside this process's
own moves - the trust boundaries: a room decoded from the store with no session kept for it
(another process's commit, a process that just started, a room stored in an older format), an
operator's or a test's edit of the table, and ``set_game_state``. Engines never mutate a state
(their states are frozen), so a session can be shared by every copy of the room at its version:
the room service hands it back to a fresh decode of the same version (:func:`adopt`).

A session also keeps the game views this process sent in the room's last commit, one per view
(``sent``, with that version), so the next commit's deltas carry only what changed
(:mod:`server.game.patch`). They are kept only once the commit has landed (:func:`remember`),
carried to the next state's session by :func:`begin`, and used only by the commit right after
(version + 1): with another process's commit in between, a restart, or an edit, the whole view
is sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from plugins.base import Binding, Outcome, Projection, RevealLine, Scoreboard
from plugins.registry import GAMES
from server.table.objects import GameSlot, Table

# The slot's attribute (not stored with the room) that holds its session, with the stored state
# it stands for: a slot whose ``state`` was replaced since has no session.
_ATTR = "session"


class Session:
    """The decoded state of one room's game, and what is derived from it, computed lazily and
    at most once. ``dump`` is the engine's dump of ``state``."""

    def __init__(
        self,
        binding: Binding,
        state: Any,
        dump: dict[str, Any],
        projection: Projection | None = None,
    ) -> None:
        self.binding = binding
        self.state = state
        self.dump = dump
        self._projection: Projection | None = projection
        self._outcome: tuple[Outcome | None] | None = None
        self._reveal: tuple[list[RevealLine] | None] | None = None
        self._to_act: list[int] | None = None
        self._public: dict[str, Any] | None = None
        self._shared: tuple[tuple[str, ...], dict[str, Any]] | None = None
        self._own: dict[int, dict[str, Any]] = {}
        # The engine's scoreboard and its data as last sent: an engine that hands back the same
        # board for the next state (Spades: nothing was scored since) is not converted again.
        self.board: tuple[object, dict[str, Any]] | None = None
        # The computers' next move in this state, as decided for ``Table.bot_due``, with the
        # players the server played then and their levels: the move itself reuses it
        # (server.game.rules._bot_move).
        self.bot_move: (
            tuple[tuple[tuple[int, str], ...], tuple[int, dict[str, Any]] | None] | None
        ) = None
        # What the table was made to show for this state, and the version of the commit that
        # did it: the next projection trusts what is unchanged since, if nothing else was
        # committed in between (server.game.rules._project).
        self.shown: tuple[int, Projection] | None = None
        # The game views (by view key) the room's commit at this version sent, or that it left
        # as they were: the base of the next commit's game patches
        # (server.room.service.build_deltas).
        self.sent: tuple[int, dict[str, Any]] | None = None

    def projection(self) -> Projection:
        if self._projection is None:
            self._projection = self.binding.project(self.state)
        return self._projection

    def public(self) -> dict[str, Any]:
        """The engine's view for spectators (``view(state, None)``)."""
        if self._public is None:
            self._public = self.binding.engine.view(self.state, None)
        return self._public

    def outcome(self) -> Outcome | None:
        if self._outcome is None:
            self._outcome = (self.binding.engine.outcome(self.state),)
        return self._outcome[0]

    def reveal(self) -> list[RevealLine] | None:
        if self._reveal is None:
            self._reveal = (self.binding.engine.reveal(self.state),)
        return self._reveal[0]

    def to_act(self) -> list[int]:
        if self._to_act is None:
            self._to_act = self.binding.engine.to_act(self.state)
        return self._to_act

    def own(self, player: int) -> dict[str, Any]:
        """What of the game view is engine player ``player``'s own in this state (``view``,
        ``legal``, ``controls``, ``hint``), each worked out once: the binding's ``controls``
        and ``hint`` are handed the legal actions and the view already built."""
        found = self._own.get(player)
        if found is None:
            binding, state = self.binding, self.state
            view = binding.engine.view(state, player)
            legal = binding.engine.legal_actions(state, player)
            found = self._own[player] = {
                "controls": [c.as_data() for c in binding.controls(state, player, legal=legal)],
                "hint": binding.hint(state, player, view=view),
                "view": view,
                "legal": legal,
            }
        return found

    def _board_data(self, board: Scoreboard) -> dict[str, Any]:
        if self.board is None or self.board[0] is not board:
            self.board = (board, board.as_data())
        return self.board[1]

    def shared(self, names: Sequence[str]) -> dict[str, Any]:
        """The part of the game view that is the same for every seat (with these names)."""
        key = tuple(names)
        if self._shared is not None and self._shared[0] == key:
            return self._shared[1]
        engine, state = self.binding.engine, self.state
        outcome = self.outcome()
        reveal = self.reveal()
        teams = engine.teams(state)
        out = {
            "phase": self.public().get("phase"),
            "status": engine.status(state, key),
            "to_act": self.to_act(),
            "scoreboard": self._board_data(engine.scoreboard(state, key)),
            "reveal": [line.as_data() for line in reveal] if reveal is not None else None,
            "outcome": {"winners": list(outcome.winners), "scores": list(outcome.scores)}
            if outcome is not None
            else None,
            "slots": [list(s) for s in self.projection().slots],
            "team_of": {p: i for i, team in enumerate(teams) for p in team},
        }
        self._shared = (key, out)
        return out


def session(table: Table) -> Session:
    """The session of the room's running game: the one kept beside its slot, or (at a trust
    boundary: nothing kept for this stored state) the stored state loaded and checked by the
    engine."""
    slot = table.game
    assert slot is not None and slot.state is not None
    found = kept(table)
    if found is not None:
        return found
    binding = GAMES[slot.name].binding
    made = Session(binding, binding.engine.load(slot.state), slot.state)
    setattr(slot, _ATTR, (made, slot.state))
    return made


def begin(
    slot: GameSlot, binding: Binding, state: Any, projection: Projection | None = None
) -> Session:
    """A new state for the room's game (a move, a deal, a checked edit): its dump goes into the
    slot, and its session beside it (with its projection, when the caller made it already)."""
    made = Session(binding, state, binding.engine.dump(state), projection)
    pair: tuple[Session, object] | None = getattr(slot, _ATTR, None)
    if pair is not None and pair[1] is slot.state:
        made.sent = pair[0].sent
        made.board = pair[0].board
    slot.state = made.dump
    setattr(slot, _ATTR, (made, made.dump))
    return made


def kept(table: Table) -> Session | None:
    """The session kept for the room's stored game state, if any (for the room service to keep
    with the room's blob)."""
    slot = table.game
    if slot is None or slot.state is None:
        return None
    pair: tuple[Session, object] | None = getattr(slot, _ATTR, None)
    return pair[0] if pair is not None and pair[1] is slot.state else None


def adopt(table: Table, found: Session | None) -> None:
    """Give a fresh decode of a room the session kept for the same version's state (the caller
    vouches that they belong together: the same blob)."""
    slot = table.game
    if (
        found is None
        or slot is None
        or slot.state is None
        or slot.name not in GAMES
        or GAMES[slot.name].binding is not found.binding
    ):
        return
    setattr(slot, _ATTR, (found, slot.state))


def drop(table: Table) -> None:
    """Forget the room's session: its table was edited directly, so the stored state is
    checked by the engine again when next used."""
    if table.game is not None:
        setattr(table.game, _ATTR, None)


# The slot's attribute holding the game views a commit being made sends (version, by view key):
# kept in the session only once that commit has landed (:func:`remember`).
_PENDING = "sending"


def sent_before(table: Table) -> dict[str, Any] | None:
    """The game views (by view key) the room's previous version left each view holding, if this
    process made that commit and kept them; else ``None`` (send whole views)."""
    found = kept(table)
    if found is None or found.sent is None or found.sent[0] != table.version - 1:
        return None
    return found.sent[1]


def sending(table: Table, views: dict[str, Any]) -> None:
    """The game views this commit (``table.version``) sends, to keep once it lands."""
    if table.game is not None:
        setattr(table.game, _PENDING, (table.version, views))


def remember(table: Table) -> None:
    """The room's commit at ``table.version`` landed: keep the game views it sent (or, when it
    sent none, the ones each view still holds) as the base of the next commit's patches."""
    slot = table.game
    if slot is None:
        return
    pending: tuple[int, dict[str, Any]] | None = getattr(slot, _PENDING, None)
    setattr(slot, _PENDING, None)
    found = kept(table)
    if found is None:
        return
    if pending is not None and pending[0] == table.version:
        found.sent = pending
    elif found.sent is not None and found.sent[0] == table.version - 1:
        found.sent = (table.version, found.sent[1])
    else:
        found.sent = None
