"""Bake .blend files on a Dask cluster: ``scripts/bake.py FILES --scheduler ADDRESS``.

Needs the ``farm`` extra (``dask[distributed]``) on the submitting machine and on every
worker; the workers also need bpy 5.0.1 and this package importable (the task function is
sent by name, ``blender_navjump.farm.dask_runner.bake_on_worker``).

One Dask task per file. On a worker:

* the first task of a worker process imports bpy, enables the NavJump extension and loads
  the numba kernels from the cache (a cluster-wide lock sets up one worker at a time: the
  first stages the source tree and compiles a cold cache, the others reuse what it
  wrote); later tasks of that process reuse all of it;
* bpy holds one open .blend per process, so a process-wide lock lets only one file be
  open at a time, whatever the worker's thread count (start workers with
  ``--nthreads 1`` so no task waits behind another on the same worker);
* the task marks itself started on the scheduler (a ``distributed.Event``). When its
  worker process dies, the scheduler hands the task to another worker; that second
  attempt finds the mark and reports the file failed instead of baking it again, so a
  level that crashes Blender takes down one worker, not the whole cluster. A scheduler
  with ``distributed.scheduler.allowed-failures`` reached raises ``KilledWorker``, which
  is reported the same way. Every other file goes on.

On the submitting side an address that does not answer fails within ``connect_timeout``
seconds with a message naming it, and so does a scheduler without workers. Paths (files,
``--out``) are made absolute before they are sent: workers see them as the submitting
machine does (a shared file system, as on any render farm).
"""

from __future__ import annotations

import os
import threading
import time
import traceback
import uuid
from pathlib import Path

from . import report as report_mod

EVENT_TOPIC = "navjump-bake"  # worker -> client "started FILE" messages
DEFAULT_CONNECT_TIMEOUT = 10.0
SETUP_LOCK = "navjump-worker-setup"
DIED_MESSAGE = ("the worker process died while baking this file (crash, kill or out of "
                "memory); it was not baked again")


class FarmError(Exception):
    """The cluster cannot be used (missing extra, no answer, no workers); the message says
    which and how to fix it."""


def import_distributed():
    try:
        import distributed
    except ImportError as exc:
        raise FarmError("--scheduler needs Dask: pip install 'dask[distributed]' (the "
                        "'farm' extra of blender_navjump); "
                        f"import failed: {exc}") from None
    return distributed


# ---------------------------------------------------------------- worker side
class _WorkerState:
    """What a worker process loads once: the extension's headless module, or why not."""

    def __init__(self):
        self.bake_lock = threading.Lock()  # one open .blend per process
        self.ext = None
        self.error: str | None = None
        self.setup_seconds = 0.0


_STATE: _WorkerState | None = None
_STATE_LOCK = threading.Lock()


def _warm_kernels(ext_module: str):
    """Load (or compile, once per machine) every kernel a bake and the path queries use."""
    import importlib

    importlib.import_module(f"{ext_module}.core.kernel_cache").warm_up()


def _load_worker_state() -> _WorkerState:
    state = _WorkerState()
    t0 = time.perf_counter()
    try:
        from ..blender import devload
        from ..blender.stdio import stdout_to_stderr

        try:
            from distributed import Lock

            lock = Lock(SETUP_LOCK)
        except (ImportError, ValueError):  # not inside a Dask task: no cluster-wide lock
            lock = threading.Lock()
        # One worker at a time: workers on one machine share the staged source folder
        # and the kernel cache, so the first stages and compiles, the others reuse.
        with lock, stdout_to_stderr():
            import bpy  # noqa: F401 - one Blender per worker process
            module = devload.attach_extension()
            state.ext = devload.extension_headless(module)
            _warm_kernels(module)
    except BaseException as exc:  # noqa: BLE001 - every file on this worker reports it
        state.ext = None
        state.error = (f"the worker could not load NavJump: {type(exc).__name__}: {exc}")
    state.setup_seconds = time.perf_counter() - t0
    return state


def worker_state() -> _WorkerState:
    """This process's NavJump state, loaded by the first task that asks."""
    global _STATE
    with _STATE_LOCK:
        if _STATE is None:
            _STATE = _load_worker_state()
        return _STATE


def _failed(path, error: str) -> dict:
    from ..blender.batch import failed_result

    return failed_result(path, error)


def bake_on_worker(path: str, options: dict, run_id: str, index: int) -> dict:
    """The Dask task: bake one file in this worker process; never raises for the file."""
    from distributed import Event, get_worker

    worker = get_worker()
    started = Event(f"navjump-{run_id}-{index}")
    if started.is_set():
        return _failed(path, DIED_MESSAGE)
    started.set()
    pid = os.getpid()
    worker.log_event(EVENT_TOPIC, {"run": run_id, "index": index, "file": path, "pid": pid,
                                   "worker": worker.address})
    out = options.get("out")
    problem = report_mod.check_output_dir(out) if out else None
    if problem:
        return _failed(path, problem)
    state = worker_state()
    if state.ext is None:
        return _failed(path, state.error or "the worker could not load NavJump")
    with state.bake_lock:
        try:
            result = state.ext.bake_file(path, options)
        except Exception as exc:  # bake_file reports its own errors; this is a bug guard
            result = _failed(path, f"{type(exc).__name__}: {exc}")
            result["traceback"] = traceback.format_exc()
    result["worker"] = f"{worker.address} pid {pid}"
    result.setdefault("phases_s", {})["worker_setup"] = state.setup_seconds
    return result


# ---------------------------------------------------------------- submitting side
def connect(address: str, connect_timeout: float = DEFAULT_CONNECT_TIMEOUT):
    """A Client of the scheduler at ``address`` with at least one worker, or FarmError."""
    distributed = import_distributed()
    try:
        client = distributed.Client(address, timeout=connect_timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise FarmError(f"cannot reach the Dask scheduler at {address} within "
                        f"{connect_timeout:g} s: {exc}") from None
    try:
        client.wait_for_workers(1, timeout=connect_timeout)
    except (OSError, TimeoutError) as exc:
        client.close()
        raise FarmError(f"the Dask scheduler at {address} has no workers (waited "
                        f"{connect_timeout:g} s): {exc}") from None
    return client


def worker_count(client) -> int:
    return len(client.scheduler_info().get("workers", {}))


def run_on_client(client, files, options, on_result=None, on_start=None) -> list[dict]:
    """Bake ``files`` as one Dask task each; results in input order.

    on_start(message) is called (in the client's event thread) when a worker starts a
    file: a dict with ``file``, ``index``, ``pid`` and ``worker`` (its address).
    """
    distributed = import_distributed()
    run_id = uuid.uuid4().hex[:12]
    opts = options.to_dict()
    if opts.get("out"):  # workers may run elsewhere: paths as the submitter means them
        opts["out"] = os.path.abspath(opts["out"])
    files = [str(f) for f in files]

    seen = set()

    def started(event):
        msg = event[1] if isinstance(event, tuple) else event
        if not isinstance(msg, dict) or msg.get("run") != run_id:
            return
        key = (msg.get("index"), msg.get("pid"))
        if key not in seen and on_start is not None:  # the scheduler may echo an event
            seen.add(key)
            on_start(msg)

    client.subscribe_topic(EVENT_TOPIC, started)
    futures = [client.submit(bake_on_worker, os.path.abspath(path), opts, run_id, i,
                             pure=False, retries=0,
                             key=f"navjump-bake-{Path(path).stem}-{run_id}-{i}")
               for i, path in enumerate(files)]
    index_of = {f.key: i for i, f in enumerate(futures)}
    results: list[dict | None] = [None] * len(files)
    try:
        for fut in distributed.as_completed(futures, loop=client.loop):
            i = index_of[fut.key]
            try:
                result = fut.result()
            except distributed.KilledWorker:
                result = _failed(files[i], DIED_MESSAGE)
            except Exception as exc:  # noqa: BLE001 - a task that could not run
                result = _failed(files[i], f"the Dask task failed: {type(exc).__name__}: "
                                           f"{exc}")
            result["file"] = files[i]  # the spelling the caller gave
            results[i] = result
            if on_result is not None:
                on_result(result)
    finally:
        client.unsubscribe_topic(EVENT_TOPIC)
        for fut in futures:
            fut.cancel()
        for i in range(len(files)):
            try:
                distributed.Event(f"navjump-{run_id}-{i}", client=client).clear()
            except Exception:  # noqa: BLE001 - only tidying the scheduler
                pass
    return [r for r in results if r is not None]


def run_on_scheduler(files, options, address: str, on_result=None, on_start=None,
                     connect_timeout: float = DEFAULT_CONNECT_TIMEOUT) -> tuple[list[dict], int]:
    """Connect, bake every file, disconnect: (results in input order, worker count).

    FarmError when the scheduler cannot be used; the caller reports it for every file.
    """
    client = connect(address, connect_timeout)
    try:
        workers = worker_count(client)
        return run_on_client(client, files, options, on_result, on_start), workers
    finally:
        client.close()


def script_run(files, options, address: str, connect_timeout: float, on_result=None,
               log=None) -> tuple[list[dict], int]:
    """``scripts/bake.py --scheduler``: like :func:`run_on_scheduler`, but a cluster that
    cannot be used fails every file with the reason (per-file lines, exit code 1) and
    progress goes to stderr."""
    import sys

    def say(text):
        (log or (lambda t: print(t, file=sys.stderr, flush=True)))(text)

    def started(msg):
        say(f"navjump: baking {msg['file']} on {msg['worker']} (pid {msg['pid']})")

    try:
        return run_on_scheduler(files, options, address, on_result, started, connect_timeout)
    except FarmError as exc:
        say(f"navjump: error: {exc}")
        results = [_failed(f, str(exc)) for f in files]
        for r in results:
            if on_result is not None:
                on_result(r)
        return results, 0
