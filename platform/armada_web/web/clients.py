"""Who a request comes from: the client address the deployment trusts.

`REMOTE_ADDR` is the client, unless it is one of the reverse proxies the deployment names
(`ARMADA_TRUSTED_PROXIES`: addresses or networks). Only then is `X-Forwarded-For` read, from
its right end (what the nearest proxy appended) leftwards, skipping the trusted proxies: the
first address that is not one of them is the client. Anything a client writes into the header
itself sits to the left of that and is never believed, so a new header value is not a new client.
Throttles and the password-failure limits key on `client_address`.
"""

from __future__ import annotations

import functools
import ipaddress
from typing import Any

from django.conf import settings

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@functools.lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> tuple[Network, ...]:
    return tuple(ipaddress.ip_network(p, strict=False) for p in proxies)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [v6]:port
        text = text[1:text.index("]")]
    elif text.count(":") == 1:  # v4:port
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address | None, networks: tuple[Network, ...]) -> bool:
    return address is not None and any(address in network for network in networks)


def from_proxy(request: Any) -> bool:
    """Whether `request` came through one of the trusted proxies (`REMOTE_ADDR` is one), whatever its headers."""
    meta = getattr(request, "META", None) or {}
    return _trusted(_address(str(meta.get("REMOTE_ADDR") or "")), _networks(tuple(settings.ARMADA.trusted_proxies)))


def client_address(request: Any) -> str:
    """The address of the client that sent `request` (see the module); "unknown" without one."""
    meta = getattr(request, "META", None) or {}
    remote = _address(str(meta.get("REMOTE_ADDR") or ""))
    networks = _networks(tuple(settings.ARMADA.trusted_proxies))
    if remote is None:
        return "unknown"
    if not _trusted(remote, networks):
        return str(remote)
    hops = [hop for hop in str(meta.get("HTTP_X_FORWARDED_FOR") or "").split(",") if hop.strip()]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            return "unknown"  # a proxy we trust wrote something that is not an address
        if not _trusted(address, networks):
            return str(address)
    return str(_address(hops[0]) if hops else remote)


def client_key(request: Any) -> str:
    """What per-client limits count under: `client_address`, an IPv6 client by its /64 network (one
    host is given a /64, and could rotate its addresses within it past any per-address limit)."""
    address = client_address(request)
    parsed = _address(address)
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is None:
        return str(ipaddress.IPv6Network(f"{parsed}/64", strict=False))
    return address
