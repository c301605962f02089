"""Where Recast's sample meshes are (a plain module: test files and scripts import it by
name, which a ``conftest`` cannot promise once several conftests are collected)."""

from __future__ import annotations

import os
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def recast_data_dir() -> pathlib.Path | None:
    """Recast's sample meshes: $NAVJUMP_RECAST_DATA, or shared/data/recast beside the repo."""
    env = os.environ.get("NAVJUMP_RECAST_DATA")
    candidates = [pathlib.Path(env)] if env else []
    candidates.append(ROOT.parent / "shared" / "data" / "recast")
    for c in candidates:
        if (c / "dungeon.obj").is_file():
            return c
    return None
