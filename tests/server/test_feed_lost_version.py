"""A commit the store lost, and the next commit numbered as it was, seen by this process's feed.

After a failover a commit published by the dead master but never replicated is gone, and the
room goes on from the replica, numbering the next commit as the lost one. When that next commit
is this process's own, it reaches the room's feed at once (not through Redis), maybe before the
feed's subscription is back and has caught up from the log. The feed must not take it for the
one it delivered (same number, another entry): it starts everyone again from a snapshot. Here
the failover's effect is made on a real Redis: the room's keys are put back as they were before
the commit (DUMP/RESTORE), as a replica that never had it would hold them.
"""

from __future__ import annotations

import redis

from tests.conftest import make_config, new_room, start_server


def _room_keys(r: redis.Redis, code: str) -> dict[bytes, bytes]:
    return {k: r.dump(k) for k in r.scan_iter(match=f"ct:{{{code}}}:*")}


def _put_back(r: redis.Redis, code: str, saved: dict[bytes, bytes]) -> None:
    for k in r.scan_iter(match=f"ct:{{{code}}}:*"):
        if k not in saved:
            r.delete(k)
    for k, v in saved.items():
        r.restore(k, 0, v, replace=True)


async def test_a_local_commit_numbered_as_a_lost_one_restarts_the_view(redis_server) -> None:  # noqa: ANN001
    server = await start_server(make_config(redis_server.url))
    r = redis.Redis.from_url(redis_server.url)
    c = None
    try:
        code = await new_room(server)
        c = await server.client()
        await c.join(code, "P")
        pile = next(o["id"] for o in c.objects.values() if o["t"] == "stack" and o["id"] != "deck")
        await c.request("op", {"op": "move", "id": "deck", "x": 10.0, "y": 100.0})
        saved = _room_keys(r, code)
        lost = await c.request("op", {"op": "move", "id": "deck", "x": -1.0, "y": 100.0})
        await c.wait_version(lost["v"])
        assert c.objects["deck"]["x"] == -1.0  # shown, then lost with its master
        _put_back(r, code, saved)

        other = await c.request("op", {"op": "move", "id": pile, "x": -2.0, "y": 100.0})
        assert other["v"] == lost["v"]  # the store numbers it as the lost one
        last = await c.request("op", {"op": "move", "id": "deck", "x": 20.0, "y": 100.0})
        await c.wait_for(
            lambda: c.version >= last["v"] and c.objects[pile]["x"] == -2.0, timeout=10
        )
        assert c.objects["deck"]["x"] == 20.0
    finally:
        if c is not None:
            await c.close()
        r.close()
        await server.stop()
