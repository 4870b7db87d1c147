"""The client address used by rate limits: the transport peer, X-Forwarded-For only via trusted
proxies, and the /64 grouping of IPv6 addresses."""

from __future__ import annotations

import pytest

from server.config import parse_network, parse_networks
from server.net.addresses import client_address
from server.store.rate_limits import limit_key

PROXIES = parse_networks(["10.0.0.0/8, 192.168.1.1", "2001:db8:ffff::/48"])


def test_without_a_trusted_proxy_the_header_is_ignored():
    assert client_address("198.51.100.7", "203.0.113.9", []) == "198.51.100.7"
    assert client_address("198.51.100.7", "203.0.113.9", PROXIES) == "198.51.100.7"
    assert client_address("198.51.100.7", None, PROXIES) == "198.51.100.7"


def test_a_trusted_proxy_names_the_client():
    assert client_address("10.1.2.3", "203.0.113.9", PROXIES) == "203.0.113.9"
    assert client_address("192.168.1.1", " 203.0.113.9 ", PROXIES) == "203.0.113.9"
    # No header at all: the proxy itself is all we know.
    assert client_address("10.1.2.3", None, PROXIES) == "10.1.2.3"
    assert client_address("10.1.2.3", "", PROXIES) == "10.1.2.3"


def test_the_right_most_untrusted_entry_wins_over_what_the_client_wrote():
    # The client sent "1.1.1.1, 2.2.2.2"; the outer proxy appended the client's real address;
    # an inner proxy appended the outer one's.
    chain = "1.1.1.1, 2.2.2.2, 203.0.113.9, 10.9.9.9"
    assert client_address("10.1.2.3", chain, PROXIES) == "203.0.113.9"
    # Several headers are joined in order before reading.
    assert client_address("10.1.2.3", "1.1.1.1,203.0.113.9", PROXIES) == "203.0.113.9"


def test_garbage_stops_at_the_last_known_proxy():
    assert client_address("10.1.2.3", "unknown", PROXIES) == "10.1.2.3"
    assert client_address("10.1.2.3", "203.0.113.9, 10.9.9.9, nonsense", PROXIES) == "10.1.2.3"
    assert client_address("10.1.2.3", "nonsense, 10.9.9.9", PROXIES) == "10.9.9.9"
    # Every hop a trusted proxy: the farthest one is the best answer.
    assert client_address("10.1.2.3", "10.7.7.7, 10.8.8.8", PROXIES) == "10.7.7.7"


def test_ports_brackets_and_mapped_addresses():
    assert client_address("10.1.2.3", "203.0.113.9:5123", PROXIES) == "203.0.113.9"
    assert client_address("10.1.2.3", "[2001:db8::5]:443", PROXIES) == "2001:db8::5"
    assert client_address("::ffff:10.1.2.3", "2001:DB8::5", PROXIES) == "2001:db8::5"
    assert client_address("::ffff:198.51.100.7", None, []) == "198.51.100.7"
    assert (
        client_address("2001:db8:ffff:1::1", "2001:db8:ffff:2::2, 2001:db8::77", PROXIES)
        == "2001:db8::77"
    )


def test_unknown_peers():
    assert client_address(None, "203.0.113.9", PROXIES) == ""
    assert client_address("", "203.0.113.9", PROXIES) == ""
    assert client_address("not-an-ip", "203.0.113.9", PROXIES) == "not-an-ip"


def test_limits_count_ipv6_per_64():
    assert (
        limit_key("2001:db8:1:2:aaaa::1")
        == limit_key("2001:db8:1:2:bbbb::9")
        == "2001:db8:1:2::/64"
    )
    assert limit_key("2001:db8:1:3::1") != limit_key("2001:db8:1:2::1")
    assert limit_key("198.51.100.7") == "198.51.100.7"
    assert limit_key("") == ""


def test_parsing_networks():
    assert str(parse_network("10.1.2.3")) == "10.1.2.3/32"
    assert str(parse_network(" 10.1.2.3/8 ")) == "10.0.0.0/8"
    assert [str(n) for n in PROXIES] == ["10.0.0.0/8", "192.168.1.1/32", "2001:db8:ffff::/48"]
    with pytest.raises(ValueError, match="not an IP network"):
        parse_network("10.0.0.0/33")
    with pytest.raises(ValueError, match="proxy.example"):
        parse_networks(["10.0.0.0/8,proxy.example"])
