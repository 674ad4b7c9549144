// A program that asks sculpt for the fastest 128^3 matmul on this machine's CPU (a search the
// first time, logged in sculpt's cache folder; the cached kernel at once after that), runs it on
// its own arrays and compares the result with a plain loop's.
#include <sculpt/sculpt.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  constexpr int n = 128;
  sculpt::SearchOptions options;
  options.device = "cpu";  // "auto": the GPU when one answers; its kernel takes device memory
  options.evals = 10;
  options.budget_s = 60;
  try {
    const sculpt::Kernel k = sculpt::search("matmul", "128x128x128", options);
    std::printf("%s %s on %s: %.1f us, %s %zu bytes of %s (%s)\n", k.kernel.c_str(),
                k.sizes.c_str(), k.device.c_str(), k.time_ns / 1e3, k.entry.c_str(), k.code.size(),
                k.language.c_str(),
                k.from_cache ? "from the cache" : ("searched, log " + k.log.string()).c_str());

    std::vector<float> a(n * n), b(n * n), c(n * n);
    for (int i = 0; i < n * n; ++i) a[i] = (i % 7) * 0.25f, b[i] = (i % 5) * 0.5f;
    const sculpt::Executable matmul = sculpt::load(k);
    matmul({a, b, c});  // C = A B
    double largest = 0;
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        double sum = 0;
        for (int l = 0; l < n; ++l) sum += a[i * n + l] * b[l * n + j];
        largest = std::fmax(largest, std::fabs(c[i * n + j] - sum));
      }
    }
    std::printf("largest difference from a plain loop: %g\n", largest);
    return largest < 1e-3 ? 0 : 1;
  } catch (const sculpt::Error& e) {
    std::fprintf(stderr, "sculpt: %s\n", e.what());
    return 1;
  }
}
