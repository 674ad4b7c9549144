// Pass: barriers. A temporary hands values from the threads that store them to the threads
// that load them: a barrier goes right before the branch holding the load, under the innermost
// node holding both accesses. A shared temporary is a tile reused by every iteration of the
// loops around both accesses; when one of them is sequential, a barrier also goes before the
// branch holding the store, so that an iteration does not overwrite what the previous one still
// reads. Global temporaries give every iteration its own slots (memory_layout.cpp).
#include <map>
#include <set>

#include "codegen/lowering.h"
#include "support/check.h"

namespace sculpt::codegen {

namespace {

struct Step {
  std::vector<Node>* body;
  std::size_t index;
};

void find_paths(std::vector<Node>& body, std::vector<Step>& path,
                std::vector<std::vector<Step>>& paths) {
  for (std::size_t i = 0; i < body.size(); ++i) {
    path.push_back({&body, i});
    if (body[i].kind == Node::Kind::kInstruction) paths[body[i].inst] = path;
    if (body[i].kind == Node::Kind::kLoop) find_paths(body[i].body, path, paths);
    path.pop_back();
  }
}

/// Inserts the barriers, merging those that end up next to each other.
void insert(std::vector<Node>& body,
            const std::map<std::vector<Node>*, std::set<std::size_t>>& at) {
  for (Node& node : body) {
    if (node.kind == Node::Kind::kLoop) insert(node.body, at);
  }
  auto found = at.find(&body);
  if (found == at.end()) return;
  std::vector<Node> with;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const bool after_barrier = !with.empty() && with.back().kind == Node::Kind::kBarrier;
    if (found->second.count(i) && !after_barrier)
      with.push_back(Node{Node::Kind::kBarrier, -1, -1, {}});
    with.push_back(std::move(body[i]));
  }
  body = std::move(with);
}

}  // namespace

void place_barriers(Lowering& l) {
  if (l.out.num_threads() == 1) return;
  std::vector<std::vector<Step>> paths(l.out.instructions.size());
  std::vector<Step> path;
  find_paths(l.out.body, path, paths);
  std::map<std::vector<Node>*, std::set<std::size_t>> at;
  for (const backbone::Communication& comm : l.kernel.comms()) {
    if (!l.kernel.lowered(comm.id)) continue;
    const std::vector<Step>& store = paths[l.inst_index[comm.store.value]];
    const std::vector<Step>& load = paths[l.inst_index[comm.load.value]];
    std::size_t k = 0;
    while (k < store.size() && k < load.size() && store[k].index == load[k].index) ++k;
    SCULPT_CHECK(k < store.size() && k < load.size() && store[k].index < load[k].index)
        << "the load of " << l.kernel.mem(comm.temp).name << " does not follow its store";
    at[store[k].body].insert(load[k].index);
    if (!l.d.shared[comm.temp.value]) continue;
    bool reused = false;
    for (std::size_t j = 0; j < k; ++j) {
      const LoopDim& loop = l.out.dims[(*store[j].body)[store[j].index].dim];
      reused = reused ||
               ((loop.kind == LoopKind::kLoop || loop.kind == LoopKind::kUnroll) && loop.size > 1);
    }
    if (reused) at[store[k].body].insert(store[k].index);
  }
  insert(l.out.body, at);
}

}  // namespace sculpt::codegen
