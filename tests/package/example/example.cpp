// A program that asks sculpt for the fastest 128^3 matmul on this machine: a search the first
// time (logged in sculpt's cache folder), the cached kernel at once after that.
#include <sculpt/sculpt.h>

#include <cstdio>

int main(int argc, char** argv) {
  sculpt::SearchOptions options;
  options.device = argc > 1 ? argv[1] : "auto";  // auto: the GPU when one answers, else the CPU
  options.evals = 10;
  options.budget_s = 60;
  try {
    const sculpt::Kernel k = sculpt::search("matmul", "128x128x128", options);
    std::printf("%s %s on %s: %.1f us, %s %zu bytes of %s (%s)\n", k.kernel.c_str(),
                k.sizes.c_str(), k.device.c_str(), k.time_ns / 1e3, k.entry.c_str(), k.code.size(),
                k.language.c_str(),
                k.from_cache ? "from the cache" : ("searched, log " + k.log.string()).c_str());
  } catch (const sculpt::Error& e) {
    std::fprintf(stderr, "sculpt: %s\n", e.what());
    return 1;
  }
}
