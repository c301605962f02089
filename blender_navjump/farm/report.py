"""Per-file bake reports, their merge into one batch report, and the output-folder check.

A farm bakes each level in its own task; every task writes a *per-file report*
(``<out>/<level>.navjump-report.json``: the batch report of ``scripts/bake.py --report``
holding one entry). A final step merges them, in the order of the job's file list, into
one *batch report* of the same shape. A file whose task left no report (it crashed, was
killed or cancelled) gets a failed entry saying so. Formats: ``docs/batch-report.md``.

Timing and host fields (``seconds``, ``phases_s``, ``worker``, ``stats.timings_ms``,
``versions``) differ from run to run; :func:`without_timings` drops them, and what is
left is identical for two runs over the same inputs.
"""

from __future__ import annotations

import copy
import json
import os
import tempfile
from pathlib import Path

FILE_REPORT_SUFFIX = ".navjump-report.json"  # <out>/<level stem>.navjump-report.json
MERGED_REPORT_NAME = "navjump-batch-report.json"  # <out>/navjump-batch-report.json
TOOL = "navjump batch bake"

# Fields that change from one run to the next (clock, process, machine).
REPORT_TIMING_KEYS = ("seconds", "versions")
ENTRY_TIMING_KEYS = ("seconds", "phases_s", "worker", "traceback")
STATS_TIMING_KEYS = ("timings_ms",)


class ReportError(Exception):
    """A report that cannot be read or is not a NavJump batch report; names the file."""


def file_report_path(blend_path, out_dir) -> Path:
    """Where a farm task writes the report of one level."""
    return Path(out_dir) / (Path(blend_path).stem + FILE_REPORT_SUFFIX)


def merged_report_path(out_dir) -> Path:
    return Path(out_dir) / MERGED_REPORT_NAME


def check_output_dir(out_dir) -> str | None:
    """None when ``out_dir`` exists (or can be created) and a file can be written in it;
    otherwise a message naming the folder and the reason. Probes with a real file, so
    read-only mounts and missing permissions are found whoever runs it. The file has no
    name where the system allows it (Linux's O_TMPFILE, which TemporaryFile uses): a
    worker killed mid-probe leaves nothing in the folder."""
    path = Path(out_dir)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(prefix=".navjump-probe-", dir=path):
            pass
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        return f"output folder {path} is not writable: {reason}"
    return None


def load_report(path) -> dict:
    """A batch report from disk; ReportError naming the file when it is unusable."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ReportError(f"report {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"cannot read report {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ReportError(f"report {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("tool") != TOOL or \
            not isinstance(data.get("files"), list):
        raise ReportError(f"{path} is not a NavJump batch report")
    return data


def _failed_entry(path, error: str) -> dict:
    return {"file": str(path), "ok": False, "error": error, "seconds": 0.0, "outputs": [],
            "saved": False, "preset": None, "overrides": {}, "stats": {}, "warnings": [],
            "settings": {}, "phases_s": {}}


def _same_file(a, b) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def entry_for(blend_path, report: dict) -> dict:
    """The entry of ``blend_path`` in a per-file report; ReportError if it has none."""
    for entry in report.get("files", []):
        if isinstance(entry, dict) and _same_file(entry.get("file", ""), blend_path):
            return entry
    raise ReportError(f"the report has no entry for {blend_path}")


def merge_reports(files, reports, runner: str) -> dict:
    """One batch report from per-file reports, in the order of ``files``.

    ``reports[i]`` is the per-file report of ``files[i]`` (a dict), or a string saying
    why there is none; such a file gets a failed entry with that reason. Options and
    versions come from the first report that has them.
    """
    files = [str(f) for f in files]
    if len(reports) != len(files):
        raise ValueError(f"{len(files)} files but {len(reports)} reports")
    entries, options, versions, seconds = [], None, None, 0.0
    for path, report in zip(files, reports, strict=True):
        if isinstance(report, str):
            entries.append(_failed_entry(path, report))
            continue
        try:
            entry = dict(entry_for(path, report))
        except ReportError as exc:
            entries.append(_failed_entry(path, str(exc)))
            continue
        entry["file"] = path  # the job's own spelling of the path
        entries.append(entry)
        options = options if options is not None else report.get("options")
        versions = versions if versions is not None else report.get("versions")
        seconds += float(entry.get("seconds") or 0.0)
    ok = sum(1 for e in entries if e.get("ok"))
    return {
        "tool": TOOL,
        "runner": runner,
        "versions": versions or {},
        "jobs": None,
        "options": options or {},
        "files_total": len(entries),
        "succeeded": ok,
        "failed": len(entries) - ok,
        "seconds": seconds,
        "files": entries,
    }


def merge_report_files(files, out_dir, runner: str = "openjd") -> dict:
    """Read ``<out>/<level>.navjump-report.json`` of every file and merge them."""
    from .filelist import same_output_names

    clash: dict[str, str] = {}
    for first, second in same_output_names(files):
        clash.setdefault(second, f"{first} and {second} write the same output files in "
                                 f"{out_dir}; bake them in separate jobs")
        clash.setdefault(first, clash[second])
    reports: list = []
    for path in files:
        if str(path) in clash:
            reports.append(clash[str(path)])
            continue
        report_path = file_report_path(path, out_dir)
        try:
            reports.append(load_report(report_path))
        except ReportError as exc:
            if not report_path.exists():
                reports.append(f"no report from the bake task ({report_path} is missing): "
                               f"the task did not finish (crashed, killed or cancelled)")
            else:
                reports.append(str(exc))
    return merge_reports(files, reports, runner)


def without_timings(report: dict) -> dict:
    """A copy of a batch report without the fields that change between runs."""
    out = copy.deepcopy(report)
    for key in REPORT_TIMING_KEYS:
        out.pop(key, None)
    for entry in out.get("files", []):
        for key in ENTRY_TIMING_KEYS:
            entry.pop(key, None)
        if isinstance(entry.get("stats"), dict):
            entry["stats"] = drop_timing_keys(entry["stats"])
    return out


def drop_timing_keys(data):
    """A copy of nested dicts/lists without any ``timings_ms`` (a bake's own timings, which
    the core also nests in sub-summaries such as the link generator's)."""
    if isinstance(data, dict):
        return {k: drop_timing_keys(v) for k, v in data.items() if k not in STATS_TIMING_KEYS}
    if isinstance(data, list):
        return [drop_timing_keys(v) for v in data]
    return data
