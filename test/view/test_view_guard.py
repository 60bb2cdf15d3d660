"""Who may use the viewer's page: its own origin only, no share link, no CPU for nobody, quick exit.

Real websocket clients (the ``websockets`` package the page's server runs on) connect
as a foreign web page would (``Origin: http://evil.example``), as a DNS-rebinding page
would (a foreign ``Host``) and as the page itself does.
"""

from __future__ import annotations

import base64
import ipaddress
import os
import signal
import socket
import time
import urllib.error
import urllib.request
import warnings
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from support.browser import ViewerClient, free_port, view_process
from support.cli import cli

from motion_formats_ros import view, write
from motion_formats_ros.core.examples import biped_urdf, biped_walk
from motion_formats_ros.view.addresses import ipv4_from_fib_trie, ipv4_from_ioctl, ipv6_from_if_inet6, local_addresses
from motion_formats_ros.view.guard import Guard, HostError, check_host

pytest.importorskip("viser", reason="needs the view extra (viser)")
websockets = pytest.importorskip("websockets")


@pytest.fixture(scope="module")
def playing(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    urdf = tmp_path_factory.mktemp("guard") / "biped.urdf"
    urdf.write_text(biped_urdf())
    v = view(biped_walk(), urdf=urdf, port=free_port(), announce=False)
    try:
        yield v
    finally:
        v.stop()


def raw_handshake(
    port: int,
    host: str,
    origin: str | None,
    extra: tuple[str, ...] = (),
    address: str = "127.0.0.1",
    path: str = "/",
) -> bytes:
    """Everything the server sends to a websocket handshake until it closes (or 3 s pass)."""
    with socket.create_connection((address, port), timeout=3) as s:
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {host}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
            "Sec-WebSocket-Protocol: viser-v" + __import__("viser").__version__,
        ]
        if origin is not None:
            lines.append(f"Origin: {origin}")
        lines += extra
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        got = b""
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                break
            got += chunk
        return got


def test_a_foreign_origin_is_refused_and_receives_nothing(playing) -> None:  # type: ignore[no-untyped-def]
    port = playing.server.get_port()
    with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
        ViewerClient(playing.url, origin="http://evil.example")
    assert refused.value.response.status_code == 403
    got = raw_handshake(port, f"127.0.0.1:{port}", "http://evil.example")
    assert got.startswith(b"HTTP/1.1 403"), got[:80]
    assert len(got) < 1000  # the refusal, not the scene


@pytest.mark.parametrize(
    "host", ["evil.example:{port}", "127.0.0.1:1", "rebind.attacker.example:{port}", "127.0.0.1.evil.example"]
)
def test_a_foreign_host_is_refused(playing, host: str) -> None:  # type: ignore[no-untyped-def]
    port = playing.server.get_port()
    got = raw_handshake(port, host.format(port=port), None)
    assert got.startswith(b"HTTP/1.1 403"), got[:80]
    assert len(got) < 1000


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost"])
def test_the_pages_own_origin_gets_the_scene(playing, name: str) -> None:  # type: ignore[no-untyped-def]
    port = playing.server.get_port()
    client = ViewerClient(f"http://{name}:{port}", origin=f"http://{name}:{port}")
    try:
        types = {m["type"] for m in client.messages_for(1.5)}
    finally:
        client.close()
    assert "GuiSliderMessage" in types and "MeshMessage" in types, sorted(types)


def test_share_is_off_and_a_share_request_is_dropped(playing, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    import viser._viser

    tunnels: list[object] = []

    class Spy:  # stands in for viser's relay connection: records, reaches nothing
        def __init__(self, *args: object, **kwargs: object) -> None:
            tunnels.append(args)

    monkeypatch.setattr(viser._viser, "ViserTunnel", Spy)
    seen = __import__("threading").Event()
    playing.server._websock_server.register_handler(
        __import__("viser")._messages.ShareUrlRequest, lambda _client, _message: seen.set()
    )
    client = ViewerClient(playing.url, origin=playing.url)
    try:
        theme = [m for m in client.messages_for(1.0) if m["type"] == "ThemeConfigurationMessage"]
        client.send({"type": "ShareUrlRequest"})
        assert seen.wait(10), "the request did not arrive"
        client.messages_for(0.5)
    finally:
        client.close()
    assert theme and theme[-1]["show_share_button"] is False
    assert tunnels == [] and playing.server._share_tunnel is None


def test_an_address_beyond_this_machine_is_printed_with_a_warning(capsys: pytest.CaptureFixture[str]) -> None:
    v = view(biped_walk(), host="0.0.0.0", port=free_port(), paused=True)
    try:
        out, err = capsys.readouterr()
        assert v.url in out
        assert err.startswith("warning: the page is served on 0.0.0.0, not only on this machine"), err
    finally:
        v.stop()
    v = view(biped_walk(), port=free_port(), paused=True)
    try:
        out, err = capsys.readouterr()
        assert out.startswith("viewing") and v.url in out and "wait()" in out and err == ""
    finally:
        v.stop()


def test_guard_rules() -> None:
    g = Guard("127.0.0.1", check_host("127.0.0.1"))
    assert g.refusal({"Host": "127.0.0.1:80"}) == (403, "the viewer is starting")
    g.port = 8080
    assert g.refusal({"Host": "LOCALHOST:8080", "Origin": "http://localhost:8080"}) is None
    assert g.refusal({"Host": "[::1]:8080"}) is None
    assert g.refusal({"Host": "127.0.0.1:8080"}) is None  # no Origin: not a web page
    assert g.refusal({"Host": "127.0.0.1:8080", "Origin": "null"}) is not None
    assert g.refusal({"Host": "127.0.0.1:8080", "Origin": "https://127.0.0.1:8080"}) is not None
    assert g.refusal({"Host": "127.0.0.1:8080", "Origin": "http://127.0.0.1:8081"}) is not None
    assert g.refusal({"Host": "127.0.0.1"}) is not None  # port 80
    assert g.refusal({}) is not None
    wild = Guard("0.0.0.0", check_host("0.0.0.0"))
    wild.port = 9000
    assert wild.refusal({"Host": "192.168.1.7:9000", "Origin": "http://192.168.1.7:9000"}) is None
    assert wild.refusal({"Host": "evil.example:9000"}) is not None
    with pytest.raises(HostError, match=r"^--host 256\.1\.1\.1: not an IP address or a host name$"):
        check_host("256.1.1.1")


def test_bad_host_and_speed_are_one_line(tmp_path: Path) -> None:
    motion = tmp_path / "walk.omf.msgpack"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(), motion)
    code, _out, err, _ = cli("view", motion, "--no-browser", "--host", "256.1.1.1", blocked=())
    assert code == 1 and err.strip() == "error: --host 256.1.1.1: not an IP address or a host name", err
    for speed in ("nan", "0", "-1", "9"):
        code, _out, err, _ = cli("view", motion, "--no-browser", "--speed", speed, blocked=())
        assert code == 2 and "Traceback" not in err, err
        assert err.strip().splitlines()[-1].endswith(f"argument --speed: {speed}: expected a number from 0.1 to 4")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.fixture
def command(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A playing `view` process with no page open: (process, port)."""
    with view_process(tmp_path) as (proc, port):
        yield proc, port


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the CPU time from /proc")
def test_a_playing_viewer_nobody_watches_uses_no_cpu(command) -> None:  # type: ignore[no-untyped-def]
    proc, _port = command
    line = proc.stdout.readline()  # the safety check the page runs is done (the one thing it computes)
    assert line.startswith("check: "), line
    before = _cpu_seconds(proc.pid)
    time.sleep(3)
    used = _cpu_seconds(proc.pid) - before
    assert used < 0.1, f"{used:.2f} s of CPU in 3 s with no page open"


def test_a_stalled_client_does_not_delay_exit(command) -> None:  # type: ignore[no-untyped-def]
    proc, port = command
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(
            (
                f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                f"Sec-WebSocket-Protocol: viser-v{__import__('viser').__version__}\r\n\r\n"
            ).encode()
        )
        assert s.recv(12) == b"HTTP/1.1 101"  # connected; this client never reads or answers again
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        took = time.monotonic() - start
    assert proc.returncode == 0
    assert took < 3.0, f"{took:.1f} s to exit with a stalled client"


# ---------------------------------------------------------------- served on every interface
def _outside_address() -> str | None:
    """This machine's address toward the outside (the source a UDP socket would use; nothing is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered, only routed
        except OSError:
            return None
        return str(s.getsockname()[0])


def test_this_machines_addresses_are_its_interfaces() -> None:
    found = local_addresses()
    assert ipaddress.ip_address("127.0.0.1") in found and ipaddress.ip_address("::1") in found
    assert ipv4_from_ioctl() <= found  # each interface's own address, asked of the kernel
    outside = _outside_address()
    if outside is not None:
        assert ipaddress.ip_address(outside) in found
    assert ipaddress.ip_address("203.0.113.66") not in found and ipaddress.ip_address("8.8.8.8") not in found


def test_the_kernels_listings_are_read() -> None:
    trie = """Main:
  +-- 0.0.0.0/0 3 0 5
     |-- 0.0.0.0
        /0 universe UNICAST
     +-- 127.0.0.0/8 2 0 2
        +-- 127.0.0.0/31 1 0 0
           |-- 127.0.0.0
              /8 host LOCAL
           |-- 127.0.0.1
              /32 host LOCAL
        |-- 127.255.255.255
           /32 link BROADCAST
     +-- 10.1.0.0/16 2 0 2
           |-- 10.1.0.0
              /16 link UNICAST
           |-- 10.1.2.3
              /32 host LOCAL
           |-- 10.1.9.9
              /32 host LOCAL
"""
    assert ipv4_from_fib_trie(trie) == {ipaddress.IPv4Address(a) for a in ("127.0.0.1", "10.1.2.3", "10.1.9.9")}
    inet6 = (
        "00000000000000000000000000000001 01 80 10 80       lo\n"
        "fe8000000000000000fc00fffe000001 04 40 20 80     eth0\n"
        "garbage\n"
    )
    assert ipv6_from_if_inet6(inet6) == {ipaddress.IPv6Address("::1"), ipaddress.IPv6Address("fe80::fc:ff:fe00:1")}


def test_on_every_interface_an_origin_is_this_machine_or_the_host() -> None:
    wild = Guard("0.0.0.0", check_host("0.0.0.0"))
    wild.port = 9000
    own = sorted(str(a) for a in local_addresses() if a.version == 4 and not a.is_loopback) or ["127.0.0.1"]
    for foreign in ("203.0.113.66", "8.8.8.8"):
        assert wild.refusal({"Host": "127.0.0.1:9000", "Origin": f"http://{foreign}:9000"}) is not None
        assert wild.refusal({"Host": f"{own[0]}:9000", "Origin": f"http://{foreign}:9000"}) is not None
    assert wild.refusal({"Host": "127.0.0.1:9000", "Origin": f"http://{own[0]}:9000"}) is None
    # A forwarded port: the page is reached (and so named in Host and Origin alike) through the forwarder.
    assert wild.refusal({"Host": "198.51.100.7:9000", "Origin": "http://198.51.100.7:9000"}) is None
    assert wild.refusal({"Host": "198.51.100.7:9000", "Origin": "http://198.51.100.8:9000"}) is not None
    assert wild.refusal({"Host": "127.0.0.1:9000", "Origin": f"http://{own[0]}:9001"}) is not None


@pytest.mark.parametrize(("host", "loopback"), [("0.0.0.0", "127.0.0.1"), ("::", "::1")])
def test_a_page_of_a_foreign_address_gets_nothing_from_every_interface(
    tmp_path: Path, host: str, loopback: str
) -> None:
    here = f"[{loopback}]" if ":" in loopback else loopback
    with view_process(tmp_path, "--host", host) as (proc, port):
        for origin in (f"http://203.0.113.66:{port}", f"http://8.8.8.8:{port}"):
            got = raw_handshake(port, f"{here}:{port}", origin, address=loopback)
            assert got.startswith(b"HTTP/1.1 403"), got[:80]
            assert len(got) < 1000  # the refusal, not the scene
        page = urlsplit(proc.url)
        got = raw_handshake(port, f"{here}:{port}", f"http://{here}:{port}", address=loopback)
        assert got.startswith(b"HTTP/1.1 403"), got[:80]  # the page's own origin, but no token
        path = f"/?{page.query}"
        got = raw_handshake(port, f"{here}:{port}", f"http://{here}:{port}", address=loopback, path=path)
        assert got.startswith(b"HTTP/1.1 101") and len(got) > 10000  # the page itself: the scene
    assert "Traceback" not in proc.stderr_text, proc.stderr_text


@pytest.mark.parametrize(
    "host",
    [
        "localhost..:{port}",
        "127.0.0.1:{port} ",
        " 127.0.0.1:{port}",
        "local host:{port}",
        "127.1:{port}",
        "[127.0.0.1]:{port}",
        "-localhost:{port}",
        "localhost:+{port}",
        "localhost:{port}:{port}",
    ],
)
def test_a_host_that_is_not_exactly_an_address_and_the_port_is_refused(host: str) -> None:
    g = Guard("127.0.0.1", check_host("127.0.0.1"))
    g.port = 8080
    assert g.refusal({"Host": host.format(port=8080)}) is not None
    assert g.refusal({"Host": "127.0.0.1:8080", "Origin": "http://" + host.format(port=8080)}) is not None


@pytest.mark.parametrize("host", ["localhost.:8080", "LocalHost:8080", "[::1]:8080", "[0:0:0:0:0:0:0:1]:8080"])
def test_the_spellings_of_the_served_address_are_let_in(host: str) -> None:
    g = Guard("127.0.0.1", check_host("127.0.0.1"))
    g.port = 8080
    assert g.refusal({"Host": host, "Origin": f"http://{host}"}) is None


def test_a_header_given_twice_or_a_sloppy_host_gets_a_refusal_not_an_error(tmp_path: Path) -> None:
    with view_process(tmp_path) as (proc, port):
        here = f"127.0.0.1:{port}"
        for host, origin, extra in (
            (here, None, (f"Host: {here}",)),
            (here, f"http://{here}", (f"Origin: http://{here}",)),
            (here, f"http://{here}", ("Upgrade: websocket",)),
        ):
            got = raw_handshake(port, host, origin, extra)
            assert got.startswith(b"HTTP/1.1 400"), got[:80]
        # (Spaces around a header's value are not part of it in HTTP: the parser drops them.)
        for host in (f"localhost..:{port}", f"127.0.0.1 :{port}", f"127.0.0.1:{port} x"):
            got = raw_handshake(port, host, None)
            assert got.startswith(b"HTTP/1.1 403"), (host, got[:80])
        assert raw_handshake(port, here, f"http://{here}").startswith(b"HTTP/1.1 101")
    assert "Traceback" not in proc.stderr_text, proc.stderr_text


# --------------------------------------------------------------------------- the token beyond this machine
def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of a real HTTP GET (an error status too)."""
    request = urllib.request.Request(url, headers=headers or {})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=20) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


@pytest.mark.parametrize(("host", "loopback"), [("0.0.0.0", "127.0.0.1"), ("::", "[::1]")])
def test_a_page_served_beyond_this_machine_asks_for_its_token(host: str, loopback: str) -> None:
    """Served on every interface, the page and its websocket need the random token of the address
    printed (in the query, or the cookie the first answer sets): without it, or with another, 403."""
    v = view(biped_walk(), host=host, port=free_port(), paused=True, announce=False)
    try:
        port = v.server.get_port()
        token = v.guard.token
        assert token is not None and len(token) >= 32 and v.url.endswith(f":{port}/?token={token}")
        base = f"http://{loopback}:{port}"
        other = token[:-1] + ("A" if token[-1] != "A" else "B")  # as long, one character off
        for url in (f"{base}/", f"{base}/?token={other}", f"{base}/?token=", f"{base}/?token={token}&token={token}"):
            status, _, body = _get(url)
            assert status == 403 and b"token" in body and len(body) < 200, (url, status, body[:80])
        status, headers, body = _get(f"{base}/?token={token}")
        assert status == 200 and b"<html" in body[:200].lower()
        cookie = headers["Set-Cookie"]
        assert (
            cookie.startswith(f"motion_view_{port}={token};") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        )
        status, _, _ = _get(f"{base}/", {"Cookie": cookie.split(";")[0]})
        assert status == 200  # the cookie is the token for the page's later requests
        status, _, _ = _get(f"{base}/", {"Cookie": f"motion_view_{port}={other}"})
        assert status == 403
        with pytest.raises(websockets.exceptions.InvalidStatus) as refused:
            ViewerClient(base, origin=base)
        assert refused.value.response.status_code == 403
        for url, cookie_header in ((f"{base}/?token={token}", None), (base, f"motion_view_{port}={token}")):
            client = ViewerClient(url, origin=base, cookie=cookie_header)
            try:
                types = {m["type"] for m in client.messages_for(1.5)}
            finally:
                client.close()
            assert "GuiSliderMessage" in types, sorted(types)
    finally:
        v.stop()


def test_on_the_loopback_no_token_is_asked() -> None:
    v = view(biped_walk(), port=free_port(), paused=True, announce=False)
    try:
        port = v.server.get_port()
        assert v.guard.token is None and v.url == f"http://127.0.0.1:{port}"
        status, headers, _ = _get(v.url + "/")
        assert status == 200 and "Set-Cookie" not in headers
    finally:
        v.stop()


def test_each_viewer_beyond_this_machine_prints_its_own_token(tmp_path: Path) -> None:
    tokens = []
    for run in ("a", "b"):
        (tmp_path / run).mkdir()
        with view_process(tmp_path / run, "--host", "0.0.0.0") as (proc, port):
            found = urlsplit(proc.url)
            assert (found.hostname, found.port, found.path) == ("0.0.0.0", port, "/") and found.query.startswith(
                "token="
            )
            tokens.append(found.query)
            warning = proc.stderr.readline()
        assert "with the address above (its token)" in warning, warning + proc.stderr_text
    assert tokens[0] != tokens[1]


def test_guard_token_rules() -> None:
    g = Guard("0.0.0.0", check_host("0.0.0.0"), token="s3cret-token")
    g.port = 9000
    here = {"Host": "127.0.0.1:9000", "Origin": "http://127.0.0.1:9000"}
    assert g.refusal(here) == (403, "no token, or not the viewer's: open the address it printed")
    assert g.refusal(here, "/?token=s3cret-token") is None
    assert g.refusal(here, "/?token=s3cret-tokeN") is not None
    assert g.refusal(here, "/?token=s3cret-token-and-more") is not None
    assert g.refusal(here, "/assets/x.js?token=s3cret-token") is None
    assert g.refusal({**here, "Cookie": "a=b; motion_view_9000=s3cret-token"}) is None
    assert g.refusal({**here, "Cookie": "motion_view_9001=s3cret-token"}) is not None  # another viewer's
    assert g.refusal({**here, "Cookie": 'motion_view_9000="s3cret-token'}) is not None
    assert g.refusal({"Host": "evil.example:9000"}, "/?token=s3cret-token") is not None  # the token is not all
    from motion_formats_ros.view.guard import token_for

    assert token_for("127.0.0.1", ("127.0.0.1",)) is None and token_for("localhost", ("127.0.0.1", "::1")) is None
    assert token_for("::", ("::",)) != token_for("::", ("::",))


@pytest.mark.slow
def test_a_browser_opens_the_page_beyond_this_machine_with_its_token_only(tmp_path: Path) -> None:
    """Headless Chromium: the address without the token shows the refusal; the printed address
    shows the page (its websocket connects); afterwards the address without the token works
    too, through the cookie the page's first answer set."""
    from support.browser import NO_CHROMIUM, Chromium, chromium_binary

    if chromium_binary() is None:
        pytest.skip(NO_CHROMIUM)
    connected = "document.body && document.body.innerText.includes('t = ')"
    with view_process(tmp_path, "--host", "0.0.0.0") as (proc, port):
        printed = proc.url.replace("0.0.0.0", "127.0.0.1", 1)
        browser = Chromium(960, 600, timeout=300)
        try:
            browser.navigate(f"http://127.0.0.1:{port}/")
            assert "no token" in browser.wait_for("document.body && document.body.innerText", timeout=60)
            browser.navigate(printed)
            browser.wait_for(connected, timeout=300)
            browser.navigate("about:blank")
            browser.wait_for("location.href === 'about:blank'")
            browser.navigate(f"http://127.0.0.1:{port}/")
            browser.wait_for(connected, timeout=300)
        finally:
            browser.close()
