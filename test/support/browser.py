"""Headless Chromium driven over its DevTools protocol, for the tests of web pages.

Chromium renders WebGL in software (SwiftShader through ANGLE), listens for DevTools
on 127.0.0.1 only and gets a proxy that does not exist for every address but the
loopback one, so a page under test can reach nothing beyond this machine. The client is
a small synchronous JSON-over-websocket loop (``websockets``, which the viewer's viser
already depends on).
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

#: Why the browser tests skip when there is no browser.
NO_CHROMIUM = "needs Debian's chromium (make installs it with apt-get when run as root)"


def chromium_binary() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """One headless Chromium with one page; ``close()`` ends it."""

    def __init__(self, width: int = 1280, height: int = 800, timeout: float = 20.0) -> None:
        binary = chromium_binary()
        if binary is None:
            raise RuntimeError(NO_CHROMIUM)
        self.profile = Path(tempfile.mkdtemp(prefix="mfr-chromium-"))
        args = [
            binary,
            "--headless=new",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
            "--no-sandbox",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}",
            "--hide-scrollbars",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-domain-reliability",
            "--disable-client-side-phishing-detection",
            "--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider",
            "--no-pings",
            "--dns-prefetch-disable",
            # Anything but the loopback goes to a proxy that is not there.
            "--proxy-server=http://127.0.0.1:9",
            "about:blank",
        ]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._ids = itertools.count(1)
        self.ws: Any = None
        try:
            port = self._devtools_port(timeout)
            self.ws = self._connect(port, timeout)
            # The page gets exactly this viewport (the window's size includes its frame).
            self.call(
                "Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False
            )
        except BaseException:
            self.close()
            raise

    def _devtools_port(self, timeout: float) -> int:
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"chromium exited with status {self.proc.returncode}")
            with contextlib.suppress(OSError, ValueError, IndexError):
                return int(marker.read_text().splitlines()[0])
            time.sleep(0.05)
        raise TimeoutError("chromium did not open its DevTools port")

    def _connect(self, port: int, timeout: float) -> Any:
        from websockets.sync.client import connect

        deadline = time.monotonic() + timeout
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as r:
                pages = [t for t in json.load(r) if t.get("type") == "page"]
            if pages or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if not pages:
            raise RuntimeError("chromium has no page")
        return connect(pages[0]["webSocketDebuggerUrl"], max_size=None, open_timeout=timeout)

    def call(self, method: str, timeout: float = 90.0, **params: Any) -> dict[str, Any]:
        """One DevTools command; its result (events in between are dropped)."""
        ident = next(self._ids)
        self.ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to {method}")
            message = json.loads(self.ws.recv(timeout=left))
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))

    def navigate(self, url: str) -> None:
        self.call("Page.enable")
        self.call("Page.navigate", url=url)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:60]}…: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 20.0, interval: float = 0.1) -> Any:
        """Poll until the expression is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(RuntimeError):
                value = self.evaluate(expression)
                if value:
                    return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout} s for {expression}")
            time.sleep(interval)

    def text(self) -> str:
        return str(self.evaluate("document.body ? document.body.innerText : ''") or "")

    def screenshot(self) -> bytes:
        data = self.call("Page.captureScreenshot", format="png")["data"]
        return base64.b64decode(data)

    def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                self.ws.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def free_port() -> int:
    """A port nothing listens on at 127.0.0.1 now."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def view_process(folder: Path, *args: str) -> Any:
    """A running ``motion-formats view`` of the example walk on its biped (no browser): (process, port).

    ``args`` are more command-line arguments (``--host 0.0.0.0`` …). Its standard output
    and error are pipes; ``process.url`` is the address it printed; once the block ends the
    process is killed if it still runs, and ``process.stderr_text`` holds everything it
    printed on standard error.
    """
    import sys
    import warnings

    from motion_formats_ros import write
    from motion_formats_ros.core.examples import biped_urdf, biped_walk

    motion = folder / "walk.omf.msgpack"
    urdf = folder / "biped.urdf"
    urdf.write_text(biped_urdf())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        write(biped_walk(), motion, overwrite=True)
    port = free_port()
    command = [str(Path(sys.executable).parent / "motion-formats"), "view", str(motion), "--urdf", str(urdf)]
    proc = subprocess.Popen(
        [*command, "--no-browser", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "viewing" in line, line + proc.communicate()[1]
    proc.url = line.split(" at ", 1)[1].split()[0]  # type: ignore[attr-defined]
    try:
        yield proc, port
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr_text = proc.communicate()[1]  # type: ignore[attr-defined]


class ViewerClient:
    """A websocket client of a viewer's page, as the page's script is (without a browser).

    Counts the bytes it receives and decodes viser's frames (zstd-compressed msgpack
    followed by raw arrays) into their messages, to see what a page is sent.
    """

    def __init__(
        self,
        url: str,
        origin: str | None = None,
        host: str | None = None,
        timeout: float = 20.0,
        cookie: str | None = None,
    ) -> None:
        import viser
        from websockets.sync.client import connect

        headers = {"Host": host} if host else {}
        if cookie:
            headers["Cookie"] = cookie
        self.ws = connect(
            url.replace("http://", "ws://", 1),
            subprotocols=[f"viser-v{viser.__version__}"],  # type: ignore[list-item]
            origin=origin,  # type: ignore[arg-type]
            additional_headers=headers or None,
            max_size=None,
            open_timeout=timeout,
        )
        self.received = 0

    def frame(self, timeout: float) -> list[dict[str, Any]] | None:
        """The messages of the next frame (None when none came within ``timeout``)."""
        import msgspec
        import zstandard

        try:
            raw = self.ws.recv(timeout=timeout)
        except TimeoutError:
            return None
        assert isinstance(raw, bytes)
        self.received += len(raw)
        size, packed = int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:16], "little")
        inner = msgspec.msgpack.decode(zstandard.ZstdDecompressor().decompress(raw[16 : 16 + packed], size))
        return list(inner["messages"])

    def messages_for(self, seconds: float) -> list[dict[str, Any]]:
        """Every message received in the next ``seconds``."""
        out: list[dict[str, Any]] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            out += self.frame(min(left, 0.5)) or []
        return out

    def send(self, message: dict[str, Any]) -> None:
        """A message to the server, as the page sends them (msgpack with its ``type``)."""
        import msgspec

        self.ws.send(msgspec.msgpack.encode(message))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ws.close()


__all__ = ["NO_CHROMIUM", "Chromium", "ViewerClient", "chromium_binary", "free_port", "view_process"]


if __name__ == "__main__":  # a quick look: python test/support/browser.py URL out.png
    import sys

    browser = Chromium()
    try:
        browser.navigate(sys.argv[1])
        time.sleep(float(os.environ.get("WAIT", "4")))
        Path(sys.argv[2]).write_bytes(browser.screenshot())
    finally:
        browser.close()
