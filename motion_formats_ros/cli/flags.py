"""The command line's flags for declared options: codec options, generated from each codec's
``ReadOptions`` / ``WriteOptions``, and the flags that set what a node's parameter sets.

Every option a codec declares is set with ``--read-option NAME=VALUE`` or
``--write-option NAME=VALUE`` (repeatable); the text is turned into the declared type
by the codec's own declaration (:meth:`~motion_formats_ros.core.options.Option.parse`),
so nothing here lists a codec's options, and building the parser imports no codec. The
hand-written flags of earlier releases (``--joint-names``, ``--lossless``, ``--topics`` …)
stay as aliases (:class:`Alias`): :data:`READ_ALIASES`, :data:`WRITE_ALIASES`,
:data:`BAG_READ_ALIASES` and :data:`MOTION2BAG_ALIASES` say only which declared option each
flag sets; its help, choices and value type come from the declaration, when they are needed
(:class:`Parser`). A ``NAME=VALUE`` pair given too wins over an alias. A flag that sets what a
node's parameter sets (``--srdf``, ``--package-path``, ``simulate --timestep``) reads its value
and shows its help as that parameter's declaration says (:class:`Mirror`).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple, cast

from ..core.errors import MotionFormatError, OptionError, OutOfRangeError
from ..core.options import FLAGS, Option, parse_pairs, settings_of
from . import values


def utf8(text: str) -> str:
    """A command-line value that must be text (names): undecodable bytes are refused.

    On POSIX a byte that is not UTF-8 reaches Python as a lone surrogate; as an
    ``argparse`` type this makes the error name the option.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raw = text.encode("utf-8", "surrogateescape")
        bad = text[exc.start : exc.end].encode("utf-8", "surrogateescape")
        shown = raw.decode("utf-8", "backslashreplace")
        raise argparse.ArgumentTypeError(f"not valid UTF-8 (byte 0x{bad[0]:02x} in '{shown}')") from None
    return text


def name_list(text: str) -> list[str]:
    """``a,b,c`` → ``["a", "b", "c"]`` (an ``argparse`` type: undecodable bytes are refused)."""
    items = [item.strip() for item in utf8(text).split(",")]
    if len(items) > 1 and not all(items):
        empty = items.index("") + 1
        raise argparse.ArgumentTypeError(f"'{text}': name {empty} of {len(items)} is empty")
    return [item for item in items if item]


def name_list_or_none(text: str) -> list[str]:
    """As :func:`name_list`; ``none`` → [] (none of them)."""
    return [] if utf8(text).strip().lower() == "none" else name_list(text)


class Alias(NamedTuple):
    """A flag that sets one option a codec declares: ``--int-bits`` sets the .mof reader's ``int_bits``.

    Its help, its choices and the reading of its value come from that option's declaration
    (:class:`~motion_formats_ros.core.options.Option`), looked up when they are needed (a value
    given, ``--help``, a usage error): building the parser imports no codec.

    Attributes:
        flag: The spelling (``--seq-version``).
        codec: The format whose declaration it follows.
        direction: ``read`` or ``write``.
        name: The option it sets (``version``).
        switch: Given without a value, it sets a bool option to true (``--lossless``).
        convert: The command line's own reading of the text (``now`` for a time, a checked
            range …); by default the option's.
    """

    flag: str
    codec: str
    direction: str
    name: str
    switch: bool = False
    convert: Callable[[str], Any] | None = None

    @property
    def dest(self) -> str:
        """The attribute of the parsed arguments."""
        return self.flag.lstrip("-").replace("-", "_")

    def option(self) -> Option:
        """The declaration (imports the codec)."""
        from ..registry import codec_by_name

        return _declared(codec_by_name(self.codec), self.direction)[self.name]

    def help(self) -> str:
        """The declared help, with its unit, after the formats that declare the same option."""
        from ..registry import CODECS

        opt = self.option()
        owners = [
            info.name
            for info in CODECS.values()
            if (other := _declared(info, self.direction).get(self.name)) is not None and other.help == opt.help
        ]
        unit = f" ({opt.unit})" if opt.unit else ""
        return f"{', '.join(owners)}: {opt.help}{unit}"

    def __call__(self, text: str) -> Any:
        """The value ``text`` stands for (an ``argparse`` type): the declared type, a choice's member."""
        if self.convert is not None:
            return self.convert(text)
        opt = self.option()
        if any(t in (list, tuple) or t is Sequence for t in opt.types):
            text = utf8(text)
        try:
            return opt.typed(opt.parse(text, self.codec, self.direction))
        except OptionError:
            if opt.choices:
                choices = ", ".join(map(repr, opt.choices))
                raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {choices})") from None
            raise argparse.ArgumentTypeError(f"expected {opt.value_name}, got {text!r}") from None


def _declared(info: Any, direction: str) -> dict[str, Option]:
    return {o.name: o for o in (info.read_options if direction == "read" else info.write_options)}


class AliasAction(argparse.Action):
    """Stores an :class:`Alias`'s value; its help and choices are filled in when shown (:class:`Parser`)."""

    def __init__(self, option_strings: Sequence[str], dest: str, alias: Alias, **kwargs: Any) -> None:
        # An Alias reads its own value (``__call__``); mypy does not see a NamedTuple's as a callable.
        reading = None if alias.switch else cast("Callable[[str], Any]", alias)
        super().__init__(
            option_strings,
            dest,
            nargs=0 if alias.switch else None,
            default=None,
            type=reading,
            help=f"the {alias.codec} {alias.direction} option {alias.name}",
            **kwargs,
        )
        self.alias = alias

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, True if self.alias.switch else values)

    def describe(self) -> None:
        """Take the help and choices from the declaration (imports the codec)."""
        self.help = self.alias.help().replace("%", "%%")
        declared = self.alias.option()
        if declared.choices and not self.alias.switch:
            self.choices = declared.choices
        elif declared.metavar:
            self.metavar = declared.metavar


class Parser(argparse.ArgumentParser):
    """An argument parser whose :class:`Alias` flags take their help and choices from the codecs when shown."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)

    def format_usage(self) -> str:
        self._describe_aliases()
        return super().format_usage()

    def format_help(self) -> str:
        self._describe_aliases()
        return super().format_help()

    def _describe_aliases(self) -> None:
        for action in self._actions:
            if isinstance(action, AliasAction):
                action.describe()
            elif isinstance(action.type, Mirror):
                action.help = action.type.help().replace("%", "%%")


def add_aliases(p: argparse.ArgumentParser | argparse._ArgumentGroup, aliases: Iterable[Alias]) -> None:
    """One flag per alias (see :class:`Alias`)."""
    for alias in aliases:
        p.add_argument(alias.flag, dest=alias.dest, action=AliasAction, alias=alias)


def aliases_given(args: argparse.Namespace, aliases: Iterable[Alias]) -> dict[str, Any]:
    """The options the alias flags given set (name → value)."""
    out: dict[str, Any] = {}
    for alias in aliases:
        value = getattr(args, alias.dest, None)
        if value is not None:
            out[alias.name] = value
    return out


#: Flags of the commands that read motion files (``--read-option`` sets the same, and any other).
READ_ALIASES = (
    Alias("--joint-names", "seq", "read", "joint_names"),
    Alias("--joint-map", "seq", "read", "joint_map"),
    Alias("--int-bits", "mof", "read", "int_bits"),
    Alias("--body", "seq", "read", "body"),
)
#: Flags of ``convert`` / ``batch`` that set write options.
WRITE_ALIASES = (
    Alias("--seq-version", "seq", "write", "version"),
    Alias("--lossless", "seq", "write", "lossless", switch=True),
    Alias("--se3-format", "seq", "write", "se3_format"),
    Alias("--compression", "rosbag", "write", "compression"),
)
#: What selects and merges a bag's messages (``bag2motion``, ``view``, ``batch``): the rosbag reader's options.
BAG_READ_ALIASES = (
    Alias("--topics", "rosbag", "read", "topics"),
    Alias("--stamps", "rosbag", "read", "stamps"),
    Alias("--root", "rosbag", "read", "root", convert=values.frame_pair_or_none),
    Alias("--links", "rosbag", "read", "links"),
    Alias("--imu", "rosbag", "read", "imu"),
    Alias("--trajectory", "rosbag", "read", "trajectory"),
    Alias("--points", "rosbag", "read", "points"),
    Alias("--hold", "rosbag", "read", "hold", switch=True),
    Alias("--distro", "rosbag", "read", "distro"),
)
#: Their option names.
BAG_OPTIONS = tuple(a.name for a in BAG_READ_ALIASES)
#: ``motion2bag``'s flags: the rosbag writer's options.
MOTION2BAG_ALIASES = (
    Alias("--storage", "rosbag", "write", "storage"),
    Alias("--compression", "rosbag", "write", "compression"),
    Alias("--distro", "rosbag", "write", "distro"),
    Alias("--start-time", "rosbag", "write", "start_time", convert=values.start_time),
    Alias("--group", "rosbag", "write", "group"),
    Alias("--root", "rosbag", "write", "root", convert=values.frame_pair),
    Alias("--frame-prefix", "rosbag", "write", "frame_prefix"),
    Alias("--joint-topic", "rosbag", "write", "joint_topic"),
    Alias("--tf-topic", "rosbag", "write", "tf_topic"),
    Alias("--tf-static-topic", "rosbag", "write", "tf_static_topic"),
    Alias("--trajectory-topic", "rosbag", "write", "trajectory_topic"),
    Alias("--imu-topic", "rosbag", "write", "imu_topic"),
    Alias("--zmp-topic", "rosbag", "write", "zmp_topic"),
)

#: How the command line sets each option a message may name (:func:`..core.errors.spelled`):
#: the aliases' flags, and the few options that are arguments of every command.
SPELLING: dict[str, str] = {
    **{a.name: a.flag for a in (*READ_ALIASES, *WRITE_ALIASES, *BAG_READ_ALIASES, *MOTION2BAG_ALIASES)},
    "overwrite": "--overwrite",
    "rate": "--rate",
    "motion_id": "--write-option motion_id=NAME",
    "start": "--start",
    "end": "--end",
    "output": "OUTPUT",
    "body": "--body FILE",
    "joint_names": "--joint-names a,b,c",
    "robot_description_topic": "--write-option robot_description_topic=TOPIC",
    "package_paths": "--package-path DIR",
    "speed": "--speed",  # simulate's; view and batch spell the simulation's --sim-speed (their own flags)
    "timestep": "--timestep",
    "record_rate": "--record-rate",
    "gains": "--gains",
    "kp": "--kp",
    "kd": "--kd",
}


class Mirror(NamedTuple):
    """How a flag that sets what a node's parameter sets (``--srdf`` as the player's ``srdf_file``)
    reads its value (an ``argparse`` type) and what its help says: as the parameter is declared.

    The declaration is looked up when it is needed (a value given, ``--help``), as an
    :class:`Alias`'s is: building the parser imports no node's configuration.

    Attributes:
        module: The module of the node's configuration dataclass.
        config: Its name.
        name: The parameter's name.
    """

    module: str
    config: str
    name: str

    def option(self) -> Option:
        """The declaration (imports the configuration's module)."""
        import importlib

        return settings_of(getattr(importlib.import_module(self.module), self.config))[self.name]

    def help(self) -> str:
        """The declared help, with its unit, its default when a number, "(repeatable)" for a list."""
        option = self.option()
        text = option.help + (f" ({option.unit})" if option.unit else "")
        if option.kind is tuple:
            return text + " (repeatable)"
        if isinstance(option.default, float):
            text += f" (default {option.default:g})"
        return text

    def __call__(self, text: str) -> Any:
        """The value ``text`` stands for, checked as the declaration says (a file name: a path)."""
        option = self.option()
        if option.kind in (str, tuple):
            return Path(utf8(text))  # a file or folder; a list of them: one each time the flag is given
        try:
            value = option.parse(text)
        except OptionError:
            raise argparse.ArgumentTypeError(f"expected a {option.parameter_type}, got {text!r}") from None
        problem = option.problem(value)
        if problem is not None:
            raise argparse.ArgumentTypeError(problem.removeprefix(f"{option.name} "))
        return value


#: The player's parameters the command line mirrors.
PLAYER = ("motion_formats_ros.playback.config", "PlayerConfig")
#: ``motion_sim``'s.
SIM = ("motion_formats_ros.simulation.sim_config", "SimConfig")


def mirrored(config: tuple[str, str], name: str) -> dict[str, Any]:
    """``add_argument``'s ``type`` and ``help`` for a flag that mirrors parameter ``name`` of ``config``
    (:data:`PLAYER`, :data:`SIM`); the help is filled in from the declaration when shown."""
    return {"type": Mirror(*config, name), "help": f"as the parameter {name}"}


def add_robot_model(p: argparse.ArgumentParser, *, required: bool) -> None:
    """``--urdf`` or ``--body`` (one robot model) and ``--package-path`` (where its meshes are, as the
    player's ``package_path``)."""
    model = p.add_mutually_exclusive_group(required=required)
    model.add_argument("--urdf", type=Path, help="the robot's URDF (.urdf or .urdf.xacro)")
    model.add_argument("--body", type=Path, help="the robot's Choreonoid .body (also names a .seq's joints)")
    p.add_argument(
        "--package-path", dest="package_paths", action="append", default=[], **mirrored(PLAYER, "package_path")
    )


def add_check_model(p: argparse.ArgumentParser, *, required: bool) -> None:
    """What the motion check is made on (``check``'s and ``view``'s, defined here once): the robot
    model (:func:`add_robot_model`: ``--urdf`` / ``--body``, ``--package-path``), ``--srdf`` and ``--limits``."""
    add_robot_model(p, required=required)
    p.add_argument("--srdf", **mirrored(PLAYER, "srdf_file"))
    p.add_argument("--limits", type=Path, help="MoveIt joint_limits.yaml (velocity, acceleration, jerk limits)")


def read_beside_model(args: argparse.Namespace) -> Any:
    """The input of a command that takes a robot model (``view``, ``check``), read with its options:
    a bag as ``bag2motion`` reads it; ``--body`` as :func:`~motion_formats_ros.registry.with_body` passes it."""
    from ..core.nonfinite import warn_nonfinite
    from ..registry import codec_by_name, codec_for_path, read, with_body

    info = codec_by_name(args.from_format) if args.from_format else codec_for_path(args.input)
    if info.recording:
        motion_file = read(args.input, format=info.name, **bag_read_options(args, info.name))
    else:
        options = read_options(args, args.input, info.name)
        motion_file = read(args.input, format=info.name, **with_body(options, info)[0])
    warn_nonfinite(motion_file, args.input)  # as every command that reads a motion (--strict fails on it)
    return motion_file


def add_option_flags(p: argparse.ArgumentParser, *, read: bool = True, write: bool = True) -> None:
    """``--read-option NAME=VALUE`` / ``--write-option NAME=VALUE``: any option the codec declares."""
    if read:
        p.add_argument(
            FLAGS["read"],
            dest="read_pairs",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="an option of the input's codec (repeatable; `formats --options` lists them)",
        )
    if write:
        p.add_argument(
            FLAGS["write"],
            dest="write_pairs",
            action="append",
            default=[],
            metavar="NAME=VALUE",
            help="an option of the output's codec (repeatable; `formats --options` lists them)",
        )


def _codec(path: str | os.PathLike[str], fmt: str | None, *, for_write: bool) -> str:
    from ..registry import codec_by_name, codec_for_path

    return (codec_by_name(fmt) if fmt else codec_for_path(Path(path), for_write=for_write)).name


def pairs_for(codec: str, direction: str, pairs: Iterable[str]) -> dict[str, Any]:
    """``NAME=VALUE`` texts → options of ``codec``'s ``direction`` (``read`` / ``write``), typed."""
    from ..registry import codec_by_name

    info = codec_by_name(codec)
    declared = info.read_options if direction == "read" else info.write_options
    return parse_pairs(info.name, direction, pairs, declared)


def read_options(
    args: argparse.Namespace, path: str | os.PathLike[str] | None = None, fmt: str | None = None
) -> dict[str, Any]:
    """Codec read options given on the command line (only those given) for the input ``path``.

    The input's codec is looked up only when ``--read-option`` pairs were given (to type them).
    """
    opts = aliases_given(args, READ_ALIASES)
    pairs = getattr(args, "read_pairs", None) or []
    if pairs:
        if not Path(path or "").exists():
            from ..registry import read  # a missing input: the registry's own error first

            read(Path(path or ""), format=fmt)
        opts.update(pairs_for(_codec(path or "", fmt, for_write=False), "read", pairs))
    return opts


def write_options(
    args: argparse.Namespace, path: str | os.PathLike[str] | None = None, fmt: str | None = None
) -> dict[str, Any]:
    """Codec write options given on the command line (only those given) for the output ``path``."""
    opts = aliases_given(args, WRITE_ALIASES)
    pairs = getattr(args, "write_pairs", None) or []
    if pairs:
        opts.update(pairs_for(_codec(path or "", fmt, for_write=True), "write", pairs))
    return opts


def option_files(options: Mapping[str, Any], *codecs: str | None) -> list[str | os.PathLike[str]]:
    """The values of ``options`` that name files (``--body``, a URDF, a joint map file): inputs
    of the command. An option names a file where one of ``codecs`` (format names) declares a path for it."""
    from ..registry import codec_by_name

    paths: set[str] = set()
    for name in dict.fromkeys(c for c in codecs if c):
        info = codec_by_name(name)
        declared = (*info.read_options, *(info.write_options if info.writable else ()))
        paths.update(o.name for o in declared if os.PathLike in o.types)
    return [v for k, v in options.items() if k in paths and isinstance(v, (str, os.PathLike))]


def read_option_files(
    reads: Mapping[str, Any], path: str | os.PathLike[str], fmt: str | None
) -> list[str | os.PathLike[str]]:
    """The files the read options ``reads`` of the input ``path`` name (``--body``, a joint map):
    inputs no output may touch (:func:`option_files`, for the input's codec and the aliases')."""
    codecs = sorted({a.codec for a in READ_ALIASES if a.name in reads})
    return option_files(reads, *codecs, input_codec(path, fmt))


def load_model_options(options: dict[str, Any], *codecs: str | None) -> list[Path]:
    """Read each robot model an option in ``options`` names by its file (an option that one of
    ``codecs`` declares to take a robot model), once: the option's value becomes the model.

    Returns the files the models were read from (a xacro file's includes and YAML files among
    them): inputs no output may touch, known only once the models are read.
    """
    from ..core.kinematics import RobotModel, load_robot_model
    from ..registry import codec_by_name

    takes_model: set[str] = set()
    for name in dict.fromkeys(c for c in codecs if c):
        info = codec_by_name(name)
        declared = (*info.read_options, *(info.write_options if info.writable else ()))
        takes_model.update(o.name for o in declared if RobotModel in o.types)
    files: list[Path] = []
    for key in sorted(takes_model & options.keys()):
        if isinstance(options[key], (str, os.PathLike)):
            options[key] = model = load_robot_model(options[key])
            files.extend(model.files)
    return files


def output_format(path: str | os.PathLike[str], to: str | None) -> str:
    """The format an output is written in: ``--to``, else its suffix.

    ``--to`` is for a name whose suffix names no format (``motion.out``, a bag folder) or
    several (``.yaml``, ``.json``); one that contradicts the suffix is refused (and one no
    reader recognises is written, with :func:`note_read_back`'s warning).

    Raises:
        OutOfRangeError: ``--to`` names a format the output's suffix does not (``x.seq --to omf``).
    """
    from ..registry import codec_by_name, codec_for_path, suffix_codecs

    if not to:
        return codec_for_path(Path(path), for_write=True).name
    suffix, named = suffix_codecs(path)
    if named and to not in {info.name for info in named}:
        own = codec_by_name(to)
        raise OutOfRangeError(
            f"--to {to} contradicts the output's suffix {suffix} ({', '.join(info.name for info in named)}): "
            f"give it a suffix of {to} ({', '.join((*own.suffixes, *own.shared)) or 'none'}) or leave --to out"
        )
    return to


def note_read_back(path: str | os.PathLike[str], to: str | None) -> None:
    """Warn, for an output written as ``--to`` says, when no reader will recognise its name as that
    format (``a.txt --to csv``, ``a --to seq``; a bag folder is recognised): reading it back needs ``--from``."""
    from ..core.notices import NoticeKind, notify
    from ..registry import codec_by_name, suffix_codecs

    if not to or suffix_codecs(path)[1] or Path(path).is_dir():  # a folder: the write says why it is refused
        return
    own = codec_by_name(to)
    if own.directories:
        return
    given = Path(path).suffix
    notify(
        NoticeKind.MISSING,
        f"the name has {f'the suffix {given!r}' if given else 'no suffix'}, none of {to}'s "
        f"({', '.join((*own.suffixes, *own.shared)) or 'none'}): reading it back (info, convert, check …) "
        f"needs --from {to}",
        file=path,
    )


def input_codec(path: str | os.PathLike[str], fmt: str | None) -> str | None:
    """The format an input is read with (``--from``, else its suffix), None where neither tells (the read says why)."""
    from ..registry import codec_for_path

    if fmt:
        return fmt
    try:
        return codec_for_path(Path(path)).name
    except (MotionFormatError, OSError):
        return None


def bag_read_options(args: argparse.Namespace, codec: str = "rosbag", *, pairs: bool = True) -> dict[str, Any]:
    """A recording's reader options given on the command line (the bag aliases, then ``--read-option``).

    ``codec`` is the recording's format (one whose codec declares itself a recording).
    """
    opts = aliases_given(args, BAG_READ_ALIASES)
    given = getattr(args, "read_pairs", None) or []
    if pairs and given:
        opts.update(pairs_for(codec, "read", given))
    return opts


def split_read_pairs(pairs: Iterable[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``batch``: (rosbag options, other formats' options) from ``--read-option`` pairs.

    A name goes to the bags when the rosbag reader declares it, to the other inputs when
    another reader does (each input's codec then takes the options it declares).

    Raises:
        OptionError: No reader declares the name, or no reader takes the value.
    """
    from ..registry import CODECS

    bag: dict[str, Any] = {}
    other: dict[str, Any] = {}
    declared: dict[str, list[tuple[str, Option]]] = {}
    recordings = {info.name for info in CODECS.values() if info.recording}
    for info in CODECS.values():
        for o in info.read_options:
            declared.setdefault(o.name, []).append((info.name, o))
    for pair in pairs:
        name = pair.partition("=")[0].strip().replace("-", "_")
        owners = declared.get(name)
        if not owners:
            raise OptionError("batch", "read", name, sorted(declared), "is not an option of any format")
        errors: list[OptionError] = []
        for codec, _ in owners:
            target = bag if codec in recordings else other
            if name in target:
                continue
            try:
                target.update(parse_pairs(codec, "read", [pair], [o for c, o in owners if c == codec]))
            except OptionError as exc:
                errors.append(exc)
        if name not in bag and name not in other and errors:
            raise errors[0]
    return bag, other


__all__ = [
    "BAG_OPTIONS",
    "BAG_READ_ALIASES",
    "MOTION2BAG_ALIASES",
    "PLAYER",
    "READ_ALIASES",
    "SIM",
    "WRITE_ALIASES",
    "Alias",
    "AliasAction",
    "Mirror",
    "Parser",
    "add_aliases",
    "add_check_model",
    "add_option_flags",
    "aliases_given",
    "bag_read_options",
    "input_codec",
    "mirrored",
    "option_files",
    "output_format",
    "pairs_for",
    "read_options",
    "split_read_pairs",
    "write_options",
]
