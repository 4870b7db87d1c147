"""Keys per slot, on a real Redis Cluster: every key a room's life creates shares the room's hash
tag (one slot, so one shard), the social layer's keys share ``{s}``, each rate-limit window has a
tag of its own, and every script the store has runs on the cluster (a script whose keys span
slots fails there: CROSSSLOT, or "non local key" for a key it builds itself)."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from typing import Any

import aiohttp
from redis.crc import key_slot

from server.store.clients import Script
from server.store.keys import SOCIAL, tag_of
from server.store.redis_store import RedisStore
from tests.conftest import make_config, new_room, start_server
from tests.server.test_fair_room import VALUE, _play_deal
from tests.server.test_fair_room import _room as spades_room
from tests.social.helpers import social_client

PNG = b"\x89PNG\r\n\x1a\n" + b"\x02" * 64


def _scan(cluster: Any) -> list[str]:
    keys: list[str] = []
    for node in cluster.live_masters():
        with node.client() as r:
            keys += [k.decode() for k in r.scan_iter(match="ct:*", count=1000)]
    return keys


async def _presence_written(cluster: Any, code: str) -> list[str]:
    """The keys while the table's players are here, once the heartbeat has marked them."""
    key = f"ct:{{{code}}}:here"
    for _ in range(200):
        keys = _scan(cluster)
        if key in keys:
            return keys
        await asyncio.sleep(0.05)
    raise AssertionError(f"{key} never written")


async def _life(cluster: Any) -> tuple[str, str, list[str]]:
    """A free table (joins, moves with ids, chat, an image, presence, a favourite) and a Spades
    room played through a deal (its hand record): the two codes and the keys seen meanwhile."""
    srv = await start_server(make_config(cluster.url, bot_delay_seconds=0.0, heartbeat_seconds=0.2))
    try:
        code = await new_room(srv)
        ann = await social_client(srv.url, "Ann")
        bob = await social_client(srv.url, "Bob")
        await ann.join(code, "Ann", seat=0)
        await bob.join(code, "Bob", seat=1)
        await ann.request("relation", {"id": bob.identity, "kind": "favourite", "on": True})
        await ann.op("deal", id="deck", n=3)
        await bob.op("flip", id="deck")
        await ann.request("chat", {"text": "good luck"})
        await bob.event("chat")
        async with (
            aiohttp.ClientSession() as http,
            http.post(
                f"{srv.url}/api/rooms/{code}/images",
                data=PNG,
                headers={"X-Player-Token": ann.token, "Content-Type": "image/png"},
            ) as r,
        ):
            assert r.status == 201, await r.text()
        seen = await _presence_written(cluster, code)
        game = await spades_room(srv.url)
        ana = await srv.client()
        await ana.join(game, "Ana")
        await ana.request("fair", {"deal": 1, "value": VALUE})
        for seat in (1, 2, 3):
            await ana.request("host", {"action": "bot", "seat": seat})
        await ana.wait_for(lambda: ana.game is not None and not ana.game["waiting"])
        await _play_deal(ana)
        for c in (ann, bob, ana):
            await c.close()
    finally:
        await srv.stop()
    return code, game, seen


async def test_every_key_of_a_room_is_on_its_slot_and_every_key_has_a_tag(redis_cluster):
    code, game, seen = await _life(redis_cluster)
    now = _scan(redis_cluster)
    keys = sorted(set(seen) | set(now))
    by_tag: dict[str, set[str]] = defaultdict(set)
    for key in keys:
        tag = tag_of(key)
        assert tag != key, f"{key} has no hash tag"
        assert key.startswith((f"ct:{{{tag}}}:", f"ct:sw:{{{tag}}}")), key
        by_tag[tag].add(key)
    for tag, group in by_tag.items():
        assert {key_slot(k.encode()) for k in group} == {key_slot(tag.encode())}, group

    def kinds(tag: str) -> set[str]:
        return {k.split("}:", 1)[1].split(":")[0] for k in by_tag[tag]}

    # The free table's life wrote each kind of room key, all under its tag; the rule room too,
    # with its hand record.
    assert {"room", "log", "ids", "here", "img", "chat"} <= kinds(code), by_tag[code]
    assert {"room", "log", "hands"} <= kinds(game), by_tag[game]
    # Identities, the online list and its name index, relations: the social slot.
    assert {"u", "online", "names", "r"} <= kinds(SOCIAL), by_tag[SOCIAL]
    # A window per limit and address (joins from 127.0.0.1), each on its own tag.
    assert any(k.startswith("ct:sw:{") and "127.0.0.1" in k for k in keys), keys
    # The cluster agrees with redis-py on the slots.
    node = redis_cluster.master_of_key(f"ct:{{{code}}}:room")
    with node.client() as r:
        assert r.execute_command("CLUSTER", "KEYSLOT", f"ct:{{{code}}}:log") == key_slot(
            f"ct:{{{code}}}:room".encode()
        )
        in_slot = r.execute_command("CLUSTER", "GETKEYSINSLOT", key_slot(code.encode()), 100)
        assert {k.decode() for k in in_slot} >= {k for k in now if tag_of(k) == code}


def _scripts(store: RedisStore) -> dict[str, Script]:
    """Every script the store and its social part run, by attribute name."""
    found = {}
    for owner in (store, store.social):
        for name in dir(owner):
            value = getattr(owner, name)
            if isinstance(value, Script):
                found[f"{type(owner).__name__}.{name}"] = value
    return found


async def test_every_script_runs_on_the_cluster(redis_cluster):
    """Each script, called through the store as the server calls it, answers on the cluster:
    none touches keys of two slots."""
    store = RedisStore(redis_cluster.url)
    social = store.social
    try:
        code = "KEYS" + str(len(_scan(redis_cluster)) % 10000)
        other = code + "B"
        assert await store.create(code, b"v0")
        assert await store.create_with_images(other, b"v0", 0, {"ab" * 32: PNG})
        await store.commit(code, 0, 1, b"v1", b"e1", once=("P", "op1"), hands=[b"{}"])
        assert await store.refuse(code, "P", "op2", 1) is None
        assert await store.log_since(code, 0, 1) == [b"e1"]
        assert await store.put_image(code, "cd" * 32, PNG, 5) == 1
        assert await store.window_add("ct:sw:{join:10.0.0.1}", "e", 1.0, [(60, 3)]) is None
        assert await social.hello("uKEYS", "h", "Kay", "Anon", 100) == "Kay"
        await social.go_online("uKEYS", "sid1", "Kay", 10.0, 100)
        await social.refresh_online([("uKEYS", "sid1", "Kay")], 11.0, 100)
        await social.at_set("uKEYS", code)
        await social.at_drop("uKEYS", code)
        await social.go_offline("uKEYS", "sid1", 0.0)
        await social.prune_online(0.0)
        await social.challenge_open("cKEYS", {"f": "uKEYS", "fn": "Kay", "t": "x"}, 60, 5.0)
        await social.challenge_sweep(6.0, 10)
        assert await social.challenge_take("cKEYS", 7.0) == 2
        await social.chat_add(code, {"text": "hi"}, 50, 100)
        ran = _scripts(store)
        masters = redis_cluster.live_masters()

        def loaded(script: Script) -> bool:
            for node in masters:
                with node.client() as r:
                    if r.script_exists(script.sha)[0]:
                        return True
            return False

        # The commit ran in one of its forms (SPUBLISH where Redis has it, server/store/feed.py).
        commits = [getattr(store, n) for n in ("_commit", "_commit_sharded") if hasattr(store, n)]
        assert any(loaded(c) for c in commits)
        missing = [n for n, s in ran.items() if not n.startswith("RedisStore._commit")]
        missing = [n for n in missing if not loaded(ran[n])]
        assert missing == []
        assert len(ran) >= 16
    finally:
        await store.close()
