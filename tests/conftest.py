import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

from recast_data import recast_data_dir  # noqa: E402


@pytest.fixture(scope="session")
def recast_data():
    d = recast_data_dir()
    if d is None:
        pytest.skip("Recast sample meshes not found: set NAVJUMP_RECAST_DATA to the folder "
                    "holding dungeon.obj, nav_test.obj and nav_mesh_test.txt")
    return d
