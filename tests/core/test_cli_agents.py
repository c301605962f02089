"""``bake --agent/--area-cost`` and ``path --area-cost`` with OBJ links and volumes:
real processes, real files."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
COMMON = ["--cell-size", "0.2", "--cell-height", "0.1", "--max-climb", "0.4",
          "--agent-height", "1.8"]


def run(*args):
    return subprocess.run([sys.executable, "-m", "blender_navjump", *map(str, args)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)


def _box(x0, y0, z0, x1, y1, z1):
    v = [(x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0),
         (x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]
    f = [(1, 4, 3, 2), (5, 6, 7, 8), (1, 2, 6, 5), (2, 3, 7, 6), (3, 4, 8, 7), (4, 1, 5, 8)]
    return v, f


def write_level(path, link_end=(15, 5, 0), link_name="bridge-link"):
    """Floor A [0, 10]^2 with water across x 4..6, island B [14, 20] x [0, 10] and a link
    from A to B."""
    wv, wf = _box(4, -1, -1, 6, 11, 2)
    objects = [
        ("floorA", [(0, 0, 0), (10, 0, 0), (10, 10, 0), (0, 10, 0)], [(1, 2, 3, 4)], []),
        ("floorB", [(14, 0, 0), (20, 0, 0), (20, 10, 0), (14, 10, 0)], [(1, 2, 3, 4)], []),
        ("pool-area-water", wv, wf, []),
        (link_name, [(9, 5, 0), link_end], [], [(1, 2)]),
    ]
    lines, n = [], 0
    for name, verts, faces, segs in objects:
        lines.append(f"o {name}")
        lines += [f"v {x} {y} {z}" for x, y, z in verts]
        lines += ["f " + " ".join(str(i + n) for i in f) for f in faces]
        lines += ["l " + " ".join(str(i + n) for i in s) for s in segs]
        n += len(verts)
    path.write_text("\n".join(lines) + "\n")
    return path


def test_agents_areas_and_links_from_the_command_line(tmp_path):
    level = write_level(tmp_path / "level.obj")
    out = tmp_path / "nav.json"
    r = run("bake", level, "--out", out, *COMMON, "--agent", "human:agent_radius=0.4",
            "--agent", "dog:agent_radius=0.2,area_cost.water=inf", "--area-cost", "water=3",
            "--format", "json,detour")
    assert r.returncode == 0, r.stderr
    assert not out.exists()  # the single-agent name is not written with --agent
    docs = {name: json.loads((tmp_path / f"nav.{name}.json").read_text())
            for name in ("human", "dog")}
    assert (tmp_path / "nav.dog.detour.bin").is_file()
    for name, doc in docs.items():
        areas = {a["name"]: a for a in doc["areas"]}
        assert areas["water"]["id"] == 8
        assert areas["water"]["cost"] == (None if name == "dog" else 3.0)
        assert "water" in doc["polygon_area_name"] and "stand" in doc["polygon_area_name"]
        assert [ln["kind"] for ln in doc["links"]] == ["custom"]
        assert doc["links"][0]["bidirectional"] is True
    # eroded by each agent's radius (to a cell: 0.2 m)
    human_x = min(v[0] for v in docs["human"]["vertices"])
    dog_x = min(v[0] for v in docs["dog"]["vertices"])
    assert human_x == pytest.approx(0.4, abs=0.21) and dog_x == pytest.approx(0.2, abs=0.21)
    assert human_x - dog_x == pytest.approx(0.2, abs=1e-6)

    def path(name, *extra):
        p = run("path", tmp_path / f"nav.{name}.json", "--start", 1, 5, 0, "--goal", 18, 5, 0,
                *extra)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)

    human = path("human")  # over the water (cost 3) and the hand-placed link
    assert human["found"] and human["links"] == [0]
    # 3 m of ground, 2 m of water at 3, 3 m of ground, the 6 m link, 3 m of ground
    assert human["cost"] == pytest.approx(3 + 2 * 3 + 3 + 6 + 3, abs=0.2)
    assert "area_change" in human["flags"]
    assert not path("dog")["found"]  # the dog never enters water
    assert path("dog", "--area-cost", "water=1")["found"]
    bad = run("path", tmp_path / "nav.dog.json", "--start", 1, 5, 0, "--goal", 18, 5, 0,
              "--area-cost", "lava=2")
    assert bad.returncode == 2 and "area 'lava' is not in this navmesh" in bad.stderr


def test_bad_agent_and_link_input_name_the_setting_and_object(tmp_path):
    level = write_level(tmp_path / "level.obj", link_end=(15, 5, 40), link_name="lift-link")
    out = tmp_path / "nav.json"
    r = run("bake", level, "--out", out, *COMMON, "--agent", "dog:agent_max_climb=3")
    assert r.returncode == 2
    assert r.stderr.startswith("error: agent 'dog': agent_max_climb: 3 m is not below")
    r = run("bake", level, "--out", out, *COMMON)
    assert r.returncode == 2
    assert "link 'lift-link': its end (15.0, 5.0, 40.0) is" in r.stderr
    assert list(tmp_path.iterdir()) == [level]  # nothing written
