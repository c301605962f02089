"""Headless batch bakes: one argument parser and one runner for every front end.

Front ends:

* ``python scripts/bake.py a.blend b.blend --jobs 2``: plain Python with the ``bpy`` module;
* ``blender -b level.blend --python scripts/bake.py -- [options]``: inside Blender;
* ``blender -c navjump bake level.blend [options]``: the command registered by
  :mod:`.cli_command`.

This module has two halves. The driver (argument parsing, the sequential loop and the
worker pool, summary lines, the JSON report) needs no bpy, so ``scripts/bake.py`` imports
it as the plain ``blender_navjump.blender.headless``. :func:`bake_file` needs bpy and the
registered extension: it always runs in the enabled extension's own copy of this module
(``bl_ext.<repo>.<id>.blender.headless``), which :func:`attach_extension` returns.

stdout carries only one summary line per file and a total line; Blender's own log goes to
stderr while a file is opened and baked.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .stub_gaps import blender_preferences

OUTPUT_SUFFIX = ".navjump.json"  # <out>/<blend stem>.navjump.json, the other formats beside
DEFAULT_FORMATS = ("json",)
DEV_REPO_ENV = "NAVJUMP_DEV_REPO"  # local repository the source tree is staged into


class BatchError(Exception):
    """A per-file failure the user can fix; the message is shown as is."""


# ---------------------------------------------------------------- options and parsing
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


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def add_bake_arguments(parser: argparse.ArgumentParser, jobs_help: str | None = None):
    parser.add_argument("files", nargs="*", metavar="FILE.blend", help="levels to bake")
    parser.add_argument("--out", metavar="DIR",
                        help="output folder (default: beside each .blend); files are named "
                             f"<level>{OUTPUT_SUFFIX}, <level>.navjump.obj ...")
    parser.add_argument("--format", default=",".join(DEFAULT_FORMATS), metavar="LIST",
                        help="comma-separated output formats: json,obj,gltf,detour "
                             "(default: json)")
    parser.add_argument("--preset", metavar="NAME",
                        help="apply this agent preset (e.g. \"Human\") to the file's saved "
                             "settings before baking")
    parser.add_argument("--set", dest="overrides", action="append", default=[],
                        metavar="NAME=VALUE",
                        help="override one bake setting (a BakeSettings field, e.g. "
                             "--set agent_radius=0.5); applied after --preset")
    parser.add_argument("--save", action="store_true",
                        help="store the result (and the overrides) in the .blend and save it")
    parser.add_argument("--jobs", type=_jobs, default=1, metavar="N",
                        help=jobs_help or "bake with N worker processes, each taking the "
                                          "next file (bpy holds one file per process; "
                                          "default 1)")
    parser.add_argument("--report", metavar="FILE.json",
                        help="write a JSON report with per-file statistics and errors")


def parse_formats(text: str) -> tuple[str, ...]:
    from ..export import check_formats

    names = [f.strip().lower() for f in text.split(",") if f.strip()]
    if not names:
        raise ValueError("no output format given; allowed formats are json, obj, gltf, detour")
    return tuple(check_formats(names))


def parse_overrides(items) -> dict:
    """``["agent_radius=0.5", ...]`` -> ``{"agent_radius": 0.5}``; ValueError names the item."""
    from ..core.settings import BakeSettings

    out = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ValueError(f"--set expects NAME=VALUE, got {item!r}")
        out[name] = BakeSettings.parse_value(name, text.strip())
    return out


def options_from_args(args, parser: argparse.ArgumentParser) -> BakeOptions:
    """BakeOptions from parsed arguments; bad values end in ``parser.error`` (exit 2)."""
    try:
        formats = parse_formats(args.format)
    except ValueError as exc:
        parser.error(f"--format: {exc}")
    try:
        overrides = parse_overrides(args.overrides)
    except ValueError as exc:
        parser.error(f"--set: {exc}")
    return BakeOptions(out=args.out, formats=formats, preset=args.preset,
                       overrides=overrides, save=args.save)


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


# ---------------------------------------------------------------- summaries and report
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


def failed_result(path, error: str) -> dict:
    result = new_result(path)
    result["error"] = error
    return result


# ---------------------------------------------------------------- running files
@contextlib.contextmanager
def stdout_to_stderr():
    """Send fd 1 to stderr for the block: Blender logs to stdout, which is ours."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no real stdout (embedded): nothing to protect
        yield
        return
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        _flush_c_stdout()
        os.dup2(saved, 1)
        os.close(saved)


def _flush_c_stdout():
    # Blender's C code prints through stdio; flush its buffer before fd 1 changes back.
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):
        pass


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


def _worker_main(setup: dict, tasks, replies):
    """A pool worker: import bpy, enable the extension, bake files until the stop marker."""
    pid = os.getpid()
    sys.path[:] = setup["sys_path"]
    try:
        os.dup2(2, 1)  # stdout belongs to the parent's summary lines
    except OSError:
        pass
    try:
        module = attach_staged_extension(setup["repo_dir"], setup["repo_module"])
        ext = extension_headless(module)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, then exit
        replies.put(("failed_to_start", pid,
                     f"a worker process could not load NavJump: {type(exc).__name__}: {exc}"))
        return
    while True:
        task = tasks.get()
        if task is None:
            break
        index, path = task
        replies.put(("start", pid, index))
        try:
            result = ext.bake_file(path, setup["options"])
        except BaseException as exc:  # noqa: BLE001 - bake_file reports its own errors
            result = failed_result(path, f"{type(exc).__name__}: {exc}")
        result["worker"] = pid
        replies.put(("done", pid, index, result))


# ---------------------------------------------------------------- finding the extension
def _manifest_id() -> str:
    from . import devload

    return devload.manifest_id()


def find_enabled_extension(ext_id: str | None = None) -> str | None:
    """Module name of an enabled NavJump extension (``bl_ext.<repo>.<id>``), or None."""
    ext_id = ext_id or _manifest_id()
    for name in blender_preferences().addons.keys():
        if name.startswith("bl_ext.") and name.rsplit(".", 1)[-1] == ext_id:
            return name
    return None


def dev_repo_module() -> str:
    from . import devload

    return os.environ.get(DEV_REPO_ENV) or devload.DEFAULT_REPO_MODULE


def staged_is_current(ext_dir: Path) -> bool:
    """True when ``ext_dir`` links exactly the package's entries and has its manifest."""
    from . import devload

    ext_dir = Path(ext_dir)
    manifest = ext_dir / "blender_manifest.toml"
    if not ext_dir.is_dir() or not manifest.is_file():
        return False
    if manifest.read_bytes() != devload.MANIFEST.read_bytes():
        return False
    wanted = {e.name: e for e in devload.PACKAGE_DIR.iterdir()
              if e.name not in devload._SKIP and e.name != "blender_manifest.toml"}
    have = {e.name for e in ext_dir.iterdir() if e.name != "blender_manifest.toml"}
    if have != set(wanted):
        return False
    for name, source in wanted.items():
        link = ext_dir / name
        if not link.is_symlink() or Path(os.readlink(link)) != source:
            return False
    return True


def stage_source_extension(repo_module: str | None = None) -> tuple[Path, str]:
    """Stage the source tree into the dev repository folder unless it already is.

    Staging only when needed matters: other processes (pool workers, a test session) may be
    running from the same folder, and re-staging removes it for a moment.
    """
    from . import devload

    repo_module = repo_module or dev_repo_module()
    repo_dir = devload.default_repo_dir(repo_module)
    if not staged_is_current(repo_dir / devload.manifest_id()):
        devload.stage_extension(repo_dir)
    return repo_dir, repo_module


def attach_staged_extension(repo_dir, repo_module: str) -> str:
    """Register an already staged repository folder and enable the add-on; its module name."""
    import bpy

    from . import devload

    module = f"bl_ext.{repo_module}.{devload.manifest_id()}"
    if module in blender_preferences().addons:
        return module
    repo = devload.find_repo(repo_module)
    if repo is None:
        blender_preferences().extensions.repos.new(
            name=repo_module, module=repo_module, custom_directory=str(repo_dir),
            source='USER')
    with stdout_to_stderr():
        bpy.ops.extensions.repo_refresh_all()
        result = bpy.ops.preferences.addon_enable(module=module)
    if result != {'FINISHED'} or module not in blender_preferences().addons:
        raise RuntimeError(f"could not enable {module} from {repo_dir}")
    return module


def attach_extension() -> str:
    """The enabled NavJump extension (an installed one if enabled), else the source tree."""
    module = find_enabled_extension()
    if module is not None:
        return module
    repo_dir, repo_module = stage_source_extension()
    return attach_staged_extension(repo_dir, repo_module)


def extension_headless(module: str):
    """This module as loaded inside the extension ``module``."""
    import importlib

    return importlib.import_module(f"{module}.blender.headless")


# ---------------------------------------------------------------- front ends
def _script_parser(prog: str, jobs_help: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Bake NavJump navmeshes of .blend files headless. Settings come from "
                    "each file's saved NavJump panel, then --preset, then --set.",
        epilog="Inside Blender: blender -b level.blend --python-exit-code 1 --python "
               "scripts/bake.py -- [options] bakes the open file. With the extension "
               "installed: blender -c navjump bake level.blend [options]. Exit code: 0 if "
               "every file baked, 1 if one failed, 2 for bad arguments.")
    add_bake_arguments(parser, jobs_help)
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="bake on a Dask cluster: one task per file sent to the "
                             "scheduler at ADDRESS (e.g. tcp://farm:8786); needs the 'farm' "
                             "extra (dask[distributed]); --jobs is then ignored")
    parser.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS",
                        help="with --scheduler: give up when the scheduler does not answer, "
                             "or has no workers, within this time (default 10)")
    return parser


def script_main(argv, emit=print, scheduler_run=None) -> int:
    """``python scripts/bake.py FILE.blend ... [options]`` under plain Python with bpy.

    ``scheduler_run``: the runner that ``--scheduler`` hands the files to (the front end
    passes ``farm.dask_runner.script_run``; this module does not import the farm)."""
    t_start = time.perf_counter()
    parser = _script_parser("python scripts/bake.py")
    args = parser.parse_args(argv)
    options = options_from_args(args, parser)
    if not args.files:
        parser.error("no .blend files given")
    collision = check_output_collisions(args.files, options.out, args.report,
                                        options.formats)
    if collision:
        parser.error(collision)

    done = []

    def show(result):
        done.append(result)
        emit(summary_line(result))

    if args.scheduler:  # no bpy here: the Dask workers bake
        if scheduler_run is None:
            parser.error("--scheduler: this front end has no Dask runner; use "
                         "scripts/bake.py")
        results, workers = scheduler_run(args.files, options, args.scheduler,
                                         args.connect_timeout, show)
        return finish(results, options, workers, t_start, args.report, emit)
    with stdout_to_stderr():
        import bpy  # noqa: F401 - one Blender per process (it prints to stdout on import)

    try:
        if args.jobs > 1 and len(args.files) > 1:
            from ..core import kernel_cache

            notice = kernel_cache.compile_notice()
            if notice:
                # Compile once here; the workers then load the kernels from the cache.
                print(notice, file=sys.stderr, flush=True)
                kernel_cache.warm_up()
            with stdout_to_stderr():
                repo_dir, repo_module = stage_source_extension()
            setup = {"repo_dir": str(repo_dir), "repo_module": repo_module}
            results = run_pool(args.files, options, args.jobs, setup, on_result=show)
        else:
            with stdout_to_stderr():
                module = attach_extension()
            results = run_sequential(args.files, options,
                                     extension_headless(module).bake_file, on_result=show)
    except KeyboardInterrupt:
        return interrupted(done, len(args.files))
    return finish(results, options, args.jobs, t_start, args.report, emit)


def interrupted(done: list[dict], total: int) -> int:
    """Ctrl-C: one line on stderr, exit 130. The file being baked keeps its old outputs
    (they are replaced only after its bake, all together); no report is written."""
    from ..cli import exit_interrupted

    return exit_interrupted(
        f"navjump: interrupted (Ctrl-C) after {len(done)} of {total} file"
        f"{'s' if total != 1 else ''}; the file being baked was left as it was")


def blender_script_main(argv, emit=print) -> int:
    """``blender -b FILE.blend --python scripts/bake.py -- [options]`` (inside Blender).

    Bakes the open file (or the files given after ``--``) one after another.
    """
    import bpy

    t_start = time.perf_counter()
    parser = _script_parser("blender -b FILE.blend --python scripts/bake.py --",
                            jobs_help="not available inside Blender (use python "
                                      "scripts/bake.py with the bpy module)")
    args = parser.parse_args(argv)
    options = options_from_args(args, parser)
    if args.jobs > 1:
        parser.error("--jobs needs python scripts/bake.py (bpy module); inside Blender the "
                     "files are baked one after another")
    if args.scheduler:
        parser.error("--scheduler needs python scripts/bake.py (plain Python), not Blender")
    files = list(args.files)
    reuse_first = False
    if not files:
        if not bpy.data.filepath:
            parser.error("no .blend file is open and none was given after --")
        files, reuse_first = [bpy.data.filepath], True
    collision = check_output_collisions(files, options.out, args.report, options.formats)
    if collision:
        parser.error(collision)
    with stdout_to_stderr():
        module = attach_extension()
    results = run_sequential(files, options, extension_headless(module).bake_file,
                             on_result=lambda r: emit(summary_line(r)),
                             reuse_open_first=reuse_first)
    return finish(results, options, 1, t_start, args.report, emit)


def command_parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The ``blender -c navjump`` parser and its ``bake`` sub-parser."""
    parser = argparse.ArgumentParser(
        prog="blender -c navjump",
        description="NavJump commands. 'bake' bakes .blend files with the settings saved in "
                    "them (NavJump panel), then --preset, then --set.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    bake = sub.add_parser(
        "bake", help="bake the navmesh of .blend files and write it out",
        description="Bake .blend files one after another and write the chosen formats.")
    add_bake_arguments(bake, jobs_help="only 1 here; for parallel bakes run several Blender "
                                       "processes or python scripts/bake.py --jobs N")
    return parser, bake


def command_main(argv, emit=print) -> int:
    """``blender -c navjump ...``: 0 when every file baked, 1 when one failed, 2 on bad
    arguments (``--help`` is 0). Runs in the extension's own copy of this module."""
    t_start = time.perf_counter()
    parser, bake_parser = command_parser()
    try:
        args = parser.parse_args(list(argv))
        options = options_from_args(args, bake_parser)
        if not args.files:
            bake_parser.error("no .blend files given")
        if args.jobs > 1:
            bake_parser.error("--jobs above 1 is not available in 'blender -c navjump'; run "
                              "several Blender processes, or python scripts/bake.py --jobs N "
                              "with the bpy module")
        collision = check_output_collisions(args.files, options.out, args.report,
                                            options.formats)
        if collision:
            bake_parser.error(collision)
    except SystemExit as exc:  # --help or an argument error: argparse already printed it
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    results = run_sequential(args.files, options, bake_file,
                             on_result=lambda r: emit(summary_line(r)))
    return finish(results, options, 1, t_start, args.report, emit)


# ---------------------------------------------------------------- one file (needs bpy)
def new_result(path) -> dict:
    return {"file": str(path), "ok": False, "error": None, "seconds": 0.0, "outputs": [],
            "saved": False, "preset": None, "overrides": {}, "stats": {}, "warnings": [],
            "settings": {}, "phases_s": {}}


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


def resolve_preset(name: str) -> str:
    """Preset file for a menu name ("Human", "large robot", "Large_robot"); BatchError
    listing the available ones otherwise."""
    from . import ops_presets

    found = ops_presets.find_preset(name)
    if found is not None:
        return found

    def key(text):
        return text.replace("_", " ").strip().lower()

    available: dict[str, str] = {}
    for directory in ops_presets.preset_dirs():
        for fname in sorted(os.listdir(directory)):
            if fname.endswith(".py"):
                available.setdefault(fname[:-3].replace("_", " "),
                                     os.path.join(directory, fname))
    for display, path in available.items():
        if key(display) == key(name):
            return path
    raise BatchError(f"unknown preset {name!r}; available presets: "
                     f"{', '.join(sorted(available)) or '(none)'}")


def _write_back(settings_pg, settings, overrides: dict):
    """Put ``--set`` values into the panel so the saved file re-bakes the same way."""
    for name in overrides:
        if name in ("cell_size", "cell_height"):
            settings_pg.auto_cell_size = False
            settings_pg.cell_size = settings.cell_size
            settings_pg.cell_height = settings.cell_height
        elif hasattr(settings_pg, name):
            value = getattr(settings, name)
            setattr(settings_pg, name, value.upper() if name == "partition" else value)


def bake_file(path, options: dict, reuse_open: bool = False) -> dict:
    """Open a .blend, bake its scene with its saved settings (+ preset, + overrides), write
    the formats, optionally store the result and save. Returns the per-file result dict;
    never raises for a per-file problem (``ok`` False and ``error`` say what happened).

    reuse_open: bake the file Blender already has open when it is ``path`` (``blender -b
    level.blend --python ...``) instead of opening it again.
    """
    opts = BakeOptions.from_dict(options)
    result = new_result(path)
    t0 = time.perf_counter()
    try:
        with stdout_to_stderr():
            _bake_into(result, Path(path), opts, reuse_open)
    except BatchError as exc:
        result["error"] = str(exc)
    except Exception as exc:  # unexpected: keep the traceback for the report
        result["error"] = f"{type(exc).__name__}: {exc}"
        result["traceback"] = traceback.format_exc()
    result["ok"] = result["error"] is None
    result["seconds"] = time.perf_counter() - t0
    return result


def _open(path: Path, reuse_open: bool):
    import bpy

    if not path.is_file():
        raise BatchError(f"file not found: {path}")
    current = bpy.data.filepath
    if reuse_open and current and os.path.exists(current) and os.path.samefile(current, path):
        return
    try:
        bpy.ops.wm.open_mainfile(filepath=str(path.resolve()), load_ui=False)
    except RuntimeError as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else "unknown error"
        raise BatchError(f"cannot open the file: {first.removeprefix('Error: ')}") from None


def _bake_into(result: dict, path: Path, opts: BakeOptions, reuse_open: bool):
    import bpy

    from ..cli import run_interruptibly
    from ..core.settings import SettingsError
    from ..export import check_outputs, export_navmesh
    from . import gather as gather_mod
    from . import ops_bake, props, storage

    phases = result["phases_s"]
    t = time.perf_counter()
    _open(path, reuse_open)
    phases["open"] = time.perf_counter() - t

    scene = bpy.context.scene
    settings_pg = getattr(scene, "navjump", None)
    if settings_pg is None:
        raise BatchError("the NavJump extension is not enabled in this Blender session")
    if opts.preset:
        preset_file = resolve_preset(opts.preset)
        bpy.ops.script.execute_preset(filepath=preset_file,
                                      menu_idname="NAVJUMP_MT_agent_presets")
        result["preset"] = Path(preset_file).stem.replace("_", " ")
    result["overrides"] = dict(opts.overrides)

    # Settings first: a bad value stops here, before anything is written.
    try:
        settings = apply_overrides(props.to_bake_settings(settings_pg), opts.overrides,
                                   settings_pg.auto_cell_size, props.auto_voxel_size)
        settings.validate()
    except SettingsError as exc:
        raise BatchError(ops_bake.settings_error_message(exc)) from None
    result["settings"] = settings.to_dict()
    target = output_target(path, opts.out)
    # The outputs too: a folder that cannot be written fails now, not after the bake.
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        check_outputs(target, opts.formats, inputs=[path])
    except OSError as exc:
        raise BatchError(f"cannot create the output folder {target.parent}: "
                         f"{exc.strerror or exc}") from None
    except ValueError as exc:
        raise BatchError(str(exc)) from None

    t = time.perf_counter()
    try:
        gathered = gather_mod.gather_from_context(bpy.context, settings_pg)
    except ValueError as exc:
        raise BatchError(str(exc)) from None
    phases["gather"] = time.perf_counter() - t
    if gathered.triangle_count == 0:
        raise BatchError("nothing to bake: no visible mesh, curve or text objects (check "
                         "the NavJump source and the objects' roles)")

    t = time.perf_counter()
    from ..core import pipeline

    try:
        # off the main thread: Ctrl-C must not land inside a numba kernel (see cli.py)
        navmesh = run_interruptibly(pipeline.bake, gathered.vertices, gathered.triangles,
                                    settings, walkable=gathered.walkable)
    except SettingsError as exc:
        raise BatchError(ops_bake.settings_error_message(exc)) from None
    except ValueError as exc:
        raise BatchError(f"bake failed: {exc}") from None
    phases["bake"] = time.perf_counter() - t

    warnings = ops_bake.result_warnings(navmesh, gathered, settings)
    gather_info = {"triangles": gathered.triangle_count,
                   "obstacle_triangles": gathered.obstacle_count,
                   "objects": len(gathered.object_names), "seconds": phases["gather"],
                   "bake_seconds": phases["bake"]}
    stats = storage.summarize(navmesh)
    stats.update({"triangles": gathered.triangle_count,
                  "obstacle_triangles": gathered.obstacle_count,
                  "objects": len(gathered.object_names),
                  "grid": (navmesh.stats or {}).get("grid"),
                  "walkable_area_m2": float(sum(stats["area_by_stance_m2"].values()))})
    result["stats"] = stats
    result["warnings"] = warnings

    # The outputs and the saved .blend change together or not at all: every file goes to
    # a temporary beside its target first; they replace the targets only when all of them
    # (the verified .blend included) are complete.
    from ..export._common import all_or_nothing

    t = time.perf_counter()
    with all_or_nothing() as staged:
        outputs = export_navmesh(navmesh, target, opts.formats, inputs=[path])
        phases["write"] = time.perf_counter() - t
        if opts.save:
            t = time.perf_counter()
            storage.write_result(scene, navmesh, gather_info, warnings)
            _write_back(settings_pg, settings, opts.overrides)
            staged.add(save_blend_copy(path), path, keep_old_as=backup_blend_path(path))
    if opts.save:
        phases["save"] = time.perf_counter() - t
    result["outputs"] = [str(p) for p in outputs]
    result["saved"] = opts.save


def backup_blend_path(path: Path) -> Path:
    """Where the previous version goes when a file is saved (Blender's ``.blend1``)."""
    return path.with_name(path.name + "1")


# The end of a complete .blend: uncompressed files end with an ``ENDB`` block; zstd ones
# (Blender's default since 3.0) with the seek table frame, whose last 4 bytes are its magic.
BLEND_MAGIC = b"BLENDER"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_SEEK_TABLE_FOOTER = b"\xb1\xea\x92\x8f"


def blend_file_problem(path) -> str | None:
    """Why ``path`` is not a complete .blend file (None when it is): the header, the end
    marker, and Blender's own reader listing its data blocks."""
    from .stub_gaps import library_load

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
    try:
        with library_load(str(path)) as (data_from, _):
            if not list(data_from.scenes):
                return "Blender reads no scene in it"
    except (OSError, RuntimeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"Blender cannot read it back: {first.removeprefix('Error: ')}"
    return None


def save_blend_copy(path: Path) -> Path:
    """Save the open file as a verified copy in ``path``'s folder; the copy's path.

    Blender reports success even when the disk fills up or a file-size limit cuts the
    file short, so the copy is synced, then checked (:func:`blend_file_problem`) before
    the caller moves it over ``path``. BatchError (the copy removed) when it is not whole.
    """
    import bpy

    from ..export._common import staged_temp_name

    tmp = staged_temp_name(path.resolve(), suffix=".blend")
    tmp.unlink()  # a fresh name: over an existing file Blender would keep a ".blend1" of it
    try:
        try:
            bpy.ops.wm.save_as_mainfile(filepath=str(tmp), copy=True)
        except RuntimeError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else "unknown error"
            raise BatchError(f"--save: cannot save {path.name}: "
                             f"{first.removeprefix('Error: ')}; nothing was written") from None
        try:
            fd = os.open(tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise BatchError(f"--save: cannot save {path.name}: {exc}; nothing was "
                             f"written") from None
        problem = blend_file_problem(tmp)
        if problem:
            raise BatchError(f"--save: the saved copy of {path.name} is not whole: "
                             f"{problem} (disk full or a file-size limit?); {path.name} "
                             f"and the outputs were left as they were")
    except BaseException:
        for leftover in (tmp, tmp.with_name(tmp.name + "@"),  # Blender writes "<name>@"
                         tmp.with_name(tmp.name + "1")):
            with contextlib.suppress(OSError):
                leftover.unlink()
        raise
    return tmp
