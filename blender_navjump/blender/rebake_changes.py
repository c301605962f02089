"""What makes Auto re-bake bake again, decided on plain data (no bpy).

:mod:`.live_rebake` reads the scene into a :class:`Signature` (the bake settings, the
source, how many objects) and a role per object; these functions compare them with the
values of the last bake and name the change ('' when there is none).
"""

from __future__ import annotations

from typing import NamedTuple


class Signature(NamedTuple):
    """What a bake of a scene depends on, besides geometry."""

    settings: tuple  # sorted (name, repr(value)) pairs, or (("error", message),)
    source: tuple  # (source mode, source collection name)
    objects: int  # objects the bake may read (NavJump's results not counted)


def make_signature(values: dict, source: tuple, objects: int) -> Signature:
    return Signature(tuple(sorted((k, repr(v)) for k, v in values.items())), tuple(source),
                     int(objects))


def settings_change(before: Signature | None, now: Signature) -> str:
    """'' when the signatures agree, else what changed."""
    if before == now:
        return ""
    if before is not None and before.objects != now.objects:
        return "objects added or removed"
    return "settings changed"


def role_change(before: dict[str, str], now: dict[str, str]) -> str:
    """The first object whose role differs from ``before`` (objects new to ``before`` do
    not count: their arrival is a change of the object count)."""
    changed = [name for name, role in now.items() if before.get(name, role) != role]
    return f"role of {changed[0]} changed" if changed else ""
