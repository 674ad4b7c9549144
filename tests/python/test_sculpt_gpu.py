"""The Python module on a GPU: a search on CUDA, its kernel run on PyTorch tensors and checked
against PyTorch's matmul. Skips without PyTorch or a GPU."""

import pytest

pytestmark = pytest.mark.gpu


def test_a_found_matmul_runs_on_cuda_tensors(sculpt, cache_dir):
    torch = pytest.importorskip("torch", reason="no PyTorch")
    if not torch.cuda.is_available():
        pytest.skip("no GPU answers")
    k = sculpt.search("matmul", "256x256x64", device="cuda", evals=10, cache_dir=cache_dir,
                      progress=False)
    assert k.language == "ptx"
    a = torch.rand(256, 64, device="cuda")
    b = torch.rand(64, 256, device="cuda")
    c = k(a, b)
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)
    out = torch.empty(256, 256, device="cuda")
    assert k(a.t().contiguous().t(), b, out=out) is out
    torch.testing.assert_close(out, a @ b, rtol=1e-4, atol=1e-4)
    with pytest.raises(sculpt.ArgumentError, match="CUDA arrays"):
        k(a.cpu(), b.cpu())
