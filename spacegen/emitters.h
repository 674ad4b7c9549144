#pragma once
// One emitter per generated file, each writing its file from the plan (emission.h).
#include <cstddef>
#include <cstdint>
#include <string>

#include "spacegen/emission.h"

namespace sculpt::spacegen {

std::string emit_domains_h(const Emission& e);
std::string emit_space_h(const Emission& e);
/// `model_hash` identifies the model's constraints and values (SpaceTable::model_hash).
std::string emit_decision_vector(const Emission& e, std::uint64_t model_hash);
/// propagators_<stem>.cpp: the propagators of the constraints written in `space_file`.
std::string emit_propagators(const Emission& e, const std::string& space_file);
/// quotients.cpp: the quotient checks.
std::string emit_quotients(const Emission& e);
std::string emit_counters(const Emission& e);
std::string emit_triggers(const Emission& e);

/// decision_vector.cpp's on_change, restrict_stored, post_all, instantiate_new_objects.
void emit_dispatch(const Emission& e, CodeWriter& w);

}  // namespace sculpt::spacegen
