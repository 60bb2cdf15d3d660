"""Scene loading: JSON5 syntax (errors with line and column) and uri references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from motion_formats_ros import ReadError
from motion_formats_ros.codecs.scene import SceneError, load, load_scene


def put(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


ROBOT = json.dumps(
    {
        "kind": "robot",
        "joints": {"a": {"minValue": -1, "maxValue": 1}},
        "links": {"l1": {"pose": {"axisAngle": {"axis": "z", "angle": {"joint": "a"}}}}},
    }
)


def test_json5_features_load(tmp_path: Path) -> None:
    path = put(
        tmp_path / "s.json5",
        """// a comment
        {
          models: {box: {kind: 'rigidBody', mass: .5, shapes: {}},},  /* trailing commas */
          objects: {b: {model: "box", pose: {xyz: [0x10, +1, 2.,]}}},
          trajectories: {},
        }""",
    )
    scene = load_scene(path)
    assert scene.models["box"].body["mass"] == 0.5
    assert scene.objects["b"].transform.static_pose()[0].tolist() == [16.0, 1.0, 2.0]


def test_syntax_error_has_line_and_column(tmp_path: Path) -> None:
    path = put(tmp_path / "s.json5", "{\n  models: {},\n  objects: {a: @},\n}\n")
    with pytest.raises(ReadError) as info:
        load(path)
    assert info.value.line == 3
    assert "column 16" in info.value.reason
    assert str(info.value).startswith(f"{path}:3: column 16: JSON5 syntax error")
    assert 'Unexpected "@"' in str(info.value)


def test_syntax_error_in_a_referenced_file_names_that_file(tmp_path: Path) -> None:
    put(tmp_path / "robot.json5", "{\n kind: 'robot',\n joints: [1,,2]\n}")
    top = put(tmp_path / "s.json5", '{models: {r: {uri: "file://./robot.json5"}}, objects: {}}')
    with pytest.raises(ReadError) as info:
        load(top)
    assert info.value.path.endswith("robot.json5") and info.value.line == 3
    assert "referenced at models.r" in str(info.value)


def test_not_utf8_is_a_read_error(tmp_path: Path) -> None:
    path = tmp_path / "s.json5"
    path.write_bytes(b'{models: "\xff"}')
    with pytest.raises(ReadError, match="not UTF-8"):
        load(path)


# ------------------------------------------------------------------------- references
def test_reference_relative_file_with_pointer(tmp_path: Path) -> None:
    put(tmp_path / "defs" / "robots.json5", '{"ur": ' + ROBOT + ', "other": 1}')
    top = put(
        tmp_path / "scene.json5",
        '{models: {r: {uri: "file://./defs/robots.json5#/ur"}}, objects: {o: {model: "r"}}}',
    )
    loaded = load(top)
    assert loaded.data["models"]["r"]["joints"]["a"]["maxValue"] == 1
    assert loaded.origins[("models", "r")] == "defs/robots.json5#/ur"
    assert [p.name for p in loaded.files] == ["scene.json5", "robots.json5"]
    scene = load_scene(top)
    assert list(scene.models["r"].joints) == ["a"]


def test_reference_forms(tmp_path: Path) -> None:
    put(tmp_path / "a" / "b.json5", '{"x/y": {"~t": [10, 20, 30]}, "next": {uri: "c.json5#/v"}}')
    put(tmp_path / "a" / "c.json5", "{v: 42}")
    top = put(
        tmp_path / "scene.json5",
        """{
          objects: {}, models: {},
          values: {
            escaped: {uri: "file://./a/b.json5#/x~1y/~0t/1"},
            plain: {uri: "a/b.json5#/x~1y/~0t/2"},
            chained: {uri: "file:a/b.json5#/next"},
            local: {uri: "#/values/plain"},
            percent: {uri: "a/b.json5#/x%7E1y/~0t/0"},
            whole: {uri: "file://./a/c.json5"},
          }
        }""",
    )
    values = load(top).data["values"]
    assert values == {"escaped": 20, "plain": 30, "chained": 42, "local": 30, "percent": 10, "whole": {"v": 42}}


def test_reference_to_a_missing_file(tmp_path: Path) -> None:
    top = put(tmp_path / "s.json5", '{models: {r: {uri: "file://./nope.json5#/r"}}, objects: {}}')
    with pytest.raises(SceneError) as info:
        load(top)
    assert info.value.field == "models.r"
    assert "file 'nope.json5' does not exist" in str(info.value)


def test_reference_escaping_the_folder(tmp_path: Path) -> None:
    put(tmp_path / "outside.json5", "{r: 1}")
    top = put(tmp_path / "scene" / "s.json5", '{models: {r: {uri: "file://../outside.json5#/r"}}, objects: {}}')
    with pytest.raises(SceneError) as info:
        load(top)
    assert info.value.field == "models.r"
    assert "points outside the scene's folder" in str(info.value)


def test_absolute_reference_outside_is_refused_too(tmp_path: Path) -> None:
    other = put(tmp_path / "other" / "x.json5", "{r: 1}")
    top = put(tmp_path / "scene" / "s.json5", f'{{models: {{r: {{uri: "file://{other}#/r"}}}}, objects: {{}}}}')
    with pytest.raises(SceneError, match="points outside"):
        load(top)


def test_reference_cycle_across_files(tmp_path: Path) -> None:
    put(tmp_path / "a.json5", '{x: {uri: "b.json5#/y"}}')
    put(tmp_path / "b.json5", '{y: {uri: "a.json5#/x"}}')
    top = put(tmp_path / "s.json5", '{models: {r: {uri: "a.json5#/x"}}, objects: {}}')
    with pytest.raises(SceneError) as info:
        load(top)
    assert info.value.field == "models.r"
    assert "reference cycle: a.json5#/x → b.json5#/y → a.json5#/x" in str(info.value)


def test_reference_to_its_own_ancestor_is_a_cycle(tmp_path: Path) -> None:
    top = put(tmp_path / "s.json5", '{models: {r: {inner: {uri: "#/models"}}}, objects: {}}')
    with pytest.raises(SceneError, match="reference cycle"):
        load(top)


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        ("http://example.com/r.json5", "only file: URIs are supported"),
        ("#/models/nothing", "no key 'nothing' at /models"),
        ("#/objects/x/5", "is not an index"),
        ("#models", "must be a JSON pointer starting with '/'"),
    ],
)
def test_bad_references(tmp_path: Path, uri: str, expected: str) -> None:
    top = put(tmp_path / "s.json5", f'{{models: {{r: {{uri: "{uri}"}}}}, objects: {{x: []}}}}')
    with pytest.raises(SceneError) as info:
        load(top)
    assert expected in str(info.value)
    assert info.value.field == "models.r"


def test_every_bad_reference_is_reported(tmp_path: Path) -> None:
    top = put(tmp_path / "s.json5", '{models: {a: {uri: "x.json5"}, b: {uri: "y.json5"}}, objects: {}}')
    with pytest.raises(SceneError) as info:
        load(top)
    assert info.value.paths == ["models.a", "models.b"]


def test_problem_inside_referenced_content_names_its_origin(tmp_path: Path) -> None:
    put(tmp_path / "robots.json5", '{ur: {kind: "robot", joints: {a: {minValue: 2, maxValue: 1}}}}')
    top = put(tmp_path / "s.json5", '{models: {r: {uri: "robots.json5#/ur"}}, objects: {}}')
    with pytest.raises(SceneError) as info:
        load_scene(top)
    assert info.value.field == "models.r.joints.a"
    assert "(from robots.json5#/ur)" in str(info.value)


def test_an_integer_longer_than_python_converts_is_a_syntax_error_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "long.json5"
    path.write_text("{\n  models: {},\n  n: " + "9" * 5000 + ",\n}\n")
    with pytest.raises(ReadError) as caught:
        load(path)
    assert str(caught.value) == f"{path}:3: JSON5 syntax error: an integer of 5,000 digits (at most 4,300 are read)"
