import os
import stat

import pytest

from blender_navjump.export._common import atomic_write


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def test_new_file_gets_the_usual_permissions(tmp_path):
    path = atomic_write(tmp_path / "a.bin", lambda fh: fh.write(b"abc"))
    assert path.read_bytes() == b"abc"
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~_umask()


def test_replacing_keeps_the_old_permissions(tmp_path):
    target = tmp_path / "a.txt"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write(target, lambda fh: fh.write("new"), binary=False)
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_failure_midway_keeps_the_old_file_and_cleans_up(tmp_path):
    target = tmp_path / "a.bin"
    target.write_bytes(b"old")

    def half_then_fail(fh):
        fh.write(b"partial")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        atomic_write(target, half_then_fail)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]
