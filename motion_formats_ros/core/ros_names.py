"""ROS 2's rules for topic names, checked without ROS (a bag written here must hold names ROS accepts).

A topic name is made of tokens separated by ``/``: each token is letters, digits and
``_``, and does not start with a digit; no token is empty (no ``//``) and the name does not
end with ``/``. A fully qualified name, as a bag holds it, starts with ``/``. A relative
name (``joint_states``, ``~/state``, ``{node}/state``), which a node resolves in its
namespace, is judged as it will be once resolved. A fully qualified name is at most
:data:`MAX_LENGTH` characters long (the middleware's limit).
"""

from __future__ import annotations

import re

#: The longest topic name the middleware takes (255 less the prefix DDS adds to a topic).
MAX_LENGTH = 247

_ALLOWED = re.compile(r"[A-Za-z0-9_/]")
#: The substitutions ROS resolves in a topic name (the node's name, its namespace).
_SUBSTITUTION = re.compile(r"\{(node|ns|namespace)\}")


def topic_problem(name: str, *, relative: bool = False) -> str | None:
    """Which rule of ROS 2's topic names ``name`` breaks (one phrase), or None when it is valid.

    Args:
        name: The topic name.
        relative: Accept a name a node resolves (``joint_states``, ``~/state``,
            ``{node}/state``), judged as ROS judges it once resolved (its length aside,
            which depends on the namespace); else the name must be fully qualified (start
            with ``/``), as a bag holds it.
    """
    if not name:
        return "a topic name is not empty"
    qualified = name.startswith("/")
    if relative:
        name = _SUBSTITUTION.sub("s", name)  # a substitution stands for a token
        if name.startswith("~"):
            name = "/node" + name[1:]  # the node's own name
        elif not name.startswith("/"):
            name = "/" + name  # in the node's namespace
    elif name.startswith("~"):
        return "a topic name in a bag is fully qualified: it starts with '/', not '~'"
    bad = next((c for c in name if not _ALLOWED.fullmatch(c)), None)
    if bad is not None:
        return f"a topic name holds only letters, digits, '_' and '/' (not {bad!r})"
    if not name.startswith("/"):
        return "a topic name in a bag is fully qualified: it starts with '/'"
    if name.endswith("/"):
        return "a topic name does not end with '/'"
    if "//" in name:
        return "a topic name has no empty token ('//')"
    token = next((t for t in name.split("/") if t[:1].isdigit()), None)
    if token is not None:
        return f"no token of a topic name starts with a digit ({token!r})"
    if qualified and len(name) > MAX_LENGTH:
        return f"a topic name is at most {MAX_LENGTH} characters long (this one has {len(name)})"
    return None


__all__ = ["MAX_LENGTH", "topic_problem"]
