#include "backbone/host_args.h"

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>

#include "support/check.h"

namespace sculpt::backbone {

Buffer::Buffer(ElemType type, int64_t num_elements)
    : type_(type),
      size_(num_elements),
      owned_(static_cast<size_t>(num_elements * elem_type_bytes(type))) {}

Buffer Buffer::view(ElemType type, int64_t num_elements, std::byte* elements) {
  SCULPT_CHECK(elements != nullptr || num_elements == 0) << "a view of nothing";
  Buffer buffer;
  buffer.type_ = type;
  buffer.size_ = num_elements;
  buffer.viewed_ = elements;
  return buffer;
}

double Buffer::get(int64_t i) const {
  SCULPT_CHECK(i >= 0 && i < size_) << "index " << i << " outside a buffer of " << size_;
  switch (type_) {
    case ElemType::kF32:
      return as<float>()[i];
    case ElemType::kF64:
      return as<double>()[i];
    case ElemType::kI32:
      return as<int32_t>()[i];
  }
  return 0;
}

void Buffer::set(int64_t i, double value) {
  SCULPT_CHECK(i >= 0 && i < size_) << "index " << i << " outside a buffer of " << size_;
  switch (type_) {
    case ElemType::kF32:
      as<float>()[i] = static_cast<float>(value);
      break;
    case ElemType::kF64:
      as<double>()[i] = value;
      break;
    case ElemType::kI32:
      as<int32_t>()[i] = static_cast<int32_t>(value);
      break;
  }
}

namespace {
template <typename T>
constexpr ElemType type_of();
template <>
constexpr ElemType type_of<float>() {
  return ElemType::kF32;
}
template <>
constexpr ElemType type_of<double>() {
  return ElemType::kF64;
}
template <>
constexpr ElemType type_of<int32_t>() {
  return ElemType::kI32;
}
}  // namespace

template <typename T>
T* Buffer::as() {
  SCULPT_CHECK(type_of<T>() == type_)
      << "buffer of " << elem_type_name(type_) << " viewed as " << elem_type_name(type_of<T>());
  return reinterpret_cast<T*>(bytes());
}

template <typename T>
const T* Buffer::as() const {
  SCULPT_CHECK(type_of<T>() == type_)
      << "buffer of " << elem_type_name(type_) << " viewed as " << elem_type_name(type_of<T>());
  return reinterpret_cast<const T*>(bytes());
}

template float* Buffer::as<float>();
template double* Buffer::as<double>();
template int32_t* Buffer::as<int32_t>();
template const float* Buffer::as<float>() const;
template const double* Buffer::as<double>() const;
template const int32_t* Buffer::as<int32_t>() const;

Buffer& HostArgs::array(const std::string& name) {
  auto it = arrays.find(name);
  SCULPT_CHECK(it != arrays.end()) << "no array named " << name;
  return it->second;
}

const Buffer& HostArgs::array(const std::string& name) const {
  auto it = arrays.find(name);
  SCULPT_CHECK(it != arrays.end()) << "no array named " << name;
  return it->second;
}

double HostArgs::scalar(const std::string& name) const {
  auto it = scalars.find(name);
  SCULPT_CHECK(it != scalars.end()) << "no scalar named " << name;
  return it->second;
}

HostArgs make_host_args(const Kernel& kernel, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(-8, 8);
  auto draw = [&](ElemType type) {
    return type == ElemType::kI32 ? static_cast<double>(integer(rng)) : real(rng);
  };
  HostArgs args;
  for (const Parameter& param : kernel.params()) {
    if (param.kind == Parameter::Kind::kScalar) {
      // Rounded to the parameter's type, as the device will see it.
      Buffer scalar(param.type, 1);
      scalar.set(0, draw(param.type));
      args.scalars[param.name] = scalar.get(0);
    } else if (param.kind == Parameter::Kind::kArray) {
      const MemRegion& mem = kernel.mem(param.mem);
      Buffer buffer(mem.type, mem.num_elements());
      if (mem.is_read()) {
        for (int64_t i = 0; i < buffer.size(); ++i) buffer.set(i, draw(mem.type));
      }
      args.arrays[param.name] = std::move(buffer);
    }
  }
  return args;
}

std::string Mismatch::to_string() const {
  std::ostringstream out;
  out << array << "[" << index << "] is " << actual << ", expected " << expected;
  return out.str();
}

std::optional<Mismatch> compare_outputs(const Kernel& kernel, const HostArgs& expected,
                                        const HostArgs& actual, double rel_tol) {
  for (const MemRegion* mem : kernel.mem_regions()) {
    if (!mem->is_written() || mem->kind == MemRegion::Kind::kTemporary) continue;
    const Buffer& want = expected.array(mem->name);
    const Buffer& got = actual.array(mem->name);
    SCULPT_CHECK(want.size() == got.size()) << "buffers of " << mem->name << " differ in size";
    for (int64_t i = 0; i < want.size(); ++i) {
      const double e = want.get(i);
      const double a = got.get(i);
      if (!(std::abs(a - e) <= rel_tol * std::max(1.0, std::abs(e)))) {
        return Mismatch{mem->name, i, e, a};
      }
    }
  }
  return std::nullopt;
}

double default_tolerance(const Kernel& kernel) {
  for (const MemRegion* mem : kernel.mem_regions()) {
    if (mem->type == ElemType::kF32) return 1e-3;
  }
  return 1e-9;
}

}  // namespace sculpt::backbone
