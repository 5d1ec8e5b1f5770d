"""Scene files as seed 001 specifies them (schema version 1): YAML/JSON documents loaded into a
gymlike sim, one Isaac Gym env per replicated world.

    from gymlike.scene import load_sap_scene
    scene = load_sap_scene("examples/scenes/single_box.yaml")   # scene.gym, scene.sim, scene.envs
    scene.sap_model, scene.sap_state, scene.sap_control          # the Newton model, state, control

See python_bindings_docs/scenes.md for the schema and the load order."""

from .loader import SapLoadedScene, Scene, load_sap_scene, load_scene
from .schema import SCHEMA_VERSION, SapUnsupportedSceneFeature, SceneError, UnsupportedSceneFeature

__all__ = ["load_sap_scene", "SapLoadedScene", "SapUnsupportedSceneFeature", "SceneError", "SCHEMA_VERSION",
           "load_scene", "Scene", "UnsupportedSceneFeature"]
