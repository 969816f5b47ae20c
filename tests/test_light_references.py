"""The unit layer's references are installed: each missing one FAILS the unit layer
(``nox -s unit``), naming it, instead of leaving its tests skipped.

The light references are the ``test`` extra of ``pyproject.toml`` (the distributions
below) and the trec_eval 9.0.8 and 10.0 binaries built from ``../shared/references``.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version

import pytest

from reference_programs import run_trec_eval

#: distribution -> module imported, as pinned in the ``test`` extra (pyproject.toml)
LIGHT = {
    "pytrec_eval-terrier": ("pytrec_eval", "0.5.11"),
    "scikit-learn": ("sklearn", "1.9.1"),
    "ranx": ("ranx", "0.3.21"),
    "ir_measures": ("ir_measures", "0.4.3"),
    "ir_datasets": ("ir_datasets", "0.6.3"),
    "pyterrier": ("pyterrier", "1.1.2"),
    "pyndeval": ("pyndeval", "0.0.8"),
}


@pytest.mark.parametrize("dist", sorted(LIGHT))
def test_light_reference_is_installed_at_its_pin(dist):
    module, pin = LIGHT[dist]
    try:
        got = version(dist)
    except PackageNotFoundError:
        pytest.fail(f"{dist} is not installed: the unit layer needs it (pip install -e '.[test]'; nox -s unit)")
    assert got == pin, f"{dist} {got} installed, the test extra pins {pin} (docs/conformance.md was proven on it)"
    importlib.import_module(module)


@pytest.mark.parametrize("release", ["9.0.8", "10.0"])
def test_trec_eval_binary_builds_and_runs(release):
    """Built once into the reference cache (a C compiler and make needed); ``-v`` prints the
    version (9.0.8's source still says 9.0.7: tests/conformance/test_trec_eval_binary.py)."""
    out = run_trec_eval(release, ["-v"], check=False)
    assert out.returncode == 0 and "trec_eval version " + release[:4] in out.stderr, out.stderr[-400:]
