"""Helpers shared by the exporters: atomic writes and the Z-up -> Y-up conversion."""

from __future__ import annotations

import contextlib
import contextvars
import os
import pathlib
import shutil
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


class StagedFiles:
    """Files written to temporaries beside their targets, moved into place all together.

    :meth:`commit` replaces every target, or, when one move fails, puts every target back
    as it was (the old files are kept as hard links, or copies, until all moves are done).
    :meth:`discard` removes the temporaries. Used through :func:`all_or_nothing`.
    """

    def __init__(self):
        self.entries: list[tuple[pathlib.Path, pathlib.Path, pathlib.Path | None]] = []

    @property
    def targets(self) -> list[pathlib.Path]:
        return [target for _, target, _ in self.entries]

    def add(self, tmp, target, keep_old_as=None) -> None:
        """Stage the finished temporary ``tmp`` to replace ``target`` at commit; with
        ``keep_old_as``, the file ``target`` held before is kept under that name."""
        target = pathlib.Path(target)
        key = os.path.normcase(os.path.abspath(target))
        if any(os.path.normcase(os.path.abspath(t)) == key for t in self.targets):
            _unlink(tmp)
            raise ValueError(f"{target} would be written twice by one export")
        self.entries.append((pathlib.Path(tmp), target,
                             None if keep_old_as is None else pathlib.Path(keep_old_as)))

    def discard(self) -> None:
        for tmp, _, _ in self.entries:
            _unlink(tmp)
        self.entries = []

    def commit(self) -> list[pathlib.Path]:
        backups: list[pathlib.Path | None] = []
        moved = 0
        try:
            for _, target, _ in self.entries:
                backups.append(_backup(target))
            for tmp, target, _ in self.entries:
                os.replace(tmp, target)
                moved += 1
        except BaseException:
            # Put back what was moved (newest first); nothing else has changed.
            for i in reversed(range(moved)):
                target, backup = self.entries[i][1], backups[i]
                with contextlib.suppress(OSError):
                    if backup is not None:
                        os.replace(backup, target)
                    else:
                        os.unlink(target)
            for backup in backups[moved:]:
                if backup is not None:
                    _unlink(backup)
            self.discard()
            raise
        for (_, _, keep), backup in zip(self.entries, backups, strict=True):
            if backup is None:
                continue
            if keep is not None:
                with contextlib.suppress(OSError):
                    os.replace(backup, keep)
                    continue
            _unlink(backup)
        targets = self.targets
        self.entries = []
        return targets


def _unlink(path) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def _backup(target: pathlib.Path) -> pathlib.Path | None:
    """A second name for the file at ``target`` (a hard link, else a copy); None if there
    is no file (nothing, or a folder, which the move itself then refuses)."""
    if not target.is_file():
        return None
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".old")
    os.close(fd)
    os.unlink(name)
    try:
        os.link(target, name)
    except OSError:
        shutil.copy2(target, name)
    return pathlib.Path(name)


_STAGE: contextvars.ContextVar[StagedFiles | None] = contextvars.ContextVar(
    "navjump_staged_files", default=None)


@contextlib.contextmanager
def all_or_nothing():
    """Inside the block, :func:`atomic_write` (and so every exporter) writes temporaries;
    when the block ends normally they all replace their targets, or none does. When the
    block raises (KeyboardInterrupt included), no target is touched.

    Yields the :class:`StagedFiles`; nested blocks join the outer one.
    """
    outer = _STAGE.get()
    if outer is not None:
        yield outer
        return
    stage = StagedFiles()
    token = _STAGE.set(stage)
    try:
        yield stage
    except BaseException:
        _STAGE.reset(token)
        stage.discard()
        raise
    _STAGE.reset(token)
    stage.commit()


def staged_temp_name(path, suffix: str = ".tmp") -> pathlib.Path:
    """A fresh temporary name beside ``path`` (reserved: the file exists, empty)."""
    path = pathlib.Path(path)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=suffix)
    os.close(fd)
    return pathlib.Path(tmp_name)


def atomic_write(path, write: Callable[[IO], object], binary: bool = True) -> pathlib.Path:
    """Call ``write(fh)`` on a temporary file beside ``path``, then rename it over ``path``.

    A failure anywhere (including inside ``write``) removes the temporary file and leaves
    whatever was at ``path`` before untouched, so readers never see a partial file. Inside
    :func:`all_or_nothing` the rename waits for the end of the block.
    """
    path = pathlib.Path(path)
    stage = _STAGE.get()
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
        if stage is not None:
            stage.add(tmp_name, path)
        else:
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


def check_float32_reach(nm, fmt: str) -> None:
    """Refuse a navmesh too far from the origin for a format that stores float32 points.

    float32 has 24 bits of mantissa: at 262 km from the origin its step is 3 cm, a tenth of
    a default cell. Beyond ``FLOAT32_REACH`` the written points would be visibly snapped.
    """
    pts = [nm.vertices, nm.detail_vertices, nm.link_start.reshape(-1, 3),
           nm.link_end.reshape(-1, 3)]
    far = max((float(np.abs(p).max()) for p in pts if p.size), default=0.0)
    if far > FLOAT32_REACH:
        step = float(np.spacing(np.float32(far)))
        raise ValueError(f"a point {far:.6g} m from the origin is beyond the "
                         f"{FLOAT32_REACH:g} m {fmt} can hold (its 32-bit floats step by "
                         f"{step:.3g} m there); move the level nearer the origin")


# Largest coordinate (metres) written as float32 (Detour, glTF): float32 steps by 1/32 m here.
FLOAT32_REACH = 2.0**18


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
