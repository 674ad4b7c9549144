"""The module's GPU path without a GPU: a CUDA search on the fake driver (CTest puts it first on
the library path as libcuda.so.1; tests/device/cuda_fake_driver.cpp runs PTX on its emulator),
its kernel called on objects with the CUDA array interface over the fake driver's device memory.
Skips unless CTest set SCULPT_FAKE_CUDA."""

import ctypes
import os

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(not os.environ.get("SCULPT_FAKE_CUDA"),
                                reason="not on the fake CUDA driver (SCULPT_FAKE_CUDA unset)")


class DeviceArray:
    """Device memory of the driver, with the CUDA array interface, as CuPy or Numba give."""

    def __init__(self, driver, shape, dtype, readonly=False):
        self.driver, self.shape, self.dtype = driver, tuple(shape), np.dtype(dtype)
        self.nbytes = int(np.prod(shape)) * self.dtype.itemsize
        self.pointer = ctypes.c_uint64()
        assert driver.cuMemAlloc_v2(ctypes.byref(self.pointer), ctypes.c_size_t(self.nbytes)) == 0
        self.readonly = readonly

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "strides": None,
                "data": (self.pointer.value, self.readonly), "version": 3}

    def upload(self, host):
        host = np.ascontiguousarray(host, dtype=self.dtype)
        assert self.driver.cuMemcpyHtoD_v2(self.pointer, host.ctypes.data_as(ctypes.c_void_p),
                                           ctypes.c_size_t(self.nbytes)) == 0
        return self

    def download(self):
        host = np.empty(self.shape, dtype=self.dtype)
        assert self.driver.cuCtxSynchronize() == 0
        assert self.driver.cuMemcpyDtoH_v2(host.ctypes.data_as(ctypes.c_void_p), self.pointer,
                                           ctypes.c_size_t(self.nbytes)) == 0
        return host


def test_a_cuda_kernel_runs_on_cuda_array_interface_objects(sculpt, cache_dir):
    k = sculpt.search("matmul", "32x24x16", device="cuda", evals=3, cache_dir=cache_dir,
                      progress=False)
    assert k.language == "ptx"
    k.executable()  # loads the driver in this process: the same library ctypes opens
    driver = ctypes.CDLL("libcuda.so.1")
    rng = np.random.default_rng(5)
    a, b = rng.random((32, 16), dtype=np.float32), rng.random((16, 24), dtype=np.float32)
    da = DeviceArray(driver, a.shape, np.float32, readonly=True).upload(a)
    db = DeviceArray(driver, b.shape, np.float32).upload(b)
    dc = DeviceArray(driver, (32, 24), np.float32)
    assert k(da, db, out=dc) is dc
    np.testing.assert_allclose(dc.download(), a @ b, rtol=1e-5, atol=1e-5)
    with pytest.raises(sculpt.ArgumentError, match="give C"):
        k(da, db)  # neither PyTorch nor CuPy to allocate the output like
    with pytest.raises(sculpt.ArgumentError, match="shape"):
        k(da, DeviceArray(driver, (24, 16), np.float32), out=dc)
    with pytest.raises(sculpt.ArgumentError, match="read-only"):
        k(da, db, out=DeviceArray(driver, (32, 24), np.float32, readonly=True))
    with pytest.raises(sculpt.ArgumentError, match="CUDA arrays"):
        k(a, b)
