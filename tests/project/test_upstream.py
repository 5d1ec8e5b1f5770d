"""The private names of Newton and Warp gymlike relies on are listed in core/upstream.py and
nowhere else: each must still exist (an upgrade that moves one fails here, naming it), and no
other module of gymlike reaches into `newton._src` or calls a SolverMuJoCo underscore method."""

import os
import re

import pytest

from conftest import ROOT
from gymlike.core import upstream

PKG = os.path.join(ROOT, "gymlike")


@pytest.mark.parametrize("owner,name,why", upstream.PRIVATE, ids=[n for _, n, _ in upstream.PRIVATE])
def test_each_private_name_still_exists(owner, name, why):
    try:
        obj = upstream.resolve(owner, name)
    except (ImportError, AttributeError) as e:
        pytest.fail(f"{owner}.{name} is gone after an upgrade ({e}); gymlike uses it for: {why}")
    assert callable(obj), f"{owner}.{name} is no longer callable"


def test_no_other_module_uses_them():
    names = {n for _, n, _ in upstream.PRIVATE}
    offenders = []
    for folder, _, files in os.walk(PKG):
        for f in files:
            path = os.path.join(folder, f)
            if not f.endswith(".py") or path == upstream.__file__:
                continue
            text = open(path, encoding="utf-8").read()
            for name in names:
                if re.search(rf"\.{re.escape(name)}\b", text):
                    offenders.append(f"{os.path.relpath(path, PKG)} uses {name}")
            if "newton._src" in text or "warp._src" in text or "_render_context" in text:
                offenders.append(f"{os.path.relpath(path, PKG)} reaches into newton._src / warp._src")
    assert offenders == []
