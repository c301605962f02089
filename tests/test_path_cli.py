"""``path`` command: JSON output, filters, and clean failures on bad input or files."""

from __future__ import annotations

import json
import math

import pytest
from navmesh_builders import navmesh_from_polygons, with_links

from blender_navjump.export.navjump_json import write_json
from blender_navjump.path_cli import path_command


def two_floors():
    """Two 4 x 4 m floors, a 2 m gap between them along x, and a jump link over it."""
    v = [(0, 0, 0), (4, 0, 0), (4, 4, 0), (0, 4, 0), (6, 0, 0), (10, 0, 0), (10, 4, 0),
         (6, 4, 0)]
    nm = navmesh_from_polygons(v, [[0, 1, 2, 3], [4, 5, 6, 7]], stances=["stand", "crouch"])
    return with_links(nm, ["jump_across"], [[(4, 1, 0), (4, 3, 0)]], [[(6, 1, 0), (6, 3, 0)]],
                      bidirectional=True, costs=[0.5])


@pytest.fixture()
def mesh_file(tmp_path):
    return write_json(two_floors(), tmp_path / "floors.json")


def run(capsys, *args):
    code = path_command([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_prints_the_path_as_json(capsys, mesh_file):
    code, out, err = run(capsys, mesh_file, "--start", 1, 2, 0, "--goal", 9, 2, 0)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["found"] is True
    assert doc["flags"] == ["walk", "jump_start", "jump_end", "walk"]
    assert doc["stances"] == ["stand", "stand", "crouch", "crouch"]
    assert doc["length"] == pytest.approx(8.0)
    # 3 m standing, a 2 m jump whose baked cost (0.5) is below its length (so it costs
    # the 2 m it covers), 3 m crouching at 1.5
    assert doc["cost"] == pytest.approx(3.0 + 2.0 + 4.5)
    assert len(doc["points"]) == 4 and doc["links"] == [0]
    assert doc["points"][1] == pytest.approx([4.0, 2.0, 0.0])


def test_no_links_and_stance_options(capsys, mesh_file):
    code, out, _ = run(capsys, mesh_file, "--start", 1, 2, 0, "--goal", 9, 2, 0, "--no-links")
    assert code == 0
    doc = json.loads(out)
    assert doc["found"] is False and doc["status"] == "partial"
    assert "jump_start" not in doc["flags"]
    assert doc["points"][-1] == pytest.approx([4.0, 2.0, 0.0])
    # a standing-only agent cannot be placed on the crouch floor at all
    code, _, err = run(capsys, mesh_file, "--start", 1, 2, 0, "--goal", 9, 2, 0,
                       "--stances", "stand")
    assert code != 0 and "goal" in err and "stand" in err
    code, out, _ = run(capsys, mesh_file, "--start", 1, 2, 0, "--goal", 3, 1, 0,
                       "--stances", "stand", "--indent", 2)
    assert code == 0
    doc = json.loads(out)
    assert doc["length"] == pytest.approx(math.hypot(2, 1))


@pytest.mark.parametrize("args, message", [
    (["--start", "nan", 2, 0, "--goal", 9, 2, 0], "NaN"),
    (["--start", 1, 2, 0, "--goal", 30, 2, 0], "goal"),
    (["--start", -9, 2, 0, "--goal", 1, 2, 0], "start"),
    (["--start", 1, 2, 0, "--goal", 9, 2, 0, "--stances", "stand,swim"], "swim"),
    (["--start", 1, 2, 0, "--goal", 9, 2, 0, "--extents", 1, 1, -1], "half-extents"),
])
def test_bad_queries_fail_cleanly(capsys, mesh_file, args, message):
    code, out, err = run(capsys, mesh_file, *args)
    assert code != 0
    assert out == ""
    assert message in err


def test_bad_files_fail_cleanly(capsys, mesh_file, tmp_path):
    doc = json.loads(mesh_file.read_text())
    doc["version"] = 99
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(doc))
    code, out, err = run(capsys, newer, "--start", 1, 2, 0, "--goal", 3, 2, 0)
    assert code != 0 and out == "" and "version" in err

    broken = tmp_path / "broken.json"
    broken.write_text(mesh_file.read_text()[:200])
    code, out, err = run(capsys, broken, "--start", 1, 2, 0, "--goal", 3, 2, 0)
    assert code != 0 and out == "" and "JSON" in err

    code, out, err = run(capsys, tmp_path / "missing.json", "--start", 1, 2, 0, "--goal",
                         3, 2, 0)
    assert code != 0 and out == "" and "missing.json" in err

    bad_nm = tmp_path / "garbage.npz"
    bad_nm.write_bytes(b"not a zip file")
    code, out, err = run(capsys, bad_nm, "--start", 1, 2, 0, "--goal", 3, 2, 0)
    assert code != 0 and out == "" and "not a NavJump navmesh" in err


def test_npz_navmesh_works_too(capsys, tmp_path):
    path = tmp_path / "floors.npz"
    two_floors().save(path)
    code, out, _ = run(capsys, path, "--start", 1, 2, 0, "--goal", 9, 2, 0)
    assert code == 0
    assert json.loads(out)["found"] is True


def test_missing_arguments_are_usage_errors(capsys, mesh_file):
    code, out, err = run(capsys, mesh_file, "--start", 1, 2, 0)
    assert code == 2 and "--goal" in err
