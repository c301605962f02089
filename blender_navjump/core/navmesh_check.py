"""The one validation of a NavMesh that did not come straight from a bake.

Every consumer of navmesh data runs :func:`check_navmesh` first: the loaders
(``NavMesh.load``, ``read_json``), the path queries (``NavQuery``) and the exporters
(Detour, OBJ, glTF, NavJump JSON). A NavMesh that passes has the dtypes and shapes of
:class:`~blender_navjump.core.navmesh.NavMesh`, finite coordinates, convex counter-clockwise
polygons with distinct vertices, neighbours that are mutual and share the edge, detail
meshes that cover every polygon, and links that join two polygons at a finite, non-negative
cost. A failure raises :class:`NavMeshError` naming where the data came from, the array and
the first offending index.
"""

from __future__ import annotations

import numpy as np

from .kinds import LINK_KINDS, STANCE_NAMES

# The climb graph arrays of a NavMesh (core/climb.py); empty when a bake has no climbing.
CLIMB_ARRAYS = {  # name: (dtype, shape after the first axis)
    "climb_element_kind": (np.int8, ()),
    "climb_element_ends": (np.float64, (2, 3)),
    "climb_element_abilities": (np.uint16, ()),
    "climb_element_name": (np.str_, ()),
    "climb_node_position": (np.float64, (3,)),
    "climb_edge_nodes": (np.int32, (2,)),
    "climb_edge_kind": (np.int8, ()),
    "climb_edge_element": (np.int32, ()),
    "climb_edge_length": (np.float64, ()),
    "climb_edge_abilities": (np.uint16, ()),
    "climb_edge_bidirectional": (np.bool_, ()),
    "climb_link_kind": (np.int8, ()),
    "climb_link_node": (np.int32, ()),
    "climb_link_point": (np.float64, (3,)),
    "climb_link_poly": (np.int32, ()),
    "climb_link_bidirectional": (np.bool_, ()),
    "climb_link_length": (np.float64, ()),
    "climb_link_abilities": (np.uint16, ()),
}


# Coordinates beyond this (metres) are refused, here and by the bake: their float64 spacing
# (0.1 mm at 1e12 m) is still far below a cell, and their differences never overflow.
MAX_COORDINATE = 1.0e12

# Most vertices a polygon may have (Recast's DT_VERTS_PER_POLYGON is 6; hand-made meshes
# may use more, within reason: arrays are (P, nvp)).
MAX_POLYGON_VERTICES = 64

# name: (dtype, shape after the first axis, "what the first axis counts")
_ARRAYS = {
    "vertices": (np.float64, (3,), "V"),
    "polygons": (np.int32, None, "P"),
    "neighbours": (np.int32, None, "P"),
    "polygon_area": (np.uint8, (), "P"),
    "polygon_region": (np.int32, (), "P"),
    "polygon_stance": (np.int8, (), "P"),
    "polygon_tile": (np.int32, (), None),  # empty (solo bake) or one per polygon
    "detail_meshes": (np.int32, (4,), None),
    "detail_vertices": (np.float64, (3,), "Dv"),
    "detail_triangles": (np.int32, (4,), "Dt"),
    "link_kind": (np.int8, (), "L"),
    "link_start": (np.float64, (2, 3), "L"),
    "link_end": (np.float64, (2, 3), "L"),
    "link_bidirectional": (np.bool_, (), "L"),
    "link_start_poly": (np.int32, (), "L"),
    "link_end_poly": (np.int32, (), "L"),
    "link_apex": (np.float64, (), "L"),
    "link_length": (np.float64, (), "L"),
    "link_cost": (np.float64, (), "L"),
    "link_area": (np.uint8, (), "L"),
}


class NavMeshError(ValueError):
    """A navmesh's data is unusable; the message names the source, the array and the index."""


def _show(value) -> str:
    """A value for a message, as it is (never wrapped through a narrower integer type)."""
    if isinstance(value, (float, np.floating)):
        f = float(value)
        return str(int(f)) if f.is_integer() and abs(f) < 2**63 else repr(f)
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return repr(value)


class _Check:
    def __init__(self, where: str):
        self.where = where

    def fail(self, message: str):
        raise NavMeshError(f"{self.where}: {message}")

    def array(self, name: str, value, spec=None) -> np.ndarray:
        """``value`` as the field's dtype; refuses other kinds and values that do not fit."""
        dtype, tail, _count = spec or _ARRAYS[name]
        dtype = np.dtype(dtype)
        if not isinstance(value, np.ndarray):
            try:
                value = np.asarray(value)
            except (TypeError, ValueError):
                self.fail(f"'{name}' is not a regular array")
        kind = value.dtype.kind
        if dtype.kind == "b":
            if kind != "b":
                self.fail(f"'{name}' must hold true/false values, got {value.dtype.name}")
        elif dtype.kind in "iu":
            if kind not in "iu":
                self.fail(f"'{name}' must hold whole numbers, got {value.dtype.name} values")
        elif kind not in "iuf":
            self.fail(f"'{name}' must hold numbers, got {value.dtype.name} values")
        if tail is None:  # polygons / neighbours: (P, nvp)
            if value.ndim != 2 or not 3 <= value.shape[1] <= MAX_POLYGON_VERTICES:
                self.fail(f"'{name}' must be a (polygons, 3..{MAX_POLYGON_VERTICES}) array, "
                          f"got shape {value.shape}")
        elif value.ndim != 1 + len(tail) or value.shape[1:] != tail:
            want = "(n" + "".join(f", {k}" for k in tail) + ")"
            self.fail(f"'{name}' must be an {want} array, got shape {value.shape}")
        if dtype.kind in "iu" and value.size:
            info = np.iinfo(dtype)
            out = (value < info.min) | (value > info.max)
            if out.any():
                i = np.argwhere(out)[0]
                idx = "".join(f"[{int(k)}]" for k in i)
                self.fail(f"'{name}'{idx} is {_show(value[tuple(i)])}, outside "
                          f"{info.min}..{info.max}")
        return value.astype(dtype, copy=False)

    def finite(self, name: str, arr: np.ndarray):
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.argwhere(bad)[0][0])
            self.fail(f"'{name}'[{i}] is {arr[i].tolist()}: NaN or infinite")

    def bounded(self, name: str, arr: np.ndarray):
        """Coordinates within +-MAX_COORDINATE (what a bake accepts), so that the geometry
        tests and the path queries never overflow."""
        far = np.abs(arr) > MAX_COORDINATE
        if far.any():
            i = int(np.argwhere(far)[0][0])
            self.fail(f"'{name}'[{i}] is {arr[i].tolist()}: beyond +-{MAX_COORDINATE:g} m")

    def in_range(self, name: str, arr: np.ndarray, lo: int, hi: int, what: str):
        bad = (arr < lo) | (arr >= hi)
        if bad.any():
            i = np.argwhere(bad)[0]
            idx = "".join(f"[{int(k)}]" for k in i)
            self.fail(f"'{name}'{idx} is {_show(arr[tuple(i)])}, not {what} "
                      f"({lo}..{hi - 1})")


def check_navmesh(nm, where: str = "navmesh"):
    """Validate ``nm`` (see module doc); return a NavMesh with canonical dtypes.

    The result shares arrays with ``nm`` when they already have the right dtype. Raises
    :class:`NavMeshError` (a ValueError) at the first problem.
    """
    with np.errstate(all="ignore"):
        return _check(nm, _Check(where))


def _check(nm, c: _Check):
    import dataclasses

    for name in ("settings", "stats"):
        if not isinstance(getattr(nm, name), dict):
            c.fail(f"'{name}' must be a dictionary, got {type(getattr(nm, name)).__name__}")
    arrays = {name: c.array(name, getattr(nm, name)) for name in _ARRAYS}
    v = arrays["vertices"]
    polys = arrays["polygons"]
    neis = arrays["neighbours"]
    n_verts, n_polys = v.shape[0], polys.shape[0]
    n_links = arrays["link_kind"].shape[0]
    counts = {"V": n_verts, "P": n_polys, "L": n_links,
              "Dv": arrays["detail_vertices"].shape[0],
              "Dt": arrays["detail_triangles"].shape[0]}
    for name, (_dt, _tail, count) in _ARRAYS.items():
        if count in ("P", "L") and arrays[name].shape[0] != counts[count]:
            owner = "polygons" if count == "P" else "links (link_kind)"
            c.fail(f"'{name}' has {arrays[name].shape[0]} rows but there are "
                   f"{counts[count]} {owner}")
    tile = arrays["polygon_tile"]
    if tile.shape[0] not in (0, n_polys):
        c.fail(f"'polygon_tile' has {tile.shape[0]} rows but there are {n_polys} polygons "
               f"(it is empty for a solo bake)")
    c.in_range("polygon_tile", tile, 0, 2**31 - 1, "a tile index")
    if neis.shape != polys.shape:
        c.fail(f"'neighbours' has shape {neis.shape}, 'polygons' {polys.shape}")
    c.finite("vertices", v)

    # ---------------------------------------------------------------- polygons
    c.in_range("polygons", polys, -1, n_verts, "a vertex index or -1")
    valid = polys >= 0
    n = valid.sum(axis=1)
    cols = np.arange(polys.shape[1])
    real = cols[None, :] < n[:, None]
    if not np.array_equal(valid, real):
        p = int(np.nonzero((valid != real).any(axis=1))[0][0])
        c.fail(f"'polygons'[{p}] is {polys[p].tolist()}: -1 padding before its last vertex")
    if n_polys and n.min() < 3:
        p = int(np.argmin(n))
        c.fail(f"'polygons'[{p}] has {int(n[p])} vertices; a polygon needs at least 3")
    nxt = np.where(cols[None, :] + 1 < n[:, None], cols[None, :] + 1, 0)
    rows = np.arange(n_polys)[:, None]
    a_idx = np.where(real, polys, 0)
    b_idx = np.where(real, polys[rows, nxt], 0)
    # distinct vertex indices and distinct positions (seen from above)
    srt = np.sort(np.where(real, polys, -1 - cols[None, :]), axis=1)
    dup = (srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)
    if dup.any():
        p = int(np.nonzero(dup.any(axis=1))[0][0])
        c.fail(f"'polygons'[{p}] is {polys[p, :n[p]].tolist()}: vertex "
               f"{int(srt[p, 1:][dup[p]][0])} appears twice")
    used = np.unique(polys[real]) if n_polys else np.zeros(0, np.int64)
    far = np.abs(v[used]) > MAX_COORDINATE
    if far.any():
        i = int(used[np.argwhere(far)[0][0]])
        c.fail(f"'vertices'[{i}] is {v[i].tolist()}: beyond +-{MAX_COORDINATE:g} m")
    xy = v[:, :2]
    pa, pb = xy[a_idx], xy[b_idx]
    edge = pb - pa
    elen = np.hypot(edge[..., 0], edge[..., 1])
    # tolerances from each polygon's own coordinates (a few float64 steps there), so the
    # tests do not depend on how far from the origin the polygon lies
    local = np.maximum(1.0, np.where(real, np.abs(pa).max(axis=-1), 0.0).max(axis=1))
    ulp = np.spacing(local)[:, None]
    short = real & (elen <= 16 * ulp)
    if short.any():
        p, k = (int(i) for i in np.argwhere(short)[0])
        c.fail(f"'polygons'[{p}] has two vertices at the same place seen from above "
               f"(vertices {int(a_idx[p, k])} and {int(b_idx[p, k])}: {xy[a_idx[p, k]].tolist()})")
    # convex and counter-clockwise seen from +Z: every turn is a left turn (or straight),
    # the signed area is positive and the edge directions go round exactly once
    prev_edge = edge[rows, np.where(cols[None, :] == 0, n[:, None] - 1, cols[None, :] - 1)]
    turn = prev_edge[..., 0] * edge[..., 1] - prev_edge[..., 1] * edge[..., 0]
    plen = np.hypot(prev_edge[..., 0], prev_edge[..., 1])
    slack = 1e-6 * plen * elen + 8 * ulp * (plen + elen)
    right = real & (turn < -slack)
    # shoelace about the polygon's first vertex (not the origin: no cancellation far away)
    ra, rb = pa - pa[:, :1], pb - pa[:, :1]
    area2 = np.where(real, ra[..., 0] * rb[..., 1] - rb[..., 0] * ra[..., 1], 0.0).sum(axis=1)
    ang = np.arctan2(edge[..., 1], edge[..., 0])
    prev_ang = np.arctan2(prev_edge[..., 1], prev_edge[..., 0])
    step = np.where(real, (ang - prev_ang + np.pi) % (2 * np.pi) - np.pi, 0.0)
    winding = step.sum(axis=1) / (2 * np.pi)
    bad_wind = np.abs(winding - 1.0) > 1e-6
    bad = bad_wind | (area2 <= 0) | right.any(axis=1)
    if bad.any():
        p = int(np.nonzero(bad)[0][0])
        pts = xy[polys[p, :n[p]]].tolist()
        if abs(winding[p] + 1.0) < 1e-6:
            why = "is clockwise seen from +Z; polygons must be counter-clockwise"
        elif bad_wind[p]:
            why = f"crosses itself (its edges turn {winding[p]:.3g} times round)"
        elif area2[p] <= 0:
            why = "has no area seen from above"
        else:
            why = "is not convex"
        c.fail(f"'polygons'[{p}] {why}: vertices {polys[p, :n[p]].tolist()} at {pts}")

    # -------------------------------------------------------------- neighbours
    c.in_range("neighbours", neis, -1, n_polys, "a polygon index or -1")
    pad_nb = ~real & (neis != -1)
    if pad_nb.any():
        p, k = (int(i) for i in np.argwhere(pad_nb)[0])
        c.fail(f"'neighbours'[{p}] has a neighbour ({int(neis[p, k])}) beyond the "
               f"polygon's {int(n[p])} vertices")
    if (neis == np.arange(n_polys)[:, None]).any():
        p = int(np.nonzero((neis == np.arange(n_polys)[:, None]).any(axis=1))[0][0])
        c.fail(f"'neighbours'[{p}] names polygon {p} itself")
    # each internal edge (a -> b of p, neighbour q) must be the edge b -> a of q, whose
    # neighbour is p
    pp, kk = np.nonzero(neis >= 0)
    if pp.size:
        qq = neis[pp, kk].astype(np.int64)
        ea, eb = a_idx[pp, kk].astype(np.int64), b_idx[pp, kk].astype(np.int64)
        # a directed edge is named by (polygon, start vertex): vertices are distinct in a
        # polygon. Look up the edge of q that starts at b; it must end at a and name p.
        rp, rk = np.nonzero(real)
        key = rp.astype(np.int64) * n_verts + a_idx[rp, rk]
        order = np.argsort(key, kind="stable")
        key = key[order]
        want = qq * n_verts + eb
        at = np.minimum(np.searchsorted(key, want), max(key.shape[0] - 1, 0))
        found = key[at] == want
        back_p, back_k = rp[order][at], rk[order][at]
        ok = found & (b_idx[back_p, back_k] == ea) & (neis[back_p, back_k] == pp)
        if not ok.all():
            i = int(np.nonzero(~ok)[0][0])
            c.fail(f"'neighbours'[{int(pp[i])}][{int(kk[i])}] is polygon {int(qq[i])}, but "
                   f"polygon {int(qq[i])} has no edge {int(eb[i])}->{int(ea[i])} back to "
                   f"polygon {int(pp[i])}")

    # ------------------------------------------------------- per-polygon values
    c.in_range("polygon_stance", arrays["polygon_stance"], 0, len(STANCE_NAMES),
               "a stance (" + ", ".join(STANCE_NAMES) + ")")

    # ------------------------------------------------------------------- detail
    dm = arrays["detail_meshes"]
    dv = arrays["detail_vertices"]
    dt = arrays["detail_triangles"]
    if dm.shape[0] not in (0, n_polys):
        c.fail(f"'detail_meshes' has {dm.shape[0]} rows; expected one per polygon "
               f"({n_polys}) or none")
    c.finite("detail_vertices", dv)
    c.bounded("detail_vertices", dv)
    if dm.shape[0]:
        c.in_range("detail_meshes", dm, 0, 2**31 - 1, "a count or offset")
        vb, nv, tb, nt = (dm[:, k].astype(np.int64) for k in range(4))
        short = (vb + nv > dv.shape[0])
        if short.any():
            p = int(np.nonzero(short)[0][0])
            c.fail(f"'detail_meshes'[{p}] = {dm[p].tolist()} needs detail vertices up to "
                   f"{int(vb[p] + nv[p])}, but 'detail_vertices' has {dv.shape[0]}")
        short = (tb + nt > dt.shape[0])
        if short.any():
            p = int(np.nonzero(short)[0][0])
            c.fail(f"'detail_meshes'[{p}] = {dm[p].tolist()} needs detail triangles up to "
                   f"{int(tb[p] + nt[p])}, but 'detail_triangles' has {dt.shape[0]}")
        # a polygon without detail triangles is drawn as a fan of its own vertices
        few = (nv < n) & (nt > 0)
        if few.any():
            p = int(np.nonzero(few)[0][0])
            c.fail(f"'detail_meshes'[{p}] = {dm[p].tolist()}: polygon {p} has {int(n[p])} "
                   f"vertices, its detail mesh has only {int(nv[p])}")
        # the first n detail vertices of polygon p are its own vertices
        own_n = np.where(nt > 0, n, 0)
        owner = np.repeat(np.arange(n_polys), own_n)
        k = np.arange(int(own_n.sum())) - np.repeat(np.cumsum(own_n) - own_n, own_n)
        own = dv[vb[owner] + k, :2]
        want = xy[polys[owner, k]]
        off = np.abs(own - want).max(axis=1) if own.size else np.zeros(0)
        far = off > 1e-3 + 16 * np.spacing(np.abs(want).max(axis=1) if own.size
                                           else np.zeros(0))
        if far.any():
            i = int(np.nonzero(far)[0][0])
            p = int(owner[i])
            c.fail(f"'detail_vertices'[{int(vb[p] + k[i])}] should be vertex {int(k[i])} of "
                   f"polygon {p} ({want[i].tolist()} seen from above), got {own[i].tolist()}")
        tri_owner = np.repeat(np.arange(n_polys), nt)
        tk = np.arange(int(nt.sum())) - np.repeat(np.cumsum(nt) - nt, nt)
        corners = dt[tb[tri_owner] + tk, :3].astype(np.int64)
        outside = ((corners < 0) | (corners >= nv[tri_owner][:, None])).any(axis=1)
        if outside.any():
            i = int(np.nonzero(outside)[0][0])
            p = int(tri_owner[i])
            c.fail(f"'detail_triangles'[{int(tb[p] + tk[i])}] = "
                   f"{dt[tb[p] + tk[i]].tolist()} uses a vertex outside polygon {p}'s "
                   f"{int(nv[p])} detail vertices")

    # -------------------------------------------------------------------- links
    if n_links:
        c.in_range("link_kind", arrays["link_kind"], 0, len(LINK_KINDS),
                   "a link kind (" + ", ".join(LINK_KINDS) + ")")
        for name in ("link_start", "link_end", "link_apex", "link_length", "link_cost"):
            c.finite(name, arrays[name])
        for name in ("link_start", "link_end", "link_apex"):
            c.bounded(name, arrays[name])
        for name in ("link_start_poly", "link_end_poly"):
            c.in_range(name, arrays[name], 0, n_polys, "a polygon index")
        for name in ("link_length", "link_cost"):
            neg = arrays[name] < 0
            if neg.any():
                i = int(np.nonzero(neg)[0][0])
                c.fail(f"'{name}'[{i}] is {_show(arrays[name][i])}; it must not be negative")

    arrays.update(_check_areas(nm, c, arrays["polygon_area"], arrays["link_area"]))
    arrays.update(_check_climb(nm, c, n_polys))
    changed = {k: a for k, a in arrays.items() if a is not getattr(nm, k)}
    return dataclasses.replace(nm, **changed) if changed else nm


def _check_areas(nm, c: _Check, polygon_area: np.ndarray, link_area: np.ndarray) -> dict:
    """The area table (``area_names``, ``area_cost``) and the polygons' and links' area
    ids."""
    from .kinds import BUILTIN_AREAS, MAX_AREAS

    names = getattr(nm, "area_names", None)
    if names is None:
        return {}
    names = np.asarray(names)
    if names.ndim != 1 or (names.size and names.dtype.kind != "U"):
        c.fail(f"'area_names' must be a list of names, got {names.dtype.name} {names.shape}")
    if names.dtype.kind != "U":
        names = names.astype(np.str_)  # (an empty list); a bake's own array is kept as is
    if not len(BUILTIN_AREAS) <= names.shape[0] <= MAX_AREAS \
            or tuple(names[:len(BUILTIN_AREAS)].tolist()) != BUILTIN_AREAS:
        c.fail(f"'area_names' must start with the built-in areas "
               f"({', '.join(BUILTIN_AREAS)}) and hold at most {MAX_AREAS} names, got "
               f"{names.tolist()[:12]}")
    if len(set(names.tolist())) != names.shape[0]:
        c.fail(f"'area_names' names an area twice: {names.tolist()}")
    cost = c.array("area_cost", getattr(nm, "area_cost", np.ones(names.shape[0])),
                   (np.float64, (), None))
    if cost.shape[0] != names.shape[0]:
        c.fail(f"'area_cost' has {cost.shape[0]} entries but 'area_names' has "
               f"{names.shape[0]}")
    bad = np.isnan(cost) | (cost <= 0.0)
    if bad.any():
        i = int(np.argmax(bad))
        c.fail(f"'area_cost'[{i}] is {float(cost[i])!r}; an area cost is a number > 0, or "
               f"inf for not walkable")
    c.in_range("polygon_area", polygon_area, 1, names.shape[0],
               "an area id of 'area_names' (0 'null' is never a polygon's area)")
    c.in_range("link_area", link_area, 1, names.shape[0],
               "an area id of 'area_names' (0 'null' is never a link's area)")
    return {"area_names": names, "area_cost": cost}


def climb_link_ability_masks(kind, stored) -> np.ndarray:
    """(C,) abilities each climb link needs: ``stored`` (``climb_link_abilities``) when it
    has a row per link (``kind``, ``climb_link_kind``), else (a file written before links
    had their own abilities) those of the links' kinds, ``CLIMB_LINK_KIND_ABILITIES``."""
    from .kinds import CLIMB_LINK_KIND_ABILITIES

    kind = np.asarray(kind, np.int64).reshape(-1)
    stored = np.asarray(stored).reshape(-1)
    if stored.shape[0] == kind.shape[0]:
        return stored.astype(np.uint16)
    table = np.array(CLIMB_LINK_KIND_ABILITIES, np.uint16)
    return table[np.clip(kind, 0, table.shape[0] - 1)]


def _check_climb(nm, c: _Check, n_polys: int) -> dict:
    """The ``climb_*`` arrays (core/climb.py): shapes, counts, kinds and indices."""
    from .kinds import CLIMB_EDGE_KINDS, CLIMB_ELEMENT_KINDS, CLIMB_LINK_KINDS

    out = {}
    for name, (dtype, tail) in CLIMB_ARRAYS.items():
        value = getattr(nm, name, None)
        if value is None:
            continue
        if dtype is np.str_:
            value = np.asarray(value)
            if value.dtype.kind != "U" or value.ndim != 1:
                c.fail(f"'{name}' must be a list of names, got {value.dtype.name} "
                       f"{value.shape}")
            out[name] = value
            continue
        out[name] = c.array(name, value, (dtype, tail, None))
    if not out:
        return out
    if out["climb_link_abilities"].shape[0] == 0 and out["climb_link_kind"].shape[0]:
        # written before links had their own abilities: the abilities of their kinds
        out["climb_link_abilities"] = climb_link_ability_masks(
            out["climb_link_kind"], out["climb_link_abilities"])
    groups = {"climb_element_": "climb_element_kind", "climb_edge_": "climb_edge_kind",
              "climb_link_": "climb_link_kind"}
    for prefix, key in groups.items():
        n = out[key].shape[0]
        for name, arr in out.items():
            if name.startswith(prefix) and arr.shape[0] != n:
                c.fail(f"'{name}' has {arr.shape[0]} rows but '{key}' has {n}")
    n_nodes = out["climb_node_position"].shape[0]
    c.in_range("climb_element_kind", out["climb_element_kind"], 0, len(CLIMB_ELEMENT_KINDS),
               "a climb element kind")
    c.in_range("climb_edge_kind", out["climb_edge_kind"], 0, len(CLIMB_EDGE_KINDS),
               "a climb edge kind")
    c.in_range("climb_link_kind", out["climb_link_kind"], 0, len(CLIMB_LINK_KINDS),
               "a climb link kind")
    c.in_range("climb_edge_nodes", out["climb_edge_nodes"], 0, n_nodes, "a climb node")
    c.in_range("climb_link_node", out["climb_link_node"], 0, n_nodes, "a climb node")
    c.in_range("climb_link_poly", out["climb_link_poly"], 0, n_polys, "a polygon index")
    c.in_range("climb_edge_element", out["climb_edge_element"], -1,
               out["climb_element_kind"].shape[0], "a climb element or -1")
    for name in ("climb_element_ends", "climb_node_position", "climb_edge_length",
                 "climb_link_point", "climb_link_length"):
        c.finite(name, out[name])
        c.bounded(name, out[name])
    return out
