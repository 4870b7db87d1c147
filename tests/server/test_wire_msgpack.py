"""msgpack and JSON on one server: a connection whose Socket.IO CONNECT comes in a binary frame
speaks msgpack (python-socketio's ``serializer="msgpack"`` client, as the page's
``socket.io-msgpack-parser``), every other one JSON, and one room mixes both.

Each scenario seats a JSON player and a msgpack player and watches with a JSON spectator and a
msgpack spectator: the two spectators see the same view, so every event they receive (deltas,
acks of the same moves, errors) must be equal, payload for payload, whatever the wire.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import pytest
from socketio.msgpack_packet import MsgPackPacket

from cardtable_client import OpFailed, TableClient
from server.app import SIO_KEY
from tests.conftest import RunningServer, new_room


async def msgpack_client(server: RunningServer) -> TableClient:
    """A table client whose Socket.IO packets are msgpack binary frames."""
    c = TableClient(server.url)
    c.sio.packet_class = MsgPackPacket
    return await c.connect()


async def _four(server: RunningServer, code: str) -> tuple[TableClient, ...]:
    ana = await server.client()  # JSON
    ben = await msgpack_client(server)
    eve = await server.client()  # JSON spectator
    sam = await msgpack_client(server)  # msgpack spectator
    await ana.join(code, "Ana")
    await ben.join(code, "Ben")
    await eve.join(code, "Eve", seat=None)
    await sam.join(code, "Sàm ♠", seat=None)
    return ana, ben, eve, sam


def _seen(c: TableClient, since: int) -> list[tuple[str, Any]]:
    """What ``c`` received after its first ``since`` events, without its own refs."""
    out = []
    for name, payload in c.received[since:]:
        if isinstance(payload, dict):
            payload = {k: v for k, v in payload.items() if k != "ref"}
        out.append((name, payload))
    return out


async def _refused(c: TableClient, event: str, payload: dict[str, Any]) -> dict[str, Any]:
    with pytest.raises(OpFailed) as err:
        await c.request(event, payload)
    return err.value.payload


async def _close(*clients: TableClient) -> None:
    for c in clients:
        await c.close()


async def test_a_room_of_json_and_msgpack_clients_sees_the_same_moves_deltas_acks_and_errors(
    server,
):
    code = await new_room(server)
    ana, ben, eve, sam = await _four(server, code)
    sio = server.app[SIO_KEY]
    assert len(sio.msgpack_sids) == 2  # ben and sam; ana and eve speak JSON
    start = {c: len(c.received) for c in (eve, sam)}
    made = await ana.op("create", kind="card", faces=["H1"], up=True, x=100.0, y=80.0)
    card = next(o["id"] for o in ana.objects.values() if o["t"] == "card" and o["x"] == 100.0)
    await ben.wait_version(made["v"])
    assert ben.objects[card] == ana.objects[card]
    moved = await ben.op("move", id=card, x=333.5, y=222.25)
    await ana.wait_version(moved["v"])
    assert ana.objects[card]["x"] == 333.5 and ana.objects[card]["y"] == 222.25
    # The same bad input from each wire: the same error, the room untouched.
    err_json = await _refused(eve, "op", {"op": "flip", "id": "nope"})
    err_msgpack = await _refused(sam, "op", {"op": "flip", "id": "nope"})
    assert err_json == {**err_msgpack, "ref": err_json["ref"]}
    assert err_json["code"] == "not_seated" or err_json["code"] == "not_found", err_json
    for c in (eve, sam):
        await c.wait_version(moved["v"])
    assert _seen(eve, start[eve]) == _seen(sam, start[sam])
    deltas = [p["v"] for name, p in _seen(sam, start[sam]) if name == "delta"]
    assert deltas == [made["v"], moved["v"]]
    # Non-ASCII text survives msgpack both ways: the name a msgpack client joined with.
    assert "Sàm ♠" in [p["name"] for p in ana.players + eve.players + sam.players]
    await _close(ana, ben, eve, sam)


async def _gin_room(server: RunningServer) -> str:
    async with (
        aiohttp.ClientSession() as http,
        http.post(f"{server.url}/api/rooms", json={"game": "gin_rummy"}) as r,
    ):
        assert r.status == 201
        return str((await r.json())["code"])


async def test_a_rule_game_action_from_a_msgpack_player_reaches_both_wires_alike(server):
    code = await _gin_room(server)
    ana, ben, eve, sam = await _four(server, code)
    await ana.wait_for(lambda: ana.game is not None and ana.game.get("view") is not None)
    start = {c: len(c.received) for c in (eve, sam)}
    # A spectator may not act: the same refusal on both wires.
    err_json = await _refused(eve, "game", {"action": {"type": "pass"}})
    err_msgpack = await _refused(sam, "game", {"action": {"type": "pass"}})
    assert err_json["code"] == err_msgpack["code"] == "forbidden"
    assert err_json["message"] == err_msgpack["message"]
    turn = ana.game["view"]["turn"] if ana.game else None
    mover, waiter = (ana, ben) if turn == ana.seat else (ben, ana)
    err = await _refused(waiter, "game", {"action": {"type": "pass"}})
    assert (err["code"], err["rule"]) == ("rules", "not_your_turn")
    ack = await mover.request("game", {"action": {"type": "pass"}})
    for c in (ana, ben, eve, sam):
        await c.wait_version(ack["v"])
    assert _seen(eve, start[eve]) == _seen(sam, start[sam])
    assert any(name == "delta" and p["v"] == ack["v"] for name, p in _seen(sam, start[sam]))
    assert ana.game is not None and ben.game is not None
    assert ana.game["view"]["turn"] == ben.game["view"]["turn"] == waiter.seat
    await _close(ana, ben, eve, sam)
