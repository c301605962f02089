"""Farm runners for real: the Open Job Description template under ``openjd run`` and
``scripts/bake.py --scheduler`` on a Dask LocalCluster of 2 worker processes, each on the
same four levels (two good, one broken, one missing). Both must write the same outputs
and the same report apart from timing fields."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import distributed  # the 'farm' extra: scripts/setup_env.sh installs it
import pytest

from blender_navjump.blender import batch
from blender_navjump.export import navjump_json
from blender_navjump.farm import dask_runner
from blender_navjump.farm import report as rep

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "scripts" / "openjd" / "navjump-bake.openjd.yaml"
BAKE = ROOT / "scripts" / "bake.py"
TASK = ROOT / "scripts" / "openjd" / "navjump_task.py"
HOST = Path(__file__).with_name("dask_cluster_host.py")
DEMO = ROOT / "assets" / "demo_level.blend"
OPENJD = Path(sys.executable).with_name("openjd")
FORMATS = "json,obj,gltf,detour"
ENV = dict(os.environ, NAVJUMP_DEV_REPO="navjump_tests")  # the session's staged source


def summary_lines(text: str) -> list[str]:
    return [line.split("\t")[-1] for line in text.splitlines()
            if line.split("\t")[-1].startswith(("OK ", "FAILED "))]


@pytest.fixture(scope="module")
def levels(tmp_path_factory, navjump):
    """a.blend, c.blend (the demo level), broken.blend (junk), gone.blend (missing)."""
    folder = tmp_path_factory.mktemp("levels")
    for name in ("a.blend", "c.blend"):
        shutil.copy2(DEMO, folder / name)
    (folder / "broken.blend").write_bytes(b"BLENDER-v500" + bytes(range(256)) * 8)
    return [str(folder / n) for n in ("a.blend", "broken.blend", "gone.blend", "c.blend")]


@pytest.fixture(scope="module")
def openjd_run(levels, tmp_path_factory):
    out = tmp_path_factory.mktemp("openjd_out")
    # As a pipeline would: a list file, the params command, then openjd run with the file.
    listing = out.parent / "levels.txt"
    listing.write_text("\n".join(levels) + "\n", encoding="utf-8")
    params = out.parent / "params.json"
    made = subprocess.run(
        [sys.executable, str(TASK), "params", f"@{listing}", "--out", str(out),
         "--format", FORMATS, "--json", str(params)],
        capture_output=True, text=True, timeout=120, env=ENV, cwd=str(ROOT))
    assert made.returncode == 0, made.stderr
    assert "gone.blend does not exist" in made.stderr
    proc = subprocess.run(
        [str(OPENJD), "run", str(TEMPLATE), "--job-param", f"file://{params}"],
        capture_output=True, text=True, timeout=900, env=ENV, cwd=str(ROOT))
    return proc, out


@pytest.fixture(scope="module")
def cluster():
    """A real LocalCluster (2 worker processes, 1 thread each) in its own process."""
    proc = subprocess.Popen([sys.executable, str(HOST), "2"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=ENV)
    address = proc.stdout.readline().strip()
    assert address.startswith("tcp://"), "the LocalCluster did not start"
    yield address
    proc.stdin.close()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def dask_run(levels, cluster, tmp_path_factory):
    out = tmp_path_factory.mktemp("dask_out")
    report = out / "report.json"
    proc = subprocess.run(
        [sys.executable, str(BAKE), *levels, "--scheduler", cluster, "--out", str(out),
         "--format", FORMATS, "--report", str(report)],
        capture_output=True, text=True, timeout=900, env=ENV, cwd=str(ROOT))
    return proc, out, report


def _check_results(entries, levels, out):
    assert [e["file"] for e in entries] == levels  # the job's order
    a, broken, gone, c = entries
    assert not broken["ok"] and "cannot open the file" in broken["error"]
    assert not gone["ok"] and broken["outputs"] == gone["outputs"] == []
    assert gone["error"] == f"file not found: {levels[2]}"
    for e in (a, c):
        assert e["ok"] and e["error"] is None and len(e["outputs"]) == 4
        nm = navjump_json.read_json(Path(e["outputs"][0]))
        assert nm.polygon_count == e["stats"]["polygons"] > 0
        assert nm.link_count == e["stats"]["links"]
    names = sorted(p.name for p in Path(out).iterdir() if ".navjump." in p.name)
    assert names == sorted(f"{s}.navjump.{x}" for s in ("a", "c")
                           for x in ("json", "obj", "glb", "detour.bin"))


# ---------------------------------------------------------------- Open Job Description
def test_openjd_check_accepts_the_template():
    proc = subprocess.run([str(OPENJD), "check", str(TEMPLATE)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "passes validation" in proc.stdout


def test_openjd_run_bakes_one_task_per_file_and_merges(openjd_run, levels):
    proc, out = openjd_run
    log = proc.stdout + proc.stderr
    assert proc.returncode == 1, log  # a file failed: the Merge step fails the job
    # Every Bake task ran and exited 0 (failures are recorded), then Merge exited 1.
    assert log.count("exited with code: 0") == 4 and log.count("exited with code: 1") == 1
    assert "2 of 4 files baked, 2 failed" in log
    for level in levels:
        assert rep.file_report_path(level, out).is_file()
    merged = rep.load_report(rep.merged_report_path(out))
    assert merged["runner"] == "openjd"
    assert (merged["files_total"], merged["succeeded"], merged["failed"]) == (4, 2, 2)
    assert merged["options"]["formats"] == FORMATS.split(",")
    _check_results(merged["files"], levels, out)
    merged_lines = summary_lines(log)[-4:]
    assert [line.split()[0] for line in merged_lines] == ["OK", "FAILED", "FAILED", "OK"]


# ---------------------------------------------------------------- Dask
def test_dask_scheduler_bakes_every_file_on_two_workers(dask_run, levels):
    proc, out, report_path = dask_run
    assert proc.returncode == 1, proc.stdout + proc.stderr
    lines = summary_lines(proc.stdout)
    assert len(lines) == 4 and sum(line.startswith("OK ") for line in lines) == 2
    assert "2 of 4 files baked, 2 failed" in proc.stdout and "jobs 2" in proc.stdout
    assert "Read blend" not in proc.stdout  # nothing of Blender's log on stdout
    assert proc.stderr.count("navjump: baking ") == 4
    report = rep.load_report(report_path)
    assert report["jobs"] == 2
    _check_results(report["files"], levels, out)
    for e in report["files"][:1] + report["files"][3:]:
        assert e["worker"].startswith("tcp://127.0.0.1:")
        assert e["phases_s"]["worker_setup"] >= 0.0


def test_openjd_and_dask_write_identical_outputs_and_reports(openjd_run, dask_run, levels):
    (_, jd_out), (_, dk_out, dk_report) = openjd_run, dask_run
    for stem in ("a", "c"):
        for suffix in (".navjump.obj", ".navjump.glb", ".navjump.detour.bin"):
            assert (jd_out / (stem + suffix)).read_bytes() == \
                (dk_out / (stem + suffix)).read_bytes(), stem + suffix
        # Timings (stats...timings_ms) are the one thing two bakes may write differently.
        jd, dk = (rep.drop_timing_keys(json.loads((d / f"{stem}.navjump.json").read_text()))
                  for d in (jd_out, dk_out))
        assert jd == dk and jd["polygons"]
    # The reports agree apart from timing fields and where the outputs went.
    merged = rep.without_timings(rep.load_report(rep.merged_report_path(jd_out)))
    dask = rep.without_timings(rep.load_report(dk_report))
    for entry in dask["files"]:
        entry["outputs"] = [p.replace(str(dk_out), str(jd_out)) for p in entry["outputs"]]
    assert merged["files"] == dask["files"]


def test_a_worker_killed_mid_bake_fails_only_its_file(cluster, levels, tmp_path):
    victim, survivor = tmp_path / "victim.blend", tmp_path / "survivor.blend"
    shutil.copy2(DEMO, victim)
    shutil.copy2(DEMO, survivor)
    # A fine grid makes each bake last seconds: the kill lands while it runs.
    options = batch.BakeOptions(out=str(tmp_path / "out"), overrides={
        "cell_size": 0.04, "cell_height": 0.05, "links_enabled": False})
    killed = []

    def on_start(msg):
        if msg["file"] == str(victim) and not killed:
            killed.append(msg["pid"])
            os.kill(msg["pid"], signal.SIGKILL)

    results, workers = dask_runner.run_on_scheduler([victim, survivor], options, cluster,
                                                    on_start=on_start)
    assert workers == 2 and len(killed) == 1
    bad, good = results
    assert not bad["ok"] and bad["error"] == dask_runner.DIED_MESSAGE
    assert good["ok"], good["error"]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["survivor.navjump.json"]
    # The nanny replaces the dead worker: the cluster is whole again.
    with distributed.Client(cluster, timeout=10, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=120)


def test_dask_output_folder_not_writable_fails_every_file(cluster, levels, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    results, _ = dask_runner.run_on_scheduler(
        [levels[0], levels[3]], batch.BakeOptions(out=str(blocker / "out")), cluster)
    for r in results:
        assert not r["ok"] and r["error"].startswith(
            f"output folder {blocker / 'out'} is not writable")
    assert blocker.read_text() == "not a folder"


def test_scheduler_that_does_not_answer_fails_within_seconds(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(BAKE), str(DEMO), "--scheduler", address, "--connect-timeout",
         "2", "--out", str(tmp_path / "out"), "--report", str(tmp_path / "r.json")],
        capture_output=True, text=True, timeout=120, env=ENV, cwd=str(ROOT))
    elapsed = time.monotonic() - t0
    assert proc.returncode == 1, proc.stdout + proc.stderr
    line = summary_lines(proc.stdout)[0]
    assert line.startswith("FAILED ") and f"cannot reach the Dask scheduler at {address}" \
        in line and "within 2 s" in line
    assert elapsed < 60  # a hang would hit the subprocess timeout instead
    assert not (tmp_path / "out").exists()
    assert rep.load_report(tmp_path / "r.json")["failed"] == 1


def test_openjd_output_folder_not_writable_stops_the_job_writing_nothing(levels, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    out = blocker / "out"
    proc = subprocess.run(
        [str(OPENJD), "run", str(TEMPLATE), "-p", f"NavJumpDir={ROOT}",
         "-p", f"Python={sys.executable}", "-p", f"OutputDir={out}",
         "-p", f"Files={json.dumps(levels[:1])}"],
        capture_output=True, text=True, timeout=300, env=ENV, cwd=str(ROOT))
    log = proc.stdout + proc.stderr
    assert proc.returncode == 1, log
    assert f"FAILED {levels[0]}: output folder {out} is not writable" in log
    assert "exited with code: 3" in log and "Running step 'Merge'" not in log
    assert blocker.read_text() == "not a folder"
