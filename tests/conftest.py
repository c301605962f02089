import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))


def recast_data_dir() -> pathlib.Path | None:
    """Recast's sample meshes: $NAVJUMP_RECAST_DATA, or shared/data/recast beside the repo."""
    env = os.environ.get("NAVJUMP_RECAST_DATA")
    candidates = [pathlib.Path(env)] if env else []
    candidates.append(ROOT.parent / "shared" / "data" / "recast")
    for c in candidates:
        if (c / "dungeon.obj").is_file():
            return c
    return None


@pytest.fixture(scope="session")
def recast_data():
    d = recast_data_dir()
    if d is None:
        pytest.skip("Recast sample meshes not found: set NAVJUMP_RECAST_DATA to the folder "
                    "holding dungeon.obj, nav_test.obj and nav_mesh_test.txt")
    return d
