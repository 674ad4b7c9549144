#include "backbone/isl_wrap.h"

#include <cstdlib>

#include <isl/options.h>
#include <isl/space.h>
#include <isl/val.h>

#include "support/check.h"

namespace sculpt::backbone::isl {

Ctx::Ctx() : ctx_(isl_ctx_alloc()) {
  SCULPT_CHECK(ctx_ != nullptr) << "isl_ctx_alloc failed";
  // An isl error is a bug in the relations sculpt builds: stop at once.
  isl_options_set_on_error(ctx_, ISL_ON_ERROR_ABORT);
}

Ctx::~Ctx() { isl_ctx_free(ctx_); }

Set Ctx::set(const std::string& text) const {
  Set set(isl_set_read_from_str(ctx_, text.c_str()));
  SCULPT_CHECK(set) << "isl cannot read " << text;
  return set;
}

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

std::optional<std::int64_t> Point::parameter(const std::string& name) const {
  return coordinate(isl_dim_param, name);
}

std::optional<std::int64_t> Point::dimension(const std::string& name) const {
  return coordinate(isl_dim_set, name);
}

std::optional<std::int64_t> Point::coordinate(isl_dim_type type, const std::string& name) const {
  isl_space* space = isl_point_get_space(point_.get());
  const int pos = isl_space_find_dim_by_name(space, type, name.c_str());
  isl_space_free(space);
  if (pos < 0) return std::nullopt;
  isl_val* v = isl_point_get_coordinate_val(point_.get(), type, pos);
  const std::int64_t n = isl_val_get_num_si(v);
  isl_val_free(v);
  return n;
}

std::optional<Point> sample(const Set& set) {
  if (isl_set_is_empty(set.get()) == isl_bool_true) return std::nullopt;
  return Point(isl_set_sample_point(set.copy()));
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
