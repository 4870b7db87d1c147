"""cardtable's Python client, importable on its own (it needs no server module): speak the
table protocol over Socket.IO, keep a seat's view of a room, and apply game-view patches.

    from cardtable_client import TableClient
    client = await TableClient("http://127.0.0.1:8080").connect()
    await client.join("ABCD", "Ana")
"""

from cardtable_client.client import MUTATING, OpFailed, TableClient, new_opid
from cardtable_client.patch import Patch, apply_patch

__all__ = ["MUTATING", "OpFailed", "Patch", "TableClient", "apply_patch", "new_opid"]
