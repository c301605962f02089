"""Typed doors to the Blender calls whose fake-bpy-module-4-2 stubs give the wrong type.

scripts/typecheck.sh checks the package against those stubs (the Blender 4.2 LTS API). They
write ``-> None`` for C functions whose reference docs name no return type; each door here calls
Blender exactly as the callers did and states the type Blender really returns, so the values
that flow on (a shader, the register pair) are checked everywhere else. The ``type: ignore`` for
each of these stub gaps lives here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from bpy.types import Preferences
    from gpu.types import GPUFrameBuffer, GPUOffScreen, GPUShader


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


def blender_preferences() -> Preferences:
    """``bpy.context.preferences``, which a running Blender always has (the stubs allow None)."""
    import bpy

    prefs = bpy.context.preferences
    if prefs is None:
        raise RuntimeError("Blender's preferences are not available in this context")
    return prefs


def register_cli_command(command_id: str, execute: Callable[[list[str]], int]) -> object:
    """``bpy.utils.register_cli_command``: the handle that unregisters the command."""
    import bpy

    # stub gap: declared -> None
    handle = bpy.utils.register_cli_command(command_id, execute)  # type: ignore[func-returns-value]
    return cast(object, handle)


def new_offscreen(width: int, height: int) -> GPUOffScreen:
    """``gpu.types.GPUOffScreen(width, height)`` (the stubs give it no constructor)."""
    import gpu

    return gpu.types.GPUOffScreen(width, height)  # type: ignore[call-arg]


def offscreen_bound(offscreen: GPUOffScreen) -> AbstractContextManager[None]:
    """``offscreen.bind()``: a context manager that draws into ``offscreen``."""
    bound = offscreen.bind()  # type: ignore[func-returns-value]  # stub: -> None
    return cast("AbstractContextManager[None]", bound)


def active_framebuffer() -> GPUFrameBuffer:
    """``gpu.state.active_framebuffer_get()`` (Blender 3.0+). The stubs take the function's
    name from its docstring, which spells it ``framebuffer_active_get``."""
    import gpu

    return gpu.state.active_framebuffer_get()  # type: ignore[attr-defined]


def matrix_push_pop() -> AbstractContextManager[None]:
    """``gpu.matrix.push_pop()``: restores the model-view matrix on exit."""
    import gpu

    saved = gpu.matrix.push_pop()  # type: ignore[func-returns-value]  # stub: -> None
    return cast("AbstractContextManager[None]", saved)


def projection_push_pop() -> AbstractContextManager[None]:
    """``gpu.matrix.push_pop_projection()``: restores the projection matrix on exit."""
    import gpu

    saved = gpu.matrix.push_pop_projection()  # type: ignore[func-returns-value]  # stub: -> None
    return cast("AbstractContextManager[None]", saved)


def library_load(path: str) -> AbstractContextManager[tuple[Any, Any]]:
    """``bpy.data.libraries.load(path)``: a context manager giving (data_from, data_to)."""
    import bpy

    loading = bpy.data.libraries.load(path)  # type: ignore[func-returns-value]  # stub: -> None
    return cast("AbstractContextManager[tuple[Any, Any]]", loading)
