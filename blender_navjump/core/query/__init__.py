"""Path queries over a NavMesh: nearest polygon, A* over polygons and links, funnel.

Cost model and flags: docs/path-queries.md.
"""

from .batch_kernel import FLAG_NAMES, STATUS_NAMES
from .curve import PathCurve, path_curve
from .filter import AgentFilter
from .path import (
    DEFAULT_EXTENTS,
    NavQuery,
    PathBatch,
    PathResult,
    find_path,
    find_paths,
    query_for,
)
from .sampling import far_apart_points, random_navmesh_points

__all__ = [
    "AgentFilter",
    "DEFAULT_EXTENTS",
    "FLAG_NAMES",
    "NavQuery",
    "PathBatch",
    "PathCurve",
    "PathResult",
    "STATUS_NAMES",
    "far_apart_points",
    "find_path",
    "find_paths",
    "path_curve",
    "query_for",
    "random_navmesh_points",
]
