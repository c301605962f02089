"""``python -m blender_navjump bake``: real processes, real files."""

import json
import pathlib
import subprocess
import sys

import pytest
from scenes import Scene

ROOT = pathlib.Path(__file__).resolve().parents[2]


def run(*args):
    return subprocess.run([sys.executable, "-m", "blender_navjump", *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def write_obj(path, v, t):
    with open(path, "w") as fh:
        for p in v:
            fh.write(f"v {p[0]} {p[1]} {p[2]}\n")
        for a, b, c in t:
            fh.write(f"f {a + 1} {b + 1} {c + 1}\n")


@pytest.fixture()
def level(tmp_path):
    v, t = Scene().floor(0, 0, 10, 10).box(4, 4, 0, 6, 6, 3).arrays()
    path = tmp_path / "level.obj"
    write_obj(path, v, t)
    return path


def test_bake_writes_documented_json(level, tmp_path):
    out = tmp_path / "nav.json"
    r = run("bake", level, "--out", out, "--set", "agent_radius=0.3")
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert doc["format"] == "navjump" and doc["up"] == "z" and doc["version"] >= 1
    assert doc["settings"]["agent_radius"] == 0.3
    assert len(doc["polygons"]) == len(doc["polygon_area"]) > 0
    for poly in doc["polygons"]:
        pts = [doc["vertices"][i] for i in poly]
        area2 = sum(pts[i][0] * pts[(i + 1) % len(pts)][1] - pts[(i + 1) % len(pts)][0]
                    * pts[i][1] for i in range(len(pts)))
        assert area2 > 0  # counter-clockwise from above
    assert "timings_ms" not in doc["stats"]  # run-dependent: printed, never written
    assert doc["stats"]["polygons"] == len(doc["polygons"])


def test_y_up_input_is_converted(tmp_path):
    v, t = Scene().floor(0, 0, 10, 10, z=2.0).arrays()
    yup = v[:, [0, 2, 1]].copy()
    yup[:, 2] *= -1  # Blender (x, y, z) -> Recast (x, z, -y)
    path = tmp_path / "yup.obj"
    write_obj(path, yup, t)
    out = tmp_path / "nav.json"
    r = run("bake", path, "--out", out, "--up", "y")
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    zs = [p[2] for p in doc["vertices"]]
    assert min(zs) >= 2.0 - 1e-6 and max(zs) <= 2.2 + 1e-6


@pytest.mark.parametrize("args,needle", [
    (["--set", "cell_size=-1"], "cell_size"),
    (["--set", "nonsense=1"], "unknown setting"),
    (["--set", "verts_per_poly=9"], "verts_per_poly"),
    (["--stances", "stand,fly"], "fly"),
])
def test_bad_settings_exit_nonzero_without_output(level, tmp_path, args, needle):
    out = tmp_path / "nav.json"
    r = run("bake", level, "--out", out, *args)
    assert r.returncode != 0
    assert needle in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_bad_obj_exit_nonzero(tmp_path):
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 0\nf 1 2 7\n")
    out = tmp_path / "nav.json"
    r = run("bake", bad, "--out", out)
    assert r.returncode != 0 and "bad.obj" in r.stderr and not out.exists()
    r = run("bake", tmp_path / "missing.obj", "--out", out)
    assert r.returncode != 0 and "missing.obj" in r.stderr
    empty = tmp_path / "empty.obj"
    empty.write_text("# nothing\n")
    r = run("bake", empty, "--out", out)
    assert r.returncode != 0 and "empty" in r.stderr and not out.exists()
