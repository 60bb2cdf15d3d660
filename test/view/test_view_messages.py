"""What a page sends the viewer: a malformed frame closes its connection with one line, never a traceback.

A real ``motion-formats view`` process is sent each kind of bad frame by a real websocket
client that came through the guard as the page itself does; the process goes on serving
the page open beside it and new ones, and what it prints on standard error is one notice
per bad frame.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

import pytest
from support.browser import ViewerClient, view_process

pytest.importorskip("viser", reason="needs the view extra (viser)")
websockets = pytest.importorskip("websockets")
msgspec = pytest.importorskip("msgspec")

CAMERA = {
    "type": "ViewerCameraMessage",
    "wxyz": [1.0, 0.0, 0.0, 0.0],
    "position": [1.0, 1.0, 1.0],
    "fov": 1.0,
    "near": 0.01,
    "far": 100.0,
    "image_height": 600,
    "image_width": 800,
    "look_at": [0.0, 0.0, 0.0],
    "up_direction": [0.0, 0.0, 1.0],
}


class Served:
    """The running viewer, its page's GUI elements by label, and a page that stays open beside."""

    def __init__(self, proc: Any, port: int) -> None:
        self.proc = proc
        self.url = f"http://127.0.0.1:{port}"
        self.refused = 0  # connections closed for what they sent
        self.dropped = 0  # messages dropped, their connection kept
        self.bystander = self.page()
        messages = self.bystander.messages_for(1.5)
        self.elements = {(m["type"], (m.get("props") or {}).get("label")): m["uuid"] for m in messages if "uuid" in m}

    def page(self) -> ViewerClient:
        """A new page: connected as the browser's page is, its camera sent (viser then runs GUI callbacks)."""
        client = ViewerClient(self.url, origin=self.url)
        client.send(CAMERA)
        return client

    def update(self, kind: str, label: str, updates: dict[str, Any]) -> dict[str, Any]:
        return {"type": "GuiUpdateMessage", "uuid": self.elements[(kind, label)], "updates": updates}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    with view_process(tmp_path_factory.mktemp("messages")) as (proc, port):
        yield Served(proc, port)
        proc.terminate()
        proc.wait(timeout=30)


def closed_with(client: ViewerClient, timeout: float = 10.0) -> int | None:
    """The close code the server sent (None: still open after ``timeout``)."""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            client.frame(0.2)
    except websockets.exceptions.ConnectionClosed as exc:
        return exc.rcvd.code if exc.rcvd is not None else -1
    finally:
        client.close()
    return None


def _pack(message: Any) -> bytes:
    return bytes(msgspec.msgpack.encode(message))


BAD_FRAMES: dict[str, tuple[Any, int]] = {
    "not msgpack": (b"\xc1\xc1 no MessagePack", 1007),
    "msgpack of a list": (_pack([1, 2, 3]), 1007),
    "a map without its type": (_pack({"uuid": "x"}), 1007),
    "an unknown message type": (_pack({"type": "NoSuchMessage"}), 1007),
    "a text frame": ("GuiUpdateMessage", 1003),
    "a field of the wrong type": (_pack({"type": "GuiUpdateMessage", "uuid": 5, "updates": 3}), 1007),
    "a missing field": (_pack({"type": "GuiUpdateMessage"}), 1007),
    "an unknown field": (_pack({"type": "ShareUrlRequest", "extra": 1}), 1007),
    "a huge frame": (b"\x00" * (2 << 20), 1009),
    "msgpack nested too deep": (
        b"\x82" + _pack("type") + _pack("FogMessage") + _pack("near") + b"\x91" * 200_000 + b"\xc0",
        1007,
    ),
    "a number that is not finite": (_pack({**CAMERA, "fov": float("nan")}), 1007),
    "a camera without an up direction": (_pack({**CAMERA, "up_direction": [0.0, 0.0, 0.0]}), 1007),
}


@pytest.mark.parametrize("name", list(BAD_FRAMES))
def test_a_malformed_frame_closes_its_connection(served: Served, name: str) -> None:
    frame, code = BAD_FRAMES[name]
    client = served.page()
    client.ws.send(frame)
    assert closed_with(client) == code
    served.refused += 1


@pytest.mark.parametrize(
    ("kind", "label", "updates"),
    [
        ("GuiSliderMessage", "time (s)", {"nosuch": 1}),  # a property the element does not have
        ("GuiSliderMessage", "time (s)", {"min": "abc"}),  # a property a page never sets
        ("GuiSliderMessage", "time (s)", {"value": float("nan")}),
        ("GuiSliderMessage", "time (s)", {"value": "abc"}),
        ("GuiSliderMessage", "speed (×)", {"value": float("inf")}),
        ("GuiButtonGroupMessage", "view", {"value": 3}),
        ("GuiNumberMessage", "frame", {"value": "abc"}),
        ("GuiCheckboxMessage", "loop", {"value": "abc"}),
    ],
)
def test_a_gui_update_of_the_wrong_kind_closes_its_connection(
    served: Served, kind: str, label: str, updates: dict[str, Any]
) -> None:
    client = served.page()
    client.send(served.update(kind, label, updates))
    assert closed_with(client) == 1008
    served.refused += 1


@pytest.mark.parametrize(
    ("kind", "label", "value"),
    [
        ("GuiSliderMessage", "speed (×)", 0.0),  # typed into the slider's box: out of its range
        ("GuiSliderMessage", "speed (×)", 9),
        ("GuiNumberMessage", "frame", 0),  # typed into the frame field: before the first frame
        ("GuiNumberMessage", "frame", 10**6),
        ("GuiButtonGroupMessage", "view", "evil"),
    ],
)
def test_a_value_out_of_the_elements_range_or_choices_is_dropped(
    served: Served, kind: str, label: str, value: Any
) -> None:
    client = served.page()
    client.send(served.update(kind, label, {"value": value}))
    client.send(served.update("GuiButtonGroupMessage", "view", {"value": "front"}))
    assert closed_with(client, timeout=2.0) is None
    served.dropped += 1


def test_the_pages_own_messages_pass(served: Served) -> None:
    client = served.page()
    client.send(served.update("GuiButtonGroupMessage", "view", {"value": "front"}))
    client.send(served.update("GuiSliderMessage", "speed (×)", {"value": 2}))
    client.send(served.update("GuiCheckboxMessage", "loop", {"value": True}))
    assert closed_with(client, timeout=2.0) is None


def test_a_port_probe_and_a_garbled_request_print_nothing(tmp_path: Path) -> None:
    """Before any page came (nothing has quieted the server's log yet): a probe, then a request that is no HTTP."""
    with view_process(tmp_path) as (proc, port):
        with socket.create_connection(("127.0.0.1", port)):
            pass  # connected, then closed without a word
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"\x16\x03\x01 not HTTP\r\n\r\n")
            s.recv(1024)
        client = ViewerClient(f"http://127.0.0.1:{port}", origin=f"http://127.0.0.1:{port}")
        try:
            assert client.messages_for(1.0), "the page got nothing after the probe"
        finally:
            client.close()
        proc.terminate()
        proc.wait(timeout=30)
    err = proc.stderr_text
    assert "Traceback" not in err, err
    assert all(line.startswith("warning: viewer: ") for line in err.splitlines()[:-1]), err


def test_the_viewer_went_on_and_printed_one_line_each(served: Served) -> None:
    """Last in this module: the page open throughout still plays, a new page gets the scene, stderr is lines."""
    assert served.bystander.messages_for(1.0), "the page open beside got nothing"
    fresh = served.page()
    try:
        types = {m["type"] for m in fresh.messages_for(1.5)}
    finally:
        fresh.close()
    assert {"MeshMessage", "GuiSliderMessage"} <= types
    served.bystander.close()
    served.proc.terminate()
    served.proc.wait(timeout=30)
    err = served.proc.stderr.read()
    assert "Traceback" not in err, err
    lines = err.splitlines()
    assert lines and lines[-1] == "stopped", err
    notices = lines[:-1]
    assert all(line.startswith("warning: viewer: ") for line in notices), err
    assert sum("its connection is closed" in line for line in notices) == served.refused, err
    assert sum(line.endswith("; the message is dropped") for line in notices) == served.dropped, err


def test_a_flood_of_bad_values_prints_a_bounded_number_of_lines(tmp_path: Path) -> None:
    from motion_formats_ros.view.guard import NOTICE_LIMIT

    with view_process(tmp_path) as (proc, port):
        served = Served(proc, port)
        for k in range(NOTICE_LIMIT + 50):
            served.bystander.send(served.update("GuiSliderMessage", "speed (×)", {"value": 10.0 + k}))
        assert closed_with(served.bystander, timeout=2.0) is None  # dropped, one by one, the page kept
        proc.terminate()
        proc.wait(timeout=30)
    lines = proc.stderr_text.splitlines()
    assert len(lines) == NOTICE_LIMIT + 2, proc.stderr_text[-2000:]  # the limit, the line saying so, "stopped"
    assert lines[-2] == f"warning: viewer: {NOTICE_LIMIT} notices printed; the next ones are not"


def test_pages_of_another_viser_version_are_refused_in_a_few_lines(tmp_path: Path) -> None:
    """A page left open from another viewer retries all the time: one line, then a count, never viser's own print."""
    from websockets.sync.client import connect

    with view_process(tmp_path) as (proc, port):
        url = f"ws://127.0.0.1:{port}"
        codes = []
        for _ in range(12):
            with connect(url, subprotocols=["viser-v0.0.1"], origin=f"http://127.0.0.1:{port}") as ws:  # type: ignore[list-item]
                try:
                    ws.recv(timeout=5)
                except websockets.exceptions.ConnectionClosed as exc:
                    codes.append((exc.rcvd.code, exc.rcvd.reason) if exc.rcvd is not None else None)
        page = ViewerClient(f"http://127.0.0.1:{port}", origin=f"http://127.0.0.1:{port}")
        try:
            assert page.messages_for(1.0), "a page of this version got nothing"
        finally:
            page.close()
        proc.terminate()
        proc.wait(timeout=30)
        out = proc.stdout.read()
    err = proc.stderr_text
    assert codes == [(1002, f"Version mismatch. Client: 0.0.1, Server: {viser_version()}")] * 12, codes
    assert "Version mismatch" not in out, out
    lines = [line for line in err.splitlines() if "viser" in line]
    assert len(lines) == 2, err
    assert "a page of viser 0.0.1" in lines[0] and lines[0].startswith("warning: viewer: page 127.0.0.1:"), err
    assert lines[1] == "warning: viewer: 10 connections of pages of another viser version refused so far", err


def viser_version() -> str:
    import viser

    return str(viser.__version__)
