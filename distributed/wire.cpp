#include "distributed/wire.h"

#include <fmt/format.h>

#include <cstring>
#include <type_traits>

namespace sculpt::distributed {
namespace {

/// Fixed-size values as their bytes (every rank of a job runs the same build, on machines of
/// one byte order), strings as their length and bytes.
class Writer {
 public:
  template <typename T>
  void put(T value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put(const std::string& text) {
    put<std::uint64_t>(text.size());
    bytes_ += text;
  }
  template <typename T>
  void put(const std::optional<T>& value) {
    put<bool>(value.has_value());
    if (value) put(*value);
  }
  /// An enumerator as one byte.
  template <typename E>
  void put_enum(E value) {
    put(static_cast<std::uint8_t>(value));
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

class Reader {
 public:
  Reader(std::string_view bytes, const char* what) : bytes_(bytes), what_(what) {}

  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T value;
    std::memcpy(&value, take(sizeof value).data(), sizeof value);
    return value;
  }
  bool flag() {
    const auto value = get<std::uint8_t>();
    if (value > 1) throw WireError(fmt::format("{}: {} is not a boolean", what_, value));
    return value == 1;
  }
  std::string text() {
    const auto size = get<std::uint64_t>();
    return std::string(take(size));
  }
  std::optional<double> optional_number() {
    if (!flag()) return std::nullopt;
    return get<double>();
  }
  /// An enumerator of E up to `last`.
  template <typename E>
  E enumerator(E last, const char* kind) {
    const auto value = get<std::uint8_t>();
    if (value > static_cast<std::uint8_t>(last)) {
      throw WireError(fmt::format("{}: unknown {} {}", what_, kind, value));
    }
    return static_cast<E>(value);
  }
  /// Checks that nothing is left over.
  void end() const {
    if (!bytes_.empty()) {
      throw WireError(fmt::format("{}: {} bytes too many", what_, bytes_.size()));
    }
  }

 private:
  std::string_view take(std::uint64_t size) {
    if (size > bytes_.size()) throw WireError(fmt::format("{}: truncated", what_));
    const std::string_view part = bytes_.substr(0, size);
    bytes_.remove_prefix(size);
    return part;
  }

  std::string_view bytes_;
  const char* what_;
};

}  // namespace

std::string encode(const Hello& m) {
  Writer out;
  out.put(m.host);
  out.put(m.name);
  out.put(m.architecture);
  out.put(m.model);
  out.put(m.error);
  return out.take();
}

Hello decode_hello(std::string_view bytes) {
  Reader in(bytes, "hello");
  Hello m;
  m.host = in.text();
  m.name = in.text();
  m.architecture = in.text();
  m.model = in.text();
  m.error = in.text();
  in.end();
  return m;
}

std::string encode(const ProblemMessage& m) {
  Writer out;
  out.put(m.kernel);
  out.put(m.sizes);
  out.put(m.seed);
  out.put(m.definition);
  out.put(m.definition_file);
  return out.take();
}

ProblemMessage decode_problem(std::string_view bytes) {
  Reader in(bytes, "problem");
  ProblemMessage m;
  m.kernel = in.text();
  m.sizes = in.text();
  m.seed = in.get<std::uint64_t>();
  m.definition = in.text();
  m.definition_file = in.text();
  in.end();
  return m;
}

std::string encode(const SubmissionMessage& m) {
  Writer out;
  out.put(m.job);
  const device::KernelCode& code = m.submission.code;
  out.put_enum(code.language);
  out.put(code.source);
  out.put(code.entry);
  out.put(code.launch);
  out.put(m.submission.bound_ns);
  out.put(m.submission.hash);
  out.put<bool>(m.cutoff.has_value());
  if (m.cutoff) {
    out.put(m.cutoff->factor);
    out.put(m.cutoff->best_ns);
  }
  return out.take();
}

SubmissionMessage decode_submission(std::string_view bytes) {
  Reader in(bytes, "submission");
  SubmissionMessage m;
  m.job = in.get<std::uint64_t>();
  device::KernelCode& code = m.submission.code;
  code.language = in.enumerator(device::Language::ptx, "language");
  code.source = in.text();
  code.entry = in.text();
  code.launch = in.get<device::LaunchConfig>();
  m.submission.bound_ns = in.get<double>();
  m.submission.hash = in.get<std::uint64_t>();
  if (in.flag()) {
    CutoffState cutoff;
    cutoff.factor = in.get<double>();
    cutoff.best_ns = in.optional_number();
    m.cutoff = cutoff;
  }
  in.end();
  return m;
}

std::string encode(const EvaluationMessage& m) {
  Writer out;
  out.put(m.job);
  out.put_enum(m.outcome);
  const device::Evaluation& e = m.evaluation;
  out.put_enum(e.check);
  out.put(e.time_ns);
  out.put(e.spread_ns);
  out.put(e.runs);
  out.put(e.cut_short);
  out.put(e.estimate_ns);
  out.put(e.message);
  out.put(m.error);
  out.put(m.times.compiling_s);
  out.put(m.times.measuring_s);
  return out.take();
}

EvaluationMessage decode_evaluation(std::string_view bytes) {
  Reader in(bytes, "evaluation");
  EvaluationMessage m;
  m.job = in.get<std::uint64_t>();
  m.outcome = in.enumerator(EvaluationMessage::Outcome::failed, "outcome");
  device::Evaluation& e = m.evaluation;
  e.check = in.enumerator(device::Check::compile_error, "check");
  e.time_ns = in.optional_number();
  e.spread_ns = in.get<double>();
  e.runs = in.get<int>();
  e.cut_short = in.flag();
  e.estimate_ns = in.optional_number();
  e.message = in.text();
  m.error = in.text();
  m.times.compiling_s = in.get<double>();
  m.times.measuring_s = in.get<double>();
  in.end();
  return m;
}

}  // namespace sculpt::distributed
