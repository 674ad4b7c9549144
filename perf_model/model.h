#pragma once
// A lower bound on the execution time of every implementation a (partially specified) candidate
// can still become: what any of them must pay, whatever the choices left open (the primary
// paper's section 4). Built in layers, each valid on its own:
//  1. floors: the whole kernel's useful work over the whole device's peak rates (fp32 lanes,
//     issue slots) and its compulsory traffic at the level it must come from (a footprint that
//     fits in L2 is bounded by L2 bandwidth: timed runs find it warm there);
//  2. pressure: per instruction, the fewest warp instructions, 32-byte sectors and shared-memory
//     wavefronts any implementation left issues, spread over the SMs its blocks can occupy;
//  3. latency: one block through its chain of dependent instructions (reductions are sequential
//     in a thread), its issue and its barriers, times the waves of blocks occupancy allows.
// Each layer takes, for every quantity, the minimum over what the candidate's domains still allow,
// so that fixing a choice never lowers the bound of the candidate it gives.
//
// Counts are of what survives ptxas or a C compiler: an instruction repeated in loops its value
// does not depend on may be hoisted or merged, so only the iterations of the loops its value
// (or address) depends on are charged; every warp of every block still issues its own copy.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpu_space/space.h"
#include "perf_model/description.h"
#include "perf_model/instruction_class.h"

namespace sculpt::perf_model {

/// Where a bottleneck sits: the whole device, one SM (or core), or one block on its way.
enum class Level { device, sm, block };
std::string_view to_string(Level level);

/// One lower bound and what it comes from.
struct Term {
  std::string resource;  ///< "fp32", "issue", "dram", "l2", "l1", "shared", "lsu", "latency"...
  Level level = Level::device;
  double ns = 0;
  std::string detail;  ///< the quantities behind it, in words
};

/// What the model charges one instruction of the backbone, in warp instructions, 32-byte global
/// sectors and shared-memory wavefronts over the whole launch.
struct InstructionCounts {
  std::string name;
  /// The warp instructions the model charges, per class (an exp is a mul and an ex2).
  ClassCounts charged{};
  /// Those the printed PTX executes, hoistable repetitions included (Counting::executed, in a
  /// fully specified candidate; else the charged ones).
  double executed = 0;
  double charged_sectors = 0;
  double executed_sectors = 0;
  double charged_wavefronts = 0;
  double executed_wavefronts = 0;
  /// Whether the counts above are exact for the PTX (every choice they read is fixed).
  bool exact = false;
  /// Where its dimensions, block and grid are fixed, for an access: the dimension whose
  /// iterations one vector access of the printed code moves (vector_access.h), and their number;
  /// none and 1 where it stays scalar.
  std::optional<backbone::DimId> vector_dim;
  std::int64_t vector_width = 1;
};

struct Counts {
  ClassCounts charged{};  ///< every instruction together, and the barriers
  std::vector<InstructionCounts> instructions;
  /// Barriers every block passes, at least: iterations of the sequential loops that hold one.
  double barriers_per_block = 0;
  double blocks = 1;             ///< fewest blocks
  double threads_per_block = 1;  ///< fewest threads per block
};

struct Bound {
  /// The launch, then the largest term.
  double ns = 0;
  /// What a GPU's timed run pays before the work: an empty kernel's launch as the device times
  /// one. 0 on the CPU, where the launch is a term like the others.
  double launch_ns = 0;
  /// Every term, largest first: the first is the bottleneck.
  std::vector<Term> terms;
  Counts counts;

  const Term& bottleneck() const { return terms.front(); }
  /// The bound, its bottleneck and every term, one per line.
  std::string explain() const;
};

/// Which layers to compute (each includes the previous ones).
enum class Layers { floors, pressure, all };

/// What the counts of a bound hold: what the model charges, or also what the printed PTX
/// executes (InstructionCounts' executed figures: for checks against a run, at twice the cost).
enum class Counting { charged, executed };

/// The model of one kernel on one device: what depends on neither the candidate nor its
/// lowerings is computed once, for every candidate of a search.
class Model {
 public:
  /// `kernel` as built (every object a lowering may add is known from the start).
  Model(const backbone::Kernel& kernel, Description description);
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;

  const Description& description() const;
  /// A lower bound on the time of every implementation `candidate` (alive) can become.
  Bound bound(const gpu_space::Candidate& candidate, Layers layers = Layers::all,
              Counting counting = Counting::charged) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The same, for one candidate (the static facts are computed for it).
Bound bound(const gpu_space::Candidate& candidate, const Description& description);

}  // namespace sculpt::perf_model
