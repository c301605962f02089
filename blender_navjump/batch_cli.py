"""The batch bake of .blend files as commands: one argument set, three front ends.

* ``python scripts/bake.py a.blend b.blend --jobs 2``: plain Python with the ``bpy`` module
  (:func:`script_main`; ``--jobs`` runs a worker pool, ``--scheduler`` a Dask cluster);
* ``blender -b level.blend --python scripts/bake.py -- [options]``: inside Blender
  (:func:`blender_script_main`);
* ``blender -c navjump bake level.blend [options]``: the command registered by
  :mod:`.blender.cli_command` (:func:`command_main`).

Part of the command-line layer with ``cli.py`` (``python -m blender_navjump``, and the
argument parsing and messages every command shares) and ``path_cli.py``. The driver they
call needs no bpy (:mod:`.blender.batch`); one file's bake does (:mod:`.blender.headless`).
stdout carries only one summary line per file and a total line; Blender's own log goes to
stderr while a file is opened and baked.
"""

from __future__ import annotations

import argparse
import sys
import time

from .blender import devload
from .blender.batch import (
    DEFAULT_FORMATS,
    OUTPUT_SUFFIX,
    BakeOptions,
    check_output_collisions,
    finish,
    run_pool,
    run_sequential,
    summary_line,
)
from .blender.stdio import stdout_to_stderr
from .cli import exit_interrupted, parse_formats, parse_set_values


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


def options_from_args(args, parser: argparse.ArgumentParser) -> BakeOptions:
    """BakeOptions from parsed arguments; bad values end in ``parser.error`` (exit 2)."""
    try:
        formats = parse_formats(args.format)
    except ValueError as exc:
        parser.error(f"--format: {exc}")
    try:
        overrides = parse_set_values(args.overrides)
    except ValueError as exc:
        parser.error(f"--set: {exc}")
    return BakeOptions(out=args.out, formats=formats, preset=args.preset,
                       overrides=overrides, save=args.save)


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


def script_main(argv, emit=print, scheduler_run=None, held=None) -> int:
    """``python scripts/bake.py FILE.blend ... [options]`` under plain Python with bpy.

    ``scheduler_run``: the runner that ``--scheduler`` hands the files to (the front end
    passes ``farm.dask_runner.script_run``; this module does not import the farm).
    ``held``: an ``interrupts.HeldInterrupts`` holding Ctrl-C since the script started;
    released once Blender and the extension are loaded (a Ctrl-C that lands while bpy
    starts Blender crashes it), or before the scheduler or the worker pool takes over."""
    release = held.release if held is not None else (lambda: None)
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
        try:
            release()
        except KeyboardInterrupt:
            return interrupted(done, len(args.files))
        results, workers = scheduler_run(args.files, options, args.scheduler,
                                         args.connect_timeout, show)
        return finish(results, options, workers, t_start, args.report, emit)
    with stdout_to_stderr():
        import bpy  # noqa: F401 - one Blender per process (it prints to stdout on import)

    try:
        if args.jobs > 1 and len(args.files) > 1:
            release()
            from .core import kernel_cache

            notice = kernel_cache.compile_notice()
            if notice:
                # Compile once here; the workers then load the kernels from the cache.
                print(notice, file=sys.stderr, flush=True)
                kernel_cache.warm_up()
            with stdout_to_stderr():
                repo_dir, repo_module = devload.stage_source_extension()
            setup = {"repo_dir": str(repo_dir), "repo_module": repo_module}
            results = run_pool(args.files, options, args.jobs, setup, on_result=show)
        else:
            with stdout_to_stderr():
                module = devload.attach_extension()
            bake_file = devload.extension_headless(module).bake_file
            release()
            results = run_sequential(args.files, options, bake_file, on_result=show)
    except KeyboardInterrupt:
        return interrupted(done, len(args.files))
    return finish(results, options, args.jobs, t_start, args.report, emit)


def interrupted(done: list[dict], total: int) -> int:
    """Ctrl-C: one line on stderr, exit 130. The file being baked keeps its old outputs
    (they are replaced only after its bake, all together); no report is written."""
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
        module = devload.attach_extension()
    results = run_sequential(files, options, devload.extension_headless(module).bake_file,
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
    from .blender.headless import bake_file  # needs bpy: this is Blender's own Python

    results = run_sequential(args.files, options, bake_file,
                             on_result=lambda r: emit(summary_line(r)))
    return finish(results, options, 1, t_start, args.report, emit)

