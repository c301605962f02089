"""Per-agent results in the .blend (issue 14).

A bake of several agents stores every agent's NavMesh on the ``NavJump Navmesh`` mesh data
(``navjump_agent_npz.<NAME>`` blobs, the list in ``navjump_agents``), beside the usual
blob, which holds the agent shown at bake time (also drawn as the result objects).
:func:`shown_name` picks the agent the overlay, the path test and the export use
(``scene.navjump_agents.shown``, else the first baked one).
"""

from __future__ import annotations

import json

from .agents_model import shown_agent
from .summary import bytes_to_words, navmesh_from_bytes, navmesh_to_bytes, words_to_bytes

AGENTS_KEY = "navjump_agents"
DRAWN_KEY = "navjump_agent_drawn"  # the agent the result objects show
BLOB_PREFIX = "navjump_agent_npz."


def store(mesh, navmeshes: dict, drawn: str = "") -> None:
    """Put every agent's NavMesh on ``mesh`` (a new result mesh); ``drawn``: the agent its
    faces show."""
    names = [n for n in navmeshes if n]
    if not names:
        return
    mesh[DRAWN_KEY] = drawn
    for name in names:
        data = navmesh_to_bytes(navmeshes[name], compress=True)
        mesh[BLOB_PREFIX + name] = bytes_to_words(data)
        mesh[f"{BLOB_PREFIX}{name}.size"] = len(data)
    mesh[AGENTS_KEY] = json.dumps(names)


def baked_names(mesh) -> list[str]:
    """The agents baked into this result mesh ([] for a single-agent bake)."""
    if mesh is None:
        return []
    text = mesh.get(AGENTS_KEY)
    return list(json.loads(text)) if text else []


def drawn_name(mesh) -> str:
    """The agent the result objects show ("" for a single-agent bake)."""
    return str(mesh.get(DRAWN_KEY, "")) if mesh is not None else ""


def shown_name(scene, mesh) -> str:
    pg = getattr(scene, "navjump_agents", None)
    return shown_agent(baked_names(mesh), pg.shown if pg is not None else "")


def load(mesh, name: str):
    """The stored NavMesh of agent ``name`` on ``mesh``, or None."""
    words = mesh.get(BLOB_PREFIX + name)
    size = mesh.get(f"{BLOB_PREFIX}{name}.size")
    if words is None or size is None:
        return None
    return navmesh_from_bytes(words_to_bytes(words, int(size)))
