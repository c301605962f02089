"""Found ledges (core/ledges.py, docs/climbing.md "Found ledges"): checked against an
oracle written from the scene's construction (which box edges must be ledges), not from
the finder's code, at several angles."""

import math

import numpy as np
import pytest
from scenes import Scene

from blender_navjump.core import bake
from blender_navjump.core import climb as C
from blender_navjump.core import ledges as L
from blender_navjump.core.climb_geom import triangle_grid
from blender_navjump.core.kinds import CLIMB_LEDGE, CLIMB_LINK_HANG, CLIMB_LINK_MOUNT
from blender_navjump.core.settings import BakeSettings

SETTINGS = BakeSettings(climbing_enabled=True)  # jump up 1.0 m, max climb 3.0 m, r 0.6 m
# box heights: below a jump up, two in the climbing band, one above max_climb_height
# (all at least 0.3 m from a threshold: the navmesh surface lies up to a cell height above
# the floor)
HEIGHTS = (0.6, 1.8, 2.6, 3.6)
SIZE = 4.0  # box side (m)
PITCH = 8.0  # box spacing along x (m)


def rotated_box(scene, cx, cy, size, height, angle, objects=None, name=None):
    """A closed box (outward faces, corners not shared between faces) turned ``angle``
    about its centre; returns its top corners in order."""
    c, s = math.cos(angle), math.sin(angle)
    h = size / 2

    def at(x, y, z):
        return (cx + c * x - s * y, cy + s * x + c * y, z)

    corners = [(-h, -h), (h, -h), (h, h), (-h, h)]  # counter-clockwise from above
    first = len(scene.tris)
    scene.quad(*(at(x, y, height) for x, y in corners))  # top
    scene.quad(*(at(x, y, 0.0) for x, y in reversed(corners)))  # bottom
    for k in range(4):
        (x0, y0), (x1, y1) = corners[k], corners[(k + 1) % 4]
        scene.quad(at(x0, y0, 0.0), at(x1, y1, 0.0), at(x1, y1, height), at(x0, y0, height))
    if objects is not None:
        objects += [name] * (len(scene.tris) - first)
    return np.array([at(x, y, height) for x, y in corners])


def level(angle, plate=False):
    """A floor and one box per height, every box turned by ``angle``. Returns (vertices,
    triangles, oracle edges (name, a, b, height), per-triangle object names)."""
    scene = Scene().floor(-8, -8, PITCH * len(HEIGHTS) + 4, 12)
    objects = ["floor", "floor"]
    edges = []
    for i, hgt in enumerate(HEIGHTS):
        top = rotated_box(scene, i * PITCH, 2.0, SIZE, hgt, angle, objects, f"box{i}")
        for k in range(4):
            edges.append((f"box{i}", top[k], top[(k + 1) % 4], hgt))
    v, t = scene.arrays()
    return v, t, edges, objects


def oracle(edges, jump=1.0, climb=3.0):
    """The edges that must be ledges: every top edge of a box whose height is above a jump
    up and within the climb height (the floor around every box is open and walkable, and
    every top is wide enough to stand on)."""
    return [(n, a, b) for n, a, b, h in edges if jump < h <= climb]


def on_edge(p, a, b, tol=0.06):
    """Whether point p lies on segment ab (within tol across and in height)."""
    d = b - a
    t = np.clip((p - a) @ d / (d @ d), 0.0, 1.0)
    return np.linalg.norm(a + t * d - p) <= tol


def covered(a, b, ledges):
    """Length of segment ab covered by the ledges lying on it."""
    d = b - a
    length = float(np.linalg.norm(d))
    spans = []
    for e in ledges:
        if on_edge(e[0], a, b) and on_edge(e[1], a, b):
            s = sorted(float((p - a) @ d) / length for p in e)
            spans.append(s)
    spans.sort()
    total, end = 0.0, 0.0
    for s0, s1 in spans:
        s0 = max(s0, end)
        if s1 > s0:
            total += s1 - s0
            end = s1
    return total


@pytest.fixture(scope="module", params=[0.0, 17.0, 45.0, 73.0])
def baked(request):
    v, t, edges, objects = level(math.radians(request.param))
    return v, t, edges, objects, bake(v, t, SETTINGS)


def test_found_ledges_lie_on_the_walls_of_the_right_height_only(baked):
    v, t, edges, _, nm = baked
    out, warnings = C.add_climbing(nm, [], v, t, SETTINGS)
    assert warnings == []
    names = [str(n) for n in out.climb_element_name]
    assert names and all(n.startswith(L.FOUND_LEDGE_PREFIX) for n in names)
    assert np.all(out.climb_element_kind == CLIMB_LEDGE)
    ledges = out.climb_element_ends
    want = oracle(edges)
    assert len(want) == 8
    # every found ledge lies on an oracle edge ...
    for e in ledges:
        assert any(on_edge(e[0], a, b) and on_edge(e[1], a, b) for _, a, b in want), e
    # ... and every oracle edge is a ledge, but for its ends near the corners (the top's
    # navmesh, shrunk by the agent radius, is farther than the reach there)
    for _, a, b in want:
        assert covered(a, b, ledges) >= SIZE - 2 * 0.6, (a, b)
    assert out.stats["climb_found_ledges"] == ledges.shape[0]


def test_found_ledges_join_the_navmesh_front_and_top(baked):
    v, t, edges, _, nm = baked
    out, _ = C.add_climbing(nm, [], v, t, SETTINGS)
    kinds = set(out.climb_link_kind.tolist())
    assert {CLIMB_LINK_MOUNT, CLIMB_LINK_HANG} <= kinds
    # each found ledge gets a mount link (its top) and a two-way hang link (the floor)
    for e in range(out.climb_element_kind.shape[0]):
        nodes = set()
        for a, b in out.climb_edge_nodes[out.climb_edge_element == e].tolist():
            nodes |= {a, b}
        link = np.isin(out.climb_link_node, list(nodes))
        assert np.any(link & (out.climb_link_kind == CLIMB_LINK_MOUNT))
        assert np.any(link & (out.climb_link_kind == CLIMB_LINK_HANG)
                      & out.climb_link_bidirectional)


def test_switched_off_as_a_whole_and_per_object(baked):
    v, t, edges, objects, nm = baked
    off = BakeSettings(climbing_enabled=True, auto_ledges=False)
    out, _ = C.add_climbing(nm, [], v, t, off)
    assert out.climb_element_kind.shape[0] == 0
    # box1's triangles masked off: only box2's ledges remain, named after their object
    names = sorted(set(objects))
    index = np.array([names.index(o) for o in objects])
    mask = np.array([o != "box1" for o in objects])
    out, _ = C.add_climbing(nm, [], v, t, SETTINGS, ledge_mask=mask, triangle_object=index,
                            object_names=names)
    got = [str(n) for n in out.climb_element_name]
    assert got and all(n.startswith("box2 " + L.FOUND_LEDGE_PREFIX) for n in got)
    want = [(a, b) for n, a, b in oracle(edges) if n == "box2"]
    for e in out.climb_element_ends:
        assert any(on_edge(e[0], a, b) and on_edge(e[1], a, b) for a, b in want)
    with pytest.raises(ValueError, match="one value per triangle"):
        C.add_climbing(nm, [], v, t, SETTINGS, ledge_mask=mask[:-1])


def test_authored_ledge_wins_over_a_found_one(baked):
    v, t, edges, _, nm = baked
    _, a, b = oracle(edges)[0]
    authored = [("mine-ledge", CLIMB_LEDGE, np.array([a, b]))]
    out, warnings = C.add_climbing(nm, authored, v, t, SETTINGS)
    assert warnings == []
    assert str(out.climb_element_name[0]) == "mine-ledge"
    for e in out.climb_element_ends[1:]:  # no found ledge on the authored one's line
        assert not (on_edge(e[0], a, b) and on_edge(e[1], a, b))
    assert out.climb_element_kind.shape[0] == 8  # the 7 other edges are still found


def test_no_room_to_hang_removes_the_ledge_there_only():
    # a thin plate 0.4 m in front of one face of the 2.6 m box, from 1.2 m to 2.4 m high:
    # a hanging agent would hit it. Baked without the plate (so the floor is unchanged),
    # probed with it.
    v, t, edges, _ = level(0.0)
    nm = bake(v, t, SETTINGS)
    crit = L.LedgeCriteria.from_settings(SETTINGS)
    free = L.find_ledges(v, t, nm, crit)
    x0, y0 = 2 * PITCH - 2.0, 2.0 - 2.0 - 0.4  # box2's -y face is at y = 0
    plate = Scene().quad((x0, y0, 1.2), (x0 + 4, y0, 1.2), (x0 + 4, y0, 2.4), (x0, y0, 2.4))
    pv, pt = plate.arrays()
    grid = triangle_grid(np.concatenate([v, pv]), np.concatenate([t, pt + v.shape[0]]))
    blocked = L.find_ledges(v, t, nm, crit, grid=grid)

    def on_face(found):
        return [e for e in found.ends if abs(e[0, 1]) < 0.06 and abs(e[1, 1]) < 0.06
                and e[0, 2] == pytest.approx(2.6)]

    assert on_face(free) and not on_face(blocked)
    assert blocked.ends.shape[0] == free.ends.shape[0] - len(on_face(free))


def test_found_ledges_are_deterministic(baked):
    v, t, _, _, nm = baked
    a, _ = C.add_climbing(nm, [], v, t, SETTINGS)
    b, _ = C.add_climbing(nm, [], v, t, SETTINGS)
    for name in ("climb_element_ends", "climb_edge_nodes", "climb_link_point"):
        assert np.array_equal(getattr(a, name), getattr(b, name))


def test_auto_ledges_setting_is_validated_and_settable():
    from blender_navjump.core.settings import SettingsError

    assert BakeSettings().auto_ledges is True
    assert BakeSettings.parse_value("auto_ledges", "false") is False
    with pytest.raises(SettingsError, match="auto_ledges"):
        BakeSettings(auto_ledges="no").validate()


FAR = np.array([5000.0, -5000.0, 0.0])


def test_found_ledges_5_km_from_the_origin():
    v, t, edges, _ = level(math.radians(17.0))
    near_nm = bake(v, t, SETTINGS)
    far_nm = bake(v + FAR, t, SETTINGS)
    near, _ = C.add_climbing(near_nm, [], v, t, SETTINGS)
    far, _ = C.add_climbing(far_nm, [], v + FAR, t, SETTINGS)
    assert far.climb_element_kind.shape[0] == near.climb_element_kind.shape[0] > 0
    want = oracle(edges)
    ledges = far.climb_element_ends - FAR
    for e in ledges:  # on the walls of the right height, as at the origin
        assert any(on_edge(e[0], a, b) and on_edge(e[1], a, b) for _, a, b in want), e
    for _, a, b in want:
        assert covered(a, b, ledges) >= SIZE - 2 * 0.6, (a, b)


def test_obj_objects_ending_in_noledges_give_no_found_ledges(tmp_path):
    """OBJ input's per-object switch: an object named ``...-noledges`` is walkable (the
    navmesh is the same) but its walls give no found ledges; the CLI bake honours it."""
    import json
    import pathlib
    import subprocess
    import sys

    from blender_navjump.core.objio import read_obj_scene

    def obj(names):
        lines, base = [], 1
        for name, x in zip(names, (0.0, PITCH), strict=True):
            s = Scene()
            rotated_box(s, x, 2.0, SIZE, 2.6, 0.0)
            lines.append(f"o {name}")
            lines += [f"v {a!r} {b!r} {c!r}" for a, b, c in s.verts]
            lines += [f"f {a + base} {b + base} {c + base}" for a, b, c in s.tris]
            base += len(s.verts)
        floor = Scene().floor(-8, -8, PITCH + 6, 10)
        lines.append("o ground")
        lines += [f"v {a!r} {b!r} {c!r}" for a, b, c in floor.verts]
        lines += [f"f {a + base} {b + base} {c + base}" for a, b, c in floor.tris]
        path = tmp_path / f"{names[0]}.obj"
        path.write_text("\n".join(lines) + "\n")
        return path

    both = read_obj_scene(obj(["Block", "Crate"]))
    assert both.ledge_mask is None
    path = obj(["Block-noledges", "Crate"])
    scene = read_obj_scene(path)
    assert np.array_equal(scene.triangles, both.triangles)  # walkable all the same
    assert scene.ledge_mask.tolist() == [False] * 12 + [True] * 14  # 12 box, 14 more
    nm = bake(scene.vertices, scene.triangles, SETTINGS)
    out, _ = C.add_climbing(nm, [], scene.vertices, scene.triangles, SETTINGS,
                            ledge_mask=scene.ledge_mask)
    ends = np.asarray(out.climb_element_ends).reshape(-1, 3)
    assert ends.shape[0] and np.all(ends[:, 0] > PITCH - SIZE)  # the crate's only
    every, _ = C.add_climbing(nm, [], both.vertices, both.triangles, SETTINGS)
    assert every.climb_element_kind.shape[0] > out.climb_element_kind.shape[0]
    root = pathlib.Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, "-m", "blender_navjump", "bake", str(path), "--out",
                        str(tmp_path / "nav.json"), "--set", "climbing_enabled=true"],
                       cwd=root, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    doc = json.loads((tmp_path / "nav.json").read_text())
    got = np.array([e["ends"] for e in doc["climb"]["elements"]]).reshape(-1, 3)
    assert got.shape == ends.shape and np.all(got[:, 0] > PITCH - SIZE)
