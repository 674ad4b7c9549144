// The lowerings the space's triggers call: they change the backbone by adding objects that were
// pre-allocated when the kernel was built.

#include "backbone/kernel.h"
#include "support/check.h"

namespace sculpt::backbone {

NewObjects Kernel::lower_communication(DimMappingId mapping_id) {
  const Communication& lowering = comm(mapping(mapping_id).comm);
  SCULPT_CHECK(lowering.lowerable()) << "the init of a reduction cannot go through memory";
  if (lowered(lowering.id)) return {};
  // Everything it adds is in place already (Builder::preallocate_lowering), waiting for this.
  lowered_[lowering.id.value] = true;
  NewObjects added;
  added.instructions = {lowering.store, lowering.load};
  added.mem_regions = {lowering.temp};
  added.lowered_comms = {lowering.id};
  for (const auto& [copy, consumer_loop] : comm(lowering.read).loop_pairs) {
    for (DimId dim : loop(copy).dims()) added.dims.push_back(dim);
  }
  return added;
}

}  // namespace sculpt::backbone
