"""The one bake entry point every front end calls (CLI, Blender operator, scripts)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .navmesh import AREA_STAND, NavMesh, empty_navmesh
from .settings import BakeSettings, voxel_config

ProgressCallback = Callable[[str, float], None]

STAGES = ("rasterize", "filter", "compact", "stances", "erode", "regions", "contours",
          "polygons", "detail", "links")


class BakeCancelled(Exception):
    """Raised by a progress callback to stop a bake; nothing is returned."""


class BakeInputError(ValueError):
    """The geometry given to a bake is unusable; the message says why."""


def validate_geometry(
        vertices: ArrayLike, triangles: ArrayLike, walkable: ArrayLike | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray]:
    """Return clean (vertices float64 (N,3), triangles int32 (M,3), walkable bool (M,),
    degenerate_count, used vertices (K,3)) or raise BakeInputError."""
    try:
        v = np.asarray(vertices, dtype=np.float64)
    except (TypeError, ValueError):
        raise BakeInputError("vertices: must be numbers, an (N, 3) array") from None
    if v.ndim != 2 or v.shape[1] != 3:
        raise BakeInputError(f"vertices: expected an (N, 3) array, got shape {v.shape}")
    t_raw = np.asarray(triangles)
    if t_raw.ndim != 2 or t_raw.shape[1] != 3:
        raise BakeInputError(f"triangles: expected an (M, 3) array, got shape {t_raw.shape}")
    if t_raw.shape[0] == 0 or v.shape[0] == 0:
        raise BakeInputError("the scene is empty: no triangles to bake")
    if not np.issubdtype(t_raw.dtype, np.integer):
        if not np.all(np.isfinite(t_raw)) or np.any(t_raw != np.round(t_raw)):
            raise BakeInputError("triangles: indices must be whole numbers")
    t = t_raw.astype(np.int64)
    bad = (t < 0) | (t >= v.shape[0])
    if bad.any():
        row = int(np.argwhere(bad)[0][0])
        raise BakeInputError(f"triangles: index {int(t[row][bad[row]][0])} in triangle {row} "
                             f"is out of range (0..{v.shape[0] - 1})")
    t = t.astype(np.int32)
    used = v[np.unique(t)]
    finite = np.isfinite(used)
    if not finite.all():
        raise BakeInputError("vertices: NaN or infinite coordinates in a used vertex")
    if walkable is None:
        walk = np.ones(t.shape[0], np.bool_)
    else:
        walk = np.asarray(walkable, dtype=np.bool_).reshape(-1)
        if walk.shape[0] != t.shape[0]:
            raise BakeInputError(f"walkable: expected {t.shape[0]} flags, got {walk.shape[0]}")
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    cross = np.cross(b - a, c - a)
    area2 = np.einsum("ij,ij->i", cross, cross)
    scale = np.maximum(np.abs(used).max(), 1.0)
    degenerate = area2 <= (scale * 1e-12) ** 2
    n_deg = int(degenerate.sum())
    if n_deg == t.shape[0]:
        raise BakeInputError("all triangles are degenerate (zero area): nothing to bake")
    if n_deg:
        t = t[~degenerate]
        walk = walk[~degenerate]
    return v, np.ascontiguousarray(t), np.ascontiguousarray(walk), n_deg, used


def bake(vertices: ArrayLike, triangles: ArrayLike, settings: BakeSettings | None = None,
         progress: ProgressCallback | None = None, *,
         walkable: ArrayLike | None = None) -> NavMesh:
    """Bake a navigation mesh from world-space triangles.

    vertices: (N, 3) metres, Z up. triangles: (M, 3) vertex indices. walkable: optional
    (M,) bools; False marks obstacle triangles that block but are never walked on.
    progress(stage, fraction) is called before each stage and may raise BakeCancelled.
    Raises SettingsError / BakeInputError (both ValueError) on bad input.
    """
    t_all = time.perf_counter()
    settings = (settings or BakeSettings()).validate()
    v, t, walk, n_deg, used = validate_geometry(vertices, triangles, walkable)
    timings: dict[str, float] = {}
    stats: dict = {"input_triangles": int(np.asarray(triangles).shape[0]),
                   "degenerate_triangles_skipped": n_deg}

    # Stage imports are local so `import blender_navjump.core` stays cheap (numba compiles
    # or loads its cache only when a bake runs).
    from . import compact, contours, detail, erode, filters, polymesh, rasterize, regions
    from . import stances as stance_mod

    bmin = used.min(axis=0)
    bmax = used.max(axis=0)
    cfg = voxel_config(settings, bmin, bmax, t.shape[0])
    stats["grid"] = [cfg.width, cfg.height]

    def stage(name, i):
        if progress is not None:
            progress(name, i / len(STAGES))
        return time.perf_counter()

    def done(name, t0):
        timings[name] = (time.perf_counter() - t0) * 1000.0

    t0 = stage("rasterize", 0)
    hf = rasterize.rasterize_triangles(v, t, walk, cfg)
    done("rasterize", t0)
    stats["spans"] = int(hf.span_min.shape[0])

    t0 = stage("filter", 1)
    if settings.filter_low_hanging_obstacles:
        filters.filter_low_hanging_obstacles(hf, cfg.walkable_climb)
    if settings.filter_ledge_spans:
        filters.filter_ledge_spans(hf, cfg.walkable_height, cfg.walkable_climb)
    if settings.filter_low_height_spans:
        filters.filter_low_height_spans(hf, cfg.walkable_height)
    done("filter", t0)

    t0 = stage("compact", 2)
    chf = compact.build_compact_heightfield(hf, cfg.walkable_height, cfg.walkable_climb)
    if not settings.links_enabled:
        del hf  # the solid heightfield is kept only for the links' collision tests
    done("compact", t0)
    stats["compact_spans"] = int(chf.span_y.shape[0])

    t0 = stage("stances", 3)
    if settings.multi_stance:
        stance_mod.classify_stances(chf, cfg.stance_heights)
    else:
        chf.span_area[chf.span_area != 0] = AREA_STAND
    done("stances", t0)

    t0 = stage("erode", 4)
    erode.erode_walkable_area(chf, cfg.walkable_radius)
    done("erode", t0)
    if settings.multi_stance:
        # the noise filter runs on the eroded area; its time counts as the stance pass
        t0 = time.perf_counter()
        stance_mod.filter_stance_noise(chf)
        timings["stances"] += (time.perf_counter() - t0) * 1000.0

    t0 = stage("regions", 5)
    regions.build_regions(chf, settings.partition, cfg.min_region_area, cfg.merge_region_area)
    done("regions", t0)
    stats["regions"] = int(chf.max_region)

    t0 = stage("contours", 6)
    cset = contours.build_contours(chf, cfg.max_simplification_error, cfg.max_edge_len)
    done("contours", t0)
    stats["contours"] = int(cset.reg.shape[0])

    t0 = stage("polygons", 7)
    pmesh = polymesh.build_poly_mesh(cset, cfg.max_verts_per_poly, cfg.bmin, cfg.cs, cfg.ch)
    done("polygons", t0)

    t0 = stage("detail", 8)
    if pmesh.polys.shape[0]:
        dmeshes, dverts, dtris = detail.build_detail_mesh(
            pmesh, chf, cfg.detail_sample_dist, cfg.detail_sample_max_error)
    else:
        dmeshes = np.zeros((0, 4), np.int32)
        dverts = np.zeros((0, 3), np.float64)
        dtris = np.zeros((0, 4), np.int32)
    done("detail", t0)

    nm = _assemble(pmesh, cfg, settings, dmeshes, dverts, dtris)

    t0 = stage("links", 9)
    if settings.links_enabled and nm.polygon_count:
        from . import links as links_mod

        info = links_mod.build_links(nm, hf, chf, cfg, settings, v, t)
        stats["links"] = {k: int((nm.link_kind == i).sum())
                          for i, k in enumerate(("drop", "jump_across", "jump_up"))}
        # keep the generator's summary (border-edge share, messages for the user)
        stats["links_info"] = json.loads(json.dumps(info, default=float))
        stats.setdefault("warnings", []).extend(info.get("messages", []))
    done("links", t0)
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
    return NavMesh(
        vertices=verts,
        polygons=pmesh.polys.astype(np.int32),
        neighbours=pmesh.neighbours.astype(np.int32),
        polygon_area=areas,
        polygon_region=pmesh.regs.astype(np.int32),
        polygon_stance=(np.maximum(areas.astype(np.int16), 1) - 1).astype(np.int8),
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
