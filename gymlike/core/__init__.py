"""The engine room behind gymlike's public modules (gymapi, gymtorch, ...)."""
