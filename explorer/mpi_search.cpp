#include "explorer/mpi_search.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "backbone/sizes.h"
#include "distributed/launch.h"
#include "explorer/command.h"
#ifdef SCULPT_HAVE_MPI
#include "distributed/evaluator_pool.h"
#include "distributed/evaluator_rank.h"
#include "distributed/mpi_session.h"
#include "explorer/device_choice.h"
#include "search/gpu/device_evaluator.h"
#include "search/session/stand_in_device.h"
#include "support/error.h"
#endif

namespace sculpt::explorer {
namespace {

void say(const std::string& message) {
  std::fprintf(stderr, "sculpt search: %s\n", message.c_str());
}

#ifdef SCULPT_HAVE_MPI
/// The device `request` names, on GPU `gpu` when it is a GPU.
distributed::RankDevice rank_device(const SearchRequest& request, int gpu) {
  distributed::RankDevice d;
  if (device::kind_named(request.device) == device::Kind::stand_in) {
    d.name = d.architecture = d.model = device::name(device::Kind::stand_in);
    d.open = [latency = request.stand_in_latency](std::shared_ptr<const device::Problem>) {
      return std::make_unique<search::StandInDevice>(latency);
    };
    return d;
  }
  const std::shared_ptr<device::Evaluator> device = make_device(request.device, &d.error, gpu);
  if (!device) return d;
  d.name = device->name();
  d.architecture = device->architecture();
  d.model = device->model();
  d.open = [device](std::shared_ptr<const device::Problem> problem) {
    return std::make_unique<search::DeviceEvaluator>(*device, std::move(problem));
  };
  return d;
}

/// The GPU of the evaluator rank that is `local_evaluator`th among those of its node: that one,
/// unless its launcher lets it see only one (CUDA_VISIBLE_DEVICES naming one GPU, as Slurm's
/// --gpus-per-task=1 does).
int gpu_of(int local_evaluator) {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible != nullptr && *visible != '\0' && std::strchr(visible, ',') == nullptr) return 0;
  return local_evaluator;
}
#endif

}  // namespace

bool launched_by_mpi() { return distributed::launched_by_mpi(); }

int run_mpi_search([[maybe_unused]] SearchRequest request,
                   [[maybe_unused]] const std::function<int(const SearchRequest&)>& search) {
#ifndef SCULPT_HAVE_MPI
  if (distributed::launcher_rank().value_or(0) == 0) {
    say("started by mpirun, but this sculpt was built without MPI support (libopenmpi-dev was not "
        "found at build time: setup.sh installs it)");
  }
  return kExitUsage;
#else
  std::optional<distributed::MpiSession> mpi;
  try {
    mpi.emplace();
  } catch (const std::runtime_error& e) {
    say(e.what());
    return kExitUsage;
  }
  if (mpi->size() < 2) {
    say("started by mpirun with one rank: rank 0 searches and the others measure, so a search "
        "needs two ranks or more (mpirun -np 2 or more)");
    return kExitUsage;
  }
  if (mpi->rank() > 0) {
    try {
      distributed::serve(*mpi, rank_device(request, gpu_of(mpi->local_evaluator())));
    } catch (const std::runtime_error& e) {  // LinkError, WireError
      say(fmt::format("evaluator rank {}: {}", mpi->rank(), e.what()));
      mpi->abandon();
      return kExitUsage;
    }
    return kExitOk;
  }
  distributed::EvaluatorPool pool(*mpi);
  if (!pool.refusal().empty()) {
    say(pool.refusal());
    return kExitUsage;
  }
  const auto open = [&pool, definition = request.definition, file = request.definition_file](
                        const std::string& kernel, const backbone::Sizes& sizes,
                        std::uint64_t seed) {
    distributed::ProblemMessage problem{kernel, backbone::format_sizes(sizes), seed, definition,
                                        file};
    if (!definition.empty()) {
      // A definition's sizes go by name.
      std::vector<std::string> named;
      for (const auto& [name, value] : sizes.entries())
        named.push_back(fmt::format("{}={}", name, value));
      problem.sizes = fmt::format("{}", fmt::join(named, ","));
    }
    try {
      return pool.open(problem);
    } catch (const distributed::LinkError& e) {
      throw Error(Error::Kind::usage, e.what());
    }
  };
  request.remote = RemoteDevice{pool.device_kind(), pool.architecture(), pool.model(), open};
  return search(request);
#endif
}

}  // namespace sculpt::explorer
