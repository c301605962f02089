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


def blob_props(navmeshes: dict, drawn: str = "") -> dict:
    """The custom properties that hold every agent's NavMesh (for a new result mesh);
    ``drawn``: the agent its faces show. Empty for a single-agent bake."""
    names = [n for n in navmeshes if n]
    if not names:
        return {}
    props: dict = {DRAWN_KEY: drawn}
    for name in names:
        data = navmesh_to_bytes(navmeshes[name], compress=True)
        props[BLOB_PREFIX + name] = bytes_to_words(data)
        props[f"{BLOB_PREFIX}{name}.size"] = len(data)
    props[AGENTS_KEY] = json.dumps(names)
    return props


def store(mesh, navmeshes: dict, drawn: str = "") -> None:
    """Put every agent's NavMesh on ``mesh`` (a new result mesh)."""
    for key, value in blob_props(navmeshes, drawn).items():
        if key in mesh:  # see storage.set_prop: never assign over an array in place
            del mesh[key]
        mesh[key] = value


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
