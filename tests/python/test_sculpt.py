"""The Python module on the CPU: a search, the cache, running a found kernel on NumPy arrays
(checked against NumPy), a definition of one's own, and mistakes as exceptions."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

EVALS = dict(device="cpu", evals=4, progress=False)


@pytest.fixture(scope="module")
def matmul(sculpt, cache_dir):
    return sculpt.search("matmul", "48x40x32", cache_dir=cache_dir, **EVALS)


@pytest.fixture(scope="module")
def axpy(sculpt, cache_dir):
    text = "def scaled_sum(float a, float(N) X, float(N) Y) -> (Z) { Z(i) = a * X(i) + Y(i) }"
    return sculpt.search(sculpt.define(text), {"N": 1000}, cache_dir=cache_dir, **EVALS)


def operands(rng=np.random.default_rng(7)):
    a = rng.random((48, 32), dtype=np.float32)
    b = rng.random((32, 40), dtype=np.float32)
    return a, b


def test_a_found_matmul_runs_on_numpy_arrays(matmul):
    assert matmul.language == "c" and matmul.time_ns > 0 and not matmul.from_cache
    assert [(p.name, p.kind) for p in matmul.arguments] == [
        ("A", "array"), ("B", "array"), ("C", "array")]
    assert matmul.arguments[2].role == "output" and matmul.arguments[2].shape == (48, 40)
    a, b = operands()
    c = matmul(a, b)
    assert c.shape == (48, 40) and c.dtype == np.float32
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_the_same_search_answers_from_the_cache(sculpt, matmul, cache_dir):
    again = sculpt.search("matmul", (48, 40, 32), cache_dir=cache_dir, **EVALS)
    assert again.from_cache and again.code == matmul.code and again.log == matmul.log
    a, b = operands()
    np.testing.assert_allclose(again(a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_outputs_given_are_written_in_place(matmul):
    a, b = operands()
    for call in (lambda c: matmul(a, b, out=c), lambda c: matmul(a, b, C=c),
                 lambda c: matmul(a, b, c)):
        c = np.zeros((48, 40), dtype=np.float32)
        assert call(c) is c
        np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_arrays_laid_out_otherwise_are_copied(matmul):
    a, b = operands()
    at = np.ascontiguousarray(a.T).T      # a transposed view: not row-major
    wide = np.zeros((48, 80), dtype=np.float32)
    c = wide[:, ::2]                      # a strided output
    assert matmul(at, b, out=c) is c
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    assert not wide[:, 1::2].any()


def test_lists_convert_to_the_kernels_dtype(matmul):
    a, b = operands()
    np.testing.assert_allclose(matmul(a.tolist(), b), a @ b, rtol=1e-5, atol=1e-5)


def test_arrays_that_do_not_fit_raise_clear_errors(sculpt, matmul):
    a, b = operands()
    with pytest.raises(sculpt.ArgumentError, match=r"A has shape \(48, 32\), not \(32, 48\)"):
        matmul(a.T.copy(), b)
    with pytest.raises(ValueError, match="B is an array of float32, not float64"):
        matmul(a, b.astype(np.float64))
    read_only = np.zeros((48, 40), dtype=np.float32)
    read_only.flags.writeable = False
    with pytest.raises(sculpt.ArgumentError, match="read-only"):
        matmul(a, b, out=read_only)
    with pytest.raises(TypeError, match=r"takes 2 inputs \(or all 3 arguments\), not 1"):
        matmul(a)
    with pytest.raises(TypeError, match="no argument 'D'"):
        matmul(a, b, D=a)


def test_a_definition_of_ones_own_with_a_scalar(sculpt, axpy):
    assert [p.name for p in axpy.arguments] == ["a", "X", "Y", "Z"]
    rng = np.random.default_rng(3)
    x, y = rng.random(1000, dtype=np.float32), rng.random(1000, dtype=np.float32)
    np.testing.assert_allclose(axpy(2.5, x, y), np.float32(2.5) * x + y, rtol=1e-6)


def test_a_definition_as_text_searches_too(sculpt, cache_dir):
    k = sculpt.search("def twice(float(N) X) -> (Y) { Y(i) = 2 * X(i) }", "N=256",
                      cache_dir=cache_dir, **EVALS)
    x = np.arange(256, dtype=np.float32)
    np.testing.assert_array_equal(k(x), 2 * x)


def test_define_checks_and_describes(sculpt):
    d = sculpt.define("def mv(float(M,K) A, float(K) x) -> (y) { y(m) +=! A(m,k) * x(k) }")
    assert d.name == "mv" and d.sizes == ["M", "K"] and "y" in str(d)


def test_mistakes_raise_located_errors(sculpt, cache_dir):
    with pytest.raises(sculpt.Error, match=r"^conv.tc:1:\d+: error: ") as raised:
        sculpt.define("def f(float(N) X) -> (Y) { Y(i) = X(j) + Z(i) }", file="conv.tc")
    assert raised.value.kind == "input"
    with pytest.raises(sculpt.Error, match="unknown kernel 'no_such_kernel'") as raised:
        sculpt.search("no_such_kernel", cache_dir=cache_dir, **EVALS)
    assert raised.value.kind == "usage"
    with pytest.raises(sculpt.Error, match="algorithm"):
        sculpt.search("matmul", "8x8x8", algorithm="annealing", cache_dir=cache_dir, **EVALS)


def test_a_ctrl_c_stops_the_search(tmp_path):
    # In a child interpreter: the SIGINT goes to it alone, as a terminal's would.
    script = textwrap.dedent(f"""
        import os, signal, sys, threading, time
        import sculpt
        threading.Timer(3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        start = time.monotonic()
        try:
            sculpt.search("matmul", "512x512x512", device="cpu", budget=120, progress=False,
                          cache_dir={str(tmp_path)!r})
        except KeyboardInterrupt:
            print("interrupted after", round(time.monotonic() - start), "s")
            sys.exit(0)
        sys.exit("the search was not interrupted")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=100, env=os.environ)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "interrupted after" in done.stdout
    assert int(done.stdout.split()[2]) < 60, done.stdout
