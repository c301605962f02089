"""Helpers shared by the exporters: atomic writes and the Z-up -> Y-up conversion."""

from __future__ import annotations

import os
import pathlib
import tempfile
from collections.abc import Callable
from typing import IO

import numpy as np


def _new_file_mode(path: pathlib.Path) -> int:
    """Permissions for the written file: the old file's, else what ``open()`` would give."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        pass
    umask = None
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    umask = int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    if umask is None:
        umask = os.umask(0o022)
        os.umask(umask)
    return 0o666 & ~umask


def atomic_write(path, write: Callable[[IO], object], binary: bool = True) -> pathlib.Path:
    """Call ``write(fh)`` on a temporary file beside ``path``, then rename it over ``path``.

    A failure anywhere (including inside ``write``) removes the temporary file and leaves
    whatever was at ``path`` before untouched, so readers never see a partial file.
    """
    path = pathlib.Path(path)
    mode_bits = _new_file_mode(path)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        mode = "wb" if binary else "w"
        with os.fdopen(fd, mode, encoding=None if binary else "utf-8",
                       newline=None if binary else "\n") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp_name, mode_bits)  # mkstemp makes 0600 files
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    return path


def write_bytes_atomic(path, data: bytes) -> pathlib.Path:
    return atomic_write(path, lambda fh: fh.write(data))


def z_up_to_y_up(points: np.ndarray) -> np.ndarray:
    """(x, y, z) Z-up -> (x, z, -y) Y-up: a rotation, so windings seen from above survive."""
    p = np.asarray(points, dtype=np.float64)
    return np.stack([p[..., 0], p[..., 2], -p[..., 1]], axis=-1)


def y_up_to_z_up(points: np.ndarray) -> np.ndarray:
    """Inverse of :func:`z_up_to_y_up`: (x, y, z) Y-up -> (x, -z, y) Z-up."""
    p = np.asarray(points, dtype=np.float64)
    return np.stack([p[..., 0], -p[..., 2], p[..., 1]], axis=-1)


def polygon_rows(nm) -> list[np.ndarray]:
    """Each polygon's vertex indices without padding; rejects padding that is not trailing."""
    valid = nm.polygons >= 0
    counts = valid.sum(axis=1)
    cols = np.arange(nm.polygons.shape[1])
    if nm.polygons.size and not np.array_equal(valid, cols[None, :] < counts[:, None]):
        bad = int(np.nonzero((valid != (cols[None, :] < counts[:, None])).any(axis=1))[0][0])
        raise ValueError(f"polygon {bad} has -1 padding before its last vertex: "
                         f"{nm.polygons[bad].tolist()}")
    return [nm.polygons[p, :counts[p]] for p in range(nm.polygons.shape[0])]
