"""Who may use the viewer's page: its own origin only, and no public share link.

A web page in the user's browser may open a websocket to any address, so a viewer that
took every connection could be watched and driven by any site the user visits (the
browser sends that site as ``Origin``), or reached through a name that a hostile DNS
server points at 127.0.0.1 (DNS rebinding: the browser sends that name as ``Host``). As
Jupyter and TensorBoard do, every request must name the served address in ``Host``, and a
websocket whose ``Origin`` is given must come from the page itself
(``http://<that address>:<port>``); anything else gets ``403 Forbidden`` before the
handshake completes, so it receives nothing. A client that sends no ``Origin`` is not a
web page (browsers always send it on a websocket) and is let in on ``Host`` alone. Served on
every interface, an ``Origin`` must be the request's ``Host`` or one of this machine's own
interface addresses (:mod:`.addresses`). ``Host`` is parsed strictly
(:func:`parse_authority`), and a request giving a header the check reads twice gets
``400 Bad Request``.

Served beyond this machine (``--host 0.0.0.0``, ``::`` or any address that is not the
loopback), whoever can reach the port could open the page, so, as Jupyter does, the
viewer makes a random token (:func:`token_for`) and every request must carry it: in the
address's query (``?token=…``, the address the viewer prints) or in the cookie the page's
first answer sets, so the page's own websocket and files carry it too. It is compared in
constant time; without it a request gets ``403 Forbidden``. On the loopback (the
default) no token is asked.

viser builds its websockets server inside its own thread; :func:`guarded_server` has
it built, for the time the server is made, with :meth:`Guard.process_request` in front of
viser's own request handler (how: :mod:`.viser_adapter`). viser's share service (a public
URL through its relay) is switched off there too: the button is hidden and a
``ShareUrlRequest`` from any client is dropped.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hmac
import http
import http.cookies
import ipaddress
import itertools
import logging
import math
import re
import secrets
import socket
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ..core.errors import MotionFormatError
from ..core.notices import NoticeKind, notify
from . import viser_adapter
from .addresses import local_addresses

#: Names of this machine's loopback interface a browser may use in ``Host``.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_HOST_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
#: Headers the page's server reads as one value: a request giving one of them twice is malformed.
SINGLE_HEADERS = ("Host", "Origin", "Upgrade", "Accept-Encoding", "Cookie")
#: The query parameter that carries the token of a page served beyond this machine.
TOKEN_PARAMETER = "token"  # noqa: S105 - the name of a query parameter, not a secret
#: Random bytes in a token (as Jupyter's: 24).
TOKEN_BYTES = 24


class HostError(MotionFormatError):
    """``--host`` is not an address this machine can serve on."""


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip("[]"))
    except ValueError:
        return None


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    ip = _ip(host)
    return host.lower() == "localhost" if ip is None else ip.is_loopback


def is_wildcard(host: str) -> bool:
    """Whether ``host`` means every interface (0.0.0.0, ::)."""
    ip = _ip(host)
    return ip is not None and ip.is_unspecified


def _host_name(text: str) -> str | None:
    """``text`` as a host name (lower case, without the one trailing dot allowed); None when it is none.

    Dot-separated labels of letters, digits and inner hyphens, 253 characters at most, the
    last label not all digits (``127.1`` is no name): ``localhost..`` or ``a b`` are refused.
    """
    name = text.lower()
    name = name[:-1] if name.endswith(".") else name
    labels = name.split(".")
    if not name or len(name) > 253 or not all(_HOST_LABEL.match(label) for label in labels):
        return None
    return None if labels[-1].isdigit() else name


def token_for(host: str, addresses: tuple[str, ...] = ()) -> str | None:
    """A new random token when ``host`` (resolving to ``addresses``) is not this machine only, else None."""
    if all(is_loopback(a) for a in (host, *addresses)):
        return None
    return secrets.token_urlsafe(TOKEN_BYTES)


def check_host(host: str) -> tuple[str, ...]:
    """The addresses ``host`` names (HostError when it is neither an IP address nor a resolvable name)."""
    ip = _ip(host)
    if ip is not None:
        return (str(ip),)
    name = _host_name(host)
    if name is None:
        raise HostError(f"--host {host}: not an IP address or a host name")
    try:
        infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError) as exc:
        raise HostError(f"--host {host}: the name does not resolve ({exc})") from None
    return tuple(dict.fromkeys(str(info[4][0]) for info in infos))


def parse_authority(value: str | None) -> tuple[str, int] | None:
    """(host, port) of a ``Host`` value or an origin's ``host[:port]`` (port 80 when absent).

    None unless it is exactly an IP literal (IPv6 in brackets) or a host name
    (:func:`_host_name`), then an optional ``:port``: nothing before or after, not a space.
    The host is given in one spelling (lower case, an address as :mod:`ipaddress` writes it).
    """
    found = re.fullmatch(r"(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(?::([0-9]{1,5}))?", value or "")
    if found is None:
        return None
    host, port = found.group(1), int(found.group(2) or 80)
    if host.startswith("["):
        ip = _ip(host)
        return (str(ip), port) if ip is not None and ip.version == 6 else None
    ip = _ip(host)
    if ip is not None:
        return str(ip), port
    name = _host_name(host)
    return (name, port) if name is not None else None


class Guard:
    """The ``Host`` and ``Origin`` a request to the page served on ``host`` may carry.

    Args:
        host: The address served (as given: an IP address, a name, or a wildcard).
        addresses: What ``host`` resolves to (:func:`check_host`).

    ``port`` is set once the server is listening; until then every request is refused.
    Served on every interface (a wildcard ``host``), ``Host`` may be any IP address (one
    cannot be rebound; a forwarded port shows the forwarder's) or a name of this machine,
    and ``Origin`` must be exactly that ``Host`` or name one of this machine's interface
    addresses (:func:`~.addresses.local_addresses`, read at each request): a page of any
    other address is another site.

    With a ``token`` (:func:`token_for`), a request must also carry it, in the query or the
    cookie (:meth:`cookie`) the answer to a request carrying it in its query sets.
    """

    def __init__(self, host: str, addresses: tuple[str, ...] = (), token: str | None = None) -> None:
        self.host = host
        self.token = token
        self.port: int | None = None
        names = {_norm(host), *(_norm(a) for a in addresses)}
        if any(is_loopback(n) for n in names):
            names |= LOOPBACK_NAMES
        self.any_ip = is_wildcard(host)
        if self.any_ip:
            names |= LOOPBACK_NAMES | {_norm(socket.gethostname()), _norm(socket.getfqdn())}
        self.names = frozenset(names)
        self.refused = 0
        self.messages = PageMessages()

    def host_allowed(self, value: str | None) -> bool:
        """Whether a ``Host`` header names the served address and port."""
        parsed = parse_authority(value)
        if parsed is None or parsed[1] != self.port:
            return False
        return parsed[0] in self.names or (self.any_ip and _ip(parsed[0]) is not None)

    def origin_allowed(self, value: str | None, host: str | None = None) -> bool:
        """Whether an ``Origin`` header is the page's own (absent: not a browser, allowed).

        ``host`` is the request's ``Host`` (already allowed): an origin equal to it is the page's.
        """
        if value is None:
            return True
        try:
            parts = urlsplit(value)
            credentials = parts.username is not None or parts.password is not None
        except ValueError:  # a malformed address (an unclosed bracket, a port out of range)
            return False
        if parts.scheme != "http" or parts.path not in ("", "/") or parts.query or parts.fragment or credentials:
            return False
        parsed = parse_authority(parts.netloc)
        if parsed is None or parsed[1] != self.port:
            return False
        if parsed == parse_authority(host) or parsed[0] in self.names:
            return True
        ip = _ip(parsed[0])
        return self.any_ip and ip is not None and ip in local_addresses()

    @property
    def cookie_name(self) -> str:
        """The token's cookie: one per port (a browser sends a host's cookies to all its ports)."""
        return f"motion_view_{self.port}"

    def cookie(self) -> str:
        """The ``Set-Cookie`` value that gives a browser the token for this page's later requests."""
        return f"{self.cookie_name}={self.token}; Path=/; HttpOnly; SameSite=Strict"

    def _is_token(self, given: str) -> bool:
        assert self.token is not None
        return hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode())

    def query_token(self, path: str) -> bool:
        """Whether the request path's query carries the token (exactly once)."""
        try:
            given = parse_qs(urlsplit(path).query).get(TOKEN_PARAMETER, [])
        except ValueError:
            return False
        return self.token is not None and len(given) == 1 and self._is_token(given[0])

    def token_allowed(self, headers: Any, path: str) -> bool:
        """Whether a request carries the token, in its query or its cookie (True when none is asked)."""
        if self.token is None or self.query_token(path):
            return True
        jar = http.cookies.SimpleCookie()
        try:
            jar.load(headers.get("Cookie") or "")
        except http.cookies.CookieError:
            return False
        morsel = jar.get(self.cookie_name)
        return morsel is not None and self._is_token(morsel.value)

    def refusal(self, headers: Any, path: str = "/") -> tuple[http.HTTPStatus, str] | None:
        """Why a request with these headers for ``path`` is refused, with the answer's status (None: let in).

        ``400 Bad Request`` for a header the check reads given more than once, else
        ``403 Forbidden`` for a ``Host`` or ``Origin`` that is not the page's, or a request
        without the token when one is asked.
        """
        for name in SINGLE_HEADERS:
            if len(_values(headers, name)) > 1:
                return http.HTTPStatus.BAD_REQUEST, f"more than one {name} header"
        if self.port is None:
            return http.HTTPStatus.FORBIDDEN, "the viewer is starting"
        host = headers.get("Host")
        if not self.host_allowed(host):
            return http.HTTPStatus.FORBIDDEN, "Host does not name the viewer's address"
        if not self.origin_allowed(headers.get("Origin"), host):
            return http.HTTPStatus.FORBIDDEN, "Origin is not the viewer's page"
        if not self.token_allowed(headers, path):
            return http.HTTPStatus.FORBIDDEN, "no token, or not the viewer's: open the address it printed"
        return None

    def process_request(self, inner: Callable[..., Any] | None) -> Callable[..., Any]:
        """A websockets ``process_request`` checking ``Host``, ``Origin`` and the token before
        ``inner``; an answer to a request whose query has the token sets its cookie."""

        def check(connection: Any, request: Any) -> Any:
            refused = self.refusal(request.headers, request.path)
            if refused is not None:
                self.refused += 1
                return connection.respond(refused[0], f"{refused[1]}\n")
            response = inner(connection, request) if inner is not None else None
            if response is not None and self.token is not None and self.query_token(request.path):
                response.headers["Set-Cookie"] = self.cookie()
            return response

        return check


def _values(headers: Any, name: str) -> list[str]:
    """Every value of header ``name`` (``websockets`` headers keep them all; a mapping has one)."""
    if hasattr(headers, "get_all"):
        return list(headers.get_all(name))
    value = headers.get(name)
    return [] if value is None else [value]


def _norm(name: str) -> str:
    ip = _ip(name)
    return str(ip) if ip is not None else name.lower().rstrip(".")


#: The largest message a page may send (its messages are GUI values and camera poses, under 1 kB).
PAGE_MESSAGE_LIMIT = 1 << 20
#: Notices the page's server prints at most: a flood of bad frames is not a flood of lines (nor of memory).
NOTICE_LIMIT = 100
_NOTICES = itertools.count()
#: Close codes (RFC 6455) of a connection closed for what its page sent.
UNSUPPORTED_DATA, INVALID_DATA, POLICY_VIOLATION, MESSAGE_TOO_BIG = 1003, 1007, 1008, 1009


class PageMessages:
    """What a page may send over its websocket: viser's messages, well-formed, and GUI values that fit.

    A frame that is not one (text, not MessagePack, an unknown type or field, a field of
    the wrong type, a number that is not finite, a GUI update of anything but a value or of
    a value of another kind than its element's) closes its connection with one notice
    naming the peer; viser never sees it. A value of the right kind outside its element's
    range or choices is dropped alone, with a notice. :meth:`watch` gives the server whose
    GUI elements the values are checked against.
    """

    def __init__(self) -> None:
        self._elements: Callable[[str], Any] = lambda _uuid: None
        self._types: dict[str, Any] | None = None

    def watch(self, server: Any) -> None:
        """Check GUI updates against the elements of ``server`` (a viser server)."""
        self._elements = viser_adapter.gui_inputs(server)

    def _type(self, name: str) -> Any:
        if self._types is None:
            self._types = viser_adapter.page_message_types()
        return self._types.get(name)

    def problem(self, raw: bytes | str) -> tuple[int | None, str] | None:
        """Why a frame from a page is refused, with the close code (None: viser may have it).

        A close code of None: the message alone is dropped, the connection stays.
        """
        import msgspec

        if isinstance(raw, str):
            return UNSUPPORTED_DATA, "a text frame (the page sends MessagePack)"
        try:
            mapping = msgspec.msgpack.decode(raw)
        except msgspec.DecodeError as exc:
            return INVALID_DATA, f"not MessagePack ({exc})"
        except RecursionError:
            return INVALID_DATA, "MessagePack nested too deep"
        if not isinstance(mapping, dict) or not isinstance(mapping.get("type"), str):
            return INVALID_DATA, "not a message (a map with its type)"
        fields = {k: v for k, v in mapping.items() if k != "type"}
        name = mapping["type"][:80]
        cls = self._type(mapping["type"])
        if cls is None:
            return INVALID_DATA, f"an unknown message type {name!r}"
        unknown = set(fields) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            return INVALID_DATA, f"{name}: unknown field {sorted(map(str, unknown))[0][:80]!r}"
        try:
            message = msgspec.convert(fields, cls)
        except msgspec.ValidationError as exc:
            return INVALID_DATA, f"{name}: {exc}"
        except TypeError:  # a message carrying arrays: the server sends those, a page does not
            return POLICY_VIOLATION, f"{name} is not a message a page sends"
        if name == "GuiUpdateMessage":
            return self._gui_update_problem(message.uuid, message.updates)
        if not _finite(fields):
            return INVALID_DATA, f"{name}: a number that is not finite"
        if name == "ViewerCameraMessage" and not (any(message.up_direction) and any(message.wxyz)):
            return INVALID_DATA, f"{name}: a zero up direction or orientation"
        return None

    def _gui_update_problem(self, uuid: str, updates: dict[Any, Any]) -> tuple[int | None, str] | None:
        if set(updates) != {"value"}:
            return POLICY_VIOLATION, f"GuiUpdateMessage sets {sorted(map(str, updates))[:3]} (a page sets only values)"
        element = self._elements(uuid)
        if element is None:
            return None  # an element gone: viser drops it
        refused = _value_problem(element, updates["value"])
        return None if refused is None else (refused[0], f"GuiUpdateMessage: {refused[1]}")

    def checked(self, handler: Callable[..., Any]) -> Callable[..., Any]:
        """A websockets connection handler giving ``handler`` only the frames :meth:`problem` lets pass."""
        from websockets.exceptions import ConnectionClosedError

        async def checked_handler(connection: Any) -> None:
            receive = connection.recv
            peer = _peer(connection)

            async def recv(*args: Any, **kwargs: Any) -> Any:
                while True:
                    try:
                        raw = await receive(*args, **kwargs)
                    except ConnectionClosedError as exc:
                        if exc.sent is not None and exc.sent.code == MESSAGE_TOO_BIG:
                            _notice(f"{peer}: a message over {PAGE_MESSAGE_LIMIT} bytes; its connection is closed")
                        raise
                    refused = self.problem(raw)
                    if refused is None:
                        return raw
                    code, why = refused
                    if code is None:
                        _notice(f"{peer}: {_one_line(why)}; the message is dropped")
                        continue
                    _notice(f"{peer}: {_one_line(why)}; its connection is closed")
                    await connection.close(code, why.encode()[:120].decode(errors="ignore"))  # a close frame's limit
                    return await receive(*args, **kwargs)  # raises: the connection is closed

            other = await viser_adapter.refuse_other_version(connection)
            if other is not None:
                _other_version(peer, *other)
                return
            viser_adapter.replace_recv(connection, recv)
            await handler(connection)

        return checked_handler


def _value_problem(element: Any, value: Any) -> tuple[int | None, str] | None:
    """Why ``value`` cannot be the value of GUI ``element``, with the close code, or None.

    A value of another kind (a text for a number, NaN) is malformed: code 1008. One of the
    right kind out of the element's range or choices can come from the page (a number typed
    into a slider's box): code None, the message alone is dropped.
    """
    current = element.value
    if isinstance(current, tuple):
        if not isinstance(value, (list, tuple)) or len(value) != len(current):
            return POLICY_VIOLATION, f"{value!r} for {len(current)} values"
        fits = all(_same_kind(c, v) for c, v in zip(current, value, strict=True))
        return None if fits else (POLICY_VIOLATION, f"{value!r} for values like {current!r}")
    if not _same_kind(current, value):
        return POLICY_VIOLATION, f"{value!r} for a value like {current!r}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        low, high = getattr(element, "min", None), getattr(element, "max", None)
        if (low is not None and value < low) or (high is not None and value > high):
            return None, f"{value!r} outside {low}..{high}"
    options = getattr(element, "options", None)
    if isinstance(value, str) and options is not None and value not in options:
        return None, f"{value!r} is not one of the element's choices"
    return None


def _same_kind(current: Any, value: Any) -> bool:
    """Whether ``value`` is of the kind of ``current``: a yes / no, a finite number, a text (else not judged)."""
    if isinstance(current, bool):
        return isinstance(value, bool)
    if isinstance(current, (int, float)):
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if isinstance(current, str):
        return isinstance(value, str)
    return True


def _finite(value: Any) -> bool:
    """Whether every number in ``value`` (a message's fields, nested) is finite."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, dict):
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return True


def _peer(connection: Any) -> str:
    address = getattr(connection, "remote_address", None)
    return f"page {address[0]}:{address[1]}" if address else "a page"


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:300]


def _notice(text: str) -> None:
    """One notice of the page's server; past :data:`NOTICE_LIMIT` in this process, one last line and then none."""
    count = next(_NOTICES)
    if count < NOTICE_LIMIT:
        notify(NoticeKind.SKIPPED, f"viewer: {text}", stacklevel=2)
    elif count == NOTICE_LIMIT:
        notify(NoticeKind.SKIPPED, f"viewer: {NOTICE_LIMIT} notices printed; the next ones are not", stacklevel=2)


_OTHER_VERSIONS = itertools.count(1)


def _other_version(peer: str, client: str, server: str) -> None:
    """A page of another viser version refused: said the first time, then only at 10, 100, 1000 … of them.

    A page left open from an older viewer tries again every second or so; a line for each
    try would bury everything else the viewer says.
    """
    count = next(_OTHER_VERSIONS)
    if count == 1:
        _notice(
            f"{peer}: a page of viser {client} (this viewer runs {server}) is refused: reload the page; "
            "further refusals are counted"
        )
    elif 10 ** round(math.log10(count)) == count:
        _notice(f"{count} connections of pages of another viser version refused so far")


class _OneLine(logging.Handler):
    """The websockets server's log, one notice per record and no traceback.

    A connection closed before its request was sent (a port probe) is not worth a word.
    """

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        cause: BaseException | None = exc
        while cause is not None:
            if isinstance(cause, EOFError):
                return  # nothing was asked
            cause = cause.__cause__
        what = record.getMessage()
        _notice(what if exc is None else f"{what}: {type(exc).__name__}: {_one_line(str(exc))}")


def _server_logger() -> logging.Logger:
    """The logger of the page's websockets server: warnings and errors as one-line notices."""
    logger = logging.getLogger(f"{__name__}.server")
    if not logger.handlers:
        logger.setLevel(logging.WARNING)
        logger.propagate = False
        logger.addHandler(_OneLine())
    return logger


def _loop_error(loop: Any, context: dict[str, Any]) -> None:
    """An error in the server's event loop (a failed message handler …): one notice, no traceback."""
    exc = context.get("exception")
    what = context.get("message", "an error in the viewer's server")
    _notice(what if exc is None else f"{what}: {type(exc).__name__}: {_one_line(str(exc))}")


@contextlib.contextmanager
def guarded_server(guard: Guard) -> Iterator[list[bool]]:
    """While the viser server is made in this block, its websockets server checks every request.

    Yields a list that holds True once the check was put in place (the caller refuses to
    serve otherwise: a viser that no longer builds its server this way is not let run open).
    Every frame a page sends is checked too (:class:`PageMessages`), and what the server
    logs or its event loop reports is one notice, never a traceback.
    """
    with viser_adapter.serve_replaced(
        guard.messages.checked,
        guard.process_request,
        _loop_error,
        max_size=PAGE_MESSAGE_LIMIT,
        logger=_server_logger(),
    ) as installed:
        yield installed


__all__ = [
    "Guard",
    "HostError",
    "PageMessages",
    "check_host",
    "guarded_server",
    "is_loopback",
    "is_wildcard",
    "parse_authority",
    "token_for",
]
