#include "backbone/isl_wrap.h"

#include <cstdlib>

#include <isl/options.h>

#include "support/check.h"

namespace sculpt::backbone::isl {

Ctx::Ctx() : ctx_(isl_ctx_alloc()) {
  SCULPT_CHECK(ctx_ != nullptr) << "isl_ctx_alloc failed";
  // An isl error is a bug in the relations sculpt builds: stop at once.
  isl_options_set_on_error(ctx_, ISL_ON_ERROR_ABORT);
}

Ctx::~Ctx() { isl_ctx_free(ctx_); }

UnionSet Ctx::union_set(const std::string& text) const {
  UnionSet set(isl_union_set_read_from_str(ctx_, text.c_str()));
  SCULPT_CHECK(set) << "isl cannot read " << text;
  return set;
}

UnionMap Ctx::union_map(const std::string& text) const {
  UnionMap map(isl_union_map_read_from_str(ctx_, text.c_str()));
  SCULPT_CHECK(map) << "isl cannot read " << text;
  return map;
}

Map Ctx::map(const std::string& text) const {
  Map map(isl_map_read_from_str(ctx_, text.c_str()));
  SCULPT_CHECK(map) << "isl cannot read " << text;
  return map;
}

namespace {
std::string take_string(char* text) {
  std::string out = text ? text : "";
  std::free(text);
  return out;
}
}  // namespace

std::string to_string(const UnionMap& map) { return take_string(isl_union_map_to_str(map.get())); }
std::string to_string(const Map& map) { return take_string(isl_map_to_str(map.get())); }

}  // namespace sculpt::backbone::isl
