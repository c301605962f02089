"""AgentFilter: what an agent may use and what it costs. See docs/path-queries.md."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..kinds import CLIMB_ABILITIES, GENERATED_LINK_KINDS
from ..navmesh import LINK_KINDS, STANCE_NAMES


def _area_costs(value) -> tuple[tuple[str, float], ...]:
    from ..areas import parse_area_costs, parse_cost

    if isinstance(value, str):
        value = [v for v in (s.strip() for s in value.split(",")) if v]
    if isinstance(value, dict):
        pairs = [(str(k), parse_cost(str(k), c)) for k, c in value.items()]
    else:
        items = list(value)
        if all(isinstance(v, str) for v in items):
            pairs = list(parse_area_costs(items, "area_cost").items())
        else:
            pairs = [(str(k), parse_cost(str(k), c)) for k, c in items]
    return tuple(sorted(dict(pairs).items()))


def _names(value, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [v for v in (s.strip() for s in value.split(",")) if v]
    out = []
    for v in value:
        if not isinstance(v, str) or v not in known:
            raise ValueError(f"unknown {what} {v!r}; known {what}s are: {', '.join(known)}")
        if v not in out:
            out.append(v)
    return tuple(out)


def _numbers(value, what: str, allow_zero: bool, count: int = 3) -> tuple[float, ...]:
    try:
        vals = tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be {count} numbers, got {value!r}") from None
    if len(vals) != count:
        raise ValueError(f"{what} must be {count} numbers, got {len(vals)}")
    for v in vals:
        if not math.isfinite(v) or v < 0 or (v == 0 and not allow_zero):
            lim = ">= 0" if allow_zero else "> 0"
            raise ValueError(f"{what} values must be finite and {lim}, got {vals}")
    return vals


@dataclass(frozen=True)
class AgentFilter:
    """Stances and link kinds an agent may use, and their costs.

    ``stances``: stance names the agent may be in (subset of ``STANCE_NAMES``); polygons of
    other stances are never entered. ``links``: link kinds it may take (subset of
    ``LINK_KINDS``, may be empty). ``stance_cost``: walking cost per metre in each stance
    (stand, crouch, prone). ``link_cost_scale``: multiplier of each link kind's baked cost
    (drop, jump_across, jump_up, custom; three numbers leave custom links at 1).
    ``abilities``: climbing abilities (subset of ``CLIMB_ABILITIES``, may be empty): on a
    navmesh with a climb graph, paths use only the climb edges and links these allow
    (docs/climbing.md). Names may also be given as a comma-separated string.
    ``area_cost``: walking-cost multiplier per area name (``NavMesh.area_names``), over
    the costs stored in the navmesh; a cost < 0 or inf means the agent never enters that
    area (a mapping, ``NAME=COST`` strings or a comma-separated string of them).
    """

    stances: tuple[str, ...] = STANCE_NAMES
    links: tuple[str, ...] = LINK_KINDS
    stance_cost: tuple[float, float, float] = (1.0, 1.5, 3.0)
    link_cost_scale: tuple[float, ...] = (1.0,) * len(LINK_KINDS)
    area_cost: tuple[tuple[str, float], ...] = ()
    abilities: tuple[str, ...] = CLIMB_ABILITIES

    def __post_init__(self):
        stances = _names(self.stances, STANCE_NAMES, "stance")
        if not stances:
            raise ValueError("an agent filter needs at least one stance")
        object.__setattr__(self, "stances", stances)
        object.__setattr__(self, "links", _names(self.links, LINK_KINDS, "link kind"))
        object.__setattr__(self, "abilities",
                           _names(self.abilities, CLIMB_ABILITIES, "climbing ability"))
        object.__setattr__(self, "stance_cost", _numbers(self.stance_cost, "stance_cost",
                                                         allow_zero=False))
        scale = tuple(self.link_cost_scale)
        if len(scale) == len(GENERATED_LINK_KINDS):
            scale = (*scale, 1.0)
        object.__setattr__(self, "link_cost_scale",
                           _numbers(scale, "link_cost_scale", True, len(LINK_KINDS)))
        object.__setattr__(self, "area_cost", _area_costs(self.area_cost))

    def area_cost_map(self) -> dict[str, float]:
        return dict(self.area_cost)

    def stance_allowed(self) -> np.ndarray:
        return np.array([s in self.stances for s in STANCE_NAMES], np.bool_)

    def link_allowed(self) -> np.ndarray:
        return np.array([k in self.links for k in LINK_KINDS], np.bool_)

    def ability_mask(self) -> int:
        """The abilities as a bit mask (bit i = ``CLIMB_ABILITIES[i]``)."""
        return sum(1 << CLIMB_ABILITIES.index(a) for a in self.abilities)

    def heuristic_scale(self, has_links: bool) -> float:
        """Largest factor f with cost(a, b) >= f * |a - b| for every edge (A* stays exact)."""
        f = min(c for s, c in zip(STANCE_NAMES, self.stance_cost, strict=True)
                if s in self.stances)
        if has_links and self.links:
            f = min(f, 1.0)  # a link costs at least its straight length
        return float(f)

    def kernel_arrays(
            self, has_links: bool,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]:
        """(stance_allowed, stance_cost, link_allowed, link_scale, heuristic_scale).

        Built once per filter (it is immutable): single queries pay no conversion.
        """
        cache = self.__dict__.setdefault("_kernel_arrays", {})
        if has_links not in cache:
            cache[has_links] = (self.stance_allowed(), np.array(self.stance_cost, np.float64),
                                self.link_allowed(),
                                np.array(self.link_cost_scale, np.float64),
                                self.heuristic_scale(has_links))
        return cache[has_links]
