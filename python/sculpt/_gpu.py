"""Running a GPU kernel on CUDA arrays: PyTorch tensors, or any object with the CUDA array
interface (CuPy, Numba). Outputs not given are allocated like the first tensor given (PyTorch or
CuPy); the launch goes on `stream`, else on PyTorch's current stream for PyTorch tensors, else on
the default stream, and is not waited for, as a library's kernel is not."""

import math

from . import ArgumentError

TYPESTRS = {"f32": "<f4", "f64": "<f8", "i32": "<i4"}
ITEMSIZES = {"f32": 4, "f64": 8, "i32": 4}
TORCH_DTYPES = {"f32": "float32", "f64": "float64", "i32": "int32"}


def is_torch(value):
    return type(value).__module__.split(".")[0] == "torch"


def interface(kernel, param, value):
    what = f"{kernel._found.kernel}: {param.name}"
    try:
        cai = value.__cuda_array_interface__
    except AttributeError:
        raise ArgumentError(f"{what}: a GPU kernel takes CUDA arrays (a CUDA PyTorch tensor,"
                            f" or an object with __cuda_array_interface__), not"
                            f" {type(value).__name__}") from None
    except RuntimeError as e:  # a tensor that requires grad
        raise ArgumentError(f"{what}: {e}") from None
    if cai["typestr"] != TYPESTRS[param.type]:
        raise ArgumentError(f"{what} is an array of {param.type} ({TYPESTRS[param.type]}), not"
                            f" {cai['typestr']}")
    if tuple(cai["shape"]) != tuple(param.shape):
        raise ArgumentError(f"{what} has shape {tuple(param.shape)}, not {tuple(cai['shape'])}")
    return cai


def laid_out(param, cai):
    if param.elements != math.prod(param.shape):
        return False
    strides = cai.get("strides")
    itemsize = ITEMSIZES[param.type]
    row_major = []
    step = itemsize
    for n in reversed(param.shape):
        row_major.insert(0, step)
        step *= n
    return (all(s * itemsize == r for s, r in zip(param.strides, row_major))
            and (strides is None or all(s == r or n == 1 for s, r, n in
                                        zip(strides, row_major, param.shape))))


def allocate(kernel, param, like):
    if like is not None and is_torch(like):
        import torch
        return torch.empty(param.shape, dtype=getattr(torch, TORCH_DTYPES[param.type]),
                           device=like.device)
    if like is not None and type(like).__module__.split(".")[0] == "cupy":
        import cupy
        return cupy.empty(param.shape, dtype=TORCH_DTYPES[param.type])
    raise ArgumentError(f"{kernel._found.kernel}: give {param.name} (out=): outputs are allocated"
                        " like a PyTorch or CuPy input, and there is none")


def run(kernel, values, stream):
    name = kernel._found.kernel
    arrays = [v for p, v in zip(kernel.arguments, values) if p.kind == "array" and v is not None]
    like = arrays[0] if arrays else None
    gpu = like.device.index if like is not None and is_torch(like) else 0
    if stream is None:
        stream = 0
        if like is not None and is_torch(like):
            import torch
            stream = torch.cuda.current_stream(like.device).cuda_stream
    arguments = []
    keep = []
    results = []
    for param, value in zip(kernel.arguments, values):
        if param.kind == "scalar":
            arguments.append(value)
            continue
        written = param.role != "input"
        copy = None
        if value is None:
            value = allocate(kernel, param, like)
        cai = interface(kernel, param, value)
        if written and cai["data"][1]:
            raise ArgumentError(f"{name}: {param.name} is written, and the array given is read-only")
        if not laid_out(param, cai):
            if not is_torch(value) or param.elements != math.prod(param.shape):
                raise ArgumentError(f"{name}: {param.name} must be contiguous (row-major)")
            copy = value.contiguous()
            cai = copy.__cuda_array_interface__
        keep.append(copy)
        if written:
            results.append((value, copy))
        arguments.append((cai["data"][0], param.elements * ITEMSIZES[param.type], written))
    kernel.executable(gpu).run(arguments, stream)
    for value, copy in results:
        if copy is not None:
            value.copy_(copy)
    out = [value for value, _ in results]
    return out[0] if len(out) == 1 else tuple(out)
