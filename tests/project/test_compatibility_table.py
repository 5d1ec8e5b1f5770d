"""The compatibility table is generated from the code and must be current; every Isaac Gym
method exists, and the ones listed as not implemented raise NotImplementedError."""

import inspect
import os
import sys

import pytest

from conftest import ROOT

sys.path.insert(0, os.path.join(ROOT, "python_bindings_docs"))
import generate  # noqa: E402

from gymlike import gymapi  # noqa: E402


def test_table_is_up_to_date():
    with open(generate.PATH) as f:
        assert f.read() == generate.render(), "run: python python_bindings_docs/generate.py"


def test_every_reference_method_exists():
    assert [n for n in generate.REFERENCE_METHODS if not hasattr(gymapi.Gym, n)] == []


@pytest.mark.parametrize("name", [n for n, st, _ in generate.rows() if st in ("not yet", "unsupported")])
def test_unimplemented_methods_raise_not_implemented(name):
    fn = getattr(gymapi.acquire_gym(), name)
    with pytest.raises(NotImplementedError, match=name):
        fn(*([None] * len(inspect.signature(fn).parameters)))
