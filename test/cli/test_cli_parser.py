"""The command line adds a subcommand of a module of its own only when it runs, and that parser is the full one's."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from motion_formats_ros.cli.main import _MODULES, _subcommands, build_parser

FULL = build_parser()
NAMES = sorted(_subcommands(FULL))


def describe(parser: argparse.ArgumentParser) -> Any:
    """A parser's help, usage and every action's settings (what parsing it depends on)."""
    actions = [
        (a.option_strings, a.dest, a.nargs, a.default, a.choices, a.required, type(a).__name__, a.type)
        for a in parser._actions
    ]
    return parser.format_help(), parser.format_usage(), actions, parser._defaults


@pytest.mark.parametrize("name", NAMES)
def test_a_subcommand_built_alone_is_the_one_built_with_all(name: str) -> None:
    alone = _subcommands(build_parser(only=name))
    assert name in alone and set(alone) <= set(NAMES)
    others = {command for _, commands, _ in _MODULES for command in commands if name not in commands}
    assert not others & set(alone)  # no other module's subcommands (nor their imports)
    full = describe(_subcommands(FULL)[name])
    mine = describe(alone[name])
    assert mine[:3] == full[:3]
    assert {k: v for k, v in mine[3].items() if k != "subparser"} == {
        k: v for k, v in full[3].items() if k != "subparser"
    }


def test_every_subcommand_is_listed_and_an_unknown_one_gets_the_full_parser(capsys: pytest.CaptureFixture[str]) -> None:
    from motion_formats_ros.cli.main import main

    assert len(NAMES) > 10
    with pytest.raises(SystemExit) as stop:
        main(["bag2motoin", "x", "y"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'bag2motoin'" in err and "bag2motion" in err and "convert" in err


def test_every_argument_of_every_command_says_what_it_is() -> None:
    from motion_formats_ros.cli.main import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    silent = {name: [a.dest for a in command._actions if not a.help] for name, command in commands.items()}
    assert not {name: dests for name, dests in silent.items() if dests}
    assert "one panel per joint" in commands["plot"].format_help()
