"""The commands the Open Job Description template runs (``scripts/openjd/navjump_task.py``).

``bake-one FILE --out DIR ...``: one task of the *Bake* step. Bakes one level with the
batch driver (``scripts/bake.py``'s options) and writes its per-file report
``<DIR>/<level>.navjump-report.json``. A level that fails to bake (unreadable file, bad
settings, nothing to bake) is a *recorded* failure: the report says why and the task exits
0, so the other tasks and the merge still run, and a farm does not retry a bake that would
fail the same way again. The task exits non-zero only when it could not record anything:
2 for bad arguments, 3 when the output folder is not writable, and whatever the process
died of (a crash, a kill, out of memory) -- the cases a farm's task retry may cure.

``params FILE... --out DIR [...] --json params.json``: run before submitting; writes the
job parameters (absolute paths, ``@list.txt`` expanded, output-name clashes refused) for
``openjd run TEMPLATE --job-param file://params.json``.

``merge --out DIR FILE...``: the *Merge* step. Merges the per-file reports, in the order of
the file list, into ``<DIR>/navjump-batch-report.json``, prints one summary line per file
and exits 0 only if every file baked (1 otherwise), which is what fails the job.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from pathlib import Path

from . import report as report_mod

EXIT_BAD_ARGUMENTS = 2
EXIT_OUTPUT_NOT_WRITABLE = 3


def _split_settings(text: str) -> list[str]:
    """``"agent_radius=0.5 links_enabled=false"`` -> ``["agent_radius=0.5", ...]``."""
    return shlex.split(text or "")


def bake_one_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="navjump_task.py bake-one",
        description="Bake one .blend and write <out>/<level>.navjump-report.json.")
    p.add_argument("file", metavar="FILE.blend")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--format", default="json", metavar="LIST",
                   help="comma-separated formats: json,obj,gltf,detour")
    p.add_argument("--preset", default="", metavar="NAME",
                   help="agent preset (empty: the file's own settings)")
    p.add_argument("--settings", default="", metavar="'NAME=VALUE ...'",
                   help="space-separated --set overrides, e.g. 'agent_radius=0.5'")
    return p


def bake_one_main(argv, emit=print) -> int:
    args = bake_one_parser().parse_args(argv)
    problem = report_mod.check_output_dir(args.out)
    if problem:
        emit(f"FAILED {args.file}: {problem}")
        return EXIT_OUTPUT_NOT_WRITABLE
    target = report_mod.file_report_path(args.file, args.out)
    # A report left by an earlier run must not stand in for this one if this task dies.
    target.unlink(missing_ok=True)
    bake_argv = [args.file, "--out", args.out, "--format", args.format,
                 "--report", str(target)]
    if args.preset:
        bake_argv += ["--preset", args.preset]
    for item in _split_settings(args.settings):
        bake_argv += ["--set", item]

    from ..batch_cli import script_main

    try:
        code = script_main(bake_argv, emit=emit)
    except SystemExit as exc:  # argument errors: argparse printed the reason
        return exc.code if isinstance(exc.code, int) else EXIT_BAD_ARGUMENTS
    if not target.is_file():
        return code or 1
    return 0


def merge_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="navjump_task.py merge",
        description="Merge the per-file reports of a farm bake into one batch report.")
    p.add_argument("files", nargs="+", metavar="FILE.blend",
                   help="the job's files, in order")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="the output folder the bake tasks wrote to")
    p.add_argument("--report", metavar="FILE.json",
                   help=f"merged report (default: <out>/{report_mod.MERGED_REPORT_NAME})")
    p.add_argument("--runner", default="openjd", help="recorded in the report")
    return p


def merge_main(argv, emit=print) -> int:
    args = merge_parser().parse_args(argv)
    from ..blender import batch

    merged = report_mod.merge_report_files(args.files, args.out, runner=args.runner)
    for entry in merged["files"]:
        emit(batch.summary_line(entry))
    path = args.report or report_mod.merged_report_path(args.out)
    batch.write_report(path, merged)
    emit(f"navjump: {merged['succeeded']} of {merged['files_total']} files baked, "
         f"{merged['failed']} failed; report written to {path}")
    return 0 if merged["failed"] == 0 else 1


def params_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="navjump_task.py params",
        description="Write the job parameters of navjump-bake.openjd.yaml as JSON, for "
                    "openjd run ... --job-param file://params.json. Paths become absolute; "
                    "files that would write the same outputs are refused.")
    p.add_argument("files", nargs="+", metavar="FILE.blend|@LIST.txt",
                   help="levels, or @file listing one level per line")
    p.add_argument("--out", required=True, metavar="DIR", help="OutputDir")
    p.add_argument("--format", default="json", metavar="LIST", help="Formats")
    p.add_argument("--preset", default="", metavar="NAME", help="Preset")
    p.add_argument("--settings", default="", metavar="'NAME=VALUE ...'", help="Settings")
    p.add_argument("--python", default=sys.executable,
                   help="Python with bpy on the workers (default: this one)")
    p.add_argument("--navjump-dir", default=str(Path(__file__).resolve().parents[2]),
                   help="NavJump checkout on the workers (default: this one)")
    p.add_argument("--json", metavar="PATH", help="write here instead of stdout")
    return p


def params_main(argv, emit=print) -> int:
    from . import filelist

    parser = params_parser()
    args = parser.parse_args(argv)
    try:
        files = filelist.absolute_files(args.files)
    except filelist.FileListError as exc:
        parser.error(str(exc))
    if not files:
        parser.error("the file list is empty")
    clashes = filelist.same_output_names(files)
    if clashes:
        a, b = clashes[0]
        parser.error(f"{a} and {b} would write the same output files; bake them in "
                     f"separate jobs")
    for f in files:
        if not Path(f).is_file():
            print(f"navjump: warning: {f} does not exist (its task will fail)",
                  file=sys.stderr)
    params = {"Files": files, "OutputDir": os.path.abspath(args.out),
              "Formats": args.format, "Preset": args.preset, "Settings": args.settings,
              "Python": args.python, "NavJumpDir": os.path.abspath(args.navjump_dir)}
    text = json.dumps(params, indent=2)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")
    else:
        emit(text)
    return 0


COMMANDS = {"bake-one": bake_one_main, "merge": merge_main, "params": params_main}


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: navjump_task.py {{{','.join(COMMANDS)}}} ...", file=sys.stderr)
        return EXIT_BAD_ARGUMENTS
    return COMMANDS[argv[0]](argv[1:])
