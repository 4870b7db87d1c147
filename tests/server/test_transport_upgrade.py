"""A stock Socket.IO client starts on long-polling and upgrades to a websocket.

python-socketio's and socket.io's own clients connect over long-polling by default and then
upgrade: the upgrade's ``2probe`` must reach Engine.IO as the text ``probe``. The wire codec
answers a frame that is not JSON with a marker (for Socket.IO's payloads); Engine.IO's packets
need the library's own reading, or the probe is refused and the client stays on polling.
"""

from __future__ import annotations

from cardtable_client import TableClient
from tests.conftest import new_room


async def _play(server) -> str:
    code = await new_room(server)
    a, b = TableClient(server.url), await server.client()
    try:
        await a.sio.connect(server.url)  # the default: long-polling, then a websocket
        await a.join(code, "Ana")
        await b.join(code, "Ben")
        ack = await a.op("shuffle", id="deck")
        await b.wait_version(ack["v"])
        return a.sio.transport()
    finally:
        await a.close()
        await b.close()


async def test_a_default_client_upgrades_to_a_websocket_and_plays(server):
    assert await _play(server) == "websocket"
