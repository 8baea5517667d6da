"""The suite tests an installed package (pip's build of python/, or the
manylinux wheel in a fresh venv), never the source tree: `linerate_hash`
and its native module must come from site-packages."""

import pathlib

import linerate_hash
import linerate_hash._linerate as native

SOURCE = pathlib.Path(__file__).resolve().parents[1] / "linerate_hash"


def test_the_package_is_the_installed_one():
    for module in (linerate_hash, native):
        where = pathlib.Path(module.__file__).resolve()
        assert "site-packages" in where.parts, where
        assert SOURCE not in where.parents, where
    assert native.__file__.endswith(".so")
