#include "search/session/problem.h"

#include <random>
#include <span>

#include "support/check.h"

namespace sculpt::search {
namespace {

device::ElementType element_type(backbone::ElemType type) {
  switch (type) {
    case backbone::ElemType::kF32:
      return device::ElementType::f32;
    case backbone::ElemType::kF64:
      return device::ElementType::f64;
    case backbone::ElemType::kI32:
      return device::ElementType::i32;
  }
  return device::ElementType::f32;
}

device::Role role(backbone::MemRegion::Kind kind) {
  switch (kind) {
    case backbone::MemRegion::Kind::kInput:
      return device::Role::input;
    case backbone::MemRegion::Kind::kOutput:
      return device::Role::output;
    default:
      return device::Role::inout;
  }
}

/// The bytes of array parameter `i`, whatever its element type.
std::span<std::byte> array_bytes(const device::Arguments& args, std::size_t i,
                                 device::ElementType type) {
  switch (type) {
    case device::ElementType::f32:
      return std::as_writable_bytes(args.array<float>(i));
    case device::ElementType::f64:
      return std::as_writable_bytes(args.array<double>(i));
    case device::ElementType::i32:
      return std::as_writable_bytes(args.array<std::int32_t>(i));
  }
  return {};
}

}  // namespace

std::int64_t reduction_length(const backbone::Kernel& kernel) {
  std::int64_t total = 0;
  for (const backbone::Instruction* inst : kernel.instructions()) {
    std::int64_t terms = 1;
    for (backbone::LoopId loop : inst->reduction_loops()) {
      terms *= kernel.logical_dim(kernel.loop(loop).logical).size;
    }
    if (!inst->reduction_loops().empty()) total += terms;
  }
  return std::max<std::int64_t>(total, 1);
}

std::shared_ptr<const device::Problem> make_problem(const backbone::KernelInfo& info,
                                                    const backbone::Sizes& sizes,
                                                    const backbone::Kernel& kernel,
                                                    std::uint64_t seed) {
  auto problem = std::make_shared<device::Problem>();
  problem->name = kernel.name();
  problem->seed = seed;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> magnitude(0.5, 1.5);
  backbone::ElemType output_type = backbone::ElemType::kF32;
  std::vector<backbone::ElemType> array_types(kernel.params().size());  // for the reference
  for (const backbone::Parameter& param : kernel.params()) {
    switch (param.kind) {
      case backbone::Parameter::Kind::kSize:
        problem->params.push_back(
            device::ScalarParam{param.name, static_cast<std::int32_t>(param.size_value)});
        break;
      case backbone::Parameter::Kind::kScalar: {
        const double v = magnitude(rng) * (rng() % 2 ? 1 : -1);
        device::ScalarParam scalar{param.name, {}};
        if (param.type == backbone::ElemType::kF32) scalar.value = static_cast<float>(v);
        if (param.type == backbone::ElemType::kF64) scalar.value = v;
        if (param.type == backbone::ElemType::kI32) scalar.value = static_cast<std::int32_t>(v * 4);
        problem->params.push_back(scalar);
        break;
      }
      case backbone::Parameter::Kind::kArray: {
        const backbone::MemRegion& mem = kernel.mem(param.mem);
        problem->params.push_back(device::ArrayParam{.name = param.name,
                                                     .type = element_type(mem.type),
                                                     .count = mem.num_elements(),
                                                     .role = role(mem.kind)});
        if (mem.is_written()) output_type = mem.type;
        array_types[problem->params.size() - 1] = mem.type;
        break;
      }
    }
  }
  problem->tolerance = {element_type(output_type), reduction_length(kernel)};
  // The zoo's references read and write host buffers by name: views of the device's arrays.
  problem->reference = [&info, sizes, params = problem->params,
                        array_types](const device::Arguments& args) {
    backbone::HostArgs host;
    for (std::size_t i = 0; i < params.size(); ++i) {
      if (const auto* scalar = std::get_if<device::ScalarParam>(&params[i])) {
        std::visit([&](auto v) { host.scalars[scalar->name] = static_cast<double>(v); },
                   scalar->value);
        continue;
      }
      const auto& array = std::get<device::ArrayParam>(params[i]);
      host.arrays[array.name] = backbone::Buffer::view(array_types[i], array.count,
                                                       array_bytes(args, i, array.type).data());
    }
    info.reference(sizes, host);
  };
  return problem;
}

}  // namespace sculpt::search
