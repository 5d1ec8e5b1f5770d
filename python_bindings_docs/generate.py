"""Generate python_bindings_docs/COMPATIBILITY.md from the code: every Isaac Gym `Gym` method
(the list below is the Isaac Gym Preview 4 reference, isaacgym-stubs 1.1rc4) with its gymlike
status, read from gymlike.gymapi.Gym itself:

* implemented      - the method exists (its docstring's first line is shown)
* not yet          - listed in gymlike/core/stubs.py as planned (the reason is shown)
* unsupported      - listed in gymlike/core/stubs.py as impossible on Newton (reason shown)
* missing          - no such method in gymlike (a bug: every reference method must exist)

Run: python python_bindings_docs/generate.py   (tests check the file is up to date)."""

import inspect
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

# Every method of isaacgym.gymapi.Gym in Isaac Gym Preview 4 (names only).
REFERENCE_METHODS = """
acquire_actor_root_state_tensor acquire_dof_force_tensor acquire_dof_state_tensor acquire_force_sensor_tensor
acquire_jacobian_tensor acquire_mass_matrix_tensor acquire_net_contact_force_tensor acquire_particle_state_tensor
acquire_pneumatic_pressure_tensor acquire_pneumatic_target_tensor acquire_rigid_body_state_tensor add_ground
add_heightfield add_lines add_triangle_mesh apply_actor_dof_efforts apply_body_force_at_pos apply_body_forces
apply_dof_effort apply_rigid_body_force_at_pos_tensors apply_rigid_body_force_tensors attach_camera_to_body
attach_sim begin_aggregate clear_lines create_actor create_aggregate create_asset_force_sensor create_box
create_camera_sensor create_capsule create_cloth_grid create_env create_performance_timers
create_rigid_body_attractor create_sim create_sphere create_tet_grid create_texture_from_buffer
create_texture_from_file create_usd_exporter create_viewer debug_print_asset destroy_camera_sensor destroy_env
destroy_performance_timers destroy_sim destroy_usd_exporter destroy_viewer draw_env_rigid_contacts
draw_env_soft_contacts draw_viewer enable_actor_dof_force_sensors end_access_image_tensors end_aggregate
export_usd_asset export_usd_sim fetch_results find_actor_actuator_index find_actor_dof_handle
find_actor_dof_index find_actor_fixed_tendon_joint_index find_actor_handle find_actor_index
find_actor_joint_handle find_actor_joint_index find_actor_rigid_body_handle find_actor_rigid_body_index
find_actor_tendon_index find_asset_actuator_index find_asset_dof_index find_asset_joint_index
find_asset_rigid_body_index find_asset_tendon_index free_texture get_actor_actuator_count
get_actor_actuator_joint_name get_actor_actuator_name get_actor_actuator_properties get_actor_asset
get_actor_count get_actor_dof_count get_actor_dof_dict get_actor_dof_forces get_actor_dof_frames
get_actor_dof_handle get_actor_dof_index get_actor_dof_names get_actor_dof_position_targets
get_actor_dof_properties get_actor_dof_states get_actor_dof_velocity_targets
get_actor_fixed_tendon_joint_coefficients get_actor_fixed_tendon_joint_name get_actor_force_sensor
get_actor_force_sensor_count get_actor_handle get_actor_index get_actor_joint_count get_actor_joint_dict
get_actor_joint_handle get_actor_joint_index get_actor_joint_names get_actor_joint_transforms get_actor_name
get_actor_rigid_body_count get_actor_rigid_body_dict get_actor_rigid_body_handle get_actor_rigid_body_index
get_actor_rigid_body_names get_actor_rigid_body_properties get_actor_rigid_body_shape_indices
get_actor_rigid_body_states get_actor_rigid_shape_count get_actor_rigid_shape_properties
get_actor_root_rigid_body_handle get_actor_scale get_actor_soft_body_count get_actor_soft_materials
get_actor_tendon_count get_actor_tendon_name get_actor_tendon_offset get_actor_tendon_properties
get_actor_tetrahedra_range get_actor_triangle_range get_asset_actuator_count get_asset_actuator_joint_name
get_asset_actuator_name get_asset_actuator_properties get_asset_dof_count get_asset_dof_dict get_asset_dof_name
get_asset_dof_names get_asset_dof_properties get_asset_dof_type get_asset_fixed_tendon_joint_coefficients
get_asset_fixed_tendon_joint_name get_asset_joint_count get_asset_joint_dict get_asset_joint_name
get_asset_joint_names get_asset_joint_type get_asset_rigid_body_count get_asset_rigid_body_dict
get_asset_rigid_body_name get_asset_rigid_body_names get_asset_rigid_body_shape_indices
get_asset_rigid_shape_count get_asset_rigid_shape_properties get_asset_soft_body_count get_asset_soft_materials
get_asset_tendon_count get_asset_tendon_name get_asset_tendon_properties get_attractor_properties
get_camera_image get_camera_image_gpu_tensor get_camera_proj_matrix get_camera_transform get_camera_view_matrix
get_dof_frame get_dof_position get_dof_target_position get_dof_target_velocity get_dof_type_string
get_dof_velocity get_elapsed_time get_env get_env_count get_env_dof_count get_env_joint_count get_env_origin
get_env_rigid_body_count get_env_rigid_body_states get_env_rigid_contact_forces get_env_rigid_contacts
get_frame_count get_joint_handle get_joint_name get_joint_position get_joint_target_position
get_joint_target_velocity get_joint_transform get_joint_type_string get_joint_velocity get_performance_timers
get_pneumatic_pressure get_pneumatic_target get_rigid_angular_velocity get_rigid_body_color
get_rigid_body_segmentation_id get_rigid_body_texture get_rigid_contact_forces get_rigid_contacts
get_rigid_handle get_rigid_linear_velocity get_rigid_name get_rigid_transform get_sensor get_sim_actor_count
get_sim_dof_count get_sim_force_sensor_count get_sim_joint_count get_sim_params get_sim_rigid_body_count
get_sim_rigid_body_states get_sim_tetrahedra get_sim_tetrahedra_count get_sim_time get_sim_triangle_count
get_sim_triangles get_soft_contacts get_usd_export_root get_vec_actor_dof_states
get_vec_env_rigid_contact_forces get_vec_rigid_angular_velocity get_vec_rigid_linear_velocity
get_vec_rigid_transform get_version get_viewer_camera_handle get_viewer_camera_transform
get_viewer_mouse_position get_viewer_size load_asset load_mjcf load_opensim load_sim load_urdf load_usd
omni_connect omni_disconnect poll_viewer_events prepare_sim query_viewer_action_events query_viewer_has_closed
refresh_actor_root_state_tensor refresh_dof_force_tensor refresh_dof_state_tensor refresh_force_sensor_tensor
refresh_jacobian_tensors refresh_mass_matrix_tensors refresh_net_contact_force_tensor
refresh_particle_state_tensor refresh_pneumatic_pressure_tensor refresh_pneumatic_target_tensor
refresh_rigid_body_state_tensor render_all_camera_sensors reset_actor_materials reset_actor_particles_to_rest
set_actor_dof_position_targets set_actor_dof_properties set_actor_dof_states set_actor_dof_velocity_targets
set_actor_fixed_tendon_joint_coefficients set_actor_rigid_body_properties set_actor_rigid_body_states
set_actor_rigid_shape_properties set_actor_root_state_tensor set_actor_root_state_tensor_indexed
set_actor_scale set_actor_soft_materials set_actor_tendon_offset set_actor_tendon_properties
set_asset_fixed_tendon_joint_coefficients set_asset_rigid_shape_properties set_asset_tendon_properties
set_attractor_properties set_attractor_target set_camera_location set_camera_transform
set_dof_actuation_force_tensor set_dof_actuation_force_tensor_indexed set_dof_position_target_tensor
set_dof_position_target_tensor_indexed set_dof_state_tensor set_dof_state_tensor_indexed
set_dof_target_position set_dof_target_velocity set_dof_velocity_target_tensor
set_dof_velocity_target_tensor_indexed set_env_rigid_body_states set_joint_target_position
set_joint_target_velocity set_light_parameters set_particle_state_tensor set_particle_state_tensor_indexed
set_pneumatic_pressure set_pneumatic_pressure_tensor set_pneumatic_pressure_tensor_indexed
set_pneumatic_target set_pneumatic_target_tensor set_pneumatic_target_tensor_indexed
set_rigid_angular_velocity set_rigid_body_color set_rigid_body_segmentation_id set_rigid_body_state_tensor
set_rigid_body_texture set_rigid_linear_velocity set_rigid_transform set_sim_device set_sim_params
set_sim_rigid_body_states set_usd_export_root simulate start_access_image_tensors step_graphics
subscribe_viewer_keyboard_event subscribe_viewer_mouse_event sync_frame_time viewer_camera_look_at
write_camera_image_to_file write_viewer_image_to_file
""".split()

# The public names of Isaac Gym Preview 4's helper modules (isaacgym.gymutil, gymtorch,
# torch_utils, terrain_utils) that legacy code imports.
REFERENCE_HELPERS = {
    "gymutil": """LineGeometry AxesGeometry WireframeBoxGeometry WireframeBBoxGeometry WireframeSphereGeometry
        draw_lines draw_line get_property_setter_map get_property_getter_map get_default_setter_args
        generate_random_samples apply_random_samples get_bucketed_val check_buckets parse_device_str
        parse_arguments parse_sim_config parse_flex_config parse_physx_config parse_float_int_bool
        parse_bool""".split(),
    "gymtorch": "wrap_tensor unwrap_tensor".split(),
    "torch_utils": """to_torch quat_mul normalize quat_apply quat_rotate quat_rotate_inverse quat_conjugate
        quat_unit quat_from_angle_axis normalize_angle tf_inverse tf_apply tf_vector tf_combine
        get_basis_vector get_axis_params copysign get_euler_xyz quat_from_euler_xyz torch_rand_float
        torch_random_dir_2 tensor_clamp scale unscale unscale_np""".split(),
    "terrain_utils": """SubTerrain random_uniform_terrain sloped_terrain pyramid_sloped_terrain
        discrete_obstacles_terrain wave_terrain stairs_terrain pyramid_stairs_terrain
        stepping_stones_terrain convert_heightfield_to_trimesh""".split(),
    "rlgpu": "create_task_cpu create_task_gpu".split(),
    "gymdeps": [],
}
# where gymlike keeps each of them (the others are gymlike.<module>)
HELPER_MODULES = {"rlgpu": "gymlike.isaacgym.rlgpu", "gymdeps": "gymlike.isaacgym.gymdeps"}


def helper_rows():
    import importlib
    out = []
    for module, names in REFERENCE_HELPERS.items():
        try:
            mod = importlib.import_module(HELPER_MODULES.get(module, f"gymlike.{module}"))
        except ImportError:
            mod = None
        present = [n for n in names if mod is not None and hasattr(mod, n)]
        missing = [n for n in names if n not in present]
        out.append((module, len(present), len(names), missing))
    return out


def status_of(name, fn):
    from gymlike.core import stubs
    if name in stubs.STUBS:
        status, _, reason = stubs.STUBS[name]
        return status, reason
    return "implemented", (inspect.getdoc(fn) or "").split("\n")[0]


def rows():
    from gymlike import gymapi
    out = []
    for name in REFERENCE_METHODS:
        fn = getattr(gymapi.Gym, name, None)
        out.append((name, *(status_of(name, fn) if fn is not None else ("missing", ""))))
    return out


def render():
    table = rows()
    counts = {}
    for _, st, _ in table:
        counts[st] = counts.get(st, 0) + 1
    lines = [
        "# Isaac Gym API compatibility",
        "",
        "Generated by `python python_bindings_docs/generate.py` from `gymlike.gymapi.Gym`; do not edit by hand.",
        "Every method of Isaac Gym Preview 4's `Gym` class, with its status in gymlike. A method that is",
        "not implemented raises `NotImplementedError` with the reason shown here. Inputs Isaac Gym accepts",
        "are accepted too (config keys it ignores, zero-size primitives, torch scalars as handles, ...):",
        "the audit is leniency.md.",
        "",
        "Summary: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + f" (of {len(table)}).",
        "",
        "| method | status | notes |",
        "|---|---|---|",
    ]
    for name, st, note in table:
        lines.append(f"| `{name}` | {st} | {note.replace('|', '/')} |")
    lines += [
        "",
        "## Helper modules",
        "",
        "Isaac Gym's helper modules, importable as `isaacgym.<module>` under `python -m gymlike.run`",
        "(reference pages: gymutil.md, torch_utils.md, terrain_utils.md, run.md, viewer.md).",
        "",
        "| module | Isaac Gym names present | missing |",
        "|---|---|---|",
    ]
    for module, present, total, missing in helper_rows():
        lines.append(f"| `{module}` | {present} of {total} | {', '.join(missing) or '-'} |")
    lines += [
        "",
        "`rlgpu`'s functions raise `NotImplementedError` (Isaac Gym's native C++ tasks); `gymdeps` preloads",
        "nothing. The `isaacgym` package itself (`__file__`, distribution version 1.0rc4): run.md.",
    ]
    return "\n".join(lines) + "\n"


PATH = os.path.join(HERE, "COMPATIBILITY.md")

if __name__ == "__main__":
    with open(PATH, "w") as f:
        f.write(render())
    print(f"wrote {PATH}")
