"""What every asset format shares around Newton's importers: a fresh sub-builder in the sim's up
axis, the importer call with its failures turned into gymlike errors, and Isaac Gym names."""

from __future__ import annotations

import warnings
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from ..errors import AssetParseError, GymlikeError, GymlikeFileNotFoundError, warn
from ..runtime import newton as _newton

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import newton

    from ..types import AssetOptions

# (`sim` is a core.sim.Sim, left unimported even for type checkers: sim.py imports this module)

# an MJCF ball joint or a URDF spherical joint is three hinges named <joint>_x, _y, _z
BALL_AXES = ("_x", "_y", "_z")


def short_name(label: str) -> str:
    """Newton labels are paths ('robot/worldbody/torso'); Isaac Gym names are the last part."""
    return label.rsplit("/", 1)[-1]


def up_axis(sim: Any) -> newton.Axis:
    """Assets are imported in the sim's up axis without rotation (Isaac Gym never rotates them)."""
    newton = _newton()
    from ..enums import UpAxis
    return newton.Axis.Y if sim is not None and sim.params.up_axis == UpAxis.UP_AXIS_Y else newton.Axis.Z


def carry_tendons(builder: newton.ModelBuilder) -> None:
    """Let a Newton builder (and the MJCF importer) carry MuJoCo tendons."""
    _newton().solvers.SolverMuJoCo.register_custom_attributes(builder)


def new_builder(options: AssetOptions, up: newton.Axis, tendons: bool = False,
                cls: type[newton.ModelBuilder] | None = None) -> newton.ModelBuilder:
    """An empty sub-builder for one import (`cls`: a ModelBuilder subclass, see urdf.py)."""
    newton = _newton()
    b = (cls or newton.ModelBuilder)(up_axis=up)
    if tendons:          # the MJCF importer reads <tendon> only into a builder that can hold them
        carry_tendons(b)
    b.default_shape_cfg.density = float(options.density)
    return b


def guarded(path: str, fn: Callable[[], object]) -> None:
    """Run a Newton importer, turning its failures and missing-file warnings into errors."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except ET.ParseError as e:
            line = getattr(e, "position", (None,))[0]
            raise AssetParseError(f"malformed asset '{path}'" + (f", line {line}" if line else "")
                                  + f": {e}") from None
        except FileNotFoundError as e:
            raise GymlikeFileNotFoundError(f"asset '{path}': {e}") from None
        except GymlikeError:
            raise
        except StopIteration:
            raise AssetParseError(f"asset '{path}' could not be imported: the file holds no importable "
                                  "robot (no links, or a file of another format)") from None
        except RecursionError:
            raise AssetParseError(f"asset '{path}' could not be imported: the kinematic tree is too deep") from None
        except Exception as e:   # Newton's importers raise bare Exception for unsupported elements
            raise AssetParseError(f"asset '{path}' could not be imported: {type(e).__name__}: {e}") from None
    for w in caught:
        msg = str(w.message)
        if "does not exist" in msg or "Cannot resolve" in msg or "Could not resolve" in msg:
            raise GymlikeFileNotFoundError(f"asset '{path}': {msg}")
        if not issubclass(w.category, (DeprecationWarning,)):
            warn(w.message, w.category)
