"""File lists for farm jobs: ``@list.txt`` arguments and the output-name check.

A job of hundreds of levels is easier to keep in a text file than on a command line:
``@levels.txt`` stands for the paths in that file, one per line (blank lines and lines
starting with ``#`` are skipped; relative paths are relative to the list file).
"""

from __future__ import annotations

import os
from pathlib import Path


class FileListError(Exception):
    """A list file that cannot be read, or a list whose files would overwrite each other."""


def read_file_list(path) -> list[str]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise FileListError(f"cannot read the file list {path}: {exc}") from None
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        item = Path(line)
        out.append(str(item if item.is_absolute() else path.parent / item))
    return out


def expand_file_args(items) -> list[str]:
    """Paths as given, with every ``@list.txt`` replaced by the paths it lists."""
    out = []
    for item in items:
        item = str(item)
        if item.startswith("@") and len(item) > 1:
            out.extend(read_file_list(item[1:]))
        else:
            out.append(item)
    return out


def absolute_files(items) -> list[str]:
    """Expanded and absolute: farm tasks run in folders of their own."""
    return [os.path.abspath(p) for p in expand_file_args(items)]


def same_output_names(files) -> list[tuple[str, str]]:
    """Pairs of files that would write the same outputs (same name, one output folder)."""
    seen: dict[str, str] = {}
    clashes = []
    for f in files:
        key = os.path.normcase(Path(f).stem)
        if key in seen:
            clashes.append((seen[key], f))
        else:
            seen[key] = f
    return clashes
