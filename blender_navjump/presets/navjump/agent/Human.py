import bpy

settings = bpy.context.scene.navjump

settings.agent_radius = 0.4
settings.agent_height = 1.8
settings.agent_max_climb = 0.4
settings.agent_max_slope = 45.0
settings.multi_stance = True
settings.stand_height = 1.8
settings.crouch_height = 1.2
settings.prone_height = 0.6
settings.stand_enabled = True
settings.crouch_enabled = True
settings.prone_enabled = True
settings.links_enabled = True
settings.max_jump_height = 1.0
settings.max_jump_distance = 3.0
settings.max_drop_height = 4.0
settings.drop_enabled = True
settings.jump_across_enabled = True
settings.jump_up_enabled = True
