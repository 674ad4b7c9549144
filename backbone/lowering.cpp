// The lowerings the space's triggers call: they change the backbone by adding objects that were
// pre-allocated when the kernel was built.

#include "backbone/kernel.h"
#include "support/check.h"

namespace sculpt::backbone {

bool Kernel::lower_communication(DimMappingId mapping_id) {
  const Communication& lowering = comm(mapping(mapping_id).comm);
  SCULPT_CHECK(lowering.lowerable()) << "the init of a reduction cannot go through memory";
  if (lowered(lowering.id)) return false;
  // Everything it adds is in place already (Builder::preallocate_lowering), waiting for this.
  lowered_[lowering.id.value] = true;
  return true;
}

}  // namespace sculpt::backbone
