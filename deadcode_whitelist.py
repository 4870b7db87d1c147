"""Names vulture cannot see used (``make deadcode``, run by ``make lint``).

vulture reads server/, plugins/ and cardtable_client/ with tests/ and bench/ as users, and only
its findings in the first three count. Add a name here only with the reason it is not dead.
"""

# ruff: noqa: B018


class _Names:
    def __getattr__(self, name: str) -> "_Names":
        return self


_ = _Names()

# Read by name: cardtable_client's Socket.IO handlers are found as getattr(self, f"_on_{event}").
_._on_joined
_._on_snapshot
_._on_delta
_._on_ack
_._on_error

# The typed client's public API (cardtable_client is a library for other programs).
_.retrying

# Overrides of python-socketio / python-engineio internals (server/net/sio.py, eio.py): the
# library calls them, with these parameters.
_._engineio_server_class
_._handle_eio_message
_._log_error_once
_.message_key
_.auth  # Socket.IO's connect(sid, environ, auth)
# python-engineio's socket state, set by server/net/eio.py's websocket session, read by the library.
_.upgrading
_.upgraded

# python-socketio's AsyncPubSubManager calls these of its subclass (server/store/sio_manager.py).
_._publish
_._listen

# server/net/transport.py swaps the aiohttp server's class in place.
_.__class__

# msgspec struct fields: encoded into HTTP answers (http_types) or stored with the room (objects:
# written when a room is made or a player leaves, kept in the stored record).
_.display
_.hash
_.left_at
_.created_at

# msgspec struct fields of the server events (server/net/events.py): the schema of payloads built
# as dicts elsewhere (the tests convert live payloads to them; typegen writes them as TypeScript).
_.features
_.game_patch
_.mute
_.favourite
_.seats_free
