"""gymlike: the Isaac Gym Preview 4 Python API on Warp and Newton."""

from setuptools import find_packages, setup

setup(
    name="gymlike",
    version="0.1.0",
    description="The Isaac Gym Preview 4 Python API (gymapi, gymtorch, gymutil, torch_utils, "
                "terrain_utils) rebuilt on NVIDIA Warp and the Newton physics engine",
    long_description=open("README.md", encoding="utf-8").read() if __import__("os").path.exists("README.md") else "",
    long_description_content_type="text/markdown",
    python_requires=">=3.10",
    packages=find_packages(include=["gymlike", "gymlike.*"]),
    package_data={"gymlike.envs": ["cfg/task/*.yaml", "cfg/train/*.yaml"],
                  # the alias's `isaacgym` distribution record; `import isaacgym` in the processes a
                  # script run by gymlike.run starts
                  "gymlike": ["isaacgym_dist/*.dist-info/*", "child_path/isaacgym.py"]},
    install_requires=[
        "warp-lang>=1.19,<1.20",
        "newton[sim]>=1.8,<1.9",      # newton + mujoco + mujoco-warp (SolverMuJoCo)
        "numpy",
        "torch>=2.1",
        "pyyaml",
        "usd-core>=25.5,<26.9",      # the range newton's USD importer accepts
        "newton-usd-schemas>=0.6",   # needed by newton's add_usd
        "trimesh",                   # mesh files (.obj/.stl) referenced by URDF/MJCF
        "vhacdx",                    # AssetOptions.vhacd_enabled: V-HACD convex decomposition (via trimesh)
        "scipy",                     # trimesh normals, newton's convex hulls
        "pycollada",                 # .dae meshes
        "pillow",                    # camera images and viewer images as PNG, textures from files
    ],
    extras_require={
        "test": ["pytest", "pytest-xdist", "hypothesis>=6", "pyglet>=2.1.6,<3", "imageio>=2.30", "imageio-ffmpeg>=0.5",
                 "ruff>=0.5"],   # hypothesis: the asset-loader fuzz test; pyglet: the off-screen (EGL) viewer test;
                                 # imageio: the --record test; ruff: ruff.toml's checks (tests/project/test_layout.py)
        "video": ["imageio>=2.30", "imageio-ffmpeg>=0.5"],   # gymlike.run --record out.mp4
        "viewer": ["pyglet>=2.1.6,<3"],   # the viewer window (Newton's ViewerGL); headless without it
        # RL training (gymlike.envs, examples/train.py): rsl_rl PPO by default, rl_games optional,
        # the gymnasium adapter, TensorBoard logs, progress bar, learning-curve PNG
        "rl": ["rsl-rl-lib>=5.0,<6", "rl-games>=1.6.5,<1.7", "gymnasium>=1.0", "tensorboard", "tqdm", "matplotlib"],
    },
    entry_points={"console_scripts": ["gymlike-run=gymlike.run:main"]},
)
