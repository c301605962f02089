"""``navjump.export``: write the scene's baked navmesh (File > Export > NavJump navmesh).

The export is the command line's own (:func:`export.export_navmesh`): the same checks,
the same writers, all formats or none. The path names the NavJump JSON file; the other
formats go beside it with their own suffixes (``level.json`` -> ``level.obj``,
``level.glb``, ``level.detour.bin``), as ``bake --out`` does. The path and the formats
of the last successful export are kept in the scene (``scene.navjump.export_path``,
``export_formats``), so the next export offers them again.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import TYPE_CHECKING

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy.types import Operator, UILayout

from ..export import FORMATS
from . import storage, storage_agents
from .props import DEFAULT_EXPORT_FORMATS, export_formats_property
from .stub_gaps import register_classes_factory

MENU_LABEL = "NavJump navmesh"


def default_path(scene) -> str:
    """The remembered path, else ``<blend name>.json`` beside the .blend (or untitled)."""
    remembered = scene.navjump.export_path
    if remembered:
        return bpy.path.abspath(remembered)
    blend = bpy.data.filepath
    stem = bpy.path.display_name_from_filepath(blend) if blend else "untitled"
    folder = bpy.path.abspath("//") if blend else ""
    return f"{folder}{stem}.navjump.json"


class NAVJUMP_OT_export(Operator):
    """Export the baked navigation mesh and links (NavJump JSON, OBJ, glTF, Detour)"""

    if TYPE_CHECKING:  # not at run time: Blender reads the annotations of its classes
        layout: UILayout  # set before draw() is called; the stubs allow None
    bl_idname = "navjump.export"
    bl_label = "Export NavJump"
    bl_options = {'REGISTER'}

    filepath: StringProperty(name="File Path", subtype='FILE_PATH', default="",
                             description="The NavJump JSON file; the other formats go "
                                         "beside it")
    filter_glob: StringProperty(default="*.json", options={'HIDDEN'})
    check_existing: BoolProperty(default=True, options={'HIDDEN'})
    formats: export_formats_property()
    agents: EnumProperty(
        name="Agents", default='SHOWN',
        items=(('SHOWN', "Shown Agent", "The agent the overlay shows, to the path given"),
               ('ALL', "Every Agent", "One set of files per agent: <name>.<AGENT>.json ... "
                                      "(as the command line's --agent)")),
        description="Which agent of a bake of several agents to export")

    @classmethod
    def poll(cls, context):
        if context.scene is None or not storage.has_result(context.scene):
            cls.poll_message_set("Nothing baked in this scene: bake first")
            return False
        return True

    def invoke(self, context, event):
        pg = context.scene.navjump
        if not self.properties.is_property_set("filepath"):
            self.filepath = default_path(context.scene)
        if not self.properties.is_property_set("formats"):
            self.formats = set(pg.export_formats) or set(DEFAULT_EXPORT_FORMATS)
        context.window_manager.fileselect_add(self)
        return {'RUNNING_MODAL'}

    def draw(self, context):
        layout = self.layout
        col = layout.column(heading="Formats", align=True)
        col.prop(self, "formats")
        layout.prop(self, "agents")

    def execute(self, context):
        from ..export import export_navmesh

        scene = context.scene
        formats = [f for f in FORMATS if f in self.formats]
        if not formats:
            self.report({'ERROR'}, "NavJump export: choose at least one format")
            return {'CANCELLED'}
        if not self.filepath:
            self.report({'ERROR'}, "NavJump export: no file path given")
            return {'CANCELLED'}
        path = bpy.path.abspath(self.filepath)
        names = storage_agents.baked_names(storage.result_object(
            scene, storage.KIND_NAVMESH).data) if self.agents == 'ALL' else []
        try:
            navmeshes = ({name: storage.load_navmesh(scene, name) for name in names}
                         if names else {"": storage.load_navmesh(scene)})
        except ValueError as exc:
            self.report({'ERROR'}, f"NavJump export: the stored bake cannot be read ({exc}); "
                                   f"bake again")
            return {'CANCELLED'}
        if any(nm is None for nm in navmeshes.values()):
            self.report({'ERROR'}, "NavJump export: nothing baked in this scene; bake first")
            return {'CANCELLED'}
        inputs = [bpy.data.filepath] if bpy.data.filepath else []
        left_out: list[str] = []  # what the writers had to leave out (the export goes on)
        try:
            from ..core.agents import agent_out_path
            from ..export._common import all_or_nothing

            written = []
            with all_or_nothing():  # every agent's files, or none
                for name, navmesh in navmeshes.items():
                    out = agent_out_path(path, name) if name else path
                    with export_warnings() as caught:
                        written += export_navmesh(navmesh, out, formats, inputs=inputs)
                    left_out += [f"{name}: {text}" if name else text for text in caught]
        except (ValueError, OSError) as exc:
            text = str(exc) or type(exc).__name__
            self.report({'ERROR'}, f"NavJump export to {path} failed, no file was changed: "
                                   f"{text}")
            return {'CANCELLED'}
        pg = scene.navjump
        pg.export_path = self.filepath
        pg.export_formats = set(formats)
        for text in left_out:  # the command line prints them; here they are reported
            self.report({'WARNING'}, text)
        self.report({'INFO'}, f"NavJump: exported {', '.join(str(p) for p in written)}")
        return {'FINISHED'}


@contextlib.contextmanager
def export_warnings():
    """Collect the exporters' warnings (``export.detour.DetourExportWarning``: something
    of the bake a format had to leave out) as texts for the operator's report; any other
    warning goes on as it would."""
    from ..export.detour import DetourExportWarning

    texts: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DetourExportWarning)
        yield texts
    for w in caught:
        if issubclass(w.category, DetourExportWarning):
            texts.append(str(w.message))
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def menu_entry(self, _context):
    self.layout.operator(NAVJUMP_OT_export.bl_idname, text=MENU_LABEL)


classes = (NAVJUMP_OT_export,)


_register_classes, _unregister_classes = register_classes_factory(classes)


def register():
    _register_classes()
    bpy.types.TOPBAR_MT_file_export.append(menu_entry)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_entry)
    _unregister_classes()
