"""Bake settings: one validated dataclass, and its conversion to voxel units.

World units are metres, Z up. Every conversion from world units to voxels happens in
:func:`voxel_config`, like Recast's ``rcConfig`` set-up in its samples.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

import numpy as np

PARTITIONS = ("watershed", "monotone")
STANCES = ("stand", "crouch", "prone")

# Largest grid we accept, in cells, whatever the memory: beyond this the int32 indices
# used by the kernels are no longer safe.
MAX_GRID_CELLS = 400_000_000


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
}


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

    # --- resources ---
    memory_limit_gb: float = 0.0  # 0 = the machine's available memory

    def validate(self) -> BakeSettings:
        """Raise :class:`SettingsError` naming the first bad setting; return self."""
        for f in fields(self):
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
            if f.name == "min_link_width" and value < 0:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
                raise SettingsError(f.name, f"must be a number, got {value!r}")
            if not math.isfinite(float(value)):
                raise SettingsError(f.name, f"must be finite, got {value!r}")
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
        walk_h = self.walkable_height_world()
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

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> BakeSettings:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise SettingsError(unknown[0], f"unknown setting; known settings are: "
                                            f"{', '.join(sorted(known))}")
        return cls(**data)

    def with_values(self, **changes) -> BakeSettings:
        d = self.to_dict()
        d.update(changes)
        return BakeSettings.from_dict(d)

    @staticmethod
    def parse_value(name: str, text: str):
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


def estimate_bake_bytes(width: int, height: int, n_triangles: int) -> int:
    """Rough peak memory of a bake for a grid, used to refuse absurd ones early."""
    cells = width * height
    # column heads + compact cells (~24 B/cell) and spans: assume ~1.5 spans per cell at
    # ~64 B each across heightfield, compact heightfield, distance field and regions.
    return int(cells * (24 + 1.5 * 64) + n_triangles * 64)


def available_memory_bytes() -> int:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 8 * 1024**3


def voxel_config(settings: BakeSettings, bmin, bmax, n_triangles: int = 0) -> VoxelConfig:
    """Convert world-unit settings to voxel units for a scene with bounds bmin..bmax."""
    s = settings
    cs, ch = float(s.cell_size), float(s.cell_height)
    bmin = np.asarray(bmin, dtype=np.float64).copy()
    bmax = np.asarray(bmax, dtype=np.float64).copy()
    width = int((bmax[0] - bmin[0]) / cs + 0.5) + 1
    height = int((bmax[1] - bmin[1]) / cs + 0.5) + 1
    cells = width * height
    need = estimate_bake_bytes(width, height, n_triangles)
    limit = (s.memory_limit_gb * 1024**3) if s.memory_limit_gb > 0 else available_memory_bytes()
    if cells > MAX_GRID_CELLS or need > limit:
        raise SettingsError(
            "cell_size",
            f"a {width} x {height} cell grid at cell_size {cs:g} would need about "
            f"{need / 1024**3:.1f} GiB, more than the {limit / 1024**3:.1f} GiB available "
            f"(and at most {MAX_GRID_CELLS:,} cells); raise cell_size or bake a smaller scene")
    walk_h = s.walkable_height_world()
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
        walkable_climb=int(math.floor(s.agent_max_climb / ch + 1e-9)),
        walkable_radius=int(math.ceil(s.agent_radius / cs - 1e-9)),
        max_edge_len=int(s.edge_max_len / cs),
        max_simplification_error=float(s.edge_max_error),
        min_region_area=int(s.region_min_size) ** 2,
        merge_region_area=int(s.region_merge_size) ** 2,
        max_verts_per_poly=int(s.verts_per_poly),
        detail_sample_dist=0.0 if s.detail_sample_dist < 0.9 else cs * s.detail_sample_dist,
        detail_sample_max_error=ch * s.detail_sample_max_error,
        stance_heights=stance,
    )
