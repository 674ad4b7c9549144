// Pass: the loop tree. `order` relates every pair of statements (instructions and classes of
// merged dimensions); the parent of a statement is the innermost class OUTER of it, and
// siblings follow BEFORE. Block classes form the chain at the top; the rest is the block's body.
#include <algorithm>

#include "codegen/lowering.h"
#include "support/check.h"

namespace sculpt::codegen {

using backbone::DimId;
using backbone::InstId;
using backbone::StmtId;

namespace {

/// A statement of the tree: a LoopDim (dim >= 0) or an instruction.
struct Item {
  int dim = -1;
  InstId inst;
  StmtId stmt;                // its representative statement
  std::vector<int> outer;     // LoopDims OUTER of it
  std::vector<int> children;  // items
};

}  // namespace

void build_loop_tree(Lowering& l) {
  const backbone::Kernel& kernel = l.kernel;
  l.out.dims = l.d.classes;
  l.out.block_size = l.d.level_size;
  std::vector<Item> items;
  for (std::size_t c = 0; c < l.out.dims.size(); ++c) {
    items.push_back(
        {static_cast<int>(c), InstId(), kernel.stmt_id(l.out.dims[c].members.front()), {}, {}});
  }
  for (const backbone::Instruction* inst : kernel.instructions()) {
    items.push_back({-1, inst->id, inst->stmt_id(), {}, {}});
  }
  for (Item& item : items) {
    for (std::size_t c = 0; c < l.out.dims.size(); ++c) {
      if (static_cast<int>(c) == item.dim) continue;
      if (l.d.order(kernel.stmt_id(l.out.dims[c].members.front()), item.stmt) == Order::kOuter) {
        item.outer.push_back(static_cast<int>(c));
      }
    }
  }
  // Parents: the enclosing class with the most classes around it.
  std::vector<int> roots;
  for (std::size_t i = 0; i < items.size(); ++i) {
    Item& item = items[i];
    if (item.outer.empty()) {
      roots.push_back(static_cast<int>(i));
      continue;
    }
    const int parent = *std::max_element(item.outer.begin(), item.outer.end(), [&](int a, int b) {
      return items[a].outer.size() < items[b].outer.size();
    });
    SCULPT_CHECK(items[parent].outer.size() + 1 == item.outer.size())
        << "the classes around statement " << item.stmt.value << " do not form a chain";
    items[parent].children.push_back(static_cast<int>(i));
  }
  auto before = [&](int a, int b) {
    const Order o = l.d.order(items[a].stmt, items[b].stmt);
    SCULPT_CHECK(o == Order::kBefore || o == Order::kAfter)
        << "siblings " << items[a].stmt.value << " and " << items[b].stmt.value
        << " are neither before nor after each other";
    return o == Order::kBefore;
  };
  std::sort(roots.begin(), roots.end(), before);
  for (Item& item : items) std::sort(item.children.begin(), item.children.end(), before);

  // Block classes: the chain at the top.
  std::vector<int>* level = &roots;
  while (level->size() == 1 && items[level->front()].dim >= 0 &&
         l.out.dims[items[level->front()].dim].kind == LoopKind::kBlock) {
    const int block = items[level->front()].dim;
    l.out.dims[block].level = static_cast<int>(l.out.block_dims.size());
    l.out.block_dims.push_back(block);
    level = &items[level->front()].children;
  }
  for (const LoopDim& dim : l.out.dims) {
    SCULPT_CHECK(dim.kind != LoopKind::kBlock || dim.level >= 0)
        << "block dimension " << dim.name << " is not outside everything else";
    SCULPT_CHECK(dim.kind != LoopKind::kThread || dim.size <= l.out.block_size[dim.level])
        << "thread dimension " << dim.name << " is larger than its level";
  }

  // The body, with an instruction entry per instruction in program order.
  std::vector<int> path;
  auto build = [&](auto&& self, const std::vector<int>& children) -> std::vector<Node> {
    std::vector<Node> nodes;
    for (int i : children) {
      const Item& item = items[i];
      if (item.dim >= 0) {
        path.push_back(item.dim);
        nodes.push_back(Node{Node::Kind::kLoop, item.dim, -1, self(self, item.children)});
        path.pop_back();
        continue;
      }
      const backbone::Instruction& inst = kernel.inst(item.inst);
      l.inst_index[inst.id.value] = static_cast<int>(l.out.instructions.size());
      l.ancestors[inst.id.value] = path;
      Instruction lowered;
      lowered.id = inst.id;
      lowered.name = inst.name;
      lowered.op = inst.op;
      lowered.type = inst.type;
      l.out.instructions.push_back(std::move(lowered));
      nodes.push_back(Node{Node::Kind::kInstruction, -1, l.inst_index[inst.id.value], {}});
    }
    return nodes;
  };
  l.out.body = build(build, *level);

  // Every instruction sits inside the classes of its own dimensions.
  for (const backbone::Instruction* inst : kernel.instructions()) {
    for (DimId dim : kernel.dims_of(inst->id)) {
      SCULPT_CHECK(l.is_ancestor(l.loop_dim(dim), inst->id))
          << inst->name << " is outside its dimension " << kernel.dim(dim).name;
    }
  }
}

}  // namespace sculpt::codegen
