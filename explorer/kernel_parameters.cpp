#include "explorer/kernel_parameters.h"

namespace sculpt::explorer {
namespace {

std::string type_name(backbone::ElemType type) {
  switch (type) {
    case backbone::ElemType::kF32:
      return "f32";
    case backbone::ElemType::kF64:
      return "f64";
    case backbone::ElemType::kI32:
      return "i32";
  }
  return "f32";
}

Parameter::Role role_of(backbone::MemRegion::Kind kind) {
  switch (kind) {
    case backbone::MemRegion::Kind::kInput:
      return Parameter::Role::input;
    case backbone::MemRegion::Kind::kOutput:
      return Parameter::Role::output;
    default:
      return Parameter::Role::inout;
  }
}

}  // namespace

std::vector<Parameter> parameters_of(const backbone::Kernel& kernel) {
  std::vector<Parameter> parameters;
  for (const backbone::Parameter& param : kernel.params()) {
    Parameter p;
    p.name = param.name;
    p.type = type_name(param.type);
    switch (param.kind) {
      case backbone::Parameter::Kind::kSize:
        p.kind = Parameter::Kind::size;
        p.type = "i32";
        p.value = param.size_value;
        break;
      case backbone::Parameter::Kind::kScalar:
        p.kind = Parameter::Kind::scalar;
        break;
      case backbone::Parameter::Kind::kArray: {
        const backbone::MemRegion& mem = kernel.mem(param.mem);
        p.kind = Parameter::Kind::array;
        p.type = type_name(mem.type);
        p.role = role_of(mem.kind);
        p.shape = mem.extents;
        p.strides = mem.strides;
        p.elements = mem.num_elements();
        break;
      }
    }
    parameters.push_back(std::move(p));
  }
  return parameters;
}

}  // namespace sculpt::explorer
