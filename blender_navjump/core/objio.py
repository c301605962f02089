"""Read Wavefront OBJ geometry (positions and faces only) into numpy arrays."""

from __future__ import annotations

import numpy as np


def read_obj(path, up: str = "z"):
    """Return (vertices (N,3) float64, triangles (M,3) int32), Z up.

    Faces are fan-triangulated as Recast does; negative (relative) indices are supported.
    ``up="y"`` converts a Y-up file (Recast's samples) with (x, y, z) -> (x, -z, y).
    Raises ValueError with the file name and line on malformed input.
    """
    if up not in ("y", "z"):
        raise ValueError(f"up: must be 'y' or 'z', got {up!r}")
    verts: list[list[float]] = []
    tris: list[tuple[int, int, int]] = []
    try:
        fh = open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ValueError(f"{path}: cannot open ({exc.strerror})") from None
    with fh:
        for lineno, line in enumerate(fh, 1):
            if line.startswith("v "):
                parts = line.split()
                try:
                    verts.append([float(parts[1]), float(parts[2]), float(parts[3])])
                except (IndexError, ValueError):
                    raise ValueError(f"{path}:{lineno}: bad vertex line: {line.strip()!r}") \
                        from None
            elif line.startswith("f "):
                idx = []
                for tok in line.split()[1:]:
                    head = tok.split("/", 1)[0]
                    try:
                        i = int(head)
                    except ValueError:
                        raise ValueError(f"{path}:{lineno}: bad face index {tok!r}") from None
                    if i < 0:
                        i = len(verts) + i
                    else:
                        i -= 1
                    if i < 0 or i >= len(verts):
                        raise ValueError(f"{path}:{lineno}: face index {head} refers to no "
                                         f"vertex ({len(verts)} defined so far)")
                    idx.append(i)
                for k in range(2, len(idx)):
                    tris.append((idx[0], idx[k - 1], idx[k]))
    v = np.array(verts, dtype=np.float64).reshape(-1, 3)
    t = np.array(tris, dtype=np.int32).reshape(-1, 3)
    if up == "y":
        v = np.stack([v[:, 0], -v[:, 2], v[:, 1]], axis=1)
    return v, t
