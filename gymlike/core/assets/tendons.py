"""An asset's fixed tendons as recorded at import (the record half of core/tendons.py, which
runs them): names, joints, coefficients and Isaac Gym's TendonProperties, read from the custom
attributes Newton's MJCF importer fills (assets/importer.carry_tendons)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..types import TendonProperties

if TYPE_CHECKING:
    from collections.abc import Sequence


FIELDS = ("stiffness", "damping", "fixed_spring_rest_length", "limit_stiffness",
          "fixed_lower_limit", "fixed_upper_limit")


def _values(b, key):
    attr = b.custom_attributes.get(key)
    if attr is None or not attr.values:
        return []
    v = attr.values
    return [v[i] for i in sorted(v)] if isinstance(v, dict) else list(v)


class AssetTendons:
    """An asset's fixed tendons read from its Newton sub-builder (Isaac Gym order: file order)."""

    def __init__(self, b, joint_name, limit_stiffness):
        types = _values(b, "mujoco:tendon_type")
        self.newton_count = len(types)          # all tendons (spatial ones too), for offsets
        labels = _values(b, "mujoco:tendon_label")
        adr, num = _values(b, "mujoco:tendon_joint_adr"), _values(b, "mujoco:tendon_joint_num")
        joints, coefs = _values(b, "mujoco:tendon_joint"), _values(b, "mujoco:tendon_coef")
        stiff, damp = _values(b, "mujoco:tendon_stiffness"), _values(b, "mujoco:tendon_damping")
        limited, rng = _values(b, "mujoco:tendon_limited"), _values(b, "mujoco:tendon_range")
        spring = _values(b, "mujoco:tendon_springlength")
        self.newton, self.names, self.joint_names, self.coefs, self.props = [], [], [], [], []
        for t, kind in enumerate(types):
            if int(kind) != 0:
                continue
            a, n = int(adr[t]), int(num[t])
            self.newton.append(t)
            self.names.append(str(labels[t]) if t < len(labels) else f"tendon{t}")
            self.joint_names.append([joint_name(int(j)) for j in joints[a:a + n]])
            self.coefs.append(np.array(coefs[a:a + n], np.float32))
            lo, hi = (float(rng[t][0]), float(rng[t][1])) if t < len(rng) else (0.0, 0.0)
            # MJCF limited: 0 false, 1 true, 2 auto (limited when a range is given)
            lim = int(limited[t]) == 1 or (int(limited[t]) == 2 and lo < hi)
            rest = float(spring[t][0]) if t < len(spring) and float(spring[t][0]) >= 0 else 0.0
            self.props.append(TendonProperties(
                stiffness=float(stiff[t]), damping=float(damp[t]), fixed_spring_rest_length=rest,
                is_fixed_limited=lim, fixed_lower_limit=lo, fixed_upper_limit=hi,
                limit_stiffness=float(limit_stiffness)))

    def __len__(self):
        return len(self.names)


def copy_props(props: Sequence[TendonProperties]) -> list[TendonProperties]:
    """A copy of each TendonProperties (fixed-tendon fields only)."""
    return [TendonProperties(**{f: getattr(p, f) for f in FIELDS + ("is_fixed_limited",)}) for p in props]
