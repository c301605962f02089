"""The stages of one grid, rasterise to detail mesh (``run_stages``): the solo bake
(``pipeline.bake``; a tile of a tiled bake runs the same stages in three kernel calls,
``tiles._bake_tile``); stages shared between agents (``shared_keys``, ``shared_stage``)."""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .debug import BakeDebug, capture_contours, capture_spans
from .kinds import BUILTIN_AREAS
from .navmesh import AREA_STAND
from .settings import (
    RASTER_BYTES_PER_SPAN,
    BakeSettings,
    MemoryLimit,
    SettingsError,
    check_memory,
    estimate_bake_bytes,
    memory_limit,
    raster_span_bound,
)

STAGES = ("rasterize", "filter", "compact", "stances", "erode", "regions", "contours",
          "polygons", "detail", "links")


class GridResult(NamedTuple):
    """What the stages leave for the solo grid."""

    hf: Any  # the solid heightfield, kept only when links need it (else None)
    chf: Any
    pmesh: Any
    dmeshes: np.ndarray
    dverts: np.ndarray
    dtris: np.ndarray


def _add(stats: dict, key: str, value: int) -> None:
    stats[key] = stats.get(key, 0) + int(value)


def run_stages(v, t, walk, cfg, settings: BakeSettings, timings: dict, stats: dict, stage,
               keep_hf: bool | None = None, limit: MemoryLimit | None = None,
               debug: BakeDebug | None = None, volumes=(), area_names=None,
               shared: dict | None = None) -> GridResult:
    """Rasterise ``t`` into the grid of ``cfg`` and run every stage up to the detail mesh.

    ``stage(name, i)`` reports progress and returns a start time; timings and the span,
    region and contour counts add up. ``limit``: the memory limit
    read once per bake; ``debug``: filled with the grid's voxel tops, regions and contours;
    ``volumes`` / ``area_names``: modifier volumes marking user areas on the spans
    (``core.areas``); ``shared``: stages shared between agents (:func:`shared_stage`).
    """
    from . import compact, contours, detail, erode, filters, polymesh, rasterize, regions
    from . import stances as stance_mod

    if keep_hf is None:
        keep_hf = settings.links_enabled or debug is not None
    if limit is None:
        limit = memory_limit(settings)

    def done(name, t0):
        timings[name] = timings.get(name, 0.0) + (time.perf_counter() - t0) * 1000.0

    grid = f"a {cfg.width:,} x {cfg.height:,} cell grid at cell_size {cfg.cs:g}"
    rkey, ckey = shared_keys(settings)
    for name in ("rasterize", "filter", "compact"):
        timings.setdefault(name, 0.0)  # 0 when shared with another agent

    def rasterize_filter_compact():
        bound = raster_span_bound(v, t, cfg.cs)
        check_memory(settings, cfg.width * cfg.height * 4 + bound * RASTER_BYTES_PER_SPAN,
                     f"rasterising {t.shape[0]:,} triangles (up to {bound:,} spans) into "
                     f"{grid}", limit)
        t0 = stage("rasterize", 0)
        hf = shared_stage(shared, rkey, lambda: _run(
            "rasterize", settings,
            lambda: rasterize.rasterize_triangles(v, t, walk, cfg, span_capacity=bound)))
        done("rasterize", t0)
        spans = int(hf.span_min.shape[0])
        # The real span count is known now: check the rest of the bake fits before going on.
        check_memory(settings, estimate_bake_bytes(cfg.width, cfg.height, t.shape[0],
                                                   spans, settings.links_enabled),
                     f"{grid} with {spans:,} spans", limit)

        t0 = stage("filter", 1)
        filters.filter_heightfield(hf, cfg.walkable_height, cfg.walkable_climb,
                                   settings.filter_low_hanging_obstacles,
                                   settings.filter_ledge_spans,
                                   settings.filter_low_height_spans)
        done("filter", t0)

        t0 = stage("compact", 2)
        chf = _run("compact", settings, compact.build_compact_heightfield, hf,
                   cfg.walkable_height, cfg.walkable_climb, not keep_hf)
        done("compact", t0)
        # the solid heightfield is kept only for the links' collision tests (and debug)
        return (hf if keep_hf else None), chf, spans

    hf, chf, spans = shared_stage(shared, ckey, rasterize_filter_compact)
    _add(stats, "spans", spans)
    _add(stats, "compact_spans", chf.span_y.shape[0])

    t0 = stage("stances", 3)
    if settings.multi_stance:
        stance_mod.classify_stances(chf, cfg.stance_heights)
    else:
        # every walkable span stands; AREA_STAND is the lowest area id (1), so a minimum
        # does it in one pass without a mask
        if AREA_STAND == 1:
            np.minimum(chf.span_area, AREA_STAND, out=chf.span_area)
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
        done("stances", t0)
    if area_names is not None and len(area_names) > len(BUILTIN_AREAS):
        from . import areas as areas_mod

        t0 = time.perf_counter()
        areas_mod.mark_spans(chf, volumes, area_names)
        done("areas", t0)

    t0 = stage("regions", 5)
    _run("regions", settings, regions.build_regions, chf, settings.partition,
         cfg.min_region_area, cfg.merge_region_area)
    done("regions", t0)
    _add(stats, "regions", chf.max_region)
    if debug is not None:
        capture_spans(debug, hf, chf)

    t0 = stage("contours", 6)
    cset = _run("contours", settings, contours.build_contours, chf,
                cfg.max_simplification_error, cfg.max_edge_len)
    done("contours", t0)
    _add(stats, "contours", cset.reg.shape[0])
    if debug is not None:
        capture_contours(debug, cset, cfg.bmin, cfg.cs, cfg.ch)

    t0 = stage("polygons", 7)
    pmesh = _run("polygons", settings, polymesh.build_poly_mesh, cset,
                 cfg.max_verts_per_poly, cfg.bmin, cfg.cs, cfg.ch)
    del cset
    done("polygons", t0)

    t0 = stage("detail", 8)
    if pmesh.polys.shape[0]:
        dmeshes, dverts, dtris = _run("detail", settings, detail.build_detail_mesh,
                                      pmesh, chf, cfg.detail_sample_dist,
                                      cfg.detail_sample_max_error)
    else:
        dmeshes = np.zeros((0, 4), np.int32)
        dverts = np.zeros((0, 3), np.float64)
        dtris = np.zeros((0, 4), np.int32)
    done("detail", t0)
    return GridResult(hf, chf, pmesh, dmeshes, dverts, dtris)


def shared_keys(settings: BakeSettings) -> tuple[tuple, tuple]:
    """The keys under which a bake shares its stages with other agents (``shared``): the
    solid heightfield depends on these settings, the filtered one and the compact
    heightfield on these and the walkable height, the filter switches and the links (which
    keep the solid heightfield)."""
    s = settings
    rkey = ("rasterize", s.cell_size, s.cell_height, s.agent_max_slope, s.agent_max_climb)
    ckey = ("compact", *rkey[1:], s.walkable_height_world(), s.filter_low_hanging_obstacles,
            s.filter_ledge_spans, s.filter_low_height_spans, s.links_enabled)
    return rkey, ckey


# guards the ``shared`` dicts: agents baked on two threads (``core.agents``) look up and
# store their shared values under it (the computing itself runs outside)
_SHARED_LOCK = threading.Lock()


def shared_stage(shared: dict | None, key: tuple, compute: Callable[[], Any]) -> Any:
    """``compute()``, or the value an earlier bake stored under ``key`` in ``shared``.

    Later stages change the values in place, so each bake gets its own copy, except the
    last one the caller announced in ``shared["uses"][key]`` (how many more bakes will ask
    for ``key``; without it every value is kept and copied). Bakes running at once must
    not both compute one key: ``core.agents`` starts a bake only once the one before it
    has passed its shared stages."""
    if shared is None:
        return compute()
    with _SHARED_LOCK:
        uses = shared.get("uses")
        if key in shared:
            if uses is not None:
                uses[key] -= 1
                if uses[key] <= 0:
                    return shared.pop(key)
            return copy.deepcopy(shared[key])
    value = compute()
    with _SHARED_LOCK:
        if uses is None or uses.get(key, 0) > 0:
            shared[key] = copy.deepcopy(value)
    return value


def shared_job(shared: dict | None, key: tuple, start: Callable[[], Any]) -> Any:
    """A read-only value every bake with ``key`` uses as it is (no copy): ``start()`` by
    the first bake that asks (e.g. a pending job, ``.result()`` waits), the same object
    for the later ones."""
    if shared is None:
        return start()
    with _SHARED_LOCK:
        if key not in shared:
            shared[key] = start()
        return shared[key]


def _run(stage: str, settings: BakeSettings, fn, *args):
    """Run one stage; an allocation that fails anyway (the estimate is not exact) becomes
    a SettingsError naming the stage and the memory limit instead of a raw MemoryError."""
    try:
        return fn(*args)
    except MemoryError:
        limit = memory_limit(settings)
        raise SettingsError(
            "cell_size",
            f"out of memory in the {stage} stage ({limit.available / 1024**3:.2f} GiB left "
            f"under the {limit.source}); raise cell_size, bake a smaller part of the scene, "
            f"or allow more memory") from None
