"""Typed doors to the Blender calls whose fake-bpy-module-4-2 stubs give the wrong type.

scripts/typecheck.sh checks the package against those stubs (the Blender 4.2 LTS API). They
write ``-> None`` for C functions whose reference docs name no return type; each door here calls
Blender exactly as the callers did and states the type Blender really returns, so the values
that flow on (a shader, the register pair) are checked everywhere else. The ``type: ignore`` for
each of these stub gaps lives here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from gpu.types import GPUShader


def register_classes_factory(
        classes: Sequence[type]) -> tuple[Callable[[], None], Callable[[], None]]:
    """``bpy.utils.register_classes_factory``: the (register, unregister) pair it returns."""
    import bpy  # here, like gpu below: importing this module costs nothing

    # stub gap: declared -> None
    pair = bpy.utils.register_classes_factory(classes)  # type: ignore[func-returns-value]
    return cast("tuple[Callable[[], None], Callable[[], None]]", pair)


def builtin_shader(name: str) -> GPUShader:
    """``gpu.shader.from_builtin(name)``: the shader it returns."""
    import gpu

    shader = gpu.shader.from_builtin(name)  # type: ignore[func-returns-value]  # stub: -> None
    return cast("GPUShader", shader)


def gpu_state_get() -> tuple[str, str, bool]:
    """``gpu.state``'s blend mode, depth test and depth mask, to be set back later."""
    import gpu

    st = gpu.state
    # stub gaps: all three declared -> None
    state = (st.blend_get(), st.depth_test_get(), st.depth_mask_get())  # type: ignore[func-returns-value]
    return cast("tuple[str, str, bool]", state)
