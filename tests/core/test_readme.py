"""The README tells the truth: its Python API snippet runs, its command synopses name
only options the parsers have (and every option of ``path``)."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = README.index(f"\n## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end if end >= 0 else None]


def test_python_api_snippet_runs(tmp_path):
    blocks = re.findall(r"```python\n(.*?)```", section("Python API"), re.S)
    assert len(blocks) == 1
    proc = subprocess.run([sys.executable, "-c", blocks[0]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "level.npz").is_file()
    assert "rasterize" in proc.stdout  # the progress callback ran


def _options(parser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings}


def _synopsis(command: str) -> set[str]:
    text = section("Command line without Blender")
    start = text.index(f"blender_navjump {command} ")
    end = text.find(".venv/bin/python", start + 1)
    block = text[start:end if end >= 0 else text.index("\n\n", start)]
    return set(re.findall(r"(--[a-z][a-z-]*)", block))


def test_cli_synopses_match_the_parsers():
    from blender_navjump.cli import _bake_parser
    from blender_navjump.path_cli import _parser as path_parser

    bake_opts = _options(_bake_parser())
    assert _synopsis("bake") <= bake_opts
    path_opts = _options(path_parser()) - {"-h", "--help"}
    assert _synopsis("path") == path_opts  # every path option is shown
    assert "Z up" in section("Command line without Blender")


def test_commands_use_the_project_python():
    # A bare "python" lacks numba; the README says .venv/bin/python for every command.
    for line in README.splitlines():
        stripped = line.strip()
        if stripped.startswith("python ") or " python scripts/" in line \
                or "`python " in line:
            raise AssertionError(f"README command without .venv/bin/python: {line!r}")
