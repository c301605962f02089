"""Per-element climbing options (pure Python: no numpy kernels, no numba), so Blender's
property code can name them without loading the core. See docs/climbing.md,
"Per-element abilities, moves and links"."""

from __future__ import annotations

from numbers import Integral
from typing import NamedTuple

from .kinds import CLIMB_ABILITIES, CLIMB_LINK_KINDS, CLIMB_MOVE_KINDS

# Moves (bit i: edges of CLIMB_MOVE_KINDS[i] may touch an element; a corner is an along
# move) and navmesh links (bit i: links of CLIMB_LINK_KINDS[i] at its nodes) an element
# allows by default: all.
ALL_MOVES = (1 << len(CLIMB_MOVE_KINDS)) - 1
ALL_LINKS = (1 << len(CLIMB_LINK_KINDS)) - 1
ALL_ABILITIES = (1 << len(CLIMB_ABILITIES)) - 1


class ElementOptions(NamedTuple):
    """Per-element settings (an item's optional fourth field; Blender's per-object
    climbing settings). See docs/climbing.md, "Per-element abilities, moves and links"."""

    abilities: int | None = None  # bit mask of CLIMB_ABILITIES it needs; None: its kind's
    moves: int = ALL_MOVES  # bit i: edges of CLIMB_MOVE_KINDS[i] may touch it
    links: int = ALL_LINKS  # bit i: links of CLIMB_LINK_KINDS[i] may start at its nodes

    def check(self, name) -> None:
        """ValueError naming the element when a mask is out of range."""
        for field, value, top in (("abilities", self.abilities, ALL_ABILITIES),
                                  ("moves", self.moves, ALL_MOVES),
                                  ("links", self.links, ALL_LINKS)):
            if value is not None and not (isinstance(value, Integral)
                                          and 0 <= int(value) <= top):
                raise ValueError(f"climb element {name!r}: {field} must be a bit mask in "
                                 f"[0, {top}], got {value!r}")
