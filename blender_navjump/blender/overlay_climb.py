"""Overlay geometry of the climb graph, and a test path's climbing moves.

Pure numpy (no bpy, no gpu), like :mod:`.overlay_geometry`, whose :class:`LayerGeometry`
it returns; every builder is vectorised over elements, nodes, edges and links (the only
Python loops run over the few kinds). Colours come from the one table, ``core.kinds``.

Layers (:data:`CLIMB_LAYERS`):

* ``climb_elements``: each element's segment, thick, in its kind's colour.
* ``climb_nodes``: a small 3-axis cross at every node.
* ``climb_edges``: the implicit edges (jump, drop, back jump) as straight lines in their
  kind's colour with an arrowhead at the end (and at the start when two-way). "Along"
  edges are the elements themselves.
* ``climb_links``: the links to the navmesh (mount, ladder foot, hang), node to ground
  point, with arrowheads as above.
"""

from __future__ import annotations

import numpy as np

from ..core.kinds import (
    CLIMB_EDGE_ALONG,
    CLIMB_EDGE_COLORS,
    CLIMB_EDGE_KINDS,
    CLIMB_ELEMENT_COLORS,
    CLIMB_ELEMENT_KINDS,
    CLIMB_LINK_COLORS,
    CLIMB_LINK_KINDS,
    CLIMB_NODE_COLOR,
    FLAG_NAMES,
    PATH_CLIMB_COLOR,
)
from .overlay_geometry import (
    LayerGeometry,
    LineSet,
    _concat_linesets,
    _diamond,
    _horizontal_side,
    _lineset,
    arrowheads,
)

CLIMB_LAYERS = ("climb_elements", "climb_nodes", "climb_edges", "climb_links")
# scene.navjump_climb toggle of each layer
LAYER_TOGGLES = {"climb_elements": "show_climb_elements", "climb_nodes": "show_climb_nodes",
                 "climb_edges": "show_climb_edges", "climb_links": "show_climb_links"}
ELEMENT_WIDTH = 5.0
EDGE_WIDTH = 2.0
NODE_WIDTH = 2.0
PATH_CLIMB_WIDTH = 5.0
PATH_CURVE_WIDTH = 2.0
PATH_CURVE_SPACING = 0.2  # metres between the drawn curve's samples
NODE_SIZE = 0.12   # half-length of a node's cross arms (m)
ARROW_SIZE = 0.2
# path-point flags that start a climbing move (core/query/climb.py): every flag from
# "hang_jump_up" on
FIRST_CLIMB_FLAG = FLAG_NAMES.index("hang_jump_up")


def _rows(navmesh, name, tail, dtype=np.float64):
    value = np.asarray(getattr(navmesh, name, np.zeros((0,) + tail)), dtype)
    if value.ndim != 1 + len(tail) or tuple(value.shape[1:]) != tail:
        return None
    return value


def _arrowed(a, b, two_way, rgba, width) -> list[LineSet]:
    """Segments a -> b with an arrowhead at b (and at a where ``two_way``)."""
    out = [_lineset(a, b, rgba, width)]
    if a.shape[0] == 0:
        return out
    d = b - a
    across = _horizontal_side(d)
    size = np.full(a.shape[0], ARROW_SIZE)
    out.append(_lineset(*arrowheads(b, a - b, across, size), rgba, width))
    if two_way.any():
        out.append(_lineset(*arrowheads(a[two_way], d[two_way], across[two_way],
                                        size[two_way]), rgba, width))
    return out


def build_climb_layers(navmesh, issues: list[str] | None = None,
                       lift: float = 0.0) -> dict[str, LayerGeometry]:
    """The four climbing layers of a navmesh (empty layers when it has no climb graph).
    Inconsistent arrays are left out and named in ``issues``."""
    issues = issues if issues is not None else []
    layers = {name: LayerGeometry() for name in CLIMB_LAYERS}
    up = np.array([0.0, 0.0, lift])
    # elements
    ends = _rows(navmesh, "climb_element_ends", (2, 3))
    kind = np.asarray(getattr(navmesh, "climb_element_kind", np.zeros(0)), np.int64).reshape(-1)
    if ends is None or ends.shape[0] != kind.shape[0]:
        issues.append("climb element arrays do not match: elements not drawn")
    elif kind.size:
        ok = np.isfinite(ends).all(axis=(1, 2)) & (kind >= 0) & (kind < len(CLIMB_ELEMENT_KINDS))
        sets = []
        for k, name in enumerate(CLIMB_ELEMENT_KINDS):
            sel = ok & (kind == k)
            if sel.any():
                sets.append(_lineset(ends[sel, 0] + up, ends[sel, 1] + up,
                                     CLIMB_ELEMENT_COLORS[name], ELEMENT_WIDTH))
        if (~ok).any():
            issues.append(f"{int((~ok).sum())} climb elements with invalid kind or "
                          f"coordinates were skipped")
        layers["climb_elements"] = LayerGeometry(lines=[_concat_linesets(sets, ELEMENT_WIDTH)])
    # nodes
    nodes = _rows(navmesh, "climb_node_position", (3,))
    if nodes is None:
        issues.append("climb_node_position is mis-shaped: climb nodes not drawn")
        nodes = np.zeros((0, 3))
    n_nodes = nodes.shape[0]
    node_ok = np.isfinite(nodes).all(axis=1)
    if n_nodes:
        c = nodes[node_ok] + up
        axes = np.eye(3) * NODE_SIZE
        a = (c[:, None, :] - axes[None]).reshape(-1, 3)
        b = (c[:, None, :] + axes[None]).reshape(-1, 3)
        layers["climb_nodes"] = LayerGeometry(lines=[_lineset(a, b, CLIMB_NODE_COLOR,
                                                              NODE_WIDTH)])
    # edges
    edge_nodes = _rows(navmesh, "climb_edge_nodes", (2,), np.int64)
    edge_kind = np.asarray(getattr(navmesh, "climb_edge_kind", np.zeros(0)),
                           np.int64).reshape(-1)
    edge_el = np.asarray(getattr(navmesh, "climb_edge_element", np.zeros(0)),
                         np.int64).reshape(-1)
    bidir = np.asarray(getattr(navmesh, "climb_edge_bidirectional", np.zeros(0)),
                       np.bool_).reshape(-1)
    if edge_nodes is None or not (edge_nodes.shape[0] == edge_kind.shape[0]
                                  == edge_el.shape[0] == bidir.shape[0]):
        if edge_kind.size:
            issues.append("climb edge arrays do not match: climb edges not drawn")
        edge_nodes = np.zeros((0, 2), np.int64)
        edge_kind = edge_el = np.zeros(0, np.int64)
        bidir = np.zeros(0, np.bool_)
    in_range = ((edge_nodes >= 0) & (edge_nodes < n_nodes)).all(axis=1)
    safe = np.where(in_range[:, None], edge_nodes, 0)
    edge_ok = in_range & (node_ok[safe].all(axis=1) if n_nodes else False)
    if (~edge_ok).any():
        issues.append(f"{int((~edge_ok).sum())} climb edges with invalid nodes were skipped")
    # implicit edges
    sets = []
    for k, name in enumerate(CLIMB_EDGE_KINDS):
        if k == CLIMB_EDGE_ALONG:
            continue
        sel = edge_ok & (edge_kind == k)
        if sel.any():
            a = nodes[safe[sel, 0]] + up
            b = nodes[safe[sel, 1]] + up
            sets += _arrowed(a, b, bidir[sel], CLIMB_EDGE_COLORS[name], EDGE_WIDTH)
    layers["climb_edges"] = LayerGeometry(lines=[_concat_linesets(sets, EDGE_WIDTH)])
    # links to the navmesh
    lk = np.asarray(getattr(navmesh, "climb_link_kind", np.zeros(0)), np.int64).reshape(-1)
    ln = np.asarray(getattr(navmesh, "climb_link_node", np.zeros(0)), np.int64).reshape(-1)
    lp = _rows(navmesh, "climb_link_point", (3,))
    lb = np.asarray(getattr(navmesh, "climb_link_bidirectional", np.zeros(0)),
                    np.bool_).reshape(-1)
    if lp is None or not (lk.shape[0] == ln.shape[0] == lp.shape[0] == lb.shape[0]):
        if lk.size:
            issues.append("climb link arrays do not match: climb links not drawn")
        return layers
    ok = (ln >= 0) & (ln < n_nodes) & np.isfinite(lp).all(axis=1)
    ok &= node_ok[np.clip(ln, 0, max(n_nodes - 1, 0))] if n_nodes else False
    if (~ok).any():
        issues.append(f"{int((~ok).sum())} climb links with invalid nodes or points were "
                      f"skipped")
    sets = []
    for k, name in enumerate(CLIMB_LINK_KINDS):
        sel = ok & (lk == k)
        if sel.any():
            sets += _arrowed(nodes[ln[sel]] + up, lp[sel] + up, lb[sel],
                             CLIMB_LINK_COLORS[name], EDGE_WIDTH)
    layers["climb_links"] = LayerGeometry(lines=[_concat_linesets(sets, EDGE_WIDTH)])
    return layers


# ------------------------------------------------------------------ test path
def climbing_segments(flags) -> np.ndarray:
    """Indices i of the path segments i -> i+1 that are climbing moves (the move starting at
    a point is named by its flag)."""
    fl = np.asarray(flags, np.int64).reshape(-1)
    if fl.size < 2:
        return np.zeros(0, np.int64)
    return np.nonzero(fl[:-1] >= FIRST_CLIMB_FLAG)[0]


def path_climb_lines(points, flags, lift: float = 0.1, curve: bool = True) -> list[LineSet]:
    """The climbing moves of a test path: their segments in the path-climbing colour, over
    the path's own line, a diamond at every point where a climbing move starts and (with
    ``curve``) the path's smoothed curve (``core/query/curve.py``) as a thin line in the
    same colour."""
    pts = np.asarray(points if points is not None else np.zeros((0, 3)), np.float64)
    pts = pts.reshape(-1, 3)
    fl = np.asarray(flags, np.int64).reshape(-1)
    if pts.shape[0] < 2 or fl.shape[0] != pts.shape[0] or not np.isfinite(pts).all():
        return []
    idx = climbing_segments(fl)
    if idx.size == 0:
        return []
    p = pts + np.array([0.0, 0.0, lift])
    out = [_lineset(p[idx], p[idx + 1], PATH_CLIMB_COLOR, PATH_CLIMB_WIDTH),
           _lineset(*_diamond(p[idx], 0.2), PATH_CLIMB_COLOR, PATH_CLIMB_WIDTH)]
    if curve:
        from ..core.query.curve import path_curve  # the core is loaded once a path exists

        c = path_curve(p, fl).sample(PATH_CURVE_SPACING).points
        out.append(_lineset(c[:-1], c[1:], PATH_CLIMB_COLOR, PATH_CURVE_WIDTH))
    return out


def path_climb_summary(flags) -> dict:
    """Counts for the readout: climbing moves, and how many per move name."""
    fl = np.asarray(flags, np.int64).reshape(-1)
    idx = climbing_segments(fl)
    moves: dict[str, int] = {}
    for f in fl[idx].tolist():  # a handful of moves per path
        moves[FLAG_NAMES[f]] = moves.get(FLAG_NAMES[f], 0) + 1
    return {"climb_moves": int(idx.size), "climb_by_move": moves}


def visible_climb_layers(pg) -> set[str]:
    """Climbing layers switched on in ``scene.navjump_climb`` (``pg``)."""
    if pg is None:
        return set()
    return {name for name, toggle in LAYER_TOGGLES.items() if getattr(pg, toggle, False)}


def legend_entries(visible, geometry) -> list[tuple[str, tuple]]:
    """(label, colour) of each climbing kind drawn in ``geometry``'s visible layers."""
    def drawn(layer, rgba):
        if layer not in visible or layer not in geometry.layers:
            return False
        want = np.array(rgba, np.float32)
        return any(np.isclose(s.colors, want).all(axis=1).any()
                   for s in geometry.layers[layer].lines if s.count)

    out = []
    for name in CLIMB_ELEMENT_KINDS:
        if drawn("climb_elements", CLIMB_ELEMENT_COLORS[name]):
            out.append((name.title(), CLIMB_ELEMENT_COLORS[name]))
    if drawn("climb_nodes", CLIMB_NODE_COLOR):
        out.append(("Climb node", CLIMB_NODE_COLOR))
    for name in CLIMB_EDGE_KINDS[1:]:
        if drawn("climb_edges", CLIMB_EDGE_COLORS[name]):
            out.append(("Climb " + name.replace("_", " "), CLIMB_EDGE_COLORS[name]))
    for name in CLIMB_LINK_KINDS:
        if drawn("climb_links", CLIMB_LINK_COLORS[name]):
            out.append((name.replace("_", " ").capitalize() + " link", CLIMB_LINK_COLORS[name]))
    if drawn("path", PATH_CLIMB_COLOR):
        out.append(("Path climbing", PATH_CLIMB_COLOR))
    return out


def climbing_goals(navmesh, limit: int = 8) -> np.ndarray:
    """Up to ``limit`` ground points where a climb ends on the floor above (mount links),
    highest first: goals a path from the ground reaches by climbing (for pictures)."""
    kind = np.asarray(getattr(navmesh, "climb_link_kind", np.zeros(0)), np.int64).reshape(-1)
    point = np.asarray(getattr(navmesh, "climb_link_point", np.zeros((0, 3))),
                       np.float64).reshape(-1, 3)
    if kind.shape[0] != point.shape[0]:
        return np.zeros((0, 3))
    from ..core.kinds import CLIMB_LINK_MOUNT

    mount = point[kind == CLIMB_LINK_MOUNT]
    order = np.argsort(-mount[:, 2], kind="stable")
    return mount[order[:limit]]


def snap_to_climb_node(navmesh, point, within: float) -> np.ndarray | None:
    """The climb node nearest ``point`` when it is within ``within`` metres (a path-test
    end dragged onto a ledge, ladder or pipe: an agent already climbing), else None."""
    nodes = np.asarray(getattr(navmesh, "climb_node_position", np.zeros((0, 3))),
                       np.float64).reshape(-1, 3)
    p = np.asarray(point, np.float64).reshape(3)
    if nodes.shape[0] == 0 or not np.isfinite(p).all():
        return None
    d = np.linalg.norm(nodes - p, axis=1)
    i = int(np.argmin(d))
    return nodes[i].copy() if d[i] <= within else None
