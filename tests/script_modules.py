"""The repository's ``scripts/*.py`` loaded as modules, for tests that use their level
builders and helpers (they are scripts, not a package)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"


def load_script(name: str):
    """``scripts/<name>.py`` as a fresh module named ``navjump_<name>``."""
    spec = importlib.util.spec_from_file_location(f"navjump_{name}", SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
