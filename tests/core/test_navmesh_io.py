"""NavMesh save/load is lossless; foreign or corrupt files are refused clearly."""

import numpy as np
import pytest
from scenes import Scene

from blender_navjump.core import bake
from blender_navjump.core.navmesh import NavMesh


def test_save_load_roundtrip(tmp_path):
    v, t = Scene().floor(0, 0, 8, 8).box(3, 3, 0, 4, 4, 2).arrays()
    nm = bake(v, t)
    path = tmp_path / "m.npz"
    nm.save(path)
    back = NavMesh.load(path)
    assert back.equals(nm)
    assert back.stats == nm.stats
    for name in nm.array_fields():
        assert getattr(back, name).dtype == getattr(nm, name).dtype


def test_load_rejects_garbage(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(ValueError, match="not a NavJump navmesh"):
        NavMesh.load(bad)
    other = tmp_path / "other.npz"
    np.savez(other, a=np.zeros(3))
    with pytest.raises(ValueError, match="not a NavJump navmesh"):
        NavMesh.load(other)
