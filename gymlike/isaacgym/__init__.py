"""The `isaacgym` package as gymlike provides it (`gymlike.install_isaacgym_alias()`, which
`python -m gymlike.run` calls): this file is `isaacgym.__file__`, laid out as in Isaac Gym's tree
(`<root>/python/isaacgym/__init__.py` there, `<root>/gymlike/isaacgym/__init__.py` here), so code
that finds assets at `dirname(isaacgym.__file__)/../../assets` looks in `<root>/assets`.

`isaacgym.gymapi`, `gymtorch`, `gymutil`, `torch_utils` and `terrain_utils` are gymlike's own
modules (gymlike/alias.py maps them, loading each on first use); `isaacgym.rlgpu` and
`isaacgym.gymdeps` are the files beside this one."""
