#!/usr/bin/env python3
"""Kernel-only GPU times of sculpt's hand candidates beside cuBLAS, measured the same way.

Run on the GPU machine after `bench_gpu OUT_DIR`:

    python3 bench/gpu/compare.py OUT_DIR CUBLAS_REFERENCE_PY

Each case of OUT_DIR/cases.json is loaded from its PTX through the driver API (ctypes on
libcuda, in the primary context PyTorch uses), launched on random inputs, and timed like
cublas_reference.py times cuBLAS: the summed device time of the kernels of 30 calls under the
PyTorch profiler (CUPTI activity), divided by 30. Event timing would add the host's launch
overhead to short kernels. Writes OUT_DIR/compare.json and prints one line per case with the
ratio sculpt / cuBLAS (below 1: sculpt is faster), and the model's bound on the work (bench_gpu's
`bound_work_us`), flagged when the kernel-only time is below it by more than 2%.
"""
import ctypes
import json
import pathlib
import re
import subprocess
import sys

import torch
from torch.profiler import ProfilerActivity, profile

CALLS = 30
NOISE = 1.02
DTYPES = {"f32": torch.float32, "f64": torch.float64, "i32": torch.int32}
SCALARS = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i32": ctypes.c_int32}


def check(result, what):
    if result != 0:
        sys.exit(f"compare.py: {what} failed with CUresult {result}")


def kernel_us(launch, match):
    """Mean device time per call of the kernels whose name contains `match` (all if None)."""
    for _ in range(10):
        launch()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(CALLS):
            launch()
        torch.cuda.synchronize()
    events = [e for e in prof.events() if e.device_type.name == "CUDA"]
    if match is not None:
        events = [e for e in events if match in e.name]
    return sum(e.device_time for e in events) / CALLS


def sculpt_launcher(cuda, case, out_dir):
    """Loads the case's PTX and returns a function launching it once on fresh random data."""
    ptx = (out_dir / case["file"]).read_bytes() + b"\0"
    module = ctypes.c_void_p()
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(ptx)), "cuModuleLoadData")
    function = ctypes.c_void_p()
    check(cuda.cuModuleGetFunction(ctypes.byref(function), module, case["entry"].encode()),
          "cuModuleGetFunction")
    keep = []  # tensors and ctypes values the launch points to
    for param in case["params"]:
        if "array" in param:
            dtype = DTYPES[param["array"]]
            data = (torch.randn(param["count"], device="cuda").to(dtype)
                    if dtype.is_floating_point
                    else torch.randint(0, 16, (param["count"],), device="cuda", dtype=dtype))
            keep.append((data, ctypes.c_void_p(data.data_ptr())))
        else:
            keep.append((None, SCALARS[param["scalar"]](param["value"])))
    pointers = (ctypes.c_void_p * len(keep))(*[ctypes.addressof(value) for _, value in keep])
    grid, block = case["grid"], case["block"]
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

    def launch():
        check(cuda.cuLaunchKernel(function, *grid, *block, case.get("shared_bytes", 0), stream,
                                  pointers, None), "cuLaunchKernel")

    launch.keep = (keep, pointers, module)
    return launch


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: compare.py OUT_DIR CUBLAS_REFERENCE_PY")
    out_dir = pathlib.Path(sys.argv[1])
    reference = json.loads(subprocess.run([sys.executable, sys.argv[2]], check=True,
                                          capture_output=True, text=True).stdout)
    torch.zeros(1, device="cuda")  # makes PyTorch's primary context current
    cuda = ctypes.CDLL("libcuda.so.1")
    cuda.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
        ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    results = []
    for case in json.loads((out_dir / "cases.json").read_text()):
        if not case["file"].endswith(".ptx") or case["check"] != "ok":
            print(f"{case['name']:<24} skipped ({case['check']}, {case['file']})")
            continue
        ours = kernel_us(sculpt_launcher(cuda, case, out_dir), case["entry"])
        # A variant of a case ("sgemm_1024x1024x1024_128_blocks") is compared with its case's
        # cuBLAS time.
        size = re.match(r"(sgemm_\d+x\d+x\d+|axpy_2\^\d+)", case["name"])
        theirs = reference.get((size.group(1) if size else case["name"]) + "_kernel_us")
        ratio = ours / theirs if theirs else None
        # The model's bound on the work: a kernel-only time below it is a violation.
        work = case.get("bound_work_us") or 0
        below = ours * NOISE < work
        results.append({"name": case["name"], "sculpt_kernel_us": round(ours, 2),
                        "cublas_kernel_us": theirs, "ratio": ratio and round(ratio, 3),
                        "event_us": case["event_us"], "bound_work_us": round(work, 2),
                        "below_bound": below})
        print(f"{case['name']:<24} sculpt {ours:10.2f} us  cuBLAS {theirs or 0:10.2f} us  "
              f"ratio {ratio or float('nan'):6.3f}  bound's work {work:10.2f} us"
              f"{'  BELOW THE BOUND' if below else ''}")
    (out_dir / "compare.json").write_text(json.dumps(
        {"cases": results, "cublas": reference, "device": torch.cuda.get_device_name()}, indent=1))


if __name__ == "__main__":
    main()
