"""Path queries: PathResult, NavQuery, find_path and the batch find_paths.

A :class:`NavQuery` flattens a NavMesh once (graph, spatial grid, surface triangles) and
answers queries with one numba call per batch. ``find_path``/``find_paths`` accept a
NavMesh or a NavQuery and keep one NavQuery per NavMesh.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike

from ..kinds import USER_AREA_FIRST
from ..navmesh import LINK_KINDS, STANCE_NAMES, NavMesh
from ..navmesh_check import check_navmesh
from .astar import Reach, reach_components, usable_ports
from .batch_kernel import (
    BAD_INPUT,
    FLAG_NAMES,
    FOUND,
    NO_BOUNDS,
    NO_LANDMARKS,
    START_OFF_MESH,
    STATUS_NAMES,
    SUM_COST,
    SUM_GOAL_DIST,
    SUM_GOAL_POLY,
    SUM_LENGTH,
    SUM_SEARCH_COST,
    SUM_START_DIST,
    SUM_START_POLY,
    SUM_STATUS,
    make_workspace,
    solve_batch,
)
from .climb import CLIMB_FLAGS, check_penalty, solve_climbing
from .curve import DEFAULT_MAX_DEVIATION, DEFAULT_TENSION, PathCurve, path_curve
from .filter import AgentFilter
from .graph import QueryData, build_query_data
from .spatial import nearest_polygon, nearest_polygon_anywhere

# Detour's usual query box {2, 4, 2} (Y up), in our Z-up frame.
DEFAULT_EXTENTS = (2.0, 2.0, 4.0)
_CLIMB_FLAG_IDS = np.array(sorted(CLIMB_FLAGS), np.int64)
# Shared so that its kernel arrays are built once.
_DEFAULT_AGENT = AgentFilter()


@dataclass
class PathResult:
    """One path. ``found`` is False for a partial path (ending at the reachable point
    nearest the goal, as Detour does).

    ``flags[i]`` names what happens at ``points[i]`` (see ``FLAG_NAMES``); ``stances[i]``
    is the stance in force when leaving it (the goal: the stance there). ``corridor`` is
    the polygon sequence; ``corridor_links[i]`` is the link used to enter
    ``corridor[i]`` (-1 when walked into). ``search_cost`` is A*'s cost on the port graph,
    ``cost`` the cost of the returned straight path (docs/path-queries.md).
    """

    found: bool
    status: str
    points: np.ndarray
    flags: np.ndarray
    stances: np.ndarray
    length: float
    cost: float
    search_cost: float
    corridor: np.ndarray
    corridor_links: np.ndarray
    point_links: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    start_polygon: int = -1
    goal_polygon: int = -1
    climb_edges: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def climbing(self) -> bool:
        """True when the path climbs (docs/climbing.md)."""
        return bool(np.isin(self.flags, _CLIMB_FLAG_IDS).any())

    @property
    def flag_names(self) -> list[str]:
        return [FLAG_NAMES[f] for f in self.flags]

    @property
    def stance_names(self) -> list[str]:
        return [STANCE_NAMES[s] for s in self.stances]

    def links_used(self) -> np.ndarray:
        return self.corridor_links[self.corridor_links >= 0]

    def curve(self, tension: float = DEFAULT_TENSION,
              max_deviation: float = DEFAULT_MAX_DEVIATION) -> PathCurve:
        """The smoothed C1 curve through the points, respecting their flags
        (:func:`.curve.path_curve`; docs/path-queries.md, "Smoothed curve")."""
        return path_curve(self.points, self.flags, tension, max_deviation)

    def to_dict(self, curve_spacing: float | None = None, **curve_options) -> dict:
        """The JSON form (the ``path`` command's output); with ``curve_spacing`` (metres)
        also ``curve``: points of :meth:`curve` (``curve_options``) that far apart."""
        doc = {
            "found": bool(self.found),
            "status": self.status,
            "length": float(self.length),
            "cost": float(self.cost),
            "search_cost": float(self.search_cost),
            "points": [[float(v) for v in p] for p in self.points],
            "flags": self.flag_names,
            "stances": self.stance_names,
            "corridor": [int(p) for p in self.corridor],
            "links": [int(k) for k in self.links_used()],
            "climbing": self.climbing,
            "climb_edges": [int(k) for k in self.climb_edges],
        }
        if curve_spacing is not None:
            samples = self.curve(**curve_options).sample(curve_spacing)
            doc["curve"] = [[float(v) for v in p] for p in samples.points]
        return doc


class PathBatch:
    """Answers to many queries as flat arrays (CSR by query).

    Query q's points are ``points[point_offsets[q]:point_offsets[q + 1]]`` (likewise
    ``flags``, ``stances``, ``point_links``) and its corridor
    ``corridor[corridor_offsets[q]:corridor_offsets[q + 1]]`` (likewise
    ``corridor_links``). ``status`` holds indices into ``STATUS_NAMES``; queries with an
    end off the navmesh or NaN input have no points. ``start_distance``/``goal_distance``
    are how far each end was from the polygon it was placed on (inf: none in the box).

    Built from :func:`solve_batch`'s packed arrays; the named arrays are made on first use.
    """

    def __init__(self, summary, offsets, points, point_info, corridor):
        self._summary = summary
        self._offsets = offsets
        self.points = points
        self._point_info = point_info
        self._corridor = corridor
        # query -> the climb edges its path uses, in order (only climbing paths)
        self.climb_edges: dict[int, list[int]] = {}

    def __len__(self) -> int:
        return int(self._summary.shape[0])

    @cached_property
    def status(self) -> np.ndarray:
        return self._summary[:, SUM_STATUS].astype(np.int8)

    @property
    def found(self) -> np.ndarray:
        return self.status == FOUND

    @property
    def length(self) -> np.ndarray:
        return self._summary[:, SUM_LENGTH]

    @property
    def cost(self) -> np.ndarray:
        return self._summary[:, SUM_COST]

    @property
    def search_cost(self) -> np.ndarray:
        return self._summary[:, SUM_SEARCH_COST]

    @cached_property
    def start_polygon(self) -> np.ndarray:
        return self._summary[:, SUM_START_POLY].astype(np.int64)

    @cached_property
    def goal_polygon(self) -> np.ndarray:
        return self._summary[:, SUM_GOAL_POLY].astype(np.int64)

    @property
    def start_distance(self) -> np.ndarray:
        return self._summary[:, SUM_START_DIST]

    @property
    def goal_distance(self) -> np.ndarray:
        return self._summary[:, SUM_GOAL_DIST]

    @property
    def point_offsets(self) -> np.ndarray:
        return self._offsets[:, 0]

    @property
    def corridor_offsets(self) -> np.ndarray:
        return self._offsets[:, 1]

    @cached_property
    def flags(self) -> np.ndarray:
        return self._point_info[:, 0].astype(np.int8)

    @cached_property
    def stances(self) -> np.ndarray:
        return (self._point_info[:, 1] % len(STANCE_NAMES)).astype(np.int8)

    @cached_property
    def point_links(self) -> np.ndarray:
        return np.ascontiguousarray(self._point_info[:, 2])

    @cached_property
    def corridor(self) -> np.ndarray:
        return np.ascontiguousarray(self._corridor[:, 0])

    @cached_property
    def corridor_links(self) -> np.ndarray:
        return np.ascontiguousarray(self._corridor[:, 1])

    def path(self, q: int) -> PathResult:
        a, c = self._offsets[q]
        b, e = self._offsets[q + 1]
        row = self._summary[q]
        status = int(row[SUM_STATUS])
        info = self._point_info[a:b]
        corridor = self._corridor[c:e]
        return PathResult(
            found=status == FOUND, status=STATUS_NAMES[status],
            points=self.points[a:b], flags=info[:, 0].astype(np.int8),
            stances=(info[:, 1] % len(STANCE_NAMES)).astype(np.int8),
            length=float(row[SUM_LENGTH]),
            cost=float(row[SUM_COST]), search_cost=float(row[SUM_SEARCH_COST]),
            corridor=corridor[:, 0].copy(), corridor_links=corridor[:, 1].copy(),
            point_links=info[:, 2].copy(), start_polygon=int(row[SUM_START_POLY]),
            goal_polygon=int(row[SUM_GOAL_POLY]),
            climb_edges=np.array(self.climb_edges.get(q, ()), np.int64))


def polygon_cost_classes(navmesh: NavMesh) -> np.ndarray:
    """Area id of each cost class (class = stance + 3 x user-area index, see NavQuery): the
    stance's own area for index 0, else user area USER_AREA_FIRST + index - 1."""
    n_user = max(len(navmesh.area_names) - USER_AREA_FIRST, 0)
    n_stance = len(STANCE_NAMES)
    cls = np.arange(n_stance * (n_user + 1))
    user = cls // n_stance
    return np.where(user == 0, cls % n_stance + 1, USER_AREA_FIRST + user - 1).astype(np.int64)


def _extents(extents) -> np.ndarray:
    ext = np.asarray(DEFAULT_EXTENTS if extents is None else extents, np.float64).reshape(-1)
    if ext.shape != (3,) or not np.all(np.isfinite(ext)) or np.any(ext <= 0):
        raise ValueError(f"search box half-extents must be three positive numbers, got "
                         f"{extents!r}")
    return ext


def _points(values, name: str) -> np.ndarray:
    try:
        arr = np.array(values, np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be numbers, got {values!r}") from None
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise ValueError(f"{name} must be (N, 3) points, got shape {arr.shape}")
    return np.ascontiguousarray(arr)


def _fmt(p) -> str:
    return "(" + ", ".join(f"{float(v):.3f}" for v in p) + ")"


class NavQuery:
    """Path queries on one NavMesh. Not thread-safe (scratch memory is reused)."""

    def __init__(self, navmesh: NavMesh, extents: ArrayLike | None = None):
        navmesh = check_navmesh(navmesh)
        self.navmesh = navmesh
        self.extents = _extents(extents)
        data = build_query_data(navmesh)
        # costs and exclusions look up a polygon's cost class: stance + 3 x user-area index
        # (equal to the stance when the navmesh has no user areas; see _filter_arrays)
        self._class_area = polygon_cost_classes(navmesh)
        n_stance = len(STANCE_NAMES)
        user = np.maximum(np.asarray(navmesh.polygon_area, np.int64) - USER_AREA_FIRST + 1, 0)
        self.data: QueryData = data._replace(poly_stance=data.poly_stance + n_stance * user)
        self.has_links = bool((self.data.link_node_start >= 0).any())
        self._ws = make_workspace(self.data)
        self._stamp = 0
        self._moves: dict[tuple, tuple] = {}
        self._class_arrays: dict[AgentFilter, tuple] = {}
        self._climb_penalty: np.ndarray | None = None

    def _classes_of(self, agent: AgentFilter):
        """(class_allowed, class_cost, link_allowed, link_scale, heuristic_scale)."""
        s_allowed, s_cost, link_ok, link_scale, _h = agent.kernel_arrays(self.has_links)
        nm = self.navmesh
        names = [str(n) for n in nm.area_names]
        area_cost = np.array(nm.area_cost, np.float64)
        for area, c in agent.area_cost:
            if area not in names or area == names[0]:
                raise ValueError(f"area {area!r} is not in this navmesh; its areas are "
                                 f"{', '.join(names[1:])}")
            area_cost[names.index(area)] = c
        walkable = np.isfinite(area_cost) & (area_cost > 0)
        area = self._class_area
        n_stance = len(STANCE_NAMES)
        stance = np.arange(area.shape[0]) % n_stance
        allowed = s_allowed[stance] & walkable[area]
        cost = s_cost[stance] * np.where(walkable[area], area_cost[area], 1.0)
        hscale = float(cost[allowed].min()) if allowed.any() else 1.0
        if self.has_links and agent.links:
            hscale = min(hscale, 1.0)  # a link costs at least its straight length
        return (np.ascontiguousarray(allowed), np.ascontiguousarray(cost), link_ok,
                link_scale, hscale)

    @property
    def climb_penalty(self) -> np.ndarray | None:
        """Occupancy: extra cost per climb edge (reserved by other agents), or None."""
        return self._climb_penalty

    @climb_penalty.setter
    def climb_penalty(self, value) -> None:
        self._climb_penalty = check_penalty(value, int(self.navmesh.climb_edge_kind.shape[0]))

    def __reduce__(self):
        # Pickled/copied as "a query on this navmesh": the arrays are rebuilt, not stored.
        return (NavQuery, (self.navmesh, tuple(self.extents)))

    def _filter_arrays(self, agent: AgentFilter):
        """The filter's kernel arrays plus its usable-port mask and reachability on this
        mesh (cached): (allowed, cost, link_ok, link_scale, hscale, port_ok, reach), allowed
        and cost per cost class (stance x area, see __init__), reach an astar.Reach."""
        cache = self._class_arrays.get(agent)
        if cache is None:
            allowed, cost, link_ok, link_scale, hscale = self._classes_of(agent)
            # the port mask and the reachability depend on the allowed classes and links
            # only: shared by filters
            key = (allowed.tobytes(), link_ok.tobytes())
            moves = self._moves.get(key)
            if moves is None:
                d = self.data
                port_ok = usable_ports(d, allowed, link_ok)
                reach = Reach(*reach_components(d.port_start, d.ports, d.port_other,
                                                d.node_hop_poly, d.poly_stance, d.poly_bmin,
                                                d.poly_bmax, allowed, port_ok))
                moves = self._moves[key] = (port_ok, reach)
            cache = self._class_arrays[agent] = (allowed, cost, link_ok, link_scale, hscale,
                                                 *moves)
        return cache

    # ------------------------------------------------------------------ nearest
    def nearest_polygon(self, point: ArrayLike, agent: AgentFilter | None = None,
                        extents: ArrayLike | None = None) -> tuple[int, np.ndarray, float]:
        """(polygon, point on it, distance), polygon -1 when none within the box."""
        agent = agent or _DEFAULT_AGENT
        p = _points(point, "point")[0]
        if not np.all(np.isfinite(p)):
            raise ValueError(f"point {_fmt(p)} has a NaN or infinite coordinate")
        ext = self.extents if extents is None else _extents(extents)
        stamp = self._next_stamps(1)
        poly, x, y, z, dist = nearest_polygon(self.data, p[0], p[1], p[2], ext,
                                              self._filter_arrays(agent)[0], self._ws.near_stamp,
                                              2 * stamp)
        return int(poly), np.array([x, y, z]), float(dist)

    # -------------------------------------------------------------------- paths
    def find_paths(self, starts: ArrayLike, goals: ArrayLike, agent: AgentFilter | None = None,
                   extents: ArrayLike | None = None, on_error: str = "raise") -> PathBatch:
        """Answer many queries in one kernel call.

        ``on_error="raise"``: a NaN coordinate or an end farther than the search box from
        every usable polygon raises ValueError naming the query. ``"status"``: such queries
        get that status and no points; the others are answered.
        """
        if on_error not in ("raise", "status"):
            raise ValueError(f"on_error must be 'raise' or 'status', got {on_error!r}")
        s = _points(starts, "starts")
        g = _points(goals, "goals")
        if s.shape != g.shape:
            raise ValueError(f"starts {s.shape} and goals {g.shape} must have the same shape")
        return self._solve(s, g, agent, extents, on_error)

    def _solve(self, s: np.ndarray, g: np.ndarray, agent: AgentFilter | None, extents,
               on_error: str) -> PathBatch:
        """find_paths on checked (N, 3) float64 points."""
        agent = agent or _DEFAULT_AGENT
        ext = self.extents if extents is None else _extents(extents)
        if agent.abilities and self.navmesh.climb_node_position.shape[0]:
            # one search over walking, jump links and ways through the climb graph
            batch = solve_climbing(self, s, g, agent, ext, PathBatch)
        else:
            arrays = self._filter_arrays(agent)
            stamp = self._next_stamps(s.shape[0])
            batch = PathBatch(*solve_batch(self.data, *arrays, ext, s, g, self._ws, stamp,
                                              NO_BOUNDS, NO_LANDMARKS))
        if on_error == "raise":
            status = batch._summary[:, SUM_STATUS]
            if status.size and status.max() >= START_OFF_MESH:
                q = int(np.argmax(status >= START_OFF_MESH))
                raise ValueError(self._error_message(q, int(status[q]), s[q], g[q], agent,
                                                     ext, s.shape[0]))
        return batch

    def find_path(self, start: ArrayLike, goal: ArrayLike, agent: AgentFilter | None = None,
                  extents: ArrayLike | None = None) -> PathResult:
        """One query; raises ValueError for NaN input or an end off the navmesh."""
        s = _points(start, "start")
        g = _points(goal, "goal")
        if s.shape[0] != 1 or g.shape[0] != 1:
            raise ValueError("find_path takes one start and one goal point; use find_paths")
        return self._solve(s, g, agent, extents, "raise").path(0)

    # ----------------------------------------------------------------- internals
    def _next_stamps(self, n: int) -> int:
        base = self._stamp
        self._stamp += n
        return base

    def _error_message(self, q, status, start, goal, agent, ext, n) -> str:
        where = "" if n == 1 else f"query {q}: "
        if status == BAD_INPUT:
            return (f"{where}start {_fmt(start)} and goal {_fmt(goal)} must be finite "
                    f"coordinates (NaN or infinity given)")
        end, pt = ("start", start) if status == START_OFF_MESH else ("goal", goal)
        who = ", ".join(agent.stances)
        if self.data.polygons.shape[0] == 0:
            return f"{where}the navmesh has no polygons, so the {end} cannot be placed on it"
        poly, dist = nearest_polygon_anywhere(self.data, pt[0], pt[1], pt[2],
                                              self._filter_arrays(agent)[0])
        if poly < 0:
            return (f"{where}the navmesh has no polygon an agent with stances [{who}] "
                    f"may use, so the {end} cannot be placed on it")
        box = ", ".join(f"{v:g}" for v in ext)
        return (f"{where}{end} {_fmt(pt)} is off the navmesh: the nearest polygon usable "
                f"with stances [{who}] is {dist:.3f} m away (polygon {poly}), outside the "
                f"search box of half-extents ({box})")


class _CachedQuery:
    """A NavMesh's NavQuery; dropped (rebuilt on demand) when the NavMesh is pickled."""

    def __init__(self, key, query: NavQuery):
        self.key = key
        self.query = query

    def __reduce__(self):
        return (type(None), ())


def query_for(navmesh: NavMesh | NavQuery) -> NavQuery:
    """The NavQuery of a NavMesh, built once and kept on the NavMesh.

    Rebuilt when an array of the NavMesh is replaced; arrays changed in place are not
    noticed (build a new ``NavQuery`` then).
    """
    if isinstance(navmesh, NavQuery):
        return navmesh
    if not isinstance(navmesh, NavMesh):
        raise TypeError(f"expected a NavMesh or NavQuery, got {type(navmesh).__name__}")
    key = tuple((id(getattr(navmesh, f)), getattr(navmesh, f).shape)
                for f in navmesh.array_fields())
    cached = navmesh.__dict__.get("_navjump_query")
    if isinstance(cached, _CachedQuery) and cached.key == key:
        return cached.query
    query = NavQuery(navmesh)
    navmesh.__dict__["_navjump_query"] = _CachedQuery(key, query)
    return query


def find_path(navmesh: NavMesh | NavQuery, start: ArrayLike, goal: ArrayLike,
              agent: AgentFilter | None = None, extents: ArrayLike | None = None) -> PathResult:
    """Shortest path (under the agent filter's costs) from start to goal."""
    return query_for(navmesh).find_path(start, goal, agent, extents)


def find_paths(navmesh: NavMesh | NavQuery, starts: ArrayLike, goals: ArrayLike,
               agent: AgentFilter | None = None, extents: ArrayLike | None = None,
               on_error: str = "raise") -> PathBatch:
    """Batch version of :func:`find_path`: (N, 3) starts and goals in, flat arrays out."""
    return query_for(navmesh).find_paths(starts, goals, agent, extents, on_error)


__all__ = ["PathResult", "PathBatch", "NavQuery", "find_path", "find_paths", "query_for",
           "DEFAULT_EXTENTS", "FLAG_NAMES", "STATUS_NAMES", "LINK_KINDS"]
