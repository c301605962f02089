"""The Dask driver's submitting side against a real scheduler that has no workers (no bpy
involved): a clear error naming the address, within the connect timeout, for every file."""

import time

import pytest
from distributed import LocalCluster

from blender_navjump.blender import batch
from blender_navjump.farm import dask_runner


def test_a_scheduler_without_workers_is_a_clear_error_for_every_file(tmp_path):
    with LocalCluster(n_workers=0, protocol="tcp", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        with pytest.raises(dask_runner.FarmError) as exc:
            dask_runner.run_on_scheduler(["a.blend"], batch.BakeOptions(), address,
                                         connect_timeout=1)
        assert f"the Dask scheduler at {address} has no workers" in str(exc.value)

        t0 = time.monotonic()
        lines, logged = [], []
        results, workers = dask_runner.script_run(
            ["a.blend", "b.blend"], batch.BakeOptions(out=str(tmp_path / "out")), address,
            1.0, on_result=lambda r: lines.append(batch.summary_line(r)),
            log=logged.append)
        assert time.monotonic() - t0 < 30
    assert workers == 0 and [r["file"] for r in results] == ["a.blend", "b.blend"]
    assert all(not r["ok"] and "has no workers" in r["error"] for r in results)
    assert len(lines) == 2 and all(line.startswith("FAILED ") for line in lines)
    assert logged and logged[0].startswith("navjump: error: the Dask scheduler at ")
    assert not (tmp_path / "out").exists()  # nothing was written


def test_a_malformed_address_is_a_clear_error():
    with pytest.raises(dask_runner.FarmError) as exc:
        dask_runner.connect("tcp://no-such-host.invalid:1", connect_timeout=1)
    assert "cannot reach the Dask scheduler at tcp://no-such-host.invalid:1" in str(exc.value)
