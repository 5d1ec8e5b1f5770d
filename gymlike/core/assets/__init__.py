"""Assets: a URDF/MJCF/USD file (or a primitive) parsed once into a Newton sub-builder plus the
Isaac Gym view of it.

load.py     load_asset_file / create_primitive: the format from the file name -> an Asset
record.py   the Asset record: cached sub-builders per scale, names, order, default properties
check.py    URDF/MJCF checked before import: errors with file, line and element
urdf.py     mesh references resolved as Isaac Gym searches them; spherical joints as three hinges
mjcf.py     the file read once (joints per body, actuators) and the text imported instead of it
fixes.py    what every import gets afterwards: AssetOptions, drive gains, mass and inertia fixes
importer.py a fresh sub-builder, Newton's importer errors as gymlike errors, Isaac Gym names
soft.py     soft bodies and cloth: URDF <fem> links, .tet files, grids, added to the sub-builder
tendons.py  fixed tendons as recorded: names, joints, coefficients, TendonProperties
"""
