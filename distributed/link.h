#pragma once
// Messages between the ranks of an MPI job that never block: a send goes on in the background
// while its sender works, and arrivals are polled. So no rank waits inside MPI (Open MPI's blocking
// calls spin on a core, which a CPU evaluator's measurements need), and two ranks sending each
// other large messages never wait on each other.
#include <chrono>
#include <list>
#include <optional>
#include <stdexcept>
#include <string>

#include "distributed/wire.h"

namespace sculpt::distributed {

/// How long a rank with nothing to do sleeps before it looks for messages again.
inline constexpr std::chrono::milliseconds kPoll{1};

struct Message {
  int source = 0;
  Tag tag = Tag::hello;
  std::string bytes;
};

/// An MPI call failed: the message names it and MPI's reason.
class LinkError : public Error {
 public:
  explicit LinkError(const std::string& message) : Error(Error::Kind::environment, message) {}
};

/// On MPI_COMM_WORLD; one thread at a time. Every call throws LinkError.
class Link {
 public:
  Link();
  /// Sends still under way are left to MPI: the job is ending without them.
  ~Link();
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;

  void send(int rank, Tag tag, std::string bytes = {});
  /// The next message that has arrived, if any.
  std::optional<Message> poll();
  /// Waits for the next message, polling every kPoll.
  Message receive();
  /// Whether sends are still under way.
  bool sending();

 private:
  struct Send;
  std::list<Send> sends_;
};

}  // namespace sculpt::distributed
