"""Client addresses for rate limits: taken from the transport, never from what a client says.

The address is the TCP peer of the connection. Only when that peer is a proxy the operator
declared (``--trusted-proxy CIDR``) is ``X-Forwarded-For`` believed, and then only as far as the
chain of declared proxies goes: the answer is the right-most entry that is not itself a trusted
proxy, because entries to its left were written by the client and can say anything.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from aiohttp import web

if TYPE_CHECKING:
    from server.config import Config

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

# One IPv6 subscriber usually holds a whole /64, so limits count per /64, not per address.
IPV6_LIMIT_PREFIX = 64


def parse_network(text: str) -> Network:
    """A CIDR such as ``10.0.0.0/8`` or a single address (a /32 or /128); ValueError if neither."""
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(f"not an IP network or address: {text.strip()!r}") from None


def parse_networks(texts: Iterable[str]) -> list[Network]:
    """Networks from texts that may each hold several, comma-separated (an environment variable)."""
    return [parse_network(part) for text in texts for part in text.split(",") if part.strip()]


def _parse_ip(text: str) -> IPAddress | None:
    """An address as a proxy may write it (bare, ``[v6]:port``, ``v4:port``), or None."""
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


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
    ip = _parse_ip(peer)
    if ip is None:
        return peer
    if not forwarded_for or not _trusted(ip, trusted):
        return str(ip)
    for entry in reversed(forwarded_for.split(",")):
        hop = _parse_ip(entry)
        if hop is None:
            break
        ip = hop
        if not _trusted(hop, trusted):
            break
    return str(ip)


def limit_key(address: str) -> str:
    """What a per-address limit counts: the address itself, or its /64 for IPv6."""
    ip = _parse_ip(address) if address else None
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, IPV6_LIMIT_PREFIX), strict=False))
    return str(ip) if ip is not None else address


def request_address(request: web.BaseRequest, config: Config) -> str:
    """The client address of an aiohttp request: its transport peer, or, behind a trusted proxy,
    what ``X-Forwarded-For`` says (see :func:`client_address`)."""
    forwarded = ",".join(request.headers.getall("X-Forwarded-For", [])) or None
    return client_address(request.remote, forwarded, config.trusted_proxies)
