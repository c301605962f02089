"""Bake settings: one validated dataclass, and its conversion to voxel units.

World units are metres, Z up. Every conversion from world units to voxels happens in
:func:`voxel_config`, like Recast's ``rcConfig`` set-up in its samples.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike

PARTITIONS = ("watershed", "monotone")
STANCES = ("stand", "crouch", "prone")

# Largest grid we accept, in cells, whatever the memory: beyond this the int32 indices
# used by the kernels are no longer safe.
MAX_GRID_CELLS = 400_000_000
# Most cell heights (voxel levels) a grid column may span. Span heights are int32 and the
# filters, the compact heightfield and the link model add offsets of up to 2**30 to them
# ("nothing above"); 2**28 levels keeps every sum inside int32 (53.7 km at cell_height 0.2).
MAX_HEIGHT_LEVELS = 1 << 28


class SettingsError(ValueError):
    """A bake setting is out of range. The message names the setting and the limit."""

    def __init__(self, name: str, message: str):
        super().__init__(f"{name}: {message}")
        self.setting = name


# name: (min, max, min_inclusive, max_inclusive). Limits are generous but finite: beyond
# them the voxel grid or the searches explode.
_LIMITS: dict[str, tuple[float, float, bool, bool]] = {
    "cell_size": (0.01, 10.0, True, True),
    "cell_height": (0.01, 10.0, True, True),
    "agent_height": (0.1, 100.0, True, True),
    "agent_radius": (0.0, 50.0, True, True),
    "agent_max_climb": (0.0, 100.0, True, True),
    "agent_max_slope": (0.0, 90.0, True, False),
    "region_min_size": (0, 1000, True, True),
    "region_merge_size": (0, 10000, True, True),
    "edge_max_len": (0.0, 10000.0, True, True),
    "edge_max_error": (0.1, 100.0, True, True),
    "verts_per_poly": (3, 6, True, True),
    "detail_sample_dist": (0.0, 100.0, True, True),
    "detail_sample_max_error": (0.0, 100.0, True, True),
    "stand_height": (0.1, 100.0, True, True),
    "crouch_height": (0.1, 100.0, True, True),
    "prone_height": (0.1, 100.0, True, True),
    "max_jump_height": (0.0, 20.0, True, True),
    "max_jump_distance": (0.0, 30.0, True, True),
    "max_drop_height": (0.0, 100.0, True, True),
    "gravity": (0.1, 100.0, True, True),
    "link_sample_step": (0.0, 10.0, True, True),
    "min_link_width": (0.0, 100.0, True, True),
    "link_search_angle": (0.0, 60.0, True, True),
    "cost_drop": (0.0, 1000.0, True, True),
    "cost_jump_across": (0.0, 1000.0, True, True),
    "cost_jump_up": (0.0, 1000.0, True, True),
    "memory_limit_gb": (0.0, 1.0e6, True, True),
    "max_climb_height": (0.0, 100.0, False, True),
    "tile_size": (0, 8192, True, True),
}


_FIELDS: dict[type, tuple] = {}


def _fields_of(cls: type) -> tuple:
    """``dataclasses.fields(cls)``, looked up once per class (every bake validates and
    copies its settings; ``fields`` builds its tuple anew each call)."""
    found = _FIELDS.get(cls)
    if found is None:
        found = _FIELDS[cls] = fields(cls)
    return found


@dataclass
class BakeSettings:
    """Everything a bake needs. ``BakeSettings()`` gives Recast's RecastDemo defaults.

    Lengths are metres, angles degrees. ``region_min_size``/``region_merge_size`` are in
    cells (their square is the area, as in Recast), ``edge_max_error`` in cells,
    ``detail_sample_dist`` in cells (multiplied by ``cell_size``) and
    ``detail_sample_max_error`` in cell heights (multiplied by ``cell_height``).
    """

    # --- voxelisation and agent (Recast's names and defaults) ---
    cell_size: float = 0.3
    cell_height: float = 0.2
    agent_height: float = 2.0
    agent_radius: float = 0.6
    agent_max_climb: float = 0.9
    agent_max_slope: float = 45.0
    region_min_size: int = 8
    region_merge_size: int = 20
    edge_max_len: float = 12.0
    edge_max_error: float = 1.3
    verts_per_poly: int = 6
    detail_sample_dist: float = 6.0
    detail_sample_max_error: float = 1.0
    partition: str = "watershed"
    filter_low_hanging_obstacles: bool = True
    filter_ledge_spans: bool = True
    filter_low_height_spans: bool = True

    # --- multi-stance layers ---
    # Off: a plain Recast bake at agent_height, every polygon "stand".
    # On: the walkable height is the lowest enabled stance; polygons tagged by clearance.
    multi_stance: bool = False
    stand_height: float = 1.8
    crouch_height: float = 1.2
    prone_height: float = 0.6
    stand_enabled: bool = True
    crouch_enabled: bool = True
    prone_enabled: bool = True

    # --- jump links ---
    links_enabled: bool = False
    max_jump_height: float = 1.0
    max_jump_distance: float = 3.0
    max_drop_height: float = 4.0
    gravity: float = 9.81
    link_sample_step: float = 0.0  # 0 = one cell
    min_link_width: float = -1.0  # < 0 = the agent's diameter
    link_search_angle: float = 30.0  # degrees either side of the edge normal
    drop_enabled: bool = True
    jump_across_enabled: bool = True
    jump_up_enabled: bool = True
    cost_drop: float = 1.0
    cost_jump_across: float = 1.5
    cost_jump_up: float = 2.0

    # --- climbing (core/climb.py, docs/climbing.md) ---
    climbing_enabled: bool = False
    max_climb_height: float = 3.0  # highest ledge an agent jumps up to hang from the ground
    auto_ledges: bool = True  # also find ledges on wall tops (core/ledges.py)

    # --- tiles (core/tiles.py, docs/tiles.md) ---
    tile_size: int = 0  # cells per tile side; 0 = one solo grid

    # --- resources ---
    memory_limit_gb: float = 0.0  # 0 = the machine's available memory

    def validate(self) -> BakeSettings:
        """Raise :class:`SettingsError` naming the first bad setting; return self."""
        for f in _fields_of(type(self)):
            value = getattr(self, f.name)
            if f.name == "partition":
                if value not in PARTITIONS:
                    raise SettingsError(f.name, f"must be one of {', '.join(PARTITIONS)}, "
                                                f"got {value!r}")
                continue
            if f.type in ("bool", bool):
                if not isinstance(value, (bool, np.bool_)):
                    raise SettingsError(f.name, f"must be true or false, got {value!r}")
                continue
            if isinstance(value, (bool, np.bool_)) or not isinstance(
                    value, (int, float, np.integer, np.floating)):
                raise SettingsError(f.name, f"must be a number, got {value!r}")
            if not math.isfinite(float(value)):
                raise SettingsError(f.name, f"must be finite, got {value!r}")
            if f.name == "min_link_width" and value < 0:
                continue
            if f.type in ("int", int) and float(value) != int(value):
                raise SettingsError(f.name, f"must be a whole number, got {value!r}")
            lo, hi, lo_inc, hi_inc = _LIMITS[f.name]
            ok_lo = value >= lo if lo_inc else value > lo
            ok_hi = value <= hi if hi_inc else value < hi
            if not (ok_lo and ok_hi):
                lb = "[" if lo_inc else "("
                rb = "]" if hi_inc else ")"
                raise SettingsError(f.name, f"{value!r} is outside the allowed range "
                                            f"{lb}{lo:g}, {hi:g}{rb}")
        if self.multi_stance:
            enabled = [s for s in STANCES if getattr(self, f"{s}_enabled")]
            if not enabled:
                raise SettingsError("stand_enabled", "at least one stance must be enabled")
            if not (self.prone_height < self.crouch_height < self.stand_height):
                raise SettingsError(
                    "crouch_height",
                    f"stance heights must satisfy prone < crouch < stand, got "
                    f"prone {self.prone_height:g}, crouch {self.crouch_height:g}, "
                    f"stand {self.stand_height:g}")
        if self.tile_size:
            least = min_tile_size(self)
            if self.tile_size < least:
                raise SettingsError(
                    "tile_size",
                    f"{int(self.tile_size)} cells is too small for an agent radius of "
                    f"{self.agent_radius:g} m at cell_size {self.cell_size:g}: a tile needs "
                    f"at least {least} cells (or 0 for one solo grid)")
        walk_h = self.walkable_height_world()
        tallest = float(self.stand_height if self.multi_stance else self.agent_height)
        if self.agent_max_climb >= tallest:
            raise SettingsError(
                "agent_max_climb", f"{self.agent_max_climb:g} m is not below the agent's "
                                   f"height ({tallest:g} m, agent_height, or stand_height with "
                                   f"multi_stance): an agent cannot step up its own height")
        if walk_h / self.cell_height < 3 - 1e-6:
            raise SettingsError(
                "cell_height", f"{self.cell_height:g} m is too coarse for an agent height of "
                               f"{walk_h:g} m: at least 3 cells are needed "
                               f"(cell_height <= {walk_h / 3:g})")
        if self.links_enabled:
            # link samples finer than a quarter cell only multiply work (0 = one cell)
            if 0.0 < self.link_sample_step < 0.25 * self.cell_size:
                raise SettingsError(
                    "link_sample_step",
                    f"{self.link_sample_step:g} m is finer than a quarter cell at cell_size "
                    f"{self.cell_size:g}; use 0 (one cell) or at least "
                    f"{0.25 * self.cell_size:g} m")
            reach_cells = self.max_jump_distance / self.cell_size
            if reach_cells > 200:
                raise SettingsError(
                    "max_jump_distance",
                    f"{self.max_jump_distance:g} m is {reach_cells:.0f} cells at cell_size "
                    f"{self.cell_size:g}; the link search allows at most 200 cells "
                    f"(max_jump_distance <= {200 * self.cell_size:g})")
        return self

    def walkable_height_world(self) -> float:
        """Clearance a span needs to be kept: agent height, or the lowest enabled stance."""
        if not self.multi_stance:
            return float(self.agent_height)
        for s in ("prone", "crouch", "stand"):
            if getattr(self, f"{s}_enabled"):
                return float(getattr(self, f"{s}_height"))
        return float(self.stand_height)

    def to_dict(self) -> dict[str, Any]:
        # every field is a scalar: a shallow dict is asdict() without its deep copies
        return {f.name: getattr(self, f.name) for f in _fields_of(type(self))}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BakeSettings:
        if not isinstance(data, Mapping):
            raise TypeError(f"settings: expected a mapping of setting names to values, got a "
                            f"{type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SettingsError(unknown[0], f"unknown setting; known settings are: "
                                            f"{', '.join(sorted(known))}")
        return cls(**data)

    def with_values(self, **changes: Any) -> BakeSettings:
        d = self.to_dict()
        d.update(changes)
        return BakeSettings.from_dict(d)

    @staticmethod
    def parse_value(name: str, text: str) -> bool | int | float | str:
        """Convert a ``NAME=VALUE`` string from a command line to the field's type."""
        types = {f.name: f.type for f in fields(BakeSettings)}
        if name not in types:
            raise SettingsError(name, f"unknown setting; known settings are: "
                                      f"{', '.join(sorted(types))}")
        t = types[name]
        try:
            if t in ("bool", bool):
                low = text.strip().lower()
                if low in ("1", "true", "yes", "on"):
                    return True
                if low in ("0", "false", "no", "off"):
                    return False
                raise ValueError(text)
            if t in ("int", int):
                return int(text)
            if t in ("float", float):
                return float(text)
            return text
        except ValueError:
            raise SettingsError(name, f"cannot read {text!r} as {t}") from None


class LinkParams(NamedTuple):
    """The jump-link generator's parameters for one bake, world units (metres, seconds),
    derived in one place (``link_params``, called by ``voxel_config``); the link kernels
    take them as one named tuple. docs/jump-links.md explains each."""

    cs: float  # cell size
    ch: float  # cell height
    bx: float  # grid origin (bmin)
    by: float
    bz: float
    body_radius: float  # collision radius: agent_radius - LINK_COLLISION_TOLERANCE
    climb: float  # agent_max_climb + CLIMB_TIE: the step the agent walks up or down (kinds,
    # support, the body's bottom above the feet)
    voxel_climb: float  # agent_max_climb rounded down to whole cell heights (the navmesh's)
    top: float  # body top above the feet (stand height)
    jump_height: float  # max_jump_height
    jump_distance: float  # max_jump_distance
    drop_height: float  # max_drop_height
    gravity: float
    vz: float  # take-off vertical speed sqrt(2 g max_jump_height)
    vx_max: float  # largest horizontal speed g max_jump_distance / (2 vz)
    run_max: float  # longest run-up or run-out: agent_radius + 3 cells
    profile_step: float  # ground profile step (one cell)
    arc_step: float  # polyline step of the arc length (half a cell)
    lateral: float  # half the sample spacing: sideways widening of the body
    march_step: float  # landing search step (half a cell)
    march_max: float  # landing search reach: 2 run_max + max_jump_distance
    grid_w: float  # cells along x (as a float: the tuple is homogeneous)
    grid_h: float  # cells along y
    slope_cos: float  # cos(agent_max_slope)
    radius: float  # agent_radius
    height_tol: float  # a link's ends lie this close to the ground under them (2 cells)


# Shrink of the agent radius in the link collision tests, metres: the solid voxels are up
# to a cell larger than the real walls, and the navmesh border itself sits exactly one
# agent radius from those voxels. The link test oracle allows the same.
LINK_COLLISION_TOLERANCE = 0.1
# Slack on agent_max_climb in the link tests, metres: a rise of exactly agent_max_climb is a
# step (walked, not jumped): ground exactly that far below or above a point supports it,
# and an obstacle top exactly that far above the feet (the body's bottom) does not block.
# Heights built on multiples of the climb (terraces 0.25 m apart at a climb of 0.5 m)
# differ from it by rounding errors (1e-15 m), which must not decide.
CLIMB_TIE = 1e-6
# finest link_sample_step, in cells
MIN_LINK_STEP_CELLS = 0.25


def link_sample_step(settings: BakeSettings, cs: float) -> float:
    """The sample spacing along border edges in metres (0 means one cell)."""
    step = float(settings.link_sample_step)
    if step == 0.0:
        return float(cs)
    if step < MIN_LINK_STEP_CELLS * cs:
        raise SettingsError(
            "link_sample_step", f"{step:g} m is finer than a quarter cell at cell_size "
                                f"{cs:g}; use 0 (one cell) or at least "
                                f"{MIN_LINK_STEP_CELLS * cs:g} m")
    return step


def link_params(s: BakeSettings, cs: float, ch: float, bmin, width: int, height: int,
                walkable_climb: int) -> LinkParams:
    """World-unit link parameters (the world-to-voxel rules: steps in cells). The climb
    that decides a link's kind and the ground under it is ``agent_max_climb`` itself,
    measured on the triangles (issue 18): the navmesh's climb is rounded down to whole
    cell heights, and whether it joins a step between the two is decided by the grid's
    offset; a rise the agent steps up is never a jump."""
    g = float(s.gravity)
    h = float(s.max_jump_height)
    vz = math.sqrt(2.0 * g * h)
    run_max = float(s.agent_radius) + 3.0 * cs
    return LinkParams(
        cs=cs, ch=ch, bx=float(bmin[0]), by=float(bmin[1]), bz=float(bmin[2]),
        body_radius=max(float(s.agent_radius) - LINK_COLLISION_TOLERANCE, 0.0),
        climb=float(s.agent_max_climb) + CLIMB_TIE, voxel_climb=walkable_climb * ch,
        top=float(s.stand_height if s.multi_stance else s.agent_height),
        jump_height=h, jump_distance=float(s.max_jump_distance),
        drop_height=float(s.max_drop_height), gravity=g, vz=vz,
        vx_max=g * float(s.max_jump_distance) / (2.0 * vz) if vz > 0.0 else math.inf,
        run_max=run_max, profile_step=cs, arc_step=0.5 * cs,
        lateral=0.5 * link_sample_step(s, cs), march_step=0.5 * cs,
        march_max=2.0 * run_max + float(s.max_jump_distance), grid_w=float(width),
        grid_h=float(height), slope_cos=math.cos(math.radians(float(s.agent_max_slope))),
        radius=float(s.agent_radius), height_tol=2.0 * ch)


# Tiles: each tile's grid reaches this many cells past the agent radius (and the island
# size) into its neighbours (Recast's Sample_TileMesh: borderSize = walkableRadius + 3), so
# erosion and the ledge filter see the same spans at a tile edge as a solo bake does.
TILE_BORDER_EXTRA = 3
# The smallest tile Recast's Sample_TileMesh offers (its slider starts at 16 cells).
MIN_TILE_CELLS = 16


def tile_border_cells(settings: BakeSettings) -> int:
    """Cells a tile's grid reaches into its neighbours: the radius in cells + 3 (Recast),
    plus ``region_min_size`` so that a small island crossing the tile edge is seen whole
    and removed as a solo bake removes it (core/tiles.py)."""
    radius = int(math.ceil(settings.agent_radius / settings.cell_size - 1e-9))
    return radius + TILE_BORDER_EXTRA + int(settings.region_min_size)


def min_tile_size(settings: BakeSettings) -> int:
    """The smallest tile_size (cells) for these settings: 16, and at least twice the border
    (a tile smaller than its own border would bake mostly its neighbours' cells)."""
    return max(MIN_TILE_CELLS, 2 * tile_border_cells(settings))


@dataclass
class VoxelConfig:
    """Settings converted to voxel units for one bake (Recast's rcConfig)."""

    cs: float
    ch: float
    bmin: np.ndarray  # world-space minimum corner of the grid (x, y, z)
    bmax: np.ndarray
    width: int  # cells along x
    height: int  # cells along y
    walkable_slope_cos: float  # cos(max slope): triangles with normal.z above are walkable
    walkable_height: int  # voxels of clearance to keep a span
    walkable_climb: int  # voxels an agent steps up
    walkable_radius: int  # cells of erosion
    max_edge_len: int  # cells
    max_simplification_error: float  # cells
    min_region_area: int  # cells
    merge_region_area: int  # cells
    max_verts_per_poly: int
    detail_sample_dist: float  # world units, 0 = off
    detail_sample_max_error: float  # world units
    stance_heights: np.ndarray  # voxels; [stand, crouch, prone], 0 where disabled
    links: LinkParams | None = None  # with links_enabled


# Peak bytes per solid span over the whole bake (heightfield, compact heightfield, distance
# field, regions, contours), measured with scripts/bench_memory.py (10 stacked floors, the
# worst case: every cell of every floor is a span); the link stage keeps the solid
# heightfield and its own tables, hence the second figure.
BYTES_PER_SPAN = 300
BYTES_PER_SPAN_LINKS = 320
# Rasterisation alone: a 16 B row per span while inserting (rasterize.rasterize_kernel; its
# room doubles when full, only the rows used are touched), then the 13 B of the exact-size
# column-ordered arrays it hands on; plus the column heads.
RASTER_BYTES_PER_SPAN = 16 + 13
BYTES_PER_CELL = 24
BYTES_PER_TRIANGLE = 64


class MemoryLimit(NamedTuple):
    """How many bytes a bake may still allocate, and which limit says so."""

    available: int
    source: str


def estimate_bake_bytes(width: int, height: int, n_triangles: int, n_spans: int = 0,
                        links: bool = False) -> int:
    """Peak memory of a bake with ``n_spans`` solid spans (known after rasterising). With
    no spans it is a lower bound from the grid alone, which refuses absurd grids early."""
    per_span = BYTES_PER_SPAN_LINKS if links else BYTES_PER_SPAN
    return int(width * height * BYTES_PER_CELL + n_spans * per_span
               + n_triangles * BYTES_PER_TRIANGLE)


def raster_span_bound(vertices, triangles, cs: float) -> int:
    """An upper bound of the spans rasterising makes before merging: the cells each
    triangle's footprint can touch (its area plus its perimeter in cells, plus one)."""
    from .geometry import footprint_cell_bound  # numba: imported when a bake runs

    return int(min(footprint_cell_bound(vertices, triangles, float(cs)), 2.0**62))


def _read_int(path: str) -> int | None:
    try:
        with open(path) as fh:
            text = fh.read().strip()
    except OSError:
        return None
    if text == "max":
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _status_bytes(key: str) -> int | None:
    """A ``kB`` figure of /proc/self/status (VmSize, VmData) in bytes."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def cgroup_headroom(proc_cgroup: str = "/proc/self/cgroup",
                    root: str = "/sys/fs/cgroup") -> MemoryLimit | None:
    """Bytes left under the tightest container memory limit (cgroup v2 ``memory.max`` or
    v1 ``memory.limit_in_bytes``) of this process's cgroup and its ancestors, if any."""
    try:
        with open(proc_cgroup) as fh:
            lines = fh.read().splitlines()
    except OSError:
        return None
    candidates = []  # (limit file, usage file, name)
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _hid, controllers, rel = parts
        rel = rel.strip("/")
        if controllers == "":
            base, limit, usage, name = root, "memory.max", "memory.current", "memory.max"
        elif "memory" in controllers.split(","):
            base = os.path.join(root, "memory")
            limit, usage, name = ("memory.limit_in_bytes", "memory.usage_in_bytes",
                                  "memory.limit_in_bytes")
        else:
            continue
        # the process's own cgroup, its ancestors, and the root of the mount (inside a
        # container the cgroup path is often not visible under the mount)
        steps = rel.split("/") if rel else []
        for k in range(len(steps), -1, -1):
            folder = os.path.join(base, *steps[:k])
            candidates.append((os.path.join(folder, limit), os.path.join(folder, usage),
                               f"container memory limit ({os.path.join(folder, name)})"))
    best = None
    for limit_file, usage_file, name in candidates:
        limit = _read_int(limit_file)
        if limit is None or limit >= 1 << 60:  # v1 writes ~2**63 for "no limit"
            continue
        used = _read_int(usage_file) or 0
        left = MemoryLimit(max(limit - used, 0), name)
        if best is None or left.available < best.available:
            best = left
    return best


def rlimit_headroom() -> MemoryLimit | None:
    """Bytes left under the process's address-space / data limits (``ulimit -v`` / ``-d``)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on Windows
        return None
    best = None
    for res, status_key, name in (("RLIMIT_AS", "VmSize", "ulimit -v"),
                                  ("RLIMIT_DATA", "VmData", "ulimit -d")):
        rid = getattr(resource, res, None)
        if rid is None:
            continue
        soft, _hard = resource.getrlimit(rid)
        if soft == resource.RLIM_INFINITY or soft < 0:
            continue
        used = _status_bytes(status_key) or 0
        left = MemoryLimit(max(soft - used, 0), f"process memory limit ({name} = "
                                                f"{soft / 1024**3:.2f} GiB)")
        if best is None or left.available < best.available:
            best = left
    return best


def available_memory_bytes() -> int:
    """The machine's available memory (``MemAvailable``), else 8 GiB."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 8 * 1024**3


# The machine's available memory and the container's headroom are read at most this often
# (seconds): bakes in quick succession (several agents, live re-bakes, a tile farm) share
# one reading instead of parsing /proc and the cgroup files every time (~0.3 ms a bake).
SYSTEM_MEMORY_READ_INTERVAL = 1.0
_system_reading: tuple[float, int, MemoryLimit | None] | None = None


def _system_memory() -> tuple[int, MemoryLimit | None]:
    """(available memory, cgroup headroom), read again after
    ``SYSTEM_MEMORY_READ_INTERVAL`` seconds."""
    global _system_reading
    now = time.monotonic()
    if _system_reading is None or now - _system_reading[0] > SYSTEM_MEMORY_READ_INTERVAL:
        _system_reading = (now, available_memory_bytes(), cgroup_headroom())
    return _system_reading[1], _system_reading[2]


def memory_limit(settings: BakeSettings) -> MemoryLimit:
    """What a bake may allocate: ``memory_limit_gb`` if set, else the available memory,
    and never more than the process (rlimit) or container (cgroup) limit allows (the
    machine's and the container's figures: see ``SYSTEM_MEMORY_READ_INTERVAL``)."""
    available, container = _system_memory()
    if settings.memory_limit_gb > 0:
        best = MemoryLimit(int(settings.memory_limit_gb * 1024**3), "memory_limit_gb")
    else:
        best = MemoryLimit(available, "available memory")
    for hard in (rlimit_headroom(), container):
        if hard is not None and hard.available < best.available:
            best = hard
    return best


def check_memory(settings: BakeSettings, need: int, what: str,
                 limit: MemoryLimit | None = None) -> None:
    """Raise SettingsError when ``need`` bytes exceed what the bake may allocate
    (``limit``: :func:`memory_limit` taken once at the start of a bake, whose estimates
    count the bake's own allocations; else read now)."""
    if limit is None:
        limit = memory_limit(settings)
    if need > limit.available:
        raise SettingsError(
            "cell_size",
            f"{what} would need about {need / 1024**3:.2f} GiB, more than the "
            f"{limit.available / 1024**3:.2f} GiB left under the {limit.source}; raise "
            f"cell_size, bake a smaller part of the scene, or allow more memory")


def voxel_config(settings: BakeSettings, bmin: ArrayLike, bmax: ArrayLike,
                 n_triangles: int = 0, limit: MemoryLimit | None = None) -> VoxelConfig:
    """Convert world-unit settings to voxel units for a scene with bounds bmin..bmax
    (``limit``: see :func:`check_memory`)."""
    s = settings
    cs, ch = float(s.cell_size), float(s.cell_height)
    bmin = np.asarray(bmin, dtype=np.float64).copy()
    bmax = np.asarray(bmax, dtype=np.float64).copy()
    width = int((bmax[0] - bmin[0]) / cs + 0.5) + 1
    height = int((bmax[1] - bmin[1]) / cs + 0.5) + 1
    cells = width * height
    if cells > MAX_GRID_CELLS:
        raise SettingsError(
            "cell_size",
            f"a {width:,} x {height:,} cell grid at cell_size {cs:g} has {cells:,} cells, more "
            f"than the {MAX_GRID_CELLS:,} a bake allows; raise cell_size (to at least "
            f"{cs * math.sqrt(cells / MAX_GRID_CELLS):.3g}) or bake a smaller scene")
    dz = float(bmax[2] - bmin[2])
    levels = int(math.ceil(dz / ch)) + 1
    if levels > MAX_HEIGHT_LEVELS:
        raise SettingsError(
            "cell_height",
            f"the scene is {dz:g} m tall: {levels:,} cell heights at cell_height {ch:g}, more "
            f"than the {MAX_HEIGHT_LEVELS:,} a grid column holds; raise cell_height (to at "
            f"least {dz / (MAX_HEIGHT_LEVELS - 1):.3g}) or bake the levels separately")
    check_memory(s, estimate_bake_bytes(width, height, n_triangles),
                 f"a {width:,} x {height:,} cell grid at cell_size {cs:g}", limit)
    walk_h = s.walkable_height_world()
    climb = int(math.floor(s.agent_max_climb / ch + 1e-9))
    stance = np.zeros(3, dtype=np.int32)
    if s.multi_stance:
        for i, name in enumerate(("stand", "crouch", "prone")):
            if getattr(s, f"{name}_enabled"):
                stance[i] = int(math.ceil(getattr(s, f"{name}_height") / ch - 1e-9))
    else:
        stance[0] = int(math.ceil(walk_h / ch - 1e-9))
    return VoxelConfig(
        cs=cs,
        ch=ch,
        bmin=bmin,
        bmax=bmax,
        width=width,
        height=height,
        walkable_slope_cos=math.cos(math.radians(s.agent_max_slope)),
        walkable_height=int(math.ceil(walk_h / ch - 1e-9)),
        walkable_climb=climb,
        walkable_radius=int(math.ceil(s.agent_radius / cs - 1e-9)),
        max_edge_len=int(s.edge_max_len / cs),
        max_simplification_error=float(s.edge_max_error),
        min_region_area=int(s.region_min_size) ** 2,
        merge_region_area=int(s.region_merge_size) ** 2,
        max_verts_per_poly=int(s.verts_per_poly),
        detail_sample_dist=0.0 if s.detail_sample_dist < 0.9 else cs * s.detail_sample_dist,
        detail_sample_max_error=ch * s.detail_sample_max_error,
        stance_heights=stance,
        links=link_params(s, cs, ch, bmin, width, height, climb) if s.links_enabled else None,
    )
