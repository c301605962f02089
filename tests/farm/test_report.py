"""Per-file reports and their merge (no bpy): order, missing and unusable reports, the
timing fields two runs may differ in, the output-folder check and the task commands'
argument handling."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blender_navjump.blender import batch
from blender_navjump.farm import filelist, openjd_task
from blender_navjump.farm import report as rep


def _entry(path, ok=True, seconds=1.5, polygons=10):
    e = batch.new_result(path)
    e.update(ok=ok, error=None if ok else "cannot open the file: junk", seconds=seconds,
             stats={"polygons": polygons, "timings_ms": {"total": seconds * 1000},
                    "links_info": {"samples": 3, "timings_ms": {"samples": seconds}}},
             phases_s={"open": 0.1, "bake": seconds}, worker=1234)
    return e


def _file_report(path, **kw):
    return batch.build_report([_entry(path, **kw)], batch.BakeOptions(out="o"), 1,
                                 kw.get("seconds", 1.5))


def test_merge_keeps_the_job_order_and_counts(tmp_path):
    files = [str(tmp_path / n) for n in ("b.blend", "a.blend", "c.blend")]
    reports = [_file_report(files[0]), _file_report(files[1], ok=False, seconds=0.2),
               "no report from the bake task"]
    merged = rep.merge_reports(files, reports, runner="openjd")
    assert [e["file"] for e in merged["files"]] == files
    assert (merged["files_total"], merged["succeeded"], merged["failed"]) == (3, 1, 2)
    assert merged["runner"] == "openjd" and merged["tool"] == rep.TOOL
    assert merged["options"]["out"] == "o"
    assert merged["files"][2]["error"] == "no report from the bake task"
    assert merged["files"][2]["outputs"] == [] and not merged["files"][2]["ok"]
    assert merged["seconds"] == 1.7


def test_merge_rejects_a_report_of_another_file(tmp_path):
    merged = rep.merge_reports([str(tmp_path / "a.blend")],
                               [_file_report(str(tmp_path / "z.blend"))], runner="dask")
    entry = merged["files"][0]
    assert not entry["ok"] and "no entry for" in entry["error"] and "a.blend" in entry["error"]


def test_merge_report_files_reads_missing_and_broken_reports(tmp_path):
    files = [str(tmp_path / f"{n}.blend") for n in ("good", "missing", "junk", "other")]
    batch.write_report(rep.file_report_path(files[0], tmp_path), _file_report(files[0]))
    rep.file_report_path(files[2], tmp_path).write_text("{not json", encoding="utf-8")
    rep.file_report_path(files[3], tmp_path).write_text('{"a": 1}', encoding="utf-8")
    merged = rep.merge_report_files(files, tmp_path)
    ok, missing, junk, other = merged["files"]
    assert ok["ok"] and ok["stats"]["polygons"] == 10
    assert "missing.navjump-report.json is missing" in missing["error"]
    assert "did not finish" in missing["error"]
    assert "junk.navjump-report.json is not valid JSON" in junk["error"]
    assert "is not a NavJump batch report" in other["error"]
    assert merged["failed"] == 3


def test_without_timings_drops_exactly_the_run_dependent_fields(tmp_path):
    path = str(tmp_path / "a.blend")
    one = rep.merge_reports([path], [_file_report(path, seconds=1.0)], runner="openjd")
    two = rep.merge_reports([path], [_file_report(path, seconds=9.0)], runner="openjd")
    assert one != two
    assert rep.without_timings(one) == rep.without_timings(two)
    stripped = rep.without_timings(one)["files"][0]
    assert "seconds" not in stripped and "phases_s" not in stripped and "worker" not in stripped
    assert stripped["stats"] == {"polygons": 10, "links_info": {"samples": 3}}
    assert one["files"][0]["stats"]["timings_ms"]  # the input is left alone
    # A real difference survives.
    three = rep.merge_reports([path], [_file_report(path, polygons=11)], runner="openjd")
    assert rep.without_timings(one) != rep.without_timings(three)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(["ok", "failed", "missing"]), min_size=1, max_size=12))
def test_merge_counts_and_order_for_any_mix(kinds):
    files = [f"/levels/level_{i:02d}.blend" for i in range(len(kinds))]
    make = {"ok": _file_report, "failed": lambda f: _file_report(f, ok=False),
            "missing": lambda f: f"no report for {f}"}
    reports = [make[k](f) for f, k in zip(files, kinds, strict=True)]
    merged = rep.merge_reports(files, reports, runner="dask")
    assert [e["file"] for e in merged["files"]] == files
    assert merged["succeeded"] == kinds.count("ok")
    assert merged["failed"] == len(kinds) - kinds.count("ok")
    assert [e["ok"] for e in merged["files"]] == [k == "ok" for k in kinds]
    json.dumps(merged)  # plain JSON all the way down


def test_check_output_dir(tmp_path):
    assert rep.check_output_dir(tmp_path / "new" / "deeper") is None
    assert (tmp_path / "new" / "deeper").is_dir()
    assert list((tmp_path / "new" / "deeper").iterdir()) == []  # the probe is gone
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    msg = rep.check_output_dir(blocker / "out")
    assert msg.startswith(f"output folder {blocker / 'out'} is not writable")
    msg = rep.check_output_dir("/proc/navjump-out")  # even root cannot write there
    assert msg is not None and "/proc/navjump-out" in msg


def test_output_probe_never_names_a_file(tmp_path, monkeypatch):
    """A farm worker killed between creating and removing its probe leaves nothing in the
    output folder: the probe has no name there (Linux), so there is nothing to remove."""
    import os

    def killed(*args, **kwargs):  # the worker dies before it can remove anything
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(os, "unlink", killed)
    monkeypatch.setattr(os, "remove", killed)
    assert rep.check_output_dir(tmp_path / "out") is None
    assert list((tmp_path / "out").iterdir()) == []


def test_bake_one_refuses_an_unwritable_output_folder(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    lines = []
    code = openjd_task.bake_one_main([str(tmp_path / "level.blend"), "--out",
                                      str(blocker / "out")], emit=lines.append)
    assert code == openjd_task.EXIT_OUTPUT_NOT_WRITABLE
    assert lines[0].startswith("FAILED ") and "is not writable" in lines[0]


def test_merge_command_writes_the_report_and_fails_on_a_failed_file(tmp_path):
    files = [str(tmp_path / "a.blend"), str(tmp_path / "b.blend")]
    batch.write_report(rep.file_report_path(files[0], tmp_path), _file_report(files[0]))
    lines = []
    code = openjd_task.merge_main(["--out", str(tmp_path), *files], emit=lines.append)
    assert code == 1
    assert lines[0].startswith("OK ") and lines[1].startswith("FAILED ")
    merged = json.loads(Path(rep.merged_report_path(tmp_path)).read_text())
    assert merged["succeeded"] == 1 and merged["failed"] == 1
    batch.write_report(rep.file_report_path(files[1], tmp_path), _file_report(files[1]))
    assert openjd_task.merge_main(["--out", str(tmp_path), *files], emit=lines.append) == 0


def test_task_command_usage_and_settings_split():
    assert openjd_task.main([]) == openjd_task.EXIT_BAD_ARGUMENTS
    assert openjd_task.main(["bake"]) == openjd_task.EXIT_BAD_ARGUMENTS
    assert openjd_task._split_settings("agent_radius=0.5  links_enabled=false") == [
        "agent_radius=0.5", "links_enabled=false"]
    assert openjd_task._split_settings("") == []


def test_file_lists_expand_relative_to_the_list(tmp_path):
    (tmp_path / "lists").mkdir()
    listing = tmp_path / "lists" / "levels.txt"
    listing.write_text("# the build's levels\n\nlevels/a.blend\n  /abs/b.blend  \n",
                       encoding="utf-8")
    got = filelist.expand_file_args(["first.blend", f"@{listing}", "last.blend"])
    assert got == ["first.blend", str(tmp_path / "lists" / "levels" / "a.blend"),
                   "/abs/b.blend", "last.blend"]
    try:
        filelist.expand_file_args([f"@{tmp_path / 'nope.txt'}"])
    except filelist.FileListError as exc:
        assert "nope.txt" in str(exc)
    else:
        raise AssertionError("a missing list file must be an error")
    assert filelist.same_output_names(["x/a.blend", "y/b.blend", "z/a.blend"]) == [
        ("x/a.blend", "z/a.blend")]


def test_merge_fails_files_that_share_output_names(tmp_path):
    files = [str(tmp_path / "x" / "a.blend"), str(tmp_path / "y" / "a.blend"),
             str(tmp_path / "b.blend")]
    for f in files:  # even with reports on disk: they overwrote each other
        batch.write_report(rep.file_report_path(f, tmp_path), _file_report(f))
    merged = rep.merge_report_files(files, tmp_path)
    first, second, other = merged["files"]
    assert not first["ok"] and not second["ok"] and other["ok"]
    assert "write the same output files" in first["error"] == second["error"]


def test_params_command_writes_the_job_parameters(tmp_path, capsys):
    listing = tmp_path / "levels.txt"
    listing.write_text("a.blend\nsub/b.blend\n", encoding="utf-8")
    (tmp_path / "a.blend").write_bytes(b"x")
    target = tmp_path / "params.json"
    code = openjd_task.main(["params", f"@{listing}", "--out", str(tmp_path / "o"),
                             "--format", "json,obj", "--settings", "agent_radius=0.5",
                             "--json", str(target)])
    assert code == 0
    params = json.loads(target.read_text())
    assert params["Files"] == [str(tmp_path / "a.blend"), str(tmp_path / "sub" / "b.blend")]
    assert params["OutputDir"] == str(tmp_path / "o") and params["Formats"] == "json,obj"
    assert params["Settings"] == "agent_radius=0.5" and params["Preset"] == ""
    assert Path(params["NavJumpDir"], "scripts", "openjd", "navjump_task.py").is_file()
    assert "sub/b.blend does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        openjd_task.main(["params", "x/a.blend", "y/a.blend", "--out", "o"])
    assert exc.value.code == 2
    assert "would write the same output files" in capsys.readouterr().err
