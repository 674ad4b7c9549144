"""Running a CPU kernel on NumPy arrays (or anything np.asarray takes, such as CPU tensors)."""

import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

from . import ArgumentError

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32}


def laid_out(param, array):
    """Whether `array` is where the kernel's code reads and writes `param`: its strides, over a
    buffer of just the elements (row-major arrays: C-contiguous)."""
    itemsize = array.itemsize
    return (array.flags.c_contiguous and param.elements == math.prod(param.shape)
            and all(s * itemsize == t or n == 1
                    for s, t, n in zip(param.strides, array.strides, param.shape)))


def new_buffer(param):
    """A buffer for `param`, and the view of it with the parameter's shape."""
    dtype = np.dtype(DTYPES[param.type])
    flat = np.empty(param.elements, dtype=dtype)
    view = as_strided(flat, shape=param.shape,
                      strides=[s * dtype.itemsize for s in param.strides])
    return flat, view


def check(kernel, param, array):
    what = f"{kernel._found.kernel}: {param.name}"
    dtype = np.dtype(DTYPES[param.type])
    if array.dtype != dtype:
        raise ArgumentError(f"{what} is an array of {dtype.name}, not {array.dtype.name}"
                            f" (convert it with .astype(numpy.{dtype.name}))")
    if tuple(array.shape) != tuple(param.shape):
        raise ArgumentError(f"{what} has shape {tuple(param.shape)}, not {tuple(array.shape)}")


def run(kernel, values):
    name = kernel._found.kernel
    arguments = []
    buffers = []  # alive until the run ends
    results = []  # each output: the array returned, and the buffer to copy it from, if any
    for param, value in zip(kernel.arguments, values):
        if param.kind == "scalar":
            arguments.append(value)
            continue
        written = param.role != "input"
        if value is None:
            flat, view = new_buffer(param)
            results.append((view, None))
        else:
            if written and not isinstance(value, np.ndarray):
                raise ArgumentError(f"{name}: {param.name} is written: give a NumPy array,"
                                    f" not {type(value).__name__}")
            array = value if isinstance(value, np.ndarray) else np.asarray(
                value, dtype=DTYPES[param.type])
            check(kernel, param, array)
            if written and not array.flags.writeable:
                raise ArgumentError(f"{name}: {param.name} is written, and the array given is"
                                    " read-only")
            copy = None
            if laid_out(param, array):
                flat = array
            else:
                flat, copy = new_buffer(param)
                if param.role != "output":
                    copy[...] = array
            if written:
                results.append((array, copy))
        buffers.append(flat)
        arguments.append((flat.ctypes.data, param.elements * flat.itemsize, written))
    kernel.executable().run(arguments)
    for array, copy in results:
        if copy is not None:
            array[...] = copy
    out = [array for array, _ in results]
    return out[0] if len(out) == 1 else tuple(out)
