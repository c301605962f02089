"""core.parallel.run_banded: every row once, errors reach the caller, and the calling thread
finishes the work alone when the pool is busy."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from blender_navjump.core import parallel


@pytest.fixture
def two_workers(monkeypatch):
    monkeypatch.setenv("NAVJUMP_THREADS", "2")
    assert parallel.worker_count() == 2


def test_every_row_runs_once_in_bands(two_workers):
    hits = np.zeros(1000, np.int64)
    threads = set()

    def kernel(out, lo, hi):
        threads.add(threading.current_thread().name)
        out[lo:hi] += 1
        time.sleep(0.002)  # as a nogil kernel: the other threads run meanwhile

    parallel.run_banded(kernel, 1000, hits, min_rows=10, per_worker=8)
    assert (hits == 1).all()
    assert threading.current_thread().name in threads  # the caller took bands too


def test_a_band_error_is_raised_on_the_caller(two_workers):
    def kernel(lo, hi):
        if lo <= 500 < hi:
            raise ValueError("band with row 500")

    with pytest.raises(ValueError, match="row 500"):
        parallel.run_banded(kernel, 1000, min_rows=10, per_worker=8)


def test_the_caller_does_not_wait_for_a_busy_pool(two_workers):
    # every pool thread is held busy: the helpers run_banded asks for cannot start, and
    # the call must still finish, on the calling thread alone
    release = threading.Event()
    pool = parallel._pool()
    size = pool._max_workers  # made by whichever bake came first
    started = threading.Barrier(size + 1)

    def hold():
        started.wait()
        release.wait(30)

    held = [pool.submit(hold) for _ in range(size)]
    started.wait(10)
    try:
        hits = np.zeros(400, np.int64)
        done = threading.Event()

        def call():
            parallel.run_banded(lambda out, lo, hi: out.__setitem__(slice(lo, hi), 1), 400,
                                hits, min_rows=10, per_worker=4)
            done.set()

        caller = threading.Thread(target=call, daemon=True)
        caller.start()
        assert done.wait(10), "run_banded waited for helpers that could not start"
        assert (hits == 1).all()
    finally:
        release.set()
        for f in held:
            f.result()
