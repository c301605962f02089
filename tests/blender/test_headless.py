"""Headless batch bakes: scripts/bake.py under plain Python (real subprocesses) and inside
a Blender session (the bpy module standing in for ``blender -b FILE --python``)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from script_modules import load_script

from blender_navjump.export import detour, gltf, navjump_json, obj

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "bake.py"
DEMO = ROOT / "assets" / "demo_level.blend"
ALL_FORMATS = "json,obj,gltf,detour"


def run_script(*args, timeout=600):
    # Same Blender user folder as this session (conftest), and the same staged source tree:
    # the numba kernels the session compiled are reused from its cache.
    env = dict(os.environ, NAVJUMP_DEV_REPO="navjump_tests")
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=str(ROOT))


def summary_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith(("OK ", "FAILED "))]


def _sorted_rows(rows) -> np.ndarray:
    a = np.round(np.asarray(rows, dtype=np.float64), 3)
    return a[np.lexsort(a.T[::-1])]


def load_report(path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


@pytest.fixture
def demo_copy(tmp_path):
    def make(name):
        path = tmp_path / "in" / name
        path.parent.mkdir(exist_ok=True)
        shutil.copy2(DEMO, path)
        return path
    return make


# ---------------------------------------------------------------- plain Python mode
def test_demo_level_writes_all_formats_that_read_back(tmp_path, bpy, navjump, demo_scene):
    expected_settings = navjump.props.to_bake_settings(demo_scene.navjump).to_dict()
    out = tmp_path / "out"
    report_path = tmp_path / "report.json"
    proc = run_script(DEMO, "--out", out, "--format", ALL_FORMATS, "--report", report_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = summary_lines(proc.stdout)
    assert len(lines) == 1 and lines[0].startswith("OK ") and "demo_level.blend" in lines[0]
    assert "1 of 1 file baked, 0 failed" in proc.stdout
    assert "Read blend" not in proc.stdout  # Blender's log goes to stderr

    entry = load_report(report_path)["files"][0]
    assert entry["ok"] and entry["error"] is None
    stats = entry["stats"]
    # Settings are the file's saved panel settings (no preset, no --set).
    assert entry["settings"] == expected_settings
    names = sorted(Path(p).name for p in entry["outputs"])
    assert names == sorted(["demo_level.navjump.json", "demo_level.navjump.obj",
                            "demo_level.navjump.glb", "demo_level.navjump.detour.bin"])

    nm = navjump_json.read_json(out / "demo_level.navjump.json")
    assert nm.polygon_count == stats["polygons"] > 0
    assert nm.link_count == stats["links"]
    assert nm.settings == expected_settings
    by_stance = {name: int((nm.polygon_stance == i).sum())
                 for i, name in enumerate(("stand", "crouch", "prone"))}
    assert by_stance == stats["polygons_by_stance"]

    polys = obj.read_obj_polygons(out / "demo_level.navjump.obj")
    assert len(polys.polygons) == nm.polygon_count
    # The OBJ groups polygons by stance: compare the polygons as a set (by centroid).
    np.testing.assert_allclose(
        _sorted_rows([polys.polygon_coords(i).mean(axis=0) for i in range(nm.polygon_count)]),
        _sorted_rows([nm.polygon_vertices(i).mean(axis=0) for i in range(nm.polygon_count)]),
        atol=1e-4)

    glb_polys, glb_stances = gltf.read_glb(out / "demo_level.navjump.glb").polygons_z_up()
    assert len(glb_polys) == nm.polygon_count
    assert np.array_equal(glb_stances, nm.polygon_stance.astype(np.int8))

    tile = detour.read_detour(out / "demo_level.navjump.detour.bin").tiles[0]
    assert tile.detail_meshes.shape[0] == nm.polygon_count
    assert tile.offmesh_cons.shape[0] == detour.offmesh_connections(nm).count


def test_bad_settings_fail_naming_the_setting_and_write_nothing(tmp_path, bpy, navjump,
                                                                 demo_scene):
    demo_scene.navjump.crouch_height = 2.5  # above stand (1.8): prone < crouch < stand fails
    bad = tmp_path / "bad_settings.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(bad), copy=True)
    out = tmp_path / "out"
    report_path = tmp_path / "report.json"
    proc = run_script(bad, "--out", out, "--format", ALL_FORMATS, "--report", report_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = summary_lines(proc.stdout)
    assert len(lines) == 1 and lines[0].startswith("FAILED ")
    assert "crouch_height" in lines[0] and "'Crouch'" in lines[0]
    assert not out.exists() or not any(out.iterdir())
    entry = load_report(report_path)["files"][0]
    assert not entry["ok"] and "crouch_height" in entry["error"] and entry["outputs"] == []

    # A --set override is checked the same way, before anything is written.
    proc = run_script(DEMO, "--out", out, "--set", "cell_height=5")
    assert proc.returncode == 1
    assert "cell_height" in summary_lines(proc.stdout)[0]
    assert not out.exists() or not any(out.iterdir())


def test_jobs_two_with_a_broken_file(tmp_path, navjump, demo_copy):
    good_a, good_b = demo_copy("level_a.blend"), demo_copy("level_b.blend")
    broken = tmp_path / "in" / "broken.blend"
    broken.write_bytes(b"BLENDER-v500" + bytes(range(256)) * 8)  # a header, then junk
    files = [good_a, broken, good_b]
    out = tmp_path / "out"
    report_path = tmp_path / "report.json"
    proc = run_script(*files, "--jobs", 2, "--out", out, "--format", "json,detour",
                      "--set", "links_enabled=false", "--report", report_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = summary_lines(proc.stdout)
    assert len(lines) == 3
    assert sum(line.startswith("OK ") for line in lines) == 2
    failed = [line for line in lines if line.startswith("FAILED ")]
    assert len(failed) == 1 and "broken.blend" in failed[0]
    assert "2 of 3 files baked, 1 failed" in proc.stdout

    report = load_report(report_path)
    assert report["jobs"] == 2 and report["succeeded"] == 2 and report["failed"] == 1
    entries = report["files"]
    assert [Path(e["file"]).name for e in entries] == [f.name for f in files]  # input order
    assert all("worker" in e for e in entries)
    bad = entries[1]
    assert not bad["ok"] and "cannot open" in bad["error"] and bad["outputs"] == []
    for e in (entries[0], entries[2]):
        assert e["ok"] and e["error"] is None
        assert e["stats"]["polygons"] > 0 and e["stats"]["links"] == 0
        assert e["settings"]["links_enabled"] is False
        assert all(Path(p).is_file() for p in e["outputs"]) and len(e["outputs"]) == 2
    assert entries[0]["stats"]["polygons"] == entries[2]["stats"]["polygons"]
    assert sorted(p.name for p in out.iterdir()) == sorted([
        "level_a.navjump.json", "level_a.navjump.detour.bin",
        "level_b.navjump.json", "level_b.navjump.detour.bin"])


def test_jobs_says_once_that_it_compiles_before_the_workers_start(tmp_path, navjump,
                                                                  demo_copy):
    """``--jobs 2`` on a kernel folder that is not warm prints the one "compiling" line
    once (the parent compiles or loads every kernel, then starts the workers, which find
    the folder warm). The folder starts as a copy of this session's kernels without the
    "warm" mark, so the parent loads rather than compiles; the checkout's own kernel pack
    is not unpacked into it (it would make the folder warm: nothing to say)."""
    from blender_navjump.core import kernel_cache

    session = Path(kernel_cache.cache_dir())
    folder = tmp_path / "kernels" / session.name
    if session.is_dir():
        shutil.copytree(session, folder, ignore=shutil.ignore_patterns(
            kernel_cache.WARM_MARKER, kernel_cache.LAST_USED, "*.tmp.*"))
    files = [demo_copy("level_a.blend"), demo_copy("level_b.blend")]
    env = dict(os.environ, NAVJUMP_DEV_REPO="navjump_tests",
               **{kernel_cache.ROOT_ENV: str(tmp_path / "kernels"),
                  kernel_cache.INSTALL_SHIPPED_ENV: "0"})
    proc = subprocess.run([sys.executable, str(SCRIPT), *map(str, files), "--jobs", "2",
                           "--out", str(tmp_path / "out"), "--format", "json",
                           "--set", "links_enabled=false"], capture_output=True, text=True,
                          timeout=1800, env=env, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stderr.count("compiling NavJump kernels, first run only, ~") == 1, proc.stderr
    assert str(folder) in proc.stderr
    assert kernel_cache.is_warm(str(folder))
    assert len(summary_lines(proc.stdout)) == 2


def test_save_stores_result_preset_and_overrides(tmp_path, bpy, navjump, demo_copy):
    level = demo_copy("level.blend")
    proc = run_script(level, "--save", "--preset", "large robot", "--set", "agent_radius=0.5",
                      "--set", "links_enabled=off", "--out", tmp_path / "out")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(saved)" in summary_lines(proc.stdout)[0]
    nm = navjump_json.read_json(tmp_path / "out" / "level.navjump.json")
    # Large robot preset (stand 3.0) with the radius overridden; auto cell size follows.
    assert nm.settings["stand_height"] == pytest.approx(3.0)
    assert nm.settings["agent_radius"] == pytest.approx(0.5)
    assert nm.settings["cell_size"] == pytest.approx(0.25)
    assert nm.settings["links_enabled"] is False

    bpy.ops.wm.open_mainfile(filepath=str(level))
    scene = bpy.context.scene
    stored = navjump.storage.load_navmesh(scene)
    assert stored is not None and stored.polygon_count == nm.polygon_count
    assert scene.navjump.agent_radius == pytest.approx(0.5)
    assert scene.navjump.stand_height == pytest.approx(3.0)
    assert scene.navjump.links_enabled is False


def test_unknown_preset_is_a_per_file_error_listing_the_presets(tmp_path, navjump):
    proc = run_script(DEMO, "--preset", "Giant Squid", "--out", tmp_path / "out")
    assert proc.returncode == 1
    line = summary_lines(proc.stdout)[0]
    assert "Giant Squid" in line and "Human" in line
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------- inside Blender
def test_inside_blender_bakes_the_open_file_with_args_after_double_dash(
        tmp_path, bpy, navjump, demo_scene, monkeypatch, capsys):
    # As under ``blender -b level.blend --python scripts/bake.py -- ...``: bpy is loaded, the
    # file is open, and its unsaved in-memory settings are the ones baked (no re-open).
    demo_scene.navjump.agent_radius = 0.6
    demo_scene.navjump.links_enabled = False
    out = tmp_path / "out"
    monkeypatch.setattr(sys, "argv", ["blender", "-b", str(DEMO), "--python", str(SCRIPT),
                                      "--", "--out", str(out), "--format", "json,obj"])
    code = load_script("bake").main()
    assert code == 0
    stdout = capsys.readouterr().out
    assert len(summary_lines(stdout)) == 1 and summary_lines(stdout)[0].startswith("OK ")
    nm = navjump_json.read_json(out / "demo_level.navjump.json")
    assert nm.settings["agent_radius"] == pytest.approx(0.6)
    assert nm.settings["cell_size"] == pytest.approx(0.3)  # auto: radius / 2
    assert (out / "demo_level.navjump.obj").is_file()
    assert bpy.data.filepath == str(DEMO) and bpy.data.is_dirty  # still the same open file


#END
