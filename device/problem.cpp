#include "device/problem.h"

namespace sculpt::device {

std::size_t size_of(ElementType type) {
  switch (type) {
    case ElementType::f32:
      return sizeof(float);
    case ElementType::f64:
      return sizeof(double);
    case ElementType::i32:
      return sizeof(std::int32_t);
  }
  SCULPT_CHECK(false) << "unknown element type";
  return 0;
}

std::string_view to_string(ElementType type) {
  switch (type) {
    case ElementType::f32:
      return "f32";
    case ElementType::f64:
      return "f64";
    case ElementType::i32:
      return "i32";
  }
  SCULPT_CHECK(false) << "unknown element type";
  return {};
}

Fill default_fill(ElementType type) {
  if (type == ElementType::i32) return Fill{.low = 1, .high = 16, .random_sign = true};
  return Fill{};
}

ElementType ScalarParam::type() const {
  return std::visit([](auto v) { return element_type_of<decltype(v)>(); }, value);
}

}  // namespace sculpt::device
