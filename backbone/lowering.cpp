// The lowerings the space's triggers call: they change the backbone by adding objects that were
// pre-allocated when the kernel was built.
#include <algorithm>

#include "backbone/kernel.h"
#include "support/check.h"

namespace sculpt::backbone {

void Kernel::insert_next_to(const ProgramNode& anchor, ProgramNode node, bool after) {
  std::optional<LoopId> parent;
  if (anchor.loop) {
    parent = loop(*anchor.loop).parent;
  } else if (!inst(*anchor.inst).loops.empty()) {
    parent = inst(*anchor.inst).loops.back();
  }
  std::vector<ProgramNode>& body = parent ? loop_bodies_[parent->value] : body_;
  auto it = std::find_if(body.begin(), body.end(), [&](const ProgramNode& n) {
    return n.loop == anchor.loop && n.inst == anchor.inst;
  });
  SCULPT_CHECK(it != body.end()) << "anchor missing from the default program";
  body.insert(after ? it + 1 : it, std::move(node));
}

NewObjects Kernel::lower_communication(DimMappingId mapping_id) {
  Communication& comm = comms_[mapping(mapping_id).comm.value];
  SCULPT_CHECK(comm.lowerable()) << "the init of a reduction cannot go through memory";
  if (comm.lowered) return {};
  comm.lowered = true;
  Instruction& store = insts_[comm.store.value];
  Instruction& load = insts_[comm.load.value];
  store.added = true;
  load.added = true;
  mems_[comm.temp.value].added = true;
  Communication& read = comms_[comm.read.value];
  read.added = true;
  for (DimMappingId m : read.mappings) mappings_[m.value].added = true;
  for (const auto& [copy, consumer_loop] : read.loop_pairs) {
    for (DimId dim : loop(copy).dims()) dims_[dim.value].added = true;
  }

  // The store sits right after the producer, or after the first producer loop it left out (a
  // reduction loop: the stored value is the final one).
  const Instruction& producer = inst(comm.producer);
  ProgramNode anchor{std::nullopt, producer.id};
  if (store.loops.size() < producer.loops.size()) {
    anchor = ProgramNode{producer.loops[store.loops.size()], std::nullopt};
  }
  insert_next_to(anchor, ProgramNode{std::nullopt, store.id}, /*after=*/true);
  // The load's loops run right before the consumer's loops they copy.
  const auto& [outermost_copy, outermost_copied] = read.loop_pairs.front();
  insert_next_to(ProgramNode{outermost_copied, std::nullopt}, ProgramNode{outermost_copy, std::nullopt},
                 /*after=*/false);

  Operand& operand = insts_[comm.consumer.value].operands[comm.operand];
  operand.inst = load.id;
  operand.comm = read.id;

  NewObjects added;
  added.instructions = {store.id, load.id};
  added.mem_regions = {comm.temp};
  added.lowered_comms = {comm.id};
  for (const auto& [copy, consumer_loop] : read.loop_pairs) {
    for (DimId dim : loop(copy).dims()) added.dims.push_back(dim);
  }
  return added;
}

}  // namespace sculpt::backbone
