"""The Python client now lives in the :mod:`cardtable_client` package, which needs no server
module; this name stays for code written against the old one."""

from cardtable_client.client import EVENTS, MUTATING, OpFailed, TableClient, new_opid

__all__ = ["EVENTS", "MUTATING", "OpFailed", "TableClient", "new_opid"]
