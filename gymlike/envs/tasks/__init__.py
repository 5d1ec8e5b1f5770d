"""Tasks written for gymlike with the tensor API only (no per-env Python loops after creation)."""
