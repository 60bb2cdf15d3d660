"""Everything the viewer takes from viser and websockets beyond their public API, in one place.

Written against viser 1.1.1 and websockets 16.1 (viser 1.1.1 admits websockets 13.1 to 16);
the ``view`` extra admits viser below 1.2 only. What is used here that neither library
promises:

- viser's websocket server (``ViserServer._websock_server``): its live connections, its
  event loop and its message handlers;
- viser's GUI inputs by id (``GuiApi._gui_input_handle_from_uuid``) and the slider's marks
  (``_marks``, of type ``viser._messages.GuiSliderMark``), which the slider only takes when
  it is made;
- viser's share messages (``viser._messages.ShareUrlRequest`` / ``ShareUrlDisconnect``);
- viser's version check of a page (its websocket subprotocol ``viser-v<version>`` must be
  the server's version; viser prints a line for each page it refuses and closes it with
  code 1002), which is done here first so that viser never prints;
- that viser builds its server with ``websockets.asyncio.server.serve``, which is replaced
  while a viewer's server is made, and that it reads a page's frames with the
  connection's ``recv``, which is replaced on each connection.

A viser release that changes any of these breaks here, and the viewer refuses to serve
rather than serve unchecked (:func:`serve_replaced` reports whether its ``serve`` was used).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

#: Serializes the viewers being built (the replaced ``serve`` is module-wide while it lasts).
_BUILD_LOCK = threading.Lock()


@contextlib.contextmanager
def serve_replaced(
    wrap_handler: Callable[[Callable[..., Any]], Callable[..., Any]],
    wrap_request: Callable[[Callable[..., Any] | None], Callable[..., Any]],
    loop_errors: Callable[[Any, dict[str, Any]], None],
    **options: Any,
) -> Iterator[list[bool]]:
    """While a viser server is made in this block, the websockets server it builds is ours.

    Its connection handler is ``wrap_handler(viser's)``, its ``process_request``
    ``wrap_request(viser's)``, ``options`` (``max_size``, ``logger`` …) are set, and its
    event loop's errors go to ``loop_errors``. Yields a list that holds True once such a
    server was built.
    """
    import websockets.asyncio.server as ws_server

    installed: list[bool] = []
    original = ws_server.serve

    class WrappedServe(original):  # type: ignore[misc,valid-type]
        def __init__(
            self,
            handler: Callable[..., Any],
            *args: Any,
            process_request: Callable[..., Any] | None = None,
            **kwargs: Any,
        ) -> None:
            kwargs.update(options)
            super().__init__(wrap_handler(handler), *args, process_request=wrap_request(process_request), **kwargs)
            asyncio.get_running_loop().set_exception_handler(loop_errors)
            installed.append(True)

    with _BUILD_LOCK:
        ws_server.serve = WrappedServe  # type: ignore[misc]
        try:
            yield installed
        finally:
            ws_server.serve = original  # type: ignore[misc]


def replace_recv(connection: Any, recv: Callable[..., Any]) -> None:
    """Make ``recv`` what viser's reading loop calls for the frames of ``connection``."""
    connection.recv = recv


#: The close code and reason viser gives a page of another viser version (its page shows the reason).
_OTHER_VERSION_CODE = 1002


async def refuse_other_version(connection: Any) -> tuple[str, str] | None:
    """Close the connection of a page of another viser version as viser does, without its printed line.

    Returns the page's version and the server's when the page was refused, else None.
    """
    import viser

    protocol = connection.subprotocol
    client = (
        protocol[len("viser-v") :].strip() if protocol is not None and protocol.startswith("viser-v") else "unknown"
    )
    if client == viser.__version__:
        return None
    await connection.close(_OTHER_VERSION_CODE, f"Version mismatch. Client: {client}, Server: {viser.__version__}")
    return client, str(viser.__version__)


def page_message_types() -> dict[str, Any]:
    """viser's message classes by name (the types a page's frames name)."""
    from viser.infra import Message

    return {cls.__name__: cls for cls in Message.get_subclasses() if dataclasses.is_dataclass(cls)}


def gui_inputs(server: Any) -> Callable[[str], Any]:
    """A lookup of ``server``'s GUI input elements by id (None for an id it does not know)."""
    lookup: Callable[[str], Any] = server.gui._gui_input_handle_from_uuid.get
    return lookup


def share_off(server: Any) -> None:
    """Hide viser's Share button and drop every share request from the page."""
    from viser import _messages

    server.gui.configure_theme(show_share_button=False)
    handler = server._websock_server  # the handlers live on viser's websocket server
    for message in (_messages.ShareUrlRequest, _messages.ShareUrlDisconnect):
        with contextlib.suppress(AssertionError, KeyError):
            handler.unregister_handler(message)


def on_connect(server: Any, callback: Callable[[], None]) -> None:
    """Call ``callback`` whenever a page connects to ``server``."""
    server._websock_server.on_client_connect(lambda _connection: callback())


def watched(server: Any) -> bool:
    """Whether a page is connected to ``server`` (its live connections, checked by the guard)."""
    return bool(server._websock_server._live_connections)


def drop_connections(server: Any, timeout: float = 0.5) -> None:
    """Cut every page's connection to ``server`` at once.

    viser's own stop closes each websocket politely and waits for its answer, which a
    client that stopped reading never gives (the server then waits out its timeouts).
    """
    ws = getattr(server, "_websock_server", None)
    loop = getattr(ws, "_background_event_loop", None)
    if ws is None or loop is None or loop.is_closed():
        return

    async def abort() -> None:
        for connection in tuple(ws._live_connections.values()):
            connection.transport.abort()

    with contextlib.suppress(Exception):
        asyncio.run_coroutine_threadsafe(abort(), loop).result(timeout)


def set_slider_marks(slider: Any, marks: Iterable[tuple[float, str | None]]) -> None:
    """Put marks ``(value, label or None)`` on a viser slider that exists already, in value order."""
    from viser._messages import GuiSliderMark

    slider._marks = tuple(GuiSliderMark(float(value), label) for value, label in sorted(marks, key=lambda m: m[0]))


def slider_marks(slider: Any) -> list[tuple[float, str | None]]:
    """The marks ``(value, label or None)`` a viser slider shows."""
    return [(mark.value, mark.label) for mark in slider._marks or ()]


__all__ = [
    "drop_connections",
    "gui_inputs",
    "on_connect",
    "page_message_types",
    "refuse_other_version",
    "replace_recv",
    "serve_replaced",
    "set_slider_marks",
    "share_off",
    "slider_marks",
    "watched",
]
