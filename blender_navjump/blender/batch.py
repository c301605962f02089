"""Batch bakes of .blend files without bpy: the driver every front end shares.

Plain data and plain processes: the options (:class:`BakeOptions`), where each level's
outputs go and the checks made before any bake, the per-file result dicts, the summary
lines, the JSON report (docs/batch-report.md), the sequential loop and the worker pool.
Baking one file needs bpy: that is :func:`.headless.bake_file`, run in the enabled
extension's copy of the package; the command lines are in ``batch_cli.py``; finding or
staging the extension is in :mod:`.devload`.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

OUTPUT_SUFFIX = ".navjump.json"  # <out>/<blend stem>.navjump.json, the other formats beside
DEFAULT_FORMATS = ("json",)

# The end of a complete .blend: uncompressed files end with an ``ENDB`` block; zstd ones
# (Blender's default since 3.0) with the seek table frame, whose last 4 bytes are its magic.
BLEND_MAGIC = b"BLENDER"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_SEEK_TABLE_FOOTER = b"\xb1\xea\x92\x8f"


class BatchError(Exception):
    """A per-file failure the user can fix; the message is shown as is."""


@dataclass
class BakeOptions:
    """What to do with each file; plain data so it crosses process boundaries."""

    out: str | None = None  # output folder; None: beside each .blend
    formats: tuple[str, ...] = DEFAULT_FORMATS
    preset: str | None = None  # agent preset applied on top of the file's settings
    overrides: dict = field(default_factory=dict)  # BakeSettings field -> value
    save: bool = False  # store the result in the .blend and save it

    def to_dict(self) -> dict:
        d = asdict(self)
        d["formats"] = list(self.formats)
        return d

    @classmethod
    def from_dict(cls, data: dict) -> BakeOptions:
        data = dict(data)
        data["formats"] = tuple(data.get("formats", DEFAULT_FORMATS))
        return cls(**data)


def output_target(blend_path, out_dir=None) -> Path:
    """The NavJump JSON path of a level; the other formats go beside it."""
    blend_path = Path(blend_path)
    folder = Path(out_dir) if out_dir else blend_path.resolve().parent
    return folder / (blend_path.stem + OUTPUT_SUFFIX)


def check_output_collisions(files, out_dir, report=None,
                            formats=DEFAULT_FORMATS) -> str | None:
    """A message when the outputs cannot be written as asked (checked before any bake):
    two inputs would write the same outputs (same name, one folder), ``--out`` is a file,
    or the ``--report`` file is one of the inputs or outputs."""
    from ..export import format_path

    if out_dir and Path(out_dir).exists() and not Path(out_dir).is_dir():
        return f"--out {out_dir} is a file, not a folder"
    seen: dict[str, object] = {}
    for f in files:
        key = os.path.normcase(str(output_target(f, out_dir).resolve()))
        if key in seen:
            return (f"{seen[key]} and {f} would write the same output files; bake them "
                    f"in separate runs or without --out")
        seen[key] = f
    if report:
        report_key = _file_key(report)
        for f in files:
            taken = [Path(f)] + [format_path(output_target(f, out_dir), fmt)
                                 for fmt in formats]
            for other in taken:
                if _file_key(other) == report_key:
                    return (f"--report {report} would overwrite {other}; choose another "
                            f"report file")
    return None


def _file_key(path) -> tuple:
    """Identity of a file: its inode when it exists, else its normalised absolute path."""
    path = Path(path)
    try:
        st = path.stat()
        return ("inode", st.st_dev, st.st_ino)
    except OSError:
        return ("path", os.path.normcase(str(path.resolve())))


def is_empty(result: dict) -> bool:
    """A bake that succeeded but gave no polygon (its files are written, it counts as
    baked; the summary line says ``EMPTY`` and the report ``"empty": true``)."""
    return bool(result.get("ok")) and not result.get("stats", {}).get("polygons", 0)


def summary_line(result: dict) -> str:
    """One line per file: ``OK     level.blend: ...``, ``EMPTY  level.blend: 0 polygons ...``
    or ``FAILED level.blend: reason``."""
    name = result["file"]
    if not result.get("ok"):
        return f"FAILED {name}: {result.get('error') or 'unknown error'}"
    s = result.get("stats", {})
    stances = ", ".join(f"{k} {v}" for k, v in s.get("polygons_by_stance", {}).items() if v)
    kinds = ", ".join(f"{k} {v}" for k, v in s.get("links_by_kind", {}).items() if v)
    outputs = [Path(p).name for p in result.get("outputs", [])]
    status = "EMPTY " if is_empty(result) else "OK    "
    text = (f"{status} {name}: {s.get('polygons', 0)} polygons"
            + (f" ({stances})" if stances else "")
            + f", {s.get('links', 0)} links" + (f" ({kinds})" if kinds else "")
            + f", {s.get('triangles', 0)} triangles, {result.get('seconds', 0.0):.2f} s")
    if outputs:
        text += " -> " + ", ".join(outputs)
    if result.get("saved"):
        text += " (saved)"
    warnings = result.get("warnings") or []
    if warnings:
        text += f"; {len(warnings)} warning{'s' if len(warnings) > 1 else ''}: " + \
            "; ".join(warnings)
    return text


def _versions() -> dict:
    out = {"python": sys.version.split()[0]}
    bpy = sys.modules.get("bpy")
    if bpy is not None:
        out["blender"] = bpy.app.version_string
    numba = sys.modules.get("numba")
    if numba is not None:
        out["numba"] = numba.__version__
    return out


def build_report(results: list[dict], options: BakeOptions, jobs: int, seconds: float) -> dict:
    ok = sum(1 for r in results if r.get("ok"))
    return {
        "tool": "navjump batch bake",
        "versions": _versions(),
        "jobs": jobs,
        "options": options.to_dict(),
        "files_total": len(results),
        "succeeded": ok,
        "empty": sum(1 for r in results if is_empty(r)),
        "failed": len(results) - ok,
        "seconds": seconds,
        "files": [dict(r, empty=is_empty(r)) for r in results],
    }


def write_report(path, report: dict) -> Path:
    path = Path(path)
    if path.parent:
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def finish(results: list[dict], options: BakeOptions, jobs: int, t_start: float,
           report_path=None, emit=print) -> int:
    """Print the total line, write the report; exit code 0 only if every file baked."""
    seconds = time.perf_counter() - t_start
    report = build_report(results, options, jobs, seconds)
    empty = f" ({report['empty']} with 0 polygons)" if report["empty"] else ""
    emit(f"navjump: {report['succeeded']} of {len(results)} file"
         f"{'s' if len(results) != 1 else ''} baked{empty}, {report['failed']} failed "
         f"({seconds:.1f} s, jobs {jobs})")
    if report_path:
        emit(f"navjump: report written to {write_report(report_path, report)}")
    return 0 if report["failed"] == 0 and results else 1


def new_result(path) -> dict:
    return {"file": str(path), "ok": False, "error": None, "seconds": 0.0, "outputs": [],
            "saved": False, "preset": None, "overrides": {}, "stats": {}, "warnings": [],
            "settings": {}, "phases_s": {}}


def failed_result(path, error: str) -> dict:
    result = new_result(path)
    result["error"] = error
    return result


def apply_overrides(settings, overrides: dict, auto_cell_size: bool, auto_voxel_size):
    """Settings with ``--set`` values on top; with the panel's "auto cell size" on, a new
    agent radius also gives the matching voxel size (like the slider does)."""
    if not overrides:
        return settings
    values = dict(overrides)
    if auto_cell_size and "agent_radius" in values and \
            not {"cell_size", "cell_height"} & set(values):
        values["cell_size"], values["cell_height"] = auto_voxel_size(values["agent_radius"])
    return settings.with_values(**values)


def backup_blend_path(path: Path) -> Path:
    """Where the previous version goes when a file is saved (Blender's ``.blend1``)."""
    return path.with_name(path.name + "1")


def run_sequential(files, options: BakeOptions, bake_one, on_result=None,
                   reuse_open_first=False) -> list[dict]:
    """Bake files one after another in this process with ``bake_one(path, options_dict)``.

    The first bake that compiles the kernels says so in one line on stderr."""
    from ..core import kernel_cache

    notice = kernel_cache.compile_notice()
    if notice:
        print(notice, file=sys.stderr, flush=True)
    results = []
    for i, path in enumerate(files):
        try:
            result = bake_one(str(path), options.to_dict(),
                              reuse_open=reuse_open_first and i == 0)
        except Exception as exc:  # bake_one reports its own errors; this is a bug guard
            result = failed_result(path, f"{type(exc).__name__}: {exc}")
            result["traceback"] = traceback.format_exc()
        results.append(result)
        if on_result is not None:
            on_result(result)
        if notice and result.get("ok"):
            kernel_cache.mark_warm()
            notice = None
    return results


def run_pool(files, options: BakeOptions, jobs: int, setup: dict, on_result=None,
             poll_seconds: float = 0.5) -> list[dict]:
    """Bake files in ``jobs`` worker processes (bpy allows one file per process).

    Each worker enables the extension once and bakes files from a shared queue until it
    is empty. A worker that dies takes only its current file down: that file is reported
    failed and a new worker takes over the rest. Results come back in input order.
    """
    import multiprocessing as mp
    import queue as queue_mod

    ctx = mp.get_context("spawn")  # a fresh interpreter: bpy must not be forked
    tasks, replies = ctx.Queue(), ctx.Queue()
    for i, path in enumerate(files):
        tasks.put((i, str(path)))
    n_workers = max(1, min(jobs, len(files)))
    for _ in range(n_workers):
        tasks.put(None)  # one stop marker per worker
    setup = dict(setup, options=options.to_dict(), sys_path=_worker_sys_path())
    results: list[dict | None] = [None] * len(files)
    workers: dict[int, dict] = {}
    start_errors: list[str] = []
    exit_codes: list[int] = []

    def start_worker():
        proc = ctx.Process(target=_worker_main, args=(setup, tasks, replies),
                           name="navjump-bake-worker")
        proc.start()
        assert proc.pid is not None  # set by start()
        workers[proc.pid] = {"proc": proc, "current": None}

    def record(index, result):
        if results[index] is None:
            results[index] = result
            if on_result is not None:
                on_result(result)

    for _ in range(n_workers):
        start_worker()
    try:
        while any(r is None for r in results):
            try:
                msg = replies.get(timeout=poll_seconds)
            except queue_mod.Empty:
                msg = None
            if msg is not None:
                kind, pid = msg[0], msg[1]
                w = workers.get(pid)
                if kind == "start" and w is not None:
                    w["current"] = msg[2]
                elif kind == "done":
                    record(msg[2], msg[3])
                    if w is not None:
                        w["current"] = None
                elif kind == "failed_to_start":
                    start_errors.append(msg[2])
                continue
            # The queue is quiet: everything a dead worker sent has arrived. Clean up.
            for pid, w in list(workers.items()):
                proc = w["proc"]
                if proc.is_alive():
                    continue
                proc.join()
                del workers[pid]
                exit_codes.append(proc.exitcode)
                if w["current"] is not None:
                    record(w["current"], failed_result(
                        files[w["current"]],
                        f"the worker process died while baking this file "
                        f"(exit code {proc.exitcode})"))
                    # It never took its stop marker: a replacement takes it.
                    start_worker()
            if not workers:
                why = start_errors[0] if start_errors else (
                    f"the worker processes ended (exit codes "
                    f"{', '.join(map(str, exit_codes))}) before baking this file")
                for i, r in enumerate(results):
                    if r is None:
                        record(i, failed_result(files[i], why))
    except BaseException:
        # Ctrl-C (or an error here): the files being baked must stay as they were, so the
        # workers stop now (SIGTERM: see _worker_main) instead of baking on.
        for w in workers.values():
            w["proc"].terminate()
        for w in workers.values():
            w["proc"].join(timeout=30)
            if w["proc"].is_alive():
                w["proc"].kill()
                w["proc"].join(timeout=5)
        raise
    finally:
        for w in workers.values():
            w["proc"].join(timeout=30)
            if w["proc"].is_alive():
                w["proc"].terminate()
                w["proc"].join(timeout=5)
    return [r for r in results if r is not None]


def _worker_sys_path() -> list[str]:
    """This process's import path without the folders bpy added: its ``scripts/modules``
    holds Blender's Python-side ``bpy`` package, which would shadow the bpy module in a
    new interpreter."""
    bpy = sys.modules.get("bpy")
    if bpy is None:
        return list(sys.path)
    blender_dir = os.path.abspath(bpy.utils.resource_path('LOCAL')) + os.sep
    return [p for p in sys.path
            if not (os.path.abspath(p or os.curdir) + os.sep).startswith(blender_dir)]


def _interrupted_by_parent(signum, frame):
    raise KeyboardInterrupt


def _worker_main(setup: dict, tasks, replies):
    """A pool worker: import bpy, enable the extension, bake files until the stop marker.

    A terminal's Ctrl-C reaches every process of the group: the worker ignores it, and the
    parent, which answers it, ends the workers with SIGTERM (:func:`run_pool`). From the
    first file on, SIGTERM stops the file being baked as Ctrl-C stops a bake in one
    process: nothing of it is written; before that it simply ends the process (a
    KeyboardInterrupt raised while bpy starts Blender can crash it)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    pid = os.getpid()
    sys.path[:] = setup["sys_path"]
    try:
        os.dup2(2, 1)  # stdout belongs to the parent's summary lines
    except OSError:
        pass
    try:
        from . import devload  # bpy from here on

        module = devload.attach_staged_extension(setup["repo_dir"], setup["repo_module"])
        ext = devload.extension_headless(module)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, then exit
        replies.put(("failed_to_start", pid,
                     f"a worker process could not load NavJump: {type(exc).__name__}: {exc}"))
        return
    signal.signal(signal.SIGTERM, _interrupted_by_parent)
    try:
        while True:
            task = tasks.get()
            if task is None:
                break
            index, path = task
            replies.put(("start", pid, index))
            try:
                result = ext.bake_file(path, setup["options"])
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - bake_file reports its own errors
                result = failed_result(path, f"{type(exc).__name__}: {exc}")
            result["worker"] = pid
            replies.put(("done", pid, index, result))
    except KeyboardInterrupt:  # the parent ended the batch: this file is left as it was
        os._exit(1)  # at once (the bake thread may still run), without a traceback



def blend_header_problem(path) -> str | None:
    """Why ``path`` does not look like a complete .blend file by its bytes (None when it
    does): its header, and its end marker (``ENDB``, or zstd's seek table)."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(12)
            fh.seek(max(0, size - 64))
            tail = fh.read()
    except OSError as exc:
        return f"cannot read it back ({exc.strerror or exc})"
    if head.startswith(BLEND_MAGIC):
        if b"ENDB" not in tail:
            return f"it is cut short ({size:,} bytes, no end block)"
    elif head.startswith(ZSTD_MAGIC):
        if not tail.endswith(ZSTD_SEEK_TABLE_FOOTER):
            return f"it is cut short ({size:,} bytes, no zstd seek table)"
    else:
        return f"it does not start like a .blend file ({size:,} bytes)"
    return None

