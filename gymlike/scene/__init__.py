"""Scene files (schema version 1): YAML/JSON documents loaded into a gymlike sim.

    from gymlike.scene import load_scene
    scene = load_scene("examples/scenes/box.yaml")      # a gymlike sim: scene.gym, scene.sim, scene.envs

See python_bindings_docs/scenes.md for the schema and the load order."""

from .loader import Scene, load_scene
from .schema import SCHEMA_VERSION, SceneError, UnsupportedSceneFeature

__all__ = ["load_scene", "Scene", "SceneError", "UnsupportedSceneFeature", "SCHEMA_VERSION"]
