#include "search/gpu/code_features.h"

#include <algorithm>
#include <initializer_list>

#include "codegen/lower.h"
#include "gpu_space/space.h"
#include "support/hash.h"

namespace sculpt::search {

namespace {

/// The key of a feature made of `fields`, distinct from every move key with high probability.
std::uint64_t key(std::initializer_list<std::int64_t> fields) {
  std::uint64_t h = 0x636f64655f666561ULL;  // "code_fea"
  for (std::int64_t f : fields) h = support::mix64(h ^ static_cast<std::uint64_t>(f));
  return h;
}

enum Field : std::int64_t { kLoopAround = 1, kNoLoop, kThreadLoops, kBlocks, kThreads };
/// Sizes past this many iterations count as this many: beyond, a loop is long either way.
constexpr std::int64_t kLongLoop = 64;

struct Walk {
  const codegen::LoweredKernel& lowered;
  const backbone::Kernel& kernel;
  std::vector<std::uint64_t>& out;
  std::vector<int> around;        // sequential loops of more than one iteration, outer to inner
  std::int64_t thread_loops = 0;  // loops over threads around

  void visit(const std::vector<codegen::Node>& body) {
    for (const codegen::Node& node : body) {
      if (node.kind == codegen::Node::Kind::kLoop) {
        const codegen::LoopDim& dim = lowered.dims[static_cast<std::size_t>(node.dim)];
        const bool sequential = dim.kind == codegen::LoopKind::kLoop ||
                                dim.kind == codegen::LoopKind::kUnroll ||
                                dim.kind == codegen::LoopKind::kVector;
        const bool threads = dim.kind == codegen::LoopKind::kThread;
        if (sequential && dim.size > 1) around.push_back(node.dim);
        thread_loops += threads;
        visit(node.body);
        thread_loops -= threads;
        if (sequential && dim.size > 1) around.pop_back();
      } else if (node.kind == codegen::Node::Kind::kInstruction) {
        instruction(lowered.instructions[static_cast<std::size_t>(node.inst)]);
      }
    }
  }

  void instruction(const codegen::Instruction& inst) {
    const std::int64_t id = inst.id.value;
    if (around.empty()) out.push_back(key({kNoLoop, id}));
    out.push_back(key({kThreadLoops, id, thread_loops}));
    const std::size_t depths = std::min<std::size_t>(around.size(), 2);
    for (std::size_t depth = 0; depth < depths; ++depth) {
      const codegen::LoopDim& dim =
          lowered.dims[static_cast<std::size_t>(around[around.size() - 1 - depth])];
      const std::int64_t logical = kernel.dim(dim.members.front()).logical.value;
      const auto kind = static_cast<std::int64_t>(dim.kind);
      const auto d = static_cast<std::int64_t>(depth);
      out.push_back(key({kLoopAround, id, d, logical, kind}));
      out.push_back(key({kLoopAround, id, d, logical, kind, std::min(dim.size, kLongLoop)}));
    }
  }
};

}  // namespace

std::vector<std::uint64_t> code_features(const codegen::LoweredKernel& lowered,
                                         const backbone::Kernel& kernel) {
  std::vector<std::uint64_t> out;
  Walk{lowered, kernel, out, {}}.visit(lowered.body);
  out.push_back(key({kBlocks, std::min<std::int64_t>(lowered.num_blocks(), kLongLoop)}));
  out.push_back(key({kThreads, lowered.num_threads()}));
  // An instruction may appear twice in the body (a store in two phases): each feature once.
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::uint64_t> CodeFeatures::of(const spacegen::CandidateBase& candidate) const {
  const auto& c = static_cast<const gpu_space::Candidate&>(candidate);
  return code_features(codegen::lower(c), c.backbone().kernel());
}

}  // namespace sculpt::search
