"""Mesh files of a robot model: found by the name the model gives them, and read.

Mesh file names are taken as a model writes them: ``package://PKG/path`` is looked up
in the ``share/PKG`` folder of every ``AMENT_PREFIX_PATH`` entry, then in every folder
of ``ROS_PACKAGE_PATH`` and of the caller's extra folders (a folder that is the package,
or holds it); ``package:///PKG/path`` (a slash too many, which pinocchio reads and ROS
refuses) is looked up as ``package://PKG/path`` (the model's reader says so once);
``file://`` URIs and absolute paths are taken as they are (a ``file://`` URI's
``%XX`` escapes decoded when the name as written finds nothing, as ROS's resource
retriever decodes them); relative paths are relative to the model file. STL (binary and
ASCII) and plain OBJ files are parsed here with numpy, into the triangles trimesh would
give; DAE (Collada) files and anything unusual are read with trimesh (imported only then:
it takes longer to import than a robot's collision meshes take to read).
A mesh holds at most :data:`MAX_TRIANGLES` triangles and its file at most
:data:`MAX_MESH_BYTES` bytes: a binary STL is refused by the count its header states
before the rest is read, another file by its size, and what is read by its count.
SIGTERM ends the process at once while a mesh is parsed (:func:`~.inputs.interruptible`).
The viewer draws what is read here, the motion check collides it and the physics
preview simulates it.
"""

from __future__ import annotations

import dataclasses
import io
import os
import re
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


# ---------------------------------------------------------------- STL and OBJ without trimesh
#: A binary STL's triangle record: normal, three corners (little-endian float32), attribute bytes.
_STL_RECORD = np.dtype([("normal", "<f4", (3,)), ("corners", "<f4", (3, 3)), ("attribute", "<u2")])
_NUMBER = rb"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?"
#: A corner: its three numbers on the line of its ``vertex`` (trimesh takes a corner's numbers up to
#: the end of the line).
_CORNER = rb"\s+vertex(?:[ \t]+" + _NUMBER + rb"){3}[ \t\r]*(?=\n)"
_FACET = rb"\s*facet\s+normal(?:\s+" + _NUMBER + rb"){3}\s+outer\s+loop" + 3 * _CORNER + rb"\s+endloop\s+endfacet"
#: One solid of an ASCII STL (lower case): its name line, its facets, its ``endsolid`` line.
_SOLID = re.compile(rb"\s*solid([^\n]*)\n((?:" + _FACET + rb")*)\s*endsolid([^\n]*)(?:\n|$)")
_STL_WORDS = re.compile(rb"endfacet|endloop|facet|normal|outer|loop|vertex")
#: An OBJ file's lines the plain reader takes (lower case, CR LF made LF): vertices of three
#: coordinates, faces of plain vertex numbers (each keyword followed by a space, as trimesh
#: looks for them), names, smoothing groups, comments, blank lines.
_OBJ_LINE = re.compile(
    rb"v (?:[ \t]*" + _NUMBER + rb"[ \t]+){2}" + _NUMBER + rb"[ \t]*|f (?:[ \t]*-?\d+)(?:[ \t]+-?\d+){2,}[ \t]*"
    rb"|[ogs](?:[ \t][^\n]*)?|#[^\n]*|[ \t]*"
)
#: Larger OBJ files go to trimesh (the plain reader walks their lines in Python).
_PLAIN_OBJ_BYTES = 8 << 20


def _plain_stl(data: bytes) -> tuple[FloatArray, npt.NDArray[np.int64]] | None:
    """An STL's corners and triangles (every corner its own vertex, as trimesh reads them), or None
    when the file is not plain enough to read without trimesh."""
    if len(data) >= 84:
        (count,) = struct.unpack_from("<I", data, 80)
        if len(data) == 84 + 50 * count:
            records = np.frombuffer(data, dtype=_STL_RECORD, count=count, offset=84)
            vertices = records["corners"].reshape(-1, 3).astype(np.float64)
            return vertices, np.arange(3 * count, dtype=np.int64).reshape(-1, 3)
    text = data.lower().strip()
    corners: list[FloatArray] = []
    at = 0
    while at < len(text):
        solid = _SOLID.match(text, at)
        if solid is None or any(word in solid[1] + solid[3] for word in (b"solid", b"vertex")):
            return None  # not a plain ASCII STL (or a name trimesh would take for data)
        numbers = np.fromstring(_STL_WORDS.sub(b" ", solid[2]), sep=" ")
        corners.append(numbers.reshape(-1, 12)[:, 3:].reshape(-1, 3))
        at = solid.end()
    if not corners:
        return None
    vertices = np.concatenate(corners)
    return vertices, np.arange(vertices.shape[0], dtype=np.int64).reshape(-1, 3)


def _plain_obj(data: bytes) -> tuple[FloatArray, npt.NDArray[np.int64]] | None:
    """An OBJ file's vertices and triangles as trimesh reads them (only the vertices the faces use,
    in the file's order; a quad as two triangles, a larger polygon as a fan), or None when the
    file is not plain enough to read without trimesh."""
    if len(data) > _PLAIN_OBJ_BYTES:
        return None
    coordinates: list[bytes] = []
    polygons: list[list[int]] = []
    negative_before_vertex = False
    for line in data.lower().replace(b"\r\n", b"\n").split(b"\n"):
        if _OBJ_LINE.fullmatch(line) is None:
            return None
        if line[:2] == b"v ":
            coordinates.append(line[1:])
            negative_before_vertex = negative_before_vertex or any(min(p) < 0 for p in polygons)
        elif line[:2] == b"f ":
            polygons.append([int(k) for k in line[1:].split()])
    if not polygons or negative_before_vertex:
        return None  # no faces, or a negative index trimesh counts from the file's end, not the line's
    vertices = np.array(b" ".join(coordinates).split(), dtype=np.float64).reshape(-1, 3)
    count = vertices.shape[0]
    if any(k == 0 or not -count <= k <= count for p in polygons for k in p):
        return None
    if all(len(p) == 4 for p in polygons):  # quads alone: every first half, then every second half
        quads = np.array(polygons, dtype=np.int64)
        corners = np.concatenate([quads[:, [0, 1, 2]], quads[:, [2, 3, 0]]])
    else:
        triangles: list[list[int]] = []
        for p in polygons:
            if len(p) == 4:
                triangles += [[p[0], p[1], p[2]], [p[2], p[3], p[0]]]
            else:
                triangles += [[p[0], p[k], p[k + 1]] for k in range(1, len(p) - 1)]
        corners = np.array(triangles, dtype=np.int64)
    corners = np.where(corners > 0, corners - 1, corners + count)
    used = np.zeros(count, dtype=bool)
    used[corners] = True
    renumber = np.cumsum(used) - 1
    return vertices[used], renumber[corners]


def load_mesh(path: Path, scale: Sequence[float] = (1.0, 1.0, 1.0), *, extra: str = "view") -> TriMesh:
    """One mesh of every geometry in the file (scaled), or ValueError when it cannot be read.

    The file is read as every input is (:func:`read_input`: a device, a FIFO or a folder is
    refused unread, and an STL or text mesh whose start is not of its kind before the rest
    is read). A binary STL, a plain ASCII STL and a plain OBJ file are parsed here (the
    triangles trimesh would give); anything else (DAE, an OBJ with texture coordinates,
    normals or materials, an STL with unusual text) by trimesh, imported only then.
    SIGTERM ends the process at once meanwhile (trimesh catches every exception, a stopping
    handler's too). A file of more than :data:`MAX_TRIANGLES` triangles or
    :data:`MAX_MESH_BYTES` bytes, a vertex that is not finite, a triangle naming a vertex the
    file lacks, a scale factor of 0 or a mesh larger than
    :data:`~.kinematics.robot_parts.LARGEST_SIZE` is refused.

    Args:
        extra: The extra that brings trimesh to the caller (named when it is missing).
    """
    try:
        data = read_input(path, head=(TEXT_PROBE, _head_check(path)))
    except ReadError as exc:
        raise ValueError(str(exc)) from None
    kind = path.suffix.lower().lstrip(".")
    with interruptible():
        plain = _plain_stl(data) if kind == "stl" else _plain_obj(data) if kind == "obj" else None
        if plain is not None:
            vertices, faces = plain
        else:
            vertices, faces = _trimesh_read(path, data, kind, extra)
        del data
        factors = np.broadcast_to(np.asarray(scale, dtype=np.float64), (3,))
        scaled = _checked(path, vertices, faces, factors)
        return TriMesh(scaled.astype(np.float32), faces.astype(np.uint32))


def _trimesh_read(path: Path, data: bytes, kind: str, extra: str) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """The vertices and triangles trimesh reads from a mesh file's bytes (ValueError when it cannot)."""
    trimesh = _trimesh(extra)
    try:
        loaded = trimesh.load(io.BytesIO(data), file_type=kind, force="mesh", process=False)
    except Exception as exc:  # trimesh raises many kinds for bad files: the cause stays attached
        raise ValueError(f"{path}: cannot read the mesh: {exc}") from exc
    vertices = np.asarray(getattr(loaded, "vertices", ()), dtype=np.float64).reshape(-1, 3)
    faces = np.asarray(getattr(loaded, "faces", ()), dtype=np.int64).reshape(-1, 3)
    return vertices, faces


__all__ = ["MAX_MESH_BYTES", "MAX_TRIANGLES", "TriMesh", "load_mesh", "package_roots", "resolve"]
