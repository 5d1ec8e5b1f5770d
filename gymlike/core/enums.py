"""Isaac Gym enums and integer constants.

Enums are IntEnums so legacy code can compare them with ints, store them in numpy int32
fields (`props["driveMode"][:] = DOF_MODE_POS`) and use them as dict keys, exactly as with
Isaac Gym's pybind11 enums."""

from enum import IntEnum


class SimType(IntEnum):
    SIM_PHYSX = 0
    SIM_FLEX = 1


class UpAxis(IntEnum):
    UP_AXIS_Y = 0
    UP_AXIS_Z = 1


class IndexDomain(IntEnum):
    DOMAIN_ACTOR = 0
    DOMAIN_ENV = 1
    DOMAIN_SIM = 2


class CoordinateSpace(IntEnum):
    ENV_SPACE = 0
    LOCAL_SPACE = 1
    GLOBAL_SPACE = 2


class DofDriveMode(IntEnum):
    DOF_MODE_NONE = 0
    DOF_MODE_POS = 1
    DOF_MODE_VEL = 2
    DOF_MODE_EFFORT = 3


class DofType(IntEnum):
    DOF_INVALID = -1
    DOF_ROTATION = 0
    DOF_TRANSLATION = 1


class JointType(IntEnum):
    JOINT_INVALID = -1
    JOINT_FIXED = 0
    JOINT_REVOLUTE = 1
    JOINT_PRISMATIC = 2
    JOINT_BALL = 3
    JOINT_PLANAR = 4
    JOINT_FLOATING = 5


class ImageType(IntEnum):
    IMAGE_COLOR = 0
    IMAGE_DEPTH = 1
    IMAGE_SEGMENTATION = 2
    IMAGE_OPTICAL_FLOW = 3


class TensorDataType(IntEnum):
    DTYPE_FLOAT32 = 0
    DTYPE_UINT32 = 1
    DTYPE_UINT64 = 2
    DTYPE_UINT8 = 3
    DTYPE_INT16 = 4


class MeshType(IntEnum):
    MESH_NONE = 0
    MESH_COLLISION = 1
    MESH_VISUAL = 2
    MESH_VISUAL_AND_COLLISION = 3


class SoftMaterialType(IntEnum):
    MAT_COROTATIONAL = 0
    MAT_NEOHOOKEAN = 1


class TendonType(IntEnum):
    TENDON_FIXED = 0
    TENDON_SPATIAL = 1


class UsdMaterialMode(IntEnum):
    USD_MATERIAL_DISPLAY_COLOR = 0
    USD_MATERIAL_PREVIEW_SURFACE = 1
    USD_MATERIAL_MDL = 2


class CameraFollowMode(IntEnum):
    FOLLOW_POSITION = 0
    FOLLOW_TRANSFORM = 1


class ContactCollection(IntEnum):
    CC_NEVER = 0
    CC_LAST_SUBSTEP = 1
    CC_ALL_SUBSTEPS = 2


class MeshNormalMode(IntEnum):
    FROM_ASSET = 0
    COMPUTE_PER_VERTEX = 1
    COMPUTE_PER_FACE = 2


class MouseInput(IntEnum):
    MOUSE_LEFT_BUTTON = 0
    MOUSE_RIGHT_BUTTON = 1
    MOUSE_MIDDLE_BUTTON = 2
    MOUSE_FORWARD_BUTTON = 3
    MOUSE_BACK_BUTTON = 4
    MOUSE_SCROLL_RIGHT = 5
    MOUSE_SCROLL_LEFT = 6
    MOUSE_SCROLL_UP = 7
    MOUSE_SCROLL_DOWN = 8
    MOUSE_MOVE_RIGHT = 9
    MOUSE_MOVE_LEFT = 10
    MOUSE_MOVE_UP = 11
    MOUSE_MOVE_DOWN = 12


_KEYS = (
    ["KEY_SPACE", "KEY_APOSTROPHE", "KEY_COMMA", "KEY_MINUS", "KEY_PERIOD", "KEY_SLASH"]
    + [f"KEY_{i}" for i in range(10)]
    + ["KEY_SEMICOLON", "KEY_EQUAL"]
    + [f"KEY_{chr(c)}" for c in range(ord("A"), ord("Z") + 1)]
    + ["KEY_LEFT_BRACKET", "KEY_BACKSLASH", "KEY_RIGHT_BRACKET", "KEY_GRAVE_ACCENT",
       "KEY_ESCAPE", "KEY_TAB", "KEY_ENTER", "KEY_BACKSPACE", "KEY_INSERT", "KEY_DEL",
       "KEY_RIGHT", "KEY_LEFT", "KEY_DOWN", "KEY_UP", "KEY_PAGE_UP", "KEY_PAGE_DOWN",
       "KEY_HOME", "KEY_END", "KEY_CAPS_LOCK", "KEY_SCROLL_LOCK", "KEY_NUM_LOCK",
       "KEY_PRINT_SCREEN", "KEY_PAUSE"]
    + [f"KEY_F{i}" for i in range(1, 13)]
    + [f"KEY_NUMPAD_{i}" for i in range(10)]
    + ["KEY_NUMPAD_DEL", "KEY_NUMPAD_DIVIDE", "KEY_NUMPAD_MULTIPLY", "KEY_NUMPAD_SUBTRACT",
       "KEY_NUMPAD_ADD", "KEY_NUMPAD_ENTER", "KEY_NUMPAD_EQUAL", "KEY_LEFT_SHIFT",
       "KEY_LEFT_CONTROL", "KEY_LEFT_ALT", "KEY_LEFT_SUPER", "KEY_RIGHT_SHIFT",
       "KEY_RIGHT_CONTROL", "KEY_RIGHT_ALT", "KEY_RIGHT_SUPER", "KEY_MENU"]
)
KeyboardInput = IntEnum("KeyboardInput", [(k, i) for i, k in enumerate(_KEYS)])

# Integer constants (plain ints in Isaac Gym as well).
INVALID_HANDLE = -1
STATE_NONE = 0
STATE_POS = 1
STATE_VEL = 2
STATE_ALL = 3
RIGID_BODY_NONE = 0
RIGID_BODY_DISABLE_GRAVITY = 1
RIGID_BODY_DISABLE_SIMULATION = 2
RIGID_BODY_ENABLE_GYROSCOPIC_FORCES = 4
AXIS_NONE = 0
AXIS_X = 1
AXIS_Y = 2
AXIS_Z = 4
AXIS_TRANSLATION = 7
AXIS_TWIST = 8
AXIS_SWING_1 = 16
AXIS_SWING_2 = 32
AXIS_ROTATION = 56
AXIS_ALL = 63
DEFAULT_VIEWER_WIDTH = 1600
DEFAULT_VIEWER_HEIGHT = 900

ENUMS = (SimType, UpAxis, IndexDomain, CoordinateSpace, DofDriveMode, DofType, JointType,
         ImageType, TensorDataType, MeshType, SoftMaterialType, TendonType, UsdMaterialMode,
         CameraFollowMode, ContactCollection, MeshNormalMode, MouseInput, KeyboardInput)


def export_members(namespace: dict) -> None:
    """Put every enum member into `namespace` under its Isaac Gym name (gymapi.DOF_MODE_POS, ...)."""
    for enum in ENUMS:
        namespace[enum.__name__] = enum
        for member in enum:
            namespace[member.name] = member
