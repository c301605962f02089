"""What a tiled bake keeps between bakes of one level (``core.tiles``): plain Python, so
that a front end can hold one without loading the bake kernels."""

from __future__ import annotations

from typing import Any


class TileCache:
    """What a tiled bake keeps so that the next bake of the same level re-bakes only the
    tiles an edit touches (``pipeline.bake(..., tile_cache=, changed=)``): each tile's
    polygons (``tiles.TilePart``), its stage counts and its links (polygons named by tile and
    index in the tile). ``key`` names the grid, the settings and the volumes the parts were
    baked with; a bake under another key re-bakes every tile. Lives in memory only."""

    def __init__(self) -> None:
        self._reset(None)
        # the last bake's input as validated (``tiles.CheckedInput``: copies of the arrays
        # and what their validation found), so that the next bake validates only the
        # vertices and triangles that changed; kept by ``clear``
        self.inputs: Any = None
        self.validations = 0  # full validations made (generations of ``inputs``)
        # every tile's triangles, kept for the next bake to update (``tiles._tile_bins``)
        self.bins: tuple | None = None

    def _reset(self, pending: tuple | None) -> None:
        self.key: tuple | None = None
        self.parts: dict[int, Any] = {}
        self.tile_stats: dict[int, dict] = {}
        self.links: dict[int, dict[str, Any]] = {}
        self.link_info: dict[int, dict] = {}
        # tiles re-baked by the last bake (all of them for a full bake)
        self.rebaked: list[int] = []
        self.relinked: list[int] = []
        # the key of the bake under way: it becomes ``key`` when the bake completes (a
        # cancelled bake leaves the cache unkeyed, so the next bake re-bakes everything)
        self.pending: tuple | None = pending

    def clear(self, key: tuple | None) -> None:
        """Empty, for a bake under ``key`` that bakes every tile."""
        self._reset(key)

    def commit(self) -> None:
        """The bake that used this cache completed (called by ``pipeline.bake``)."""
        self.key, self.pending = self.pending, None
