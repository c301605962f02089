"""``navjump.clear``: remove the scene's baked result."""

from bpy.types import Operator

from . import storage
from .stub_gaps import register_classes_factory


class NAVJUMP_OT_clear(Operator):
    """Remove the baked navigation mesh, links and report of this scene"""

    bl_idname = "navjump.clear"
    bl_label = "Clear NavJump"
    bl_options = {'REGISTER', 'UNDO'}

    @classmethod
    def poll(cls, context):
        if context.scene is None or storage.result_collection(context.scene) is None:
            cls.poll_message_set("Nothing baked in this scene")
            return False
        return True

    def execute(self, context):
        storage.clear_result(context.scene)
        self.report({'INFO'}, "NavJump result cleared")
        return {'FINISHED'}


classes = (NAVJUMP_OT_clear,)


register, unregister = register_classes_factory(classes)
