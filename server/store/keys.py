"""Every Redis key the store writes, built here and only here: one rule, one hash tag per owner.

A key is ``ct:{TAG}:...`` (``ct:sw:{TAG}`` for rate limits); Redis Cluster puts a key on the
slot of the text between its first ``{`` and ``}``, so the tag decides the shard:

* ``{CODE}``, a room's code: everything of one room (state, op log, operation ids, presence,
  images, hand records, chat, and the feed channel of server/store/feed.py) is on one slot, so
  each room script (a commit touches five of these keys) runs where they all are and a room's
  load goes to one shard; rooms spread over all shards by their codes.
* ``{s}``: the social layer (identities, relations, the online list and its name index, where
  each identity is, public rooms, open challenges): one small well-known slot, because its
  scripts join an identity with the lists across identities (going online writes the identity,
  the online list and the name index at once). docs/architecture.md ("Past one Redis") says
  what load that slot takes and when it would be split.
* ``{LIMIT:ADDRESS}`` (``ct:sw:{join:ADDRESS}``): one sliding window of a rate limit per
  address; each is a single key read and written alone, so they spread over every shard.

There is no global key besides ``{s}``: a room code is reserved by creating the room's own key
(no code set), and ``tests/store/test_keys.py`` lists every key a room's life creates and checks
each owner's keys hash to one slot.
"""

from __future__ import annotations

SOCIAL = "s"  # the social layer's tag


def tag_of(key: str) -> str:
    """The hash tag Redis Cluster hashes ``key`` by (the whole key when it has none)."""
    start = key.find("{")
    end = key.find("}", start + 1)
    if start < 0 or end <= start + 1:
        return key
    return key[start + 1 : end]


# --- a room: ct:{CODE}:... --------------------------------------------------------------------


def room_key(code: str) -> str:
    """Hash: ``v`` the version, ``s`` the state blob."""
    return f"ct:{{{code}}}:room"


def log_key(code: str) -> str:
    """List: the newest op-log entries (msgpack), newest last."""
    return f"ct:{{{code}}}:log"


def presence_key(code: str) -> str:
    """Zset: "player|sid" of each live connection -> last seen."""
    return f"ct:{{{code}}}:here"


def image_key(code: str) -> str:
    """The hash of a room's uploaded images, sha256 -> bytes."""
    return f"ct:{{{code}}}:img"


def ids_key(code: str, player: str) -> str:
    """The operation ids one player sent in a room, with their outcomes (a sorted set)."""
    return f"ct:{{{code}}}:ids:{player}"


def hands_key(code: str) -> str:
    """The room's finished hands' records, oldest first."""
    return f"ct:{{{code}}}:hands"


def chat_key(code: str) -> str:
    """List: the room's last chat lines (JSON)."""
    return f"ct:{{{code}}}:chat"


# --- the social layer: ct:{s}:... ---------------------------------------------------------------

PREFIX = f"ct:{{{SOCIAL}}}:"
ONLINE = PREFIX + "online"  # zset identity -> last seen
# hash identity -> the room code it last joined (lobby's "at a table"); an entry goes when its
# room socket leaves that room, or when the identity goes offline or its presence lapses.
AT = PREFIX + "at"
NAMES = PREFIX + "names"  # zset (score 0) "lower name\0identity" of online identities
PUBLIC = PREFIX + "public"  # zset room code -> when it was made public
DUE = PREFIX + "due"  # zset open challenge id -> when it expires


def identity_key(identity: str) -> str:
    """Hash: ``h`` sha256 of the secret, ``n`` display name, ``o`` its entry in NAMES."""
    return f"{PREFIX}u:{identity}"


def sockets_key(identity: str) -> str:
    """Zset: the identity's online sockets (``sid``) -> last seen."""
    return f"{PREFIX}u:{identity}:socks"


def relation_key(identity: str, kind: str) -> str:
    """Set of the identities ``identity`` has blocked / muted / favourited."""
    return f"{PREFIX}r:{identity}:{kind}"


def challenge_key(challenge: str) -> str:
    """Hash: an open challenge's fields (``x`` once a sweep marked it expired)."""
    return f"{PREFIX}c:{challenge}"


# --- rate limits: ct:sw:{LIMIT:ADDRESS} ---------------------------------------------------------


def window_key(limit: str, address: str) -> str:
    """Zset: one address's recent events under one limit (server/store/rate_limits.py)."""
    return f"ct:sw:{{{limit}:{address}}}"
