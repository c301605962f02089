import bpy

settings = bpy.context.scene.navjump

settings.agent_radius = 0.2
settings.agent_height = 0.5
settings.agent_max_climb = 0.25
settings.agent_max_slope = 50.0
settings.multi_stance = False
settings.stand_height = 0.5
settings.crouch_height = 0.35
settings.prone_height = 0.2
settings.stand_enabled = True
settings.crouch_enabled = False
settings.prone_enabled = False
settings.links_enabled = True
settings.max_jump_height = 0.6
settings.max_jump_distance = 1.5
settings.max_drop_height = 2.0
settings.drop_enabled = True
settings.jump_across_enabled = True
settings.jump_up_enabled = True
