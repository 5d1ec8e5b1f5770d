"""Rendering: the Isaac Gym viewer (a Newton ViewerGL window, or a headless viewer)."""
