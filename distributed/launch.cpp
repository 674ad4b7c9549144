#include "distributed/launch.h"

#include <charconv>
#include <cstdlib>
#include <string_view>

namespace sculpt::distributed {
namespace {

// Open MPI's mpirun; MPICH's and Intel MPI's Hydra, and Slurm's PMI; PMIx launchers.
constexpr const char* kSizeVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};
constexpr const char* kRankVariables[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};

}  // namespace

bool launched_by_mpi() {
  for (const char* name : kSizeVariables) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

std::optional<int> launcher_rank() {
  for (const char* name : kRankVariables) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    const std::string_view text(value);
    int rank = 0;
    if (const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), rank);
        error == std::errc() && end == text.data() + text.size()) {
      return rank;
    }
  }
  return std::nullopt;
}

bool mpi_support() {
#ifdef SCULPT_HAVE_MPI
  return true;
#else
  return false;
#endif
}

}  // namespace sculpt::distributed
