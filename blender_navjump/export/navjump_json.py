"""NavJump JSON: a lossless, engine-neutral text form of a NavMesh.

The schema is documented in docs/navjump-json.md. Floats are written with ``repr`` (what
``json`` does), so ``read_json(write_json(nm))`` gives back bit-identical arrays with the
dtypes of :class:`~blender_navjump.core.navmesh.NavMesh`.
"""

from __future__ import annotations

import json
import os
import pathlib
import stat

import numpy as np

from ..core.kinds import (
    CLIMB_ABILITIES,
    CLIMB_EDGE_KINDS,
    CLIMB_ELEMENT_KINDS,
    CLIMB_LINK_KINDS,
)
from ..core.navmesh import (
    LINK_KINDS,
    STANCE_NAMES,
    NavMesh,
    default_area_names,
    empty_navmesh,
    kind_link_areas,
)
from ..core.navmesh_check import MAX_POLYGON_VERTICES, check_navmesh, climb_link_ability_masks
from ._common import atomic_write, polygon_rows

FORMAT = "navjump"
VERSION = 1

REQUIRED_KEYS = ("format", "version", "up", "settings", "vertices", "polygons", "neighbours",
                 "polygon_area", "polygon_region", "polygon_stance", "detail", "links")
LINK_KEYS = ("kind", "start", "end", "bidirectional", "start_polygon", "end_polygon", "apex",
             "length", "cost")


def _plain(value):
    """json ``default`` hook: numpy scalars and arrays that may sit in settings or stats."""
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} value {value!r} cannot be written to JSON")


# Stats that differ between two runs of the same bake (timings; whether two agents baked
# side by side, which depends on the load); never written, so equal bakes give
# byte-identical files (the CLI prints the timings, the batch report keeps them).
RUN_DEPENDENT_STATS = ("timings_ms", "agents_overlapped")


def deterministic_stats(stats) -> dict:
    """``stats`` without the run-dependent entries (at any depth)."""
    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in RUN_DEPENDENT_STATS}
        return value

    return strip(dict(stats or {}))


def navmesh_to_json_dict(nm: NavMesh) -> dict:
    """The NavJump JSON document for ``nm`` as plain Python objects."""
    nm = check_navmesh(nm)
    rows = polygon_rows(nm)
    stance_names = []
    for s in nm.polygon_stance.tolist():
        if not 0 <= s < len(STANCE_NAMES):
            raise ValueError(f"polygon stance {s} is not one of 0..{len(STANCE_NAMES) - 1}")
        stance_names.append(STANCE_NAMES[s])
    links = []
    for i in range(nm.link_count):
        kind = int(nm.link_kind[i])
        if not 0 <= kind < len(LINK_KINDS):
            raise ValueError(f"link {i} has kind {kind}, not one of 0..{len(LINK_KINDS) - 1}")
        links.append({
            "kind": LINK_KINDS[kind],
            "start": nm.link_start[i].tolist(),
            "end": nm.link_end[i].tolist(),
            "bidirectional": bool(nm.link_bidirectional[i]),
            "start_polygon": int(nm.link_start_poly[i]),
            "end_polygon": int(nm.link_end_poly[i]),
            "apex": float(nm.link_apex[i]),
            "length": float(nm.link_length[i]),
            "cost": float(nm.link_cost[i]),
            "area": str(nm.area_names[int(nm.link_area[i])]),
        })
    return {
        "format": FORMAT,
        "version": VERSION,
        "up": "z",
        "settings": nm.settings,
        "polygon_max_vertices": int(nm.polygons.shape[1]),
        "vertices": nm.vertices.tolist(),
        "polygons": [r.tolist() for r in rows],
        "neighbours": [nm.neighbours[p, :len(r)].tolist() for p, r in enumerate(rows)],
        "polygon_area": nm.polygon_area.tolist(),
        "polygon_region": nm.polygon_region.tolist(),
        "polygon_stance": stance_names,
        "polygon_area_name": [str(nm.area_names[a]) for a in nm.polygon_area.tolist()],
        "areas": [{"id": i, "name": str(name), "cost": _cost_out(c)}
                  for i, (name, c) in enumerate(zip(nm.area_names, nm.area_cost,
                                                    strict=True))],
        "detail": {
            "meshes": nm.detail_meshes.tolist(),
            "vertices": nm.detail_vertices.tolist(),
            "triangles": nm.detail_triangles.tolist(),
        },
        "links": links,
        **({"climb": _climb_to_json(nm)} if _has_climb(nm) else {}),
        **({"tiles": _tiles_to_json(nm)} if nm.tiled else {}),
        "stats": deterministic_stats(nm.stats),
    }


def _tiles_to_json(nm: NavMesh) -> dict:
    """The optional "tiles" object of a tiled bake: the grid and each polygon's tile."""
    grid = nm.stats.get("tile_grid") if isinstance(nm.stats, dict) else None
    out: dict = {}
    if isinstance(grid, dict):
        out = {"origin": [float(x) for x in grid["origin"]],
               "tile_size": int(grid["tile_size"]), "cell_size": float(grid["cell_size"]),
               "count": [int(x) for x in grid["tiles"]]}
    out["polygon_tile"] = nm.polygon_tile.tolist()
    return out


def _tiles_from_json(r, doc, n_polys: int, stats: dict) -> dict:
    """``polygon_tile`` from an optional "tiles" object; its grid goes back into
    ``stats["tile_grid"]`` (the multi-tile Detour export reads it there)."""
    if "tiles" not in doc:
        return {}
    tiles = doc["tiles"]
    if not isinstance(tiles, dict) or "polygon_tile" not in tiles:
        r.fail("'tiles' must be an object with 'polygon_tile'")
    tile = r.array("tiles.polygon_tile", tiles["polygon_tile"], np.int32, ())
    if tile.shape[0] != n_polys:
        r.fail(f"'tiles.polygon_tile' has {tile.shape[0]} entries but there are {n_polys} "
               f"polygons")
    if "count" in tiles:
        for key in ("origin", "tile_size", "cell_size"):
            if key not in tiles:
                r.fail(f"'tiles' is missing key '{key}'")
        stats["tile_grid"] = {"origin": tiles["origin"], "tile_size": tiles["tile_size"],
                              "cell_size": tiles["cell_size"], "tiles": tiles["count"]}
    return {"polygon_tile": tile}


def _cost_out(cost) -> float | None:
    """An area cost for JSON: null when the area is not walkable (inf; a checked navmesh
    has no other non-walkable cost)."""
    c = float(cost)
    return c if np.isfinite(c) else None


def _link_areas_from_json(r, links: list, kinds: np.ndarray, names) -> np.ndarray:
    """Each link's area id from its optional "area" name (absent: its kind's built-in
    area, as files written before links had areas)."""
    table = [str(n) for n in names]
    out = kind_link_areas(kinds) if kinds.size else np.zeros(0, np.uint8)
    for i, link in enumerate(links):
        if "area" in link:
            if link["area"] not in table:
                r.fail(f"'links'[{i}].area {link['area']!r} is not in 'areas' "
                       f"({', '.join(table)})")
            out[i] = table.index(link["area"])
    return out


def _areas_from_json(r, doc) -> dict:
    """``area_names``/``area_cost`` from the optional "areas" list (built-ins without)."""
    if "areas" not in doc:
        return {}
    areas = doc["areas"]
    if not isinstance(areas, list):
        r.fail("'areas' must be a list")
    names, costs = [], []
    for i, item in enumerate(areas):
        if not isinstance(item, dict) or item.get("id") != i \
                or not isinstance(item.get("name"), str):
            r.fail(f"'areas'[{i}] must be an object with id {i}, a name and a cost")
        cost = item.get("cost")
        if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float))
                                 or not cost > 0):
            r.fail(f"'areas'[{i}].cost must be a number > 0, or null (not walkable); "
                   f"got {cost!r}")
        names.append(item["name"])
        costs.append(np.inf if cost is None else float(cost))
    if "polygon_area_name" in doc and doc["polygon_area_name"] != [
            names[a] if 0 <= a < len(names) else None for a in doc["polygon_area"]]:
        r.fail("'polygon_area_name' does not match 'polygon_area' and 'areas'")
    return {"area_names": np.array(names, np.str_), "area_cost": np.array(costs, np.float64)}


def _has_climb(nm: NavMesh) -> bool:
    return bool(nm.climb_element_kind.shape[0] or nm.climb_node_position.shape[0])


def _ability_names(mask) -> list[str]:
    return [name for i, name in enumerate(CLIMB_ABILITIES) if int(mask) >> i & 1]


def _climb_to_json(nm: NavMesh, frame=None) -> dict:
    """The optional "climb" object (docs/navjump-json.md, docs/climbing.md); ``frame``
    maps the points (the glTF export gives its Y-up conversion)."""
    if frame is None:
        return _climb_doc(nm, np.asarray)
    return _climb_doc(nm, frame)


def _climb_doc(nm: NavMesh, frame) -> dict:
    return {
        "elements": [{"kind": CLIMB_ELEMENT_KINDS[int(k)], "name": str(n), "ends": e.tolist(),
                      "abilities": _ability_names(a)}
                     for k, n, e, a in zip(nm.climb_element_kind, nm.climb_element_name,
                                           frame(nm.climb_element_ends),
                                           nm.climb_element_abilities, strict=True)],
        "nodes": frame(nm.climb_node_position).tolist(),
        "edges": [{"kind": CLIMB_EDGE_KINDS[int(k)], "nodes": n.tolist(), "element": int(e),
                   "length": float(ln), "abilities": _ability_names(a), "bidirectional": bool(b)}
                  for k, n, e, ln, a, b in zip(
                      nm.climb_edge_kind, nm.climb_edge_nodes, nm.climb_edge_element,
                      nm.climb_edge_length, nm.climb_edge_abilities,
                      nm.climb_edge_bidirectional, strict=True)],
        "links": [{"kind": CLIMB_LINK_KINDS[int(k)], "node": int(n), "point": p.tolist(),
                   "polygon": int(poly), "bidirectional": bool(b), "length": float(ln),
                   "abilities": _ability_names(a)}
                  for k, n, p, poly, b, ln, a in zip(
                      nm.climb_link_kind, nm.climb_link_node, frame(nm.climb_link_point),
                      nm.climb_link_poly, nm.climb_link_bidirectional, nm.climb_link_length,
                      climb_link_ability_masks(nm.climb_link_kind,
                                               nm.climb_link_abilities), strict=True)],
    }


def _climb_from_json(r, doc) -> dict:
    """The ``climb_*`` NavMesh arrays of an optional "climb" object (empty without one)."""
    if "climb" not in doc:
        return {}
    climb = doc["climb"]
    if not isinstance(climb, dict):
        r.fail("'climb' must be an object")

    def rows(key, keys):
        items = climb.get(key)
        if not isinstance(items, list):
            r.fail(f"'climb.{key}' must be a list")
        cols: dict[str, list] = {k: [] for k in keys}
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                r.fail(f"'climb.{key}'[{i}] must be an object")
            absent = [k for k in keys if k not in item]
            if absent:
                r.fail(f"'climb.{key}'[{i}] is missing key(s): {', '.join(absent)}")
            for k in keys:
                cols[k].append(item[k])
        return cols

    def masks(name, values):
        out = np.zeros(len(values), np.uint16)
        for i, names in enumerate(values):
            idx = r.names(f"{name}[{i}]", names, CLIMB_ABILITIES)
            out[i] = sum(1 << int(k) for k in set(idx.tolist()))
        return out

    el = rows("elements", ("kind", "name", "ends", "abilities"))
    ed = rows("edges", ("kind", "nodes", "element", "length", "abilities", "bidirectional"))
    li = rows("links", ("kind", "node", "point", "polygon", "bidirectional", "length"))
    if "nodes" not in climb:
        r.fail("'climb' is missing key 'nodes'")
    if not all(isinstance(n, str) for n in el["name"]):
        r.fail("'climb.elements[].name' must be text")
    return {
        "climb_element_kind": r.names("climb.elements[].kind", el["kind"], CLIMB_ELEMENT_KINDS),
        "climb_element_ends": r.array("climb.elements[].ends", el["ends"], np.float64, (2, 3)),
        "climb_element_abilities": masks("climb.elements[].abilities", el["abilities"]),
        "climb_element_name": np.array(el["name"], dtype=str),
        "climb_node_position": r.array("climb.nodes", climb["nodes"], np.float64, (3,)),
        "climb_edge_nodes": r.array("climb.edges[].nodes", ed["nodes"], np.int32, (2,)),
        "climb_edge_kind": r.names("climb.edges[].kind", ed["kind"], CLIMB_EDGE_KINDS),
        "climb_edge_element": r.array("climb.edges[].element", ed["element"], np.int32, ()),
        "climb_edge_length": r.array("climb.edges[].length", ed["length"], np.float64, ()),
        "climb_edge_abilities": masks("climb.edges[].abilities", ed["abilities"]),
        "climb_edge_bidirectional": r.array("climb.edges[].bidirectional",
                                            ed["bidirectional"], np.bool_, ()),
        "climb_link_kind": r.names("climb.links[].kind", li["kind"], CLIMB_LINK_KINDS),
        "climb_link_node": r.array("climb.links[].node", li["node"], np.int32, ()),
        "climb_link_point": r.array("climb.links[].point", li["point"], np.float64, (3,)),
        "climb_link_poly": r.array("climb.links[].polygon", li["polygon"], np.int32, ()),
        "climb_link_bidirectional": r.array("climb.links[].bidirectional",
                                            li["bidirectional"], np.bool_, ()),
        "climb_link_length": r.array("climb.links[].length", li["length"], np.float64, ()),
        # optional (files written before links had their own abilities: their kinds')
        **({"climb_link_abilities": masks("climb.links[].abilities",
                                          [item["abilities"] for item in climb["links"]])}
           if climb["links"] and all("abilities" in item for item in climb["links"])
           else {}),
    }


def write_json(nm: NavMesh, path) -> pathlib.Path:
    """Write ``nm`` to ``path`` atomically (nothing is left behind if writing fails)."""
    try:
        doc = navmesh_to_json_dict(nm)
    except ValueError as exc:
        raise ValueError(f"{path}: cannot write NavJump JSON: {exc}") from exc

    def dump(fh):
        # One top-level key per line, each encoded by json's fast C encoder. Streamed, so a
        # bad value in a later key fails mid-file: atomic_write then drops the temporary.
        fh.write("{")
        for i, (key, value) in enumerate(doc.items()):
            text = json.dumps(value, default=_plain, allow_nan=False, separators=(",", ":"))
            fh.write(("," if i else "") + "\n" + json.dumps(key) + ":" + text)
        fh.write("\n}\n")

    try:
        return atomic_write(path, dump, binary=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: cannot write NavJump JSON: {exc}") from exc


# ------------------------------------------------------------------------------- reading
def _short(value) -> str:
    """repr of a value from the file, cut short (a message must not echo megabytes)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Reader:
    """Validates one document; every error names the file and the offending key."""

    def __init__(self, path):
        self.path = path

    def fail(self, message: str):
        raise ValueError(f"{self.path}: {message}")

    def array(self, name: str, value, dtype, tail: tuple[int, ...]) -> np.ndarray:
        dtype = np.dtype(dtype)
        if dtype.kind != "b" and isinstance(value, list):
            # numpy turns true/false among numbers into 1/0 without a word
            flat = value if not value or not isinstance(value[0], list) else \
                [x for row in value if isinstance(row, list) for x in row]
            for i, x in enumerate(flat):
                if isinstance(x, bool):
                    self.fail(f"'{name}' holds {str(x).lower()} (item {i}) where a number "
                              f"belongs")
        try:
            raw = np.asarray(value)
        except (ValueError, TypeError, OverflowError):
            self.fail(f"'{name}' is not a regular array")
        if raw.dtype == object:
            big = [x for x in np.ravel(raw) if isinstance(x, int) and not isinstance(x, bool)]
            if big:
                self.fail(f"'{name}' holds {_short(big[0])}, too large a number")
            self.fail(f"'{name}' is not a regular array of numbers")
        if raw.ndim == 0:
            self.fail(f"'{name}' must be a list, got {_short(value)}")
        if raw.size == 0:
            if raw.shape[0] != 0:
                self.fail(f"'{name}' must be a list of {tail} items")
            return np.zeros((0, *tail), dtype)
        if raw.shape[1:] != tail:
            self.fail(f"'{name}' must hold items of shape {list(tail)}, "
                      f"got {list(raw.shape[1:])}")
        kind = raw.dtype.kind
        if dtype.kind == "b":
            if kind != "b":
                self.fail(f"'{name}' must hold true/false values")
        elif dtype.kind in "iu":
            if kind not in "iu":
                self.fail(f"'{name}' must hold whole numbers, got {raw.dtype.name} values")
            info = np.iinfo(dtype)
            out = (raw < info.min) | (raw > info.max)
            if out.any():
                i = int(np.argwhere(out)[0][0])
                self.fail(f"'{name}'[{i}] is {_short(raw[i].tolist())}, outside "
                          f"{info.min}..{info.max}")
        elif kind not in "iuf":
            self.fail(f"'{name}' must hold numbers")
        return raw.astype(dtype)

    def names(self, name: str, values, allowed: tuple[str, ...]) -> np.ndarray:
        if not isinstance(values, list):
            self.fail(f"'{name}' must be a list of names")
        out = np.zeros(len(values), np.int8)
        for i, v in enumerate(values):
            if v not in allowed:
                self.fail(f"'{name}'[{i}] is {_short(v)}, not one of {', '.join(allowed)}")
            out[i] = allowed.index(v)
        return out


def read_json(path) -> NavMesh:
    """Read a NavJump JSON file; raise ValueError naming the file and the problem.

    This turns the document into arrays; what the arrays must satisfy is checked by
    ``core.navmesh_check.check_navmesh``, as for every loaded navmesh.
    """
    r = _Reader(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        r.fail(f"cannot read ({exc.strerror or exc})")
    if not stat.S_ISREG(mode):
        r.fail("not a regular file")
    try:
        with open(path, encoding="utf-8") as fh:
            doc = json.load(fh)
    except json.JSONDecodeError as exc:
        r.fail(f"not valid JSON ({exc})")
    except UnicodeDecodeError as exc:
        r.fail(f"not a UTF-8 text file ({exc})")
    except RecursionError:
        r.fail("not a NavJump JSON file (nested too deeply)")
    except OSError as exc:
        r.fail(f"cannot read ({exc.strerror or exc})")
    if not isinstance(doc, dict):
        r.fail("not a NavJump JSON file (the top level is not an object)")
    if doc.get("format") != FORMAT:
        r.fail(f"not a NavJump JSON file (format is {_short(doc.get('format'))}, "
               f"expected {FORMAT!r})")
    if doc.get("version") != VERSION or isinstance(doc.get("version"), bool):
        r.fail(f"NavJump JSON version {_short(doc.get('version'))} is not supported "
               f"(this reader reads version {VERSION})")
    missing = [k for k in REQUIRED_KEYS if k not in doc]
    if missing:
        r.fail(f"missing key(s): {', '.join(missing)}")
    if doc["up"] != "z":
        r.fail(f"'up' is {_short(doc['up'])}; NavJump JSON is always 'z'")
    for key in ("settings", "detail"):
        if not isinstance(doc[key], dict):
            r.fail(f"'{key}' must be an object")
    stats = doc.get("stats", {})
    if not isinstance(stats, dict):
        r.fail("'stats' must be an object")
    for key in ("polygons", "neighbours", "links"):
        if not isinstance(doc[key], list):
            r.fail(f"'{key}' must be a list")

    ref = empty_navmesh()
    vertices = r.array("vertices", doc["vertices"], ref.vertices.dtype, (3,))

    polys, neis = doc["polygons"], doc["neighbours"]
    n_polys = len(polys)
    if len(neis) != n_polys:
        r.fail(f"'neighbours' has {len(neis)} rows but 'polygons' has {n_polys}")
    longest = max((len(p) if isinstance(p, list) else 0 for p in polys), default=3)
    nvp = doc.get("polygon_max_vertices", max(longest, 3))
    if not isinstance(nvp, int) or isinstance(nvp, bool) or not 3 <= nvp <= MAX_POLYGON_VERTICES:
        r.fail(f"'polygon_max_vertices' must be a whole number in 3..{MAX_POLYGON_VERTICES}, "
               f"got {_short(nvp)}")
    for p in range(n_polys):
        row, nrow = polys[p], neis[p]
        if not isinstance(row, list) or not 3 <= len(row) <= nvp:
            r.fail(f"'polygons'[{p}] must be a list of 3..{nvp} vertex indices")
        if not isinstance(nrow, list) or len(nrow) != len(row):
            r.fail(f"'neighbours'[{p}] must have one entry per vertex of 'polygons'[{p}] "
                   f"({len(row)})")
    lengths = np.array([len(row) for row in polys], np.int64)
    rows = np.repeat(np.arange(n_polys), lengths)
    cols = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    polygons = np.full((n_polys, nvp), -1, ref.polygons.dtype)
    neighbours = np.full((n_polys, nvp), -1, ref.neighbours.dtype)
    polygons[rows, cols] = r.array("polygons", [i for row in polys for i in row],
                                   polygons.dtype, ())
    neighbours[rows, cols] = r.array("neighbours", [i for row in neis for i in row],
                                     neighbours.dtype, ())

    per_poly = {}
    for name in ("polygon_area", "polygon_region"):
        per_poly[name] = r.array(name, doc[name], getattr(ref, name).dtype, ())
    per_poly["polygon_stance"] = r.names("polygon_stance", doc["polygon_stance"],
                                         STANCE_NAMES).astype(ref.polygon_stance.dtype)
    for name, arr in per_poly.items():
        if arr.shape[0] != n_polys:
            r.fail(f"'{name}' has {arr.shape[0]} entries but there are {n_polys} polygons")

    detail = doc["detail"]
    for key in ("meshes", "vertices", "triangles"):
        if key not in detail:
            r.fail(f"missing key 'detail.{key}'")
    d_meshes = r.array("detail.meshes", detail["meshes"], ref.detail_meshes.dtype, (4,))
    d_verts = r.array("detail.vertices", detail["vertices"], ref.detail_vertices.dtype, (3,))
    d_tris = r.array("detail.triangles", detail["triangles"], ref.detail_triangles.dtype, (4,))

    links = doc["links"]
    n_links = len(links)
    kinds = np.zeros(n_links, ref.link_kind.dtype)
    fields: dict[str, list[object]] = {k: [] for k in LINK_KEYS if k != "kind"}
    for i, link in enumerate(links):
        if not isinstance(link, dict):
            r.fail(f"'links'[{i}] must be an object")
        absent = [k for k in LINK_KEYS if k not in link]
        if absent:
            r.fail(f"'links'[{i}] is missing key(s): {', '.join(absent)}")
        kinds[i] = r.names(f"links[{i}].kind", [link["kind"]], LINK_KINDS)[0]
        for k in fields:
            fields[k].append(link[k])
    link_arrays = {
        "link_kind": kinds,
        "link_start": r.array("links[].start", fields["start"], ref.link_start.dtype, (2, 3)),
        "link_end": r.array("links[].end", fields["end"], ref.link_end.dtype, (2, 3)),
        "link_bidirectional": r.array("links[].bidirectional", fields["bidirectional"],
                                      ref.link_bidirectional.dtype, ()),
        "link_start_poly": r.array("links[].start_polygon", fields["start_polygon"],
                                   ref.link_start_poly.dtype, ()),
        "link_end_poly": r.array("links[].end_polygon", fields["end_polygon"],
                                 ref.link_end_poly.dtype, ()),
        "link_apex": r.array("links[].apex", fields["apex"], ref.link_apex.dtype, ()),
        "link_length": r.array("links[].length", fields["length"], ref.link_length.dtype, ()),
        "link_cost": r.array("links[].cost", fields["cost"], ref.link_cost.dtype, ()),
    }
    areas = _areas_from_json(r, doc)
    link_arrays["link_area"] = _link_areas_from_json(
        r, links, kinds, areas.get("area_names", default_area_names()))
    nm = NavMesh(
        vertices=vertices, polygons=polygons, neighbours=neighbours,
        detail_meshes=d_meshes, detail_vertices=d_verts, detail_triangles=d_tris,
        settings=doc["settings"], stats=stats, **per_poly, **link_arrays,
        **areas, **_climb_from_json(r, doc),
        **_tiles_from_json(r, doc, n_polys, stats))
    return check_navmesh(nm, str(path))
