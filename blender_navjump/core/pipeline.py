"""The one bake entry point every front end calls (CLI, Blender operator, scripts)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .debug import BakeDebug
from .kinds import GENERATED_LINK_KINDS
from .navmesh import NavMesh, empty_navmesh
from .navmesh_check import MAX_COORDINATE
from .settings import BakeSettings, memory_limit, voxel_config
from .stages import (  # noqa: F401
    STAGES,
    GridResult,
    run_stages,
    shared_job,
    shared_keys,
    shared_stage,
)

ProgressCallback = Callable[[str, float], None]


class BakeCancelled(Exception):
    """Raised by a progress callback to stop a bake; nothing is returned."""


class BakeInputError(ValueError):
    """The geometry given to a bake is unusable; the message says why."""


# A triangle whose height is below this fraction of its longest edge has no area to bake.
# Relative to the triangle's own size (computed from its own edge vectors), so the test
# does not depend on how far from the origin the triangle sits.
DEGENERATE_RATIO = 1.0e-9


def _as_number_array(name: str, value, dtype, allow_bool: bool = False) -> np.ndarray:
    """``value`` as a numeric array; BakeInputError naming ``name`` if it is not one."""
    if isinstance(value, (str, bytes, dict)):
        raise BakeInputError(f"{name}: expected an array of numbers, got a "
                             f"{type(value).__name__}")
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise BakeInputError(f"{name}: not a regular array of numbers (rows of different "
                             f"lengths?)") from None
    if raw.dtype.kind not in "iuf" and not (raw.dtype.kind == "b" and allow_bool):
        raise BakeInputError(f"{name}: expected numbers, got values of type "
                             f"{raw.dtype.name}")
    return raw if dtype is None else raw.astype(dtype, copy=False)


def validate_geometry(
        vertices: ArrayLike, triangles: ArrayLike, walkable: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray]:
    """Return clean (vertices float64 (N,3), triangles int32 (M,3), walkable bool (M,),
    degenerate_count, bounds (2, 3): min and max of the used vertices) or raise
    BakeInputError."""
    v = _as_number_array("vertices", vertices, np.float64)
    if v.ndim != 2 or v.shape[1] != 3:
        raise BakeInputError(f"vertices: expected an (N, 3) array, got shape {v.shape}")
    t_raw = _as_number_array("triangles", triangles, None)
    if t_raw.ndim != 2 or t_raw.shape[1] != 3:
        raise BakeInputError(f"triangles: expected an (M, 3) array, got shape {t_raw.shape}")
    if t_raw.shape[0] == 0 or v.shape[0] == 0:
        raise BakeInputError("the scene is empty: no triangles to bake")
    if not np.issubdtype(t_raw.dtype, np.integer):
        whole = np.isfinite(t_raw) & (t_raw == np.round(t_raw))
        if not whole.all():
            row, col = (int(i) for i in np.argwhere(~whole)[0])
            raise BakeInputError(f"triangles: index {t_raw[row, col]!r} in triangle {row} is "
                                 f"not a whole number")
    n_verts = v.shape[0]
    bad = (t_raw < 0) | (t_raw >= n_verts)
    if bad.any():
        row, col = (int(i) for i in np.argwhere(bad)[0])
        value = t_raw[row, col]
        shown = int(value) if abs(float(value)) < 2**63 else f"{float(value):g}"
        raise BakeInputError(f"triangles: index {shown} in triangle {row} is out of range "
                             f"(0..{n_verts - 1})")
    from .geometry import degenerate_triangles, used_vertex_bounds

    if t_raw.dtype == np.int32:
        t = np.ascontiguousarray(t_raw)
    else:
        t = np.ascontiguousarray(t_raw.astype(np.int64).astype(np.int32))
    v = np.ascontiguousarray(v)
    bmin, bmax, finite = used_vertex_bounds(v, t)
    if not finite:
        raise BakeInputError("vertices: NaN or infinite coordinates in a used vertex")
    far = max(np.abs(bmin).max(), np.abs(bmax).max())
    if far > MAX_COORDINATE:
        raise BakeInputError(f"vertices: coordinate {far:g} m is beyond the +-{MAX_COORDINATE:g}"
                             f" m a bake accepts; move the scene nearer the origin")
    if walkable is None:
        walk = np.ones(t.shape[0], np.bool_)
    else:
        w = _as_number_array("walkable", walkable, None, allow_bool=True)
        walk = w.astype(np.bool_).reshape(-1)
        if walk.shape[0] != t.shape[0]:
            raise BakeInputError(f"walkable: expected {t.shape[0]} flags, got {walk.shape[0]}")
    # height over the longest edge = 2 * area / longest; degenerate when below the ratio
    degenerate = degenerate_triangles(v, t, DEGENERATE_RATIO)
    n_deg = int(degenerate.sum())
    if n_deg == t.shape[0]:
        raise BakeInputError("all triangles are degenerate (zero area): nothing to bake")
    if n_deg:
        t = t[~degenerate]
        walk = walk[~degenerate]
    return v, np.ascontiguousarray(t), np.ascontiguousarray(walk), n_deg, np.stack([bmin, bmax])


def bake(vertices: ArrayLike, triangles: ArrayLike, settings: BakeSettings | None = None,
         progress: ProgressCallback | None = None, *,
         walkable: ArrayLike | None = None, volumes=(), shared: dict | None = None,
         debug: BakeDebug | None = None, tile_cache=None, changed=None) -> NavMesh:
    """Bake a navigation mesh from world-space triangles.

    vertices: (N, 3) metres, Z up. triangles: (M, 3) vertex indices. walkable: optional
    (M,) bools; False marks obstacle triangles that block but are never walked on.
    progress(stage, fraction) is called before each stage and may raise BakeCancelled.
    volumes: modifier volumes (``core.areas.Volume``: areas, no-links). shared: a dict kept
    between bakes of the same geometry (several agents, ``core.agents``): the solid and
    compact heightfields are reused by agents with the same voxel settings, the link
    stage's input-triangle index by agents with the same grid and slope.
    debug: a :class:`core.debug.BakeDebug` to fill with the voxel tops, regions,
    contours and refused link candidates of this bake (for debug views; costs a copy of
    the spans; solo bakes only:
    a tiled bake leaves it empty).
    tile_cache: a :class:`core.tiles.TileCache` kept between bakes of one level (tiled
    bakes only); with ``changed`` (world boxes ``(min xyz, max xyz)``: the old and new
    bounds of every object edited since the last bake with this cache) only the tiles
    those boxes touch are baked again, and the links of the tiles reaching into them; the
    result equals a bake of every tile (docs/tiles.md).
    Raises SettingsError / BakeInputError (both ValueError) on bad input.
    """
    t_all = time.perf_counter()
    if settings is None:
        settings = BakeSettings()
    elif not isinstance(settings, BakeSettings):
        raise TypeError(f"settings: expected a BakeSettings, got a {type(settings).__name__}"
                        f" (BakeSettings.from_dict() converts a dict)")
    settings = settings.validate()
    if tile_cache is not None and settings.tile_size:
        from .tiles import FullCheck, validate_cached  # what changed since the cached bake

        v, t, walk, n_deg, bounds = validate_cached(
            vertices, triangles, walkable, tile_cache,
            FullCheck(validate_geometry, DEGENERATE_RATIO))
    else:
        v, t, walk, n_deg, bounds = validate_geometry(vertices, triangles, walkable)
    timings: dict[str, float] = {}
    stats: dict = {"input_triangles": int(np.asarray(triangles).shape[0]),
                   "degenerate_triangles_skipped": n_deg}

    from .malloc import fix_mmap_threshold

    fix_mmap_threshold()  # large arrays back to the OS when freed (see malloc.py)

    bmin, bmax = bounds
    limit = memory_limit(settings)  # once: the estimates count the bake's own allocations

    def stage(name, i):
        if progress is not None:
            progress(name, i / len(STAGES))
        return time.perf_counter()

    def done(name, t0):
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - t0) * 1000.0

    from . import areas as areas_mod

    area_names = areas_mod.area_table(volumes)
    hf = chf = cfg = tri_job = None
    if settings.tile_size:
        from .tiles import bake_tiles

        nm = bake_tiles(v, t, walk, settings, bmin, bmax, progress, timings, stats,
                        volumes=volumes, area_names=area_names, cache=tile_cache,
                        changed=changed)
    else:
        cfg = voxel_config(settings, bmin, bmax, t.shape[0], limit)
        stats["grid"] = [cfg.width, cfg.height]
        if settings.links_enabled:
            # the link stage's input-triangle index depends on the triangles, the grid
            # and the slope only: built on the pool while the stages run, once for all
            # agents with the same grid and slope (``shared``)
            from . import links as links_mod

            tri_job = shared_job(shared, links_mod.triangle_index_key(cfg),
                                 lambda: links_mod.start_triangle_index(cfg, v, t))
        grid = run_stages(v, t, walk, cfg, settings, timings, stats, stage, limit=limit,
                          debug=debug, volumes=volumes, area_names=area_names, shared=shared)
        hf, chf = grid.hf, grid.chf
        nm = _assemble(grid.pmesh, cfg, settings, grid.dmeshes, grid.dverts, grid.dtris)
        del grid
    # until the links are made, polygons and spans carry their stance area only (the link
    # generator starts from standing ground); the user areas are set after it
    stance_area, polygon_area = areas_mod.polygon_area_ids(nm.polygon_area)
    nm.polygon_area = stance_area
    if chf is not None:
        chf.span_area &= np.uint8(3)

    t0 = stage("links", 9)
    if settings.links_enabled and nm.polygon_count:
        if settings.tile_size:
            from .tiles import build_tile_links

            info = build_tile_links(nm, settings, v, t, walk, bmin, bmax, progress,
                                    cache=tile_cache)
        else:
            from . import links as links_mod

            info = links_mod.build_links(nm, hf, chf, cfg, settings, v, t, debug=debug,
                                         tri_job=tri_job)
        stats["links"] = {k: int((nm.link_kind == i).sum())
                          for i, k in enumerate(GENERATED_LINK_KINDS)}
        # keep the generator's summary (border-edge share, messages for the user)
        stats["links_info"] = json.loads(json.dumps(info, default=float))
        stats.setdefault("warnings", []).extend(info.get("messages", []))
        stats["links_removed_by_volumes"] = areas_mod.drop_links_in(nm, volumes)
    done("links", t0)
    if tile_cache is not None and settings.tile_size:
        tile_cache.commit()
    nm.polygon_area = polygon_area
    nm.area_names = np.array(area_names, np.str_)
    nm.area_cost = np.ones(len(area_names), np.float64)
    if progress is not None:
        progress("done", 1.0)

    timings["total"] = (time.perf_counter() - t_all) * 1000.0
    stats["timings_ms"] = timings
    stats.update(_mesh_stats(nm))
    nm.stats = stats
    return nm


def _assemble(pmesh, cfg, settings, dmeshes, dverts, dtris) -> NavMesh:
    nvp = cfg.max_verts_per_poly
    if pmesh.polys.shape[0] == 0:
        nm = empty_navmesh(nvp)
        nm.settings = settings.to_dict()
        return nm
    pv = pmesh.verts.astype(np.float64)
    verts = np.empty_like(pv)
    verts[:, 0] = cfg.bmin[0] + pv[:, 0] * cfg.cs
    verts[:, 1] = cfg.bmin[1] + pv[:, 1] * cfg.cs
    verts[:, 2] = cfg.bmin[2] + pv[:, 2] * cfg.ch
    areas = pmesh.areas.astype(np.uint8)
    return NavMesh(  # the polygon mesh's arrays as they are when their types already fit
        vertices=verts,
        polygons=pmesh.polys.astype(np.int32, copy=False),
        neighbours=pmesh.neighbours.astype(np.int32, copy=False),
        polygon_area=areas,
        polygon_region=pmesh.regs.astype(np.int32, copy=False),
        polygon_stance=(np.maximum(areas.astype(np.int16) & 3, 1) - 1).astype(np.int8),
        detail_meshes=np.asarray(dmeshes, np.int32),
        detail_vertices=np.asarray(dverts, np.float64),
        detail_triangles=np.asarray(dtris, np.int32),
        settings=settings.to_dict(),
    )


def _mesh_stats(nm: NavMesh) -> dict[str, Any]:
    from .navmesh import STANCE_NAMES

    out: dict[str, Any] = {"polygons": nm.polygon_count, "vertices": int(nm.vertices.shape[0]),
           "detail_triangles": int(nm.detail_triangles.shape[0])}
    area_by_stance = {}
    per_poly = nm.polygon_surface_areas()
    for i, name in enumerate(STANCE_NAMES):
        mask = nm.polygon_stance == i
        area_by_stance[name] = float(per_poly[mask].sum())
        out.setdefault("polygons_by_stance", {})[name] = int(mask.sum())
    out["area_by_stance_m2"] = area_by_stance
    out["walkable_area_m2"] = float(per_poly.sum())
    out["links_total"] = nm.link_count
    return out
