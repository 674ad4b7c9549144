"""What the module's pytest suites share: one cache folder for the session, so that each kernel
is searched once, and the `gpu` mark (CTest runs the marked tests under its `gpu` label)."""

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU and PyTorch (skips without)")


@pytest.fixture(scope="session")
def sculpt():
    return pytest.importorskip(
        "sculpt", reason="the Python module sculpt is not importable (built where python3-dev"
        " and pybind11-dev are installed; PYTHONPATH=build/python)")


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("sculpt-cache")
