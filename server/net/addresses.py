"""Client addresses for rate limits: taken from the transport, never from what a client says.

The address is the TCP peer of the connection. Only when that peer is a proxy the operator
declared (``--trusted-proxy CIDR``) is ``X-Forwarded-For`` believed, and then only as far as the
chain of declared proxies goes: the answer is the right-most entry that is not itself a trusted
proxy, because entries to its left were written by the client and can say anything.
"""

from __future__ import annotations

from collections.abc import Sequence

from aiohttp import web

from server.config import Network
from server.store.rate_limits import IPAddress, parse_ip


def _trusted(ip: IPAddress, trusted: Sequence[Network]) -> bool:
    return any(ip.version == net.version and ip in net for net in trusted)


def client_address(peer: str | None, forwarded_for: str | None, trusted: Sequence[Network]) -> str:
    """The address of the client behind a connection from ``peer``.

    ``forwarded_for`` is the ``X-Forwarded-For`` value (several headers joined by commas). It is
    read only when ``peer`` is in ``trusted``; then the right-most entry that is not a trusted proxy
    is the client. An entry that is not an address stops the walk at the last proxy that wrote one.
    An unknown peer (a unix socket) is ``""``.
    """
    if not peer:
        return ""
    ip = parse_ip(peer)
    if ip is None:
        return peer
    if not forwarded_for or not _trusted(ip, trusted):
        return str(ip)
    for entry in reversed(forwarded_for.split(",")):
        hop = parse_ip(entry)
        if hop is None:
            break
        ip = hop
        if not _trusted(hop, trusted):
            break
    return str(ip)


def request_address(request: web.BaseRequest, trusted: Sequence[Network]) -> str:
    """The client address of an aiohttp request: its transport peer, or, behind a trusted proxy,
    what ``X-Forwarded-For`` says (see :func:`client_address`)."""
    forwarded = ",".join(request.headers.getall("X-Forwarded-For", [])) or None
    return client_address(request.remote, forwarded, trusted)
