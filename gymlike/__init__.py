"""gymlike: the Isaac Gym Preview 4 Python API on Warp and Newton."""

__version__ = "0.1.0"
