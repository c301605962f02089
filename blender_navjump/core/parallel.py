"""Run a row-band kernel on several threads (the kernels release the GIL).

Numba's own ``parallel=True`` must be called only from the main thread and never nested,
which Blender's operators cannot always promise; plain threads over ``nogil`` kernels work
from any thread.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()
# read once: every kernel call of a bake asks (os.cpu_count reads /sys on Linux)
_CPU_COUNT = os.cpu_count() or 1


def worker_count() -> int:
    """Threads for banded kernels: NAVJUMP_THREADS, else the CPU count (at most 8)."""
    env = os.environ.get("NAVJUMP_THREADS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(8, _CPU_COUNT))


def _pool() -> ThreadPoolExecutor:
    global _POOL
    with _POOL_LOCK:  # bakes on several threads (core.agents) share the one pool
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=worker_count(), thread_name_prefix="navjump")
    return _POOL


def run_banded(kernel: Callable[..., object], rows: int, *args: object, min_rows: int = 256,
               per_worker: int = 2) -> None:
    """Call ``kernel(*args, row_lo, row_hi)`` over bands covering ``rows`` rows.

    Small grids run in one call on the calling thread. ``per_worker`` bands per thread:
    more bands balance uneven work (link search) at a small cost per band. The calling
    thread takes bands too (``_Bands``): it is awake, while a pool thread that slept
    starts a band only after the system wakes it (up to a millisecond on a virtual
    machine), and it never waits for a helper that has not started.
    """
    n = worker_count()
    if n <= 1 or rows < min_rows * 2:
        kernel(*args, 0, rows)
        return
    bands = min(n * per_worker, max(1, rows // min_rows))
    job = _Bands(kernel, args, [rows * k // bands for k in range(bands + 1)])
    pool = _pool()
    for _ in range(min(n, bands) - 1):
        pool.submit(job.work)
    job.work()
    job.wait()


class _Bands:
    """Bands of one ``run_banded`` call, taken in order by whichever thread asks next."""

    def __init__(self, kernel, args, edges):
        self.kernel, self.args, self.edges = kernel, args, edges
        self.count = len(edges) - 1
        self.next = 0
        self.done = 0
        self.error: BaseException | None = None
        self.cond = threading.Condition()

    def work(self) -> None:
        while True:
            with self.cond:
                k = self.next
                if k >= self.count:
                    return
                self.next = k + 1
            error = None
            try:
                self.kernel(*self.args, self.edges[k], self.edges[k + 1])
            except BaseException as exc:  # re-raised by wait() on the calling thread
                error = exc
            with self.cond:
                self.error = self.error or error
                self.done += 1
                if self.done == self.count:
                    self.cond.notify_all()

    def wait(self) -> None:
        with self.cond:
            self.cond.wait_for(lambda: self.done == self.count)
        if self.error is not None:
            raise self.error


def map_banded(fn, items):
    """Run fn over items on the pool; results in order."""
    if worker_count() <= 1 or len(items) <= 1:
        return [fn(i) for i in items]
    return list(_pool().map(fn, items))


class _Done:
    """A finished call, shaped like a future."""

    def __init__(self, value):
        self._value = value

    def result(self):
        return self._value


def run_async(fn, *args):
    """Start ``fn(*args)`` (a nogil kernel) on the pool; ``.result()`` waits for it. With
    one worker it runs right here."""
    if worker_count() <= 1:
        return _Done(fn(*args))
    return _pool().submit(fn, *args)
