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

struct Frame {
  std::int32_t kind = 0;
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

  /// False when the other end is gone.
  bool send(const Frame& frame);

  enum class Received { frame, closed, timeout };
  /// Waits for a frame, at most `timeout` for each part of it (forever when absent).
  Received receive(Frame& frame, std::optional<std::chrono::milliseconds> timeout = std::nullopt);

 private:
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
