"""The one table of NavJump's kinds: stances, area ids, link kinds, path-point flags, and
the colour each is shown in (viewport overlay, panel legend, glTF export).

Every module that names, numbers or colours one of these imports it from here.
"""

from __future__ import annotations

# ------------------------------------------------------------------ stances and areas
STANCE_NAMES = ("stand", "crouch", "prone")
STANCE_STAND, STANCE_CROUCH, STANCE_PRONE = 0, 1, 2
# Area ids carried by compact-heightfield spans and polygons: 0 is "not walkable";
# a walkable span's area id is its stance index + 1.
AREA_NULL = 0
AREA_STAND, AREA_CROUCH, AREA_PRONE = 1, 2, 3
# The area table of a NavMesh (``NavMesh.area_names``, index = area id = ``polygon_area``
# = Detour area id): ids 0..7 are built in (a polygon outside every modifier volume has the
# area of its stance; ids 4..7 are the links' Detour areas), user areas (modifier volumes,
# OBJ objects named ``...-area-NAME``) get the ids from USER_AREA_FIRST on, in order of first
# appearance. A Detour area id has 6 bits, hence MAX_AREAS.
BUILTIN_AREAS = ("null", "stand", "crouch", "prone", "drop", "jump_across", "jump_up", "custom")
USER_AREA_FIRST = len(BUILTIN_AREAS)
MAX_AREAS = 64
# Object-name suffixes (OBJ objects/groups) of the hand-made scene parts (core/areas.py,
# core/custom_links.py); such objects are not walkable geometry.
AREA_SUFFIX = "-area-"         # "<anything>-area-NAME": a modifier volume giving area NAME
NOLINKS_SUFFIX = "-nolinks"    # a volume: generated links with an end inside are dropped
LINK_SUFFIX = "-link"          # one line element "l a b": a hand-placed link a <-> b
LINK_ONEWAY_SUFFIX = "-link-oneway"  # the same, a -> b only

# ------------------------------------------------------------------ links
LINK_KINDS = ("drop", "jump_across", "jump_up", "custom")
LINK_DROP, LINK_JUMP_ACROSS, LINK_JUMP_UP, LINK_CUSTOM = 0, 1, 2, 3
# the kinds the link generator makes (core/links.py); "custom" links are hand-placed
GENERATED_LINK_KINDS = LINK_KINDS[:3]
# The area id (BUILTIN_AREAS) of a link of each kind without an area of its own
# (``NavMesh.link_area``; a hand-placed link may name a user area instead).
LINK_KIND_AREAS = tuple(BUILTIN_AREAS.index(k) for k in LINK_KINDS)

# ------------------------------------------------------------------ climbing (core/climb.py)
# Climb elements, the edges of the climb graph, the links joining it to the navmesh, and
# the abilities an agent may have (a bit mask: bit i = CLIMB_ABILITIES[i]).
CLIMB_ELEMENT_KINDS = ("ledge", "ladder", "pipe")
CLIMB_LEDGE, CLIMB_LADDER, CLIMB_PIPE = 0, 1, 2
# Object-name suffixes (OBJ objects and groups, Blender objects) that make a climb element;
# such objects are not walkable geometry.
CLIMB_SUFFIXES = {"-ledge": CLIMB_LEDGE, "-ladder": CLIMB_LADDER, "-pipe": CLIMB_PIPE}
# OBJ objects and groups whose name ends in this are walkable geometry as usual, but the top
# edges of their walls never become found ledges (the per-object switch of auto_ledges).
NOLEDGES_SUFFIX = "-noledges"
CLIMB_EDGE_KINDS = ("along", "jump", "drop", "back_jump", "corner")
CLIMB_EDGE_ALONG, CLIMB_EDGE_JUMP, CLIMB_EDGE_DROP, CLIMB_EDGE_BACK_JUMP, \
    CLIMB_EDGE_CORNER = 0, 1, 2, 3, 4
# The edge kinds an element's moves switch (core/climb_options.py): a corner (shimmying
# round an outside corner from one ledge to the next) is an "along" move of both ledges.
CLIMB_MOVE_KINDS = CLIMB_EDGE_KINDS[:4]
CLIMB_LINK_KINDS = ("mount", "ladder_foot", "hang")
CLIMB_LINK_MOUNT, CLIMB_LINK_LADDER_FOOT, CLIMB_LINK_HANG = 0, 1, 2
CLIMB_ABILITIES = ("climb", "ladder", "pipe", "shimmy", "mount", "back_jump")
ABILITY_CLIMB, ABILITY_LADDER, ABILITY_PIPE, ABILITY_SHIMMY, ABILITY_MOUNT, \
    ABILITY_BACK_JUMP = (1 << i for i in range(6))
# Abilities a link of each CLIMB_LINK_KINDS kind needs besides the holding abilities of its
# element (core/climb.py, join_navmesh): mount `mount`, a foot nothing more, hang `climb`.
CLIMB_LINK_BASE_ABILITIES = (ABILITY_MOUNT, 0, ABILITY_CLIMB)
# ... and what files without per-link abilities mean (the links' kinds alone).
CLIMB_LINK_KIND_ABILITIES = (ABILITY_MOUNT, ABILITY_LADDER, ABILITY_CLIMB)

# ------------------------------------------------------------------ path points
# What happens at a point of a path (PathResult.flags).
# "area_change": the path enters another area (same stance) there.
# Climbing moves (core/query/climb.py) follow: each names the move that starts at its point
# (getting on from the ground, moving on the climb graph, getting off onto the ground).
FLAG_NAMES = ("walk", "jump_start", "jump_end", "drop_start", "drop_end", "stance_change",
              "area_change",
              "hang_jump_up", "ladder_on", "climb_down_from_mount",
              "shimmy", "ladder_climb", "pipe_climb", "climb_jump", "climb_drop",
              "climb_back_jump", "mount", "ladder_off", "climb_let_go", "climb_corner")
FLAG_WALK, FLAG_JUMP_START, FLAG_JUMP_END, FLAG_DROP_START, FLAG_DROP_END, \
    FLAG_STANCE_CHANGE, FLAG_AREA_CHANGE = range(7)

# ------------------------------------------------------------------ colours
# Display colours, sRGB, RGBA.
STANCE_COLORS = {
    "stand": (0.15, 0.45, 1.0, 1.0),    # blue
    "crouch": (1.0, 0.85, 0.05, 1.0),   # yellow
    "prone": (0.75, 0.2, 1.0, 1.0),     # purple
}
LINK_COLORS = {
    "drop": (0.0, 0.95, 0.95, 1.0),        # cyan
    "jump_across": (1.0, 0.45, 0.0, 1.0),  # orange
    "jump_up": (0.15, 1.0, 0.15, 1.0),     # green
    "custom": (1.0, 0.2, 0.6, 1.0),        # pink
}
UNKNOWN_COLOR = (0.5, 0.5, 0.5, 1.0)       # a stance or kind outside these tables
# Climbing (overlay layers of blender/overlay_climb.py and its legend): elements by kind,
# the graph's nodes, its implicit edges by kind (an "along" edge is drawn as its element),
# the links joining it to the navmesh by kind, and a path's climbing moves.
CLIMB_ELEMENT_COLORS = {
    "ledge": (0.9, 0.55, 0.25, 1.0),    # tan
    "ladder": (0.35, 1.0, 0.75, 1.0),   # mint
    "pipe": (0.7, 0.72, 0.85, 1.0),     # steel
}
CLIMB_NODE_COLOR = (0.95, 0.95, 0.95, 1.0)  # near white
CLIMB_EDGE_COLORS = {
    "along": CLIMB_ELEMENT_COLORS["ledge"],  # drawn by the element layer
    "jump": (1.0, 1.0, 0.55, 1.0),      # pale yellow
    "drop": (0.55, 0.85, 1.0, 1.0),     # sky
    "back_jump": (1.0, 0.55, 0.55, 1.0),  # salmon
    "corner": (0.8, 0.6, 1.0, 1.0),     # lavender
}
CLIMB_LINK_COLORS = {
    "mount": (1.0, 0.8, 0.55, 1.0),     # peach
    "ladder_foot": (0.1, 0.7, 0.5, 1.0),  # sea green
    "hang": (1.0, 0.3, 0.25, 1.0),      # coral
}
PATH_CLIMB_COLOR = (0.75, 1.0, 0.0, 1.0)   # lime: a test path's climbing moves


def srgb_to_linear(c: float) -> float:
    """One sRGB channel (0..1) as linear light (glTF vertex colours are linear)."""
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
