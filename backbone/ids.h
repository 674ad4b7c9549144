#pragma once
// Dense ids of backbone objects. The decision vector indexes every set of objects by a dense id in
// [0, capacity), so each object kind has its own strongly typed id; ids are never reused and
// objects a lowering may add later get their ids when the kernel is built.
#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace sculpt::backbone {

template <typename Tag>
struct Id {
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  uint32_t value = kNone;

  constexpr Id() = default;
  constexpr explicit Id(uint32_t v) : value(v) {}
  constexpr bool valid() const { return value != kNone; }
  constexpr auto operator<=>(const Id&) const = default;
};

using InstId = Id<struct InstTag>;              // instructions
using DimId = Id<struct DimTag>;                // iteration dimensions (static tile or dynamic)
using LoopId = Id<struct LoopTag>;              // one opening of a logical dim in the default nests
using LogicalDimId = Id<struct LogicalDimTag>;  // dimensions of the original computation
using MemId = Id<struct MemTag>;                // memory regions: arrays and temporaries
using ParamId = Id<struct ParamTag>;            // kernel parameters (signature)
using CommId = Id<struct CommTag>;              // point-to-point communications between nests
using DimMappingId = Id<struct DimMappingTag>;  // pairs of dims whose iteration i feeds iteration i
using StmtId = Id<struct StmtTag>;              // statements: instructions then dimensions

}  // namespace sculpt::backbone

template <typename Tag>
struct std::hash<sculpt::backbone::Id<Tag>> {
  size_t operator()(const sculpt::backbone::Id<Tag>& id) const noexcept {
    return std::hash<uint32_t>()(id.value);
  }
};
