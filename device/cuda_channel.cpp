#include "device/cuda_channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>

#include "device/evaluator.h"

namespace sculpt::device {
namespace {

struct Header {
  std::int32_t kind;
  std::int32_t unused;
  std::int64_t value;
  std::uint64_t size;
};

bool send_all(int fd, const char* bytes, std::size_t size) {
  while (size > 0) {
    ssize_t sent = ::send(fd, bytes, size, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    bytes += sent;
    size -= static_cast<std::size_t>(sent);
  }
  return true;
}

Channel::Received receive_all(int fd, char* bytes, std::size_t size,
                              std::optional<std::chrono::milliseconds> timeout) {
  while (size > 0) {
    pollfd poll_fd{.fd = fd, .events = POLLIN, .revents = 0};
    int ready = poll(&poll_fd, 1, timeout ? static_cast<int>(timeout->count()) : -1);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return Channel::Received::timeout;
    ssize_t received = ready > 0 ? ::recv(fd, bytes, size, 0) : -1;
    if (received < 0 && errno == EINTR) continue;
    if (received <= 0) return Channel::Received::closed;
    bytes += received;
    size -= static_cast<std::size_t>(received);
  }
  return Channel::Received::frame;
}

}  // namespace

std::pair<Channel, Channel> Channel::pair() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw DeviceError(fmt::format("cuda device: socketpair: {}", std::strerror(errno)));
  }
  return {Channel(fds[0]), Channel(fds[1])};
}

Channel& Channel::operator=(Channel&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

bool Channel::readable(std::chrono::milliseconds timeout) const {
  pollfd poll_fd{.fd = fd_, .events = POLLIN, .revents = 0};
  return poll(&poll_fd, 1, static_cast<int>(timeout.count())) > 0;
}

void Channel::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool Channel::send_raw(std::int32_t kind, std::int64_t value, std::string_view data) {
  Header header{.kind = kind, .unused = 0, .value = value, .size = data.size()};
  return send_all(fd_, reinterpret_cast<const char*>(&header), sizeof header) &&
         send_all(fd_, data.data(), data.size());
}

Channel::Received Channel::receive_raw(std::int32_t& kind, std::int64_t& value, std::string& data,
                                       std::optional<std::chrono::milliseconds> timeout) {
  Header header;
  Received received = receive_all(fd_, reinterpret_cast<char*>(&header), sizeof header, timeout);
  if (received != Received::frame) return received;
  kind = header.kind;
  value = header.value;
  data.resize(header.size);
  return receive_all(fd_, data.data(), header.size, timeout);
}

}  // namespace sculpt::device
