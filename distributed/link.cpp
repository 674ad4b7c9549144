#include "distributed/link.h"

#include <fmt/format.h>
#include <mpi.h>

#include <thread>

namespace sculpt::distributed {
namespace {

void check(int status, const char* call) {
  if (status == MPI_SUCCESS) return;
  char reason[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(status, reason, &length);
  throw LinkError(fmt::format("MPI: {} failed: {}", call, std::string(reason, length)));
}

}  // namespace

/// A send under way: its bytes stay here until MPI is done with them.
struct Link::Send {
  std::string bytes;
  MPI_Request request = MPI_REQUEST_NULL;
};

Link::Link() = default;

Link::~Link() {
  for (Send& s : sends_) MPI_Request_free(&s.request);
}

void Link::send(int rank, Tag tag, std::string bytes) {
  Send& s = sends_.emplace_back();
  s.bytes = std::move(bytes);
  const int status = MPI_Isend(s.bytes.data(), static_cast<int>(s.bytes.size()), MPI_BYTE, rank,
                               static_cast<int>(tag), MPI_COMM_WORLD, &s.request);
  if (status != MPI_SUCCESS) sends_.pop_back();
  check(status, "MPI_Isend");
}

bool Link::sending() {
  for (auto it = sends_.begin(); it != sends_.end();) {
    int done = 0;
    check(MPI_Test(&it->request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    it = done ? sends_.erase(it) : std::next(it);
  }
  return !sends_.empty();
}

std::optional<Message> Link::poll() {
  sending();  // moves sends on
  int arrived = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
  if (!arrived) return std::nullopt;
  int size = 0;
  check(MPI_Get_count(&status, MPI_BYTE, &size), "MPI_Get_count");
  Message m;
  m.source = status.MPI_SOURCE;
  m.tag = static_cast<Tag>(status.MPI_TAG);
  m.bytes.resize(static_cast<std::size_t>(size));
  check(MPI_Recv(m.bytes.data(), size, MPI_BYTE, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE),
        "MPI_Recv");
  return m;
}

Message Link::receive() {
  for (;;) {
    if (std::optional<Message> m = poll()) return std::move(*m);
    std::this_thread::sleep_for(kPoll);
  }
}

}  // namespace sculpt::distributed
