"""Mesh files of a robot model: found by the name the model gives them, and read.

Mesh file names are taken as a model writes them: ``package://PKG/path`` is looked up
in the ``share/PKG`` folder of every ``AMENT_PREFIX_PATH`` entry, then in every folder
of ``ROS_PACKAGE_PATH`` and of the caller's extra folders (a folder that is the package,
or holds it); ``package:///PKG/path`` (a slash too many, which pinocchio reads and ROS
refuses) is looked up as ``package://PKG/path`` (the model's reader says so once);
``file://`` URIs and absolute paths are taken as they are (a ``file://`` URI's
``%XX`` escapes decoded when the name as written finds nothing, as ROS's resource
retriever decodes them); relative paths are relative to the model file. STL, DAE
(Collada) and OBJ files are read with trimesh (imported only here, when a file is read).
A mesh holds at most :data:`MAX_TRIANGLES` triangles and its file at most
:data:`MAX_MESH_BYTES` bytes: a binary STL is refused by the count its header states
before the rest is read, another file by its size, and what trimesh reads by its count.
SIGTERM ends the process at once while a mesh is parsed (:func:`~.inputs.interruptible`).
The viewer draws what is read here, the motion check collides it and the physics
preview simulates it.
"""

from __future__ import annotations

import dataclasses
import io
import os
import struct
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .errors import ReadError, require
from .inputs import TEXT_PROBE, interruptible, read_input
from .kinematics.robot_parts import LARGEST_SIZE, PACKAGE_SCHEME, ros_mesh_name

FloatArray = npt.NDArray[np.float64]

#: The most triangles a mesh file may hold: a real robot's collision meshes have a few thousand,
#: its finest visual ones a few hundred thousand; more would take minutes to collide or simulate.
MAX_TRIANGLES = 500_000
#: The largest mesh file read (bytes): a binary STL of :data:`MAX_TRIANGLES` triangles is 25 MB,
#: a Collada or OBJ file of as many about 40 MB.
MAX_MESH_BYTES = 64 << 20

#: Mesh kinds that are text (a NUL byte near the start: not such a file); an STL may be either.
_TEXT_MESHES = (".obj", ".dae", ".stl")


@dataclasses.dataclass(frozen=True)
class TriMesh:
    """Vertices (V, 3) float32 and faces (F, 3) uint32 in the shape's frame."""

    vertices: npt.NDArray[np.float32]
    faces: npt.NDArray[np.uint32]


def _trimesh(extra: str) -> Any:
    return require("trimesh", "reading mesh files", package="trimesh", extra=extra, rosdep_key="python3-trimesh")


def package_roots(extra: Iterable[str | os.PathLike[str]] = ()) -> list[tuple[str, Path]]:
    """Where ``package://`` names are looked for, in order: (kind, folder)."""
    roots: list[tuple[str, Path]] = []
    for entry in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep):
        if entry:
            roots.append(("prefix", Path(entry)))
    for entry in os.environ.get("ROS_PACKAGE_PATH", "").split(os.pathsep):
        if entry:
            roots.append(("folder", Path(entry)))
    roots.extend(("folder", Path(p)) for p in extra)
    return roots


def resolve(filename: str, base: Path | None, roots: Sequence[tuple[str, Path]]) -> Path | None:
    """The file a mesh name refers to, or None when nothing is there.

    A ``package://`` name stays inside its package: a ``..`` in it finds nothing; a
    ``package:///`` name is the ``package://`` name without the slashes too many
    (:func:`~.kinematics.robot_parts.ros_mesh_name`). What is found need not be a regular
    file: reading a device, a FIFO or a folder says what it is.
    """
    filename = ros_mesh_name(filename)
    if filename.startswith(PACKAGE_SCHEME):
        rest = filename[len(PACKAGE_SCHEME) :]
        package, _, inner = rest.partition("/")
        if not package or ".." in Path(rest).parts or Path(inner).is_absolute():
            return None
        for kind, root in roots:
            candidates = (
                [root / "share" / package / inner]
                if kind == "prefix"
                else [root / package / inner, root / inner if root.name == package else None]
            )
            for candidate in candidates:
                if candidate is not None and candidate.exists():
                    return candidate
        return None
    names = [filename]
    if filename.startswith("file://"):
        from urllib.parse import unquote  # only for file:// names (it is not imported at start-up)

        names = [filename[len("file://") :]]
        decoded = unquote(names[0])
        if decoded != names[0]:
            names.append(decoded)
    for name in names:
        path = Path(name)
        if not path.is_absolute() and base is not None:
            path = base / path
        if path.exists():
            return path
    return None


def _head_check(path: Path) -> Callable[[bytes, int], None]:
    """A ``head`` check for :func:`read_input`: an STL whose size is not the one its triangle count
    gives and that does not start as an ASCII STL, a binary STL of more than :data:`MAX_TRIANGLES`
    triangles, another file larger than :data:`MAX_MESH_BYTES`, or zeros where text belongs, is
    refused before the rest of the file is read (ReadError naming the file)."""

    def check(head: bytes, size: int) -> None:
        if path.suffix.lower() == ".stl" and len(head) >= 84:
            (count,) = struct.unpack_from("<I", head, 80)
            if size == 84 + 50 * count:
                if count > MAX_TRIANGLES:
                    raise ReadError(path, _too_many(count), offset=80)
                return  # a binary STL
            if head.lstrip()[:5].lower() != b"solid":
                raise ReadError(
                    path,
                    f"not an STL: {size} bytes, where a binary STL of the {count} triangles its header "
                    f"declares has {84 + 50 * count}, and no ASCII STL's 'solid' at the start",
                )
        if size > MAX_MESH_BYTES:
            raise ReadError(path, f"{size} bytes, more than the {MAX_MESH_BYTES} a mesh file may have")
        if path.suffix.lower() in _TEXT_MESHES:
            nul = head.find(b"\0")
            if nul >= 0:
                raise ReadError(path, f"byte {nul}: binary data (a NUL byte) in a text mesh file")

    return check


def _too_many(count: int) -> str:
    return f"{count} triangles, more than the {MAX_TRIANGLES} a mesh may have"


def _checked(path: Path, vertices: FloatArray, faces: npt.NDArray[np.int64], scale: FloatArray) -> FloatArray:
    """The vertices scaled, once they, their faces and the scale are fit to collide (ValueError otherwise)."""
    if faces.size == 0:
        raise ValueError(f"{path}: no triangles in the mesh")
    if faces.shape[0] > MAX_TRIANGLES:
        raise ValueError(f"{path}: {_too_many(faces.shape[0])}")
    outside = (faces < 0) | (faces >= vertices.shape[0])
    if outside.any():
        bad = int(faces[outside][0])
        raise ValueError(f"{path}: a triangle names vertex {bad}, of {vertices.shape[0]} vertices")
    if not np.isfinite(vertices).all():
        row = int(np.argmin(np.isfinite(vertices).all(axis=1)))
        raise ValueError(f"{path}: vertex {row} is not finite ({', '.join(str(v) for v in vertices[row])})")
    if not (np.isfinite(scale).all() and (scale != 0).all()):
        raise ValueError(f"{path}: the scale {' '.join(f'{v:g}' for v in scale)} has a factor of 0 or is not finite")
    scaled = vertices * scale
    if np.abs(scaled).max() > LARGEST_SIZE:
        raise ValueError(f"{path}: vertices more than {LARGEST_SIZE:g} m from the mesh's origin (scaled)")
    return scaled


def load_mesh(path: Path, scale: Sequence[float] = (1.0, 1.0, 1.0), *, extra: str = "view") -> TriMesh:
    """One mesh of every geometry in the file (scaled), or ValueError when it cannot be read.

    The file is read as every input is (:func:`read_input`: a device, a FIFO or a folder is
    refused unread, and an STL or text mesh whose start is not of its kind before the rest
    is read); trimesh parses the bytes, and SIGTERM ends the process at once meanwhile (trimesh
    catches every exception, a stopping handler's too). A file of more than :data:`MAX_TRIANGLES`
    triangles or :data:`MAX_MESH_BYTES` bytes, a vertex that is not finite, a triangle naming a
    vertex the file lacks, a scale factor of 0 or a mesh larger than
    :data:`~.kinematics.robot_parts.LARGEST_SIZE` is refused.

    Args:
        extra: The extra that brings trimesh to the caller (named when it is missing).
    """
    trimesh = _trimesh(extra)
    try:
        data = read_input(path, head=(TEXT_PROBE, _head_check(path)))
    except ReadError as exc:
        raise ValueError(str(exc)) from None
    with interruptible():
        try:
            kind = path.suffix.lower().lstrip(".")
            loaded = trimesh.load(io.BytesIO(data), file_type=kind, force="mesh", process=False)
        except Exception as exc:  # trimesh raises many kinds for bad files: the cause stays attached
            raise ValueError(f"{path}: cannot read the mesh: {exc}") from exc
        del data
        vertices = np.asarray(getattr(loaded, "vertices", ()), dtype=np.float64).reshape(-1, 3)
        faces = np.asarray(getattr(loaded, "faces", ()), dtype=np.int64).reshape(-1, 3)
        factors = np.broadcast_to(np.asarray(scale, dtype=np.float64), (3,))
        scaled = _checked(path, vertices, faces, factors)
        return TriMesh(scaled.astype(np.float32), faces.astype(np.uint32))


__all__ = ["MAX_MESH_BYTES", "MAX_TRIANGLES", "TriMesh", "load_mesh", "package_roots", "resolve"]
