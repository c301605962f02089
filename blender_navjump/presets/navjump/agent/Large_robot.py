import bpy

settings = bpy.context.scene.navjump

settings.agent_radius = 1.0
settings.agent_height = 3.0
settings.agent_max_climb = 0.5
settings.agent_max_slope = 30.0
settings.multi_stance = True
settings.stand_height = 3.0
settings.crouch_height = 2.2
settings.prone_height = 1.5
settings.stand_enabled = True
settings.crouch_enabled = True
settings.prone_enabled = False
settings.links_enabled = True
settings.max_jump_height = 0.5
settings.max_jump_distance = 2.0
settings.max_drop_height = 1.5
settings.drop_enabled = True
settings.jump_across_enabled = False
settings.jump_up_enabled = True
