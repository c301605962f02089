"""The batch driver without Blender (``blender/batch.py``): options, output checks, results,
summary lines, the report, the sequential loop and the .blend byte checks."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blender_navjump.blender import batch
from blender_navjump.cli import parse_set_values
from blender_navjump.core.settings import BakeSettings

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "assets" / "demo_level.blend"


@settings(max_examples=30, deadline=None)
@given(out=st.none() | st.text(min_size=1, max_size=8),
       formats=st.lists(st.sampled_from(["json", "obj", "gltf", "detour"]), min_size=1,
                        max_size=4, unique=True),
       save=st.booleans(), radius=st.floats(0.1, 2.0))
def test_options_cross_process_boundaries_unchanged(out, formats, save, radius):
    opts = batch.BakeOptions(out=out, formats=tuple(formats), overrides={"agent_radius": radius},
                             save=save)
    data = json.loads(json.dumps(opts.to_dict()))  # what a queue or a Dask task carries
    assert batch.BakeOptions.from_dict(data) == opts


def test_overrides_follow_the_panel_auto_cell_size():
    base = BakeSettings(agent_radius=0.4, cell_size=0.2, cell_height=0.1)
    overrides = parse_set_values(["agent_radius=0.8", "links_enabled=yes"])
    assert overrides == {"agent_radius": 0.8, "links_enabled": True}
    auto = batch.apply_overrides(base, overrides, True, lambda r: (r / 2, r / 4))
    assert (auto.agent_radius, auto.cell_size, auto.cell_height) == (0.8, 0.4, 0.2)
    fixed = batch.apply_overrides(base, overrides, False, lambda r: (r / 2, r / 4))
    assert (fixed.cell_size, fixed.cell_height) == (0.2, 0.1)
    explicit = batch.apply_overrides(base, {"agent_radius": 0.8, "cell_size": 0.3}, True,
                                     lambda r: (r / 2, r / 4))
    assert (explicit.cell_size, explicit.cell_height) == (0.3, 0.1)
    assert batch.apply_overrides(base, {}, True, lambda r: (r, r)) is base


def test_output_targets_and_their_collisions(tmp_path):
    assert batch.output_target("x/level.blend", tmp_path) == tmp_path / "level.navjump.json"
    beside = batch.output_target(tmp_path / "a" / "level.blend")
    assert beside == (tmp_path / "a" / "level.navjump.json").resolve()
    assert batch.check_output_collisions(["a/l.blend", "b/m.blend"], str(tmp_path)) is None
    assert "same output files" in batch.check_output_collisions(
        ["a/l.blend", "b/l.blend"], str(tmp_path))
    # without --out each level writes beside itself: same names in two folders are fine
    assert batch.check_output_collisions([tmp_path / "a/l.blend", tmp_path / "b/l.blend"],
                                         None) is None
    report = tmp_path / "l.navjump.obj"
    msg = batch.check_output_collisions(["a/l.blend"], str(tmp_path), report=report,
                                        formats=("json", "obj"))
    assert msg and "--report" in msg and "l.navjump.obj" in msg
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert "is a file" in batch.check_output_collisions(["l.blend"], str(a_file))


def test_summary_flags_only_empty_successes():
    ok = {"file": "a.blend", "ok": True, "stats": {"polygons": 3}}
    empty = {"file": "b.blend", "ok": True, "stats": {"polygons": 0}}
    failed = {"file": "c.blend", "ok": False, "error": "boom", "stats": {}}
    assert batch.summary_line(ok).startswith("OK     a.blend: 3 polygons")
    assert batch.summary_line(empty).startswith("EMPTY  b.blend: 0 polygons")
    assert batch.summary_line(failed) == "FAILED c.blend: boom"
    report = batch.build_report([ok, empty, failed], batch.BakeOptions(), 1, 1.0)
    assert (report["succeeded"], report["empty"], report["failed"]) == (2, 1, 1)
    assert [f["empty"] for f in report["files"]] == [False, True, False]


def test_run_sequential_keeps_order_and_turns_a_crash_into_a_failed_file(tmp_path, capsys):
    def bake_one(path, options, reuse_open=False):
        if path.endswith("bad.blend"):
            raise RuntimeError("kaput")
        result = batch.new_result(path)
        result.update(ok=True, stats={"polygons": 2}, outputs=[options["out"]])
        return result

    seen = []
    files = ["one.blend", "bad.blend", "two.blend"]
    opts = batch.BakeOptions(out=str(tmp_path))
    results = batch.run_sequential(files, opts, bake_one, on_result=seen.append)
    assert [r["file"] for r in results] == files and seen == results
    assert [r["ok"] for r in results] == [True, False, True]
    assert results[1]["error"] == "RuntimeError: kaput" and "kaput" in results[1]["traceback"]
    lines = []
    report_path = tmp_path / "sub" / "report.json"
    code = batch.finish(results, opts, 1, 0.0, report_path, emit=lines.append)
    assert code == 1 and lines[0].startswith("navjump: 2 of 3 files baked")
    assert "1 failed" in lines[0]
    written = json.loads(report_path.read_text(encoding="utf-8"))
    assert written["failed"] == 1 and written["options"]["out"] == str(tmp_path)
    assert not list(report_path.parent.glob("*.tmp"))
    assert batch.finish([], opts, 1, 0.0, emit=lines.append) == 1  # nothing baked: not a success


def test_blend_header_problem_on_real_and_broken_files(tmp_path):
    if not DEMO.is_file():
        pytest.skip(f"{DEMO} is not in this checkout (Git LFS?)")
    assert batch.blend_header_problem(DEMO) is None
    cut = tmp_path / "cut.blend"
    data = DEMO.read_bytes()
    cut.write_bytes(data[:len(data) // 2])
    assert "cut short" in batch.blend_header_problem(cut)
    plain = tmp_path / "plain.blend"
    plain.write_bytes(batch.BLEND_MAGIC + b"-v405" + b"\0" * 100 + b"ENDB" + b"\0" * 20)
    assert batch.blend_header_problem(plain) is None
    plain.write_bytes(batch.BLEND_MAGIC + b"-v405" + b"\0" * 100)
    assert "no end block" in batch.blend_header_problem(plain)
    text = tmp_path / "text.blend"
    shutil.copy2(ROOT / "README.md", text)
    assert "does not start like a .blend" in batch.blend_header_problem(text)
    assert "cannot read" in batch.blend_header_problem(tmp_path / "missing.blend")
    assert batch.backup_blend_path(Path("x/l.blend")) == Path("x/l.blend1")


def test_pool_reports_workers_that_cannot_start(tmp_path, bpy):
    # the workers are real spawned interpreters that import bpy and fail to enable NavJump
    files = [tmp_path / "a.blend", tmp_path / "b.blend"]
    setup = {"repo_dir": str(tmp_path / "no_such_repo"), "repo_module": "navjump_missing"}
    seen = []
    results = batch.run_pool(files, batch.BakeOptions(), 2, setup, on_result=seen.append)
    assert [r["file"] for r in results] == [str(f) for f in files]
    assert len(seen) == 2
    for r in results:
        assert not r["ok"] and "could not load NavJump" in r["error"]

