"""sculpt from Python: the fastest kernel for your sizes, found by a search, called like a function.

    import numpy as np, sculpt
    k = sculpt.search("matmul", "256x256x256", device="cpu", budget=30)
    a = np.random.rand(256, 256).astype(np.float32)
    b = np.random.rand(256, 256).astype(np.float32)
    c = k(a, b)                      # allocates the output; k(a, b, out=c) writes into c

A kernel of one's own, in the notation of Tensor Comprehensions:

    mv = sculpt.define("def mv(float(M,K) A, float(K) x) -> (y) { y(m) +=! A(m,k) * x(k) }")
    k = sculpt.search(mv, {"M": 1024, "K": 1024}, device="cpu", evals=50)

Searches share the C++ library call's cache ($XDG_CACHE_HOME/sculpt, else ~/.cache/sculpt): the
same search answers at once the second time. Mistakes raise sculpt.Error with sculpt's located
message; a Ctrl-C stops a search and raises KeyboardInterrupt.
"""

from . import _sculpt

Error = _sculpt.Error
Parameter = _sculpt.Parameter


class ArgumentError(Error, ValueError):
    """An array that does not fit a kernel's parameter: its shape, dtype, device or layout."""

    kind = "usage"


__all__ = ["ArgumentError", "Definition", "Error", "Kernel", "Parameter", "define", "search"]


class Definition:
    """A kernel of one's own, parsed and checked: what `define` returns and `search` takes."""

    def __init__(self, checked):
        self.text = checked.text
        self.name = checked.name
        self.sizes = list(checked.sizes)
        self.description = checked.description

    def __repr__(self):
        return f"<sculpt.Definition {self.name}({', '.join(self.sizes)})>"

    def __str__(self):
        return self.description


def define(text, name=None, file="definition"):
    """Parses and checks kernel definitions in the Tensor Comprehensions notation and picks the
    one named `name` (None: the only one). Raises sculpt.Error, every mistake located
    (`file:line:column: error: ...`)."""
    return Definition(_sculpt.define(text, name or "", file))


def _sizes_text(sizes):
    if sizes is None:
        return ""
    if isinstance(sizes, str):
        return sizes
    if isinstance(sizes, dict):
        return ",".join(f"{name}={value}" for name, value in sizes.items())
    return "x".join(str(int(size)) for size in sizes)


def search(kernel, sizes=None, device="auto", budget=None, evals=None, *, algorithm="mcts",
           seed=1, threads=1, cache_dir=None, use_cache=True, start_from=(),
           start_from_cache=True, progress=True):
    """The fastest implementation found of `kernel` at `sizes`, as a callable Kernel.

    kernel: a zoo kernel's name ("matmul"; `sculpt kernels` lists them), a Definition, or the
        text of a definition ("def ...").
    sizes: "256x256x256" or (256, 256, 256) for a zoo kernel (None: its defaults); for a
        definition, {"M": 256, "K": 64} or "M=256,K=64", every size named.
    device: "auto" (the GPU when one answers, else the CPU), "cpu" or "cuda".
    budget: seconds of search; evals: candidates to evaluate. The first reached ends it; a
        budget alone searches until it runs out; neither: 100 evaluations.
    progress: show the search's progress line on stderr.
    The other options are sculpt::SearchOptions' (explorer/sculpt_types.h).
    """
    if isinstance(kernel, str) and kernel.lstrip().startswith(("def ", "#")):
        kernel = define(kernel)
    if isinstance(kernel, Definition):
        name, text = kernel.name, kernel.text
    else:
        name, text = str(kernel), ""
    found = _sculpt.search(
        name, _sizes_text(sizes), text, device, algorithm, evals,
        None if budget is None else float(budget), seed, threads,
        "" if cache_dir is None else str(cache_dir), use_cache,
        [str(path) for path in start_from], start_from_cache, progress)
    return Kernel(found)


class Kernel:
    """A found kernel, called like a function on NumPy arrays (CPU) or CUDA tensors (GPU).

    k(*inputs) takes the kernel's inputs and scalars in the order of its definition and returns
    its outputs (one array, or a tuple), allocated; `out=` (an array, or a tuple of them) or an
    output's name as a keyword (k(a, b, C=c)) writes into the given arrays instead, and passing
    every argument in order (k(a, b, c)) does too. Arrays in and out are updated in place.

    Each array must have the kernel's shape and dtype (sculpt.ArgumentError otherwise, naming
    it, a ValueError too). An
    input that is not laid out as the kernel takes it (a transposed or sliced view) is copied; an
    output that is not is written through a copy. Other attributes are the search's:
    time_ns, code, language, entry, launch, device, log, run_dir, id, from_cache, parameters.
    """

    def __init__(self, found):
        self._found = found
        self._loaded = {}
        self.parameters = list(found.parameters)
        self.arguments = [p for p in self.parameters if p.kind != "size"]

    def __getattr__(self, name):
        return getattr(self._found, name)

    def __repr__(self):
        return (f"<sculpt.Kernel {self._found.kernel} {self._found.sizes} on {self._found.device}:"
                f" {self._found.time_ns / 1e3:.1f} us>")

    def signature(self):
        """'matmul(A: f32[256, 256], B: f32[256, 256]) -> C: f32[256, 256]'."""
        def show(p):
            return f"{p.name}: {p.type}" + (f"[{', '.join(map(str, p.shape))}]"
                                            if p.kind == "array" else "")
        ins = [show(p) for p in self.arguments if p.kind == "scalar" or p.role != "output"]
        outs = [show(p) for p in self.arguments if p.kind == "array" and p.role != "input"]
        return f"{self._found.kernel}({', '.join(ins)}) -> {', '.join(outs)}"

    def executable(self, gpu=0):
        """The loaded kernel (sculpt::load): compiled or loaded once, then kept."""
        if gpu not in self._loaded:
            self._loaded[gpu] = _sculpt.load(self._found, gpu)
        return self._loaded[gpu]

    def __call__(self, *args, out=None, stream=None, **named):
        values = self._bind(args, out, named)
        if self._found.language == "ptx":
            from . import _gpu
            return _gpu.run(self, values, stream)
        from . import _host
        return _host.run(self, values)

    def _bind(self, args, out, named):
        """The value given for each argument, by position: scalars as Python numbers of their
        type, None for an output to allocate."""
        params = self.arguments
        given_in = [p for p in params if p.kind == "scalar" or p.role != "output"]
        values = {}
        if len(args) == len(params):
            values = {p.name: a for p, a in zip(params, args)}
        elif len(args) == len(given_in):
            values = {p.name: a for p, a in zip(given_in, args)}
        else:
            raise TypeError(f"{self.signature()} takes {len(given_in)} inputs"
                            f" (or all {len(params)} arguments), not {len(args)}")
        outputs = [p for p in params if p.kind == "array" and p.role == "output"]
        if out is not None:
            outs = out if isinstance(out, (tuple, list)) else (out,)
            if len(outs) != len(outputs):
                raise TypeError(f"{self.signature()}: out= takes {len(outputs)} arrays,"
                                f" not {len(outs)}")
            values.update({p.name: o for p, o in zip(outputs, outs)})
        known = {p.name for p in params}
        for name, value in named.items():
            if name not in known:
                raise TypeError(f"{self.signature()} has no argument {name!r}")
            values[name] = value
        bound = []
        for p in params:
            value = values.get(p.name)
            if p.kind == "scalar":
                if value is None:
                    raise ArgumentError(f"{self._found.kernel}: no value for the scalar {p.name}")
                value = int(value) if p.type == "i32" else float(value)
            elif value is None and p.role == "inout":
                raise ArgumentError(f"{self._found.kernel}: {p.name} is read and written: give it")
            bound.append(value)
        return bound
