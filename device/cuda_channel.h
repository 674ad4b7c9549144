#pragma once
// Messages between the CUDA evaluator and its worker processes: frames with a length prefix
// over a stream socket, since images, inputs and results can be far larger than a datagram.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "support/check.h"

namespace sculpt::device {

/// The kinds of frame one protocol exchanges: an enum class over int32_t whose values run from 0
/// to `last` (device/cuda_protocols.h). A channel speaks one protocol at a time, so that the
/// type of what is received says which protocol it belongs to.
template <typename Kind>
concept FrameKind =
    std::is_enum_v<Kind> && std::is_same_v<std::underlying_type_t<Kind>, std::int32_t> && requires {
  Kind::last;
};

/// A kind as it travels.
template <FrameKind Kind>
constexpr std::int32_t encode(Kind kind) {
  return static_cast<std::int32_t>(kind);
}

/// The kind `raw` encodes; nothing when the protocol has none such.
template <FrameKind Kind>
constexpr std::optional<Kind> decode(std::int32_t raw) {
  if (raw < 0 || raw > encode(Kind::last)) return std::nullopt;
  return static_cast<Kind>(raw);
}

template <FrameKind Kind>
struct Frame {
  Kind kind{};
  std::int64_t value = 0;
  std::string data{};
};

/// One end of a connected socket; closes it when destroyed.
class Channel {
 public:
  /// Two connected ends (close-on-exec). Throws DeviceError.
  static std::pair<Channel, Channel> pair();

  Channel() = default;
  explicit Channel(int fd) : fd_(fd) {}
  ~Channel() { close(); }
  Channel(Channel&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Channel& operator=(Channel&& other) noexcept;
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  int fd() const { return fd_; }
  void close();
  /// Whether something (a frame, or the end) arrives within `timeout`; reads nothing.
  bool readable(std::chrono::milliseconds timeout) const;

  /// False when the other end is gone.
  template <FrameKind Kind>
  bool send(const Frame<Kind>& frame) {
    return send_raw(encode(frame.kind), frame.value, frame.data);
  }

  enum class Received { frame, closed, timeout };
  /// Waits for a frame, at most `timeout` for each part of it (forever when absent). Both ends
  /// are sculpt's: a kind the protocol does not have is a bug.
  template <FrameKind Kind>
  Received receive(Frame<Kind>& frame,
                   std::optional<std::chrono::milliseconds> timeout = std::nullopt) {
    std::int32_t raw = 0;
    const Received received = receive_raw(raw, frame.value, frame.data, timeout);
    if (received == Received::frame) {
      const std::optional<Kind> kind = decode<Kind>(raw);
      SCULPT_CHECK(kind) << "a frame of kind " << raw << " its protocol does not have";
      frame.kind = *kind;
    }
    return received;
  }

 private:
  bool send_raw(std::int32_t kind, std::int64_t value, std::string_view data);
  Received receive_raw(std::int32_t& kind, std::int64_t& value, std::string& data,
                       std::optional<std::chrono::milliseconds> timeout);

  int fd_ = -1;
};

/// Lays out plain values and strings in a frame's data.
class Writer {
 public:
  template <typename T>
  Writer& put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes_.append(reinterpret_cast<const char*>(&value), sizeof value);
    return *this;
  }
  Writer& put_string(std::string_view text) {
    put<std::uint64_t>(text.size());
    bytes_.append(text);
    return *this;
  }
  /// A string of `size` bytes that `fill` writes in place (read back with get_string).
  template <typename Fill>
  Writer& put_filled(std::size_t size, Fill&& fill) {
    put<std::uint64_t>(size);
    const std::size_t at = bytes_.size();
    bytes_.resize(at + size);
    fill(reinterpret_cast<std::byte*>(bytes_.data() + at));
    return *this;
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

/// Reads what a Writer laid out, in the same order; both ends are sculpt's, so a short frame
/// is a bug.
class Reader {
 public:
  explicit Reader(std::string_view data) : rest_(data) {}

  template <typename T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    SCULPT_CHECK(rest_.size() >= sizeof(T)) << "frame too short";
    T value;
    std::memcpy(&value, rest_.data(), sizeof value);
    rest_.remove_prefix(sizeof value);
    return value;
  }
  std::string_view get_string() {
    auto size = get<std::uint64_t>();
    SCULPT_CHECK(rest_.size() >= size) << "frame too short";
    std::string_view text = rest_.substr(0, size);
    rest_.remove_prefix(size);
    return text;
  }

 private:
  std::string_view rest_;
};

}  // namespace sculpt::device
