"""This machine's own IP addresses: those of its network interfaces, read as they are now.

A page served on every interface (``--host 0.0.0.0`` or ``::``) is reached through one of
these addresses, so they are the page's own origins; any other address in a request's
``Origin`` is another site. The name of the machine resolved through DNS is not enough
(it names one address, or a loopback one), so the interfaces are read from the kernel:

- IPv4: every local address in the routing table (``/proc/net/fib_trie``: the leaves
  marked ``/32 host LOCAL``, secondary addresses too), or, where that file cannot be read,
  each interface's address from the ``SIOCGIFADDR`` ioctl;
- IPv6: ``/proc/net/if_inet6`` (one address per line, 32 hex digits first).

Nothing here needs a package beyond the standard library.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import struct
from pathlib import Path

#: The kernel's routing table (Linux) and its list of IPv6 addresses.
FIB_TRIE = Path("/proc/net/fib_trie")
IF_INET6 = Path("/proc/net/if_inet6")
#: ioctl number of "the interface's IPv4 address" (Linux).
SIOCGIFADDR = 0x8915

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def ipv4_from_fib_trie(text: str) -> set[ipaddress.IPv4Address]:
    """The local IPv4 addresses of a ``/proc/net/fib_trie`` listing (its ``/32 host LOCAL`` leaves)."""
    found: set[ipaddress.IPv4Address] = set()
    leaf: str | None = None
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["|--"] and len(words) == 2:
            leaf = words[1]
        elif leaf is not None and words[:1] == ["/32"] and words[-1] == "LOCAL":
            with contextlib.suppress(ValueError):
                found.add(ipaddress.IPv4Address(leaf))
    return found


def ipv6_from_if_inet6(text: str) -> set[ipaddress.IPv6Address]:
    """The IPv6 addresses of a ``/proc/net/if_inet6`` listing."""
    found: set[ipaddress.IPv6Address] = set()
    for line in text.splitlines():
        words = line.split()
        if words and len(words[0]) == 32:
            with contextlib.suppress(ValueError):
                found.add(ipaddress.IPv6Address(int(words[0], 16)))
    return found


def ipv4_from_ioctl() -> set[ipaddress.IPv4Address]:
    """Each interface's (first) IPv4 address, asked of the kernel one interface at a time."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        return set()
    found: set[ipaddress.IPv4Address] = set()
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _index, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            try:
                reply = fcntl.ioctl(s.fileno(), SIOCGIFADDR, request)
            except OSError:  # no IPv4 address on that interface
                continue
            found.add(ipaddress.IPv4Address(reply[20:24]))
    return found


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii", errors="replace")
    except OSError:
        return None


def local_addresses() -> frozenset[IPAddress]:
    """Every IP address of this machine's interfaces now (loopback ones included)."""
    found: set[IPAddress] = {ipaddress.IPv4Address("127.0.0.1"), ipaddress.IPv6Address("::1")}
    trie = _read(FIB_TRIE)
    found |= ipv4_from_fib_trie(trie) if trie is not None else ipv4_from_ioctl()
    inet6 = _read(IF_INET6)
    if inet6 is not None:
        found |= ipv6_from_if_inet6(inet6)
    return frozenset(found)


__all__ = ["ipv4_from_fib_trie", "ipv4_from_ioctl", "ipv6_from_if_inet6", "local_addresses"]
