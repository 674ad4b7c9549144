#include "explorer/event_log.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "device/evaluator.h"

namespace sculpt::explorer {
namespace {

using json = nlohmann::ordered_json;

json action_json(const spacegen::Action& action) { return json::parse(spacegen::to_json(action)); }

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

LogHeader header_of(const json& j) {
  LogHeader h;
  if (j.at("kind") != "header") throw std::invalid_argument("the first line is not a header");
  h.format = j.at("format").get<int>();
  if (h.format != 1) throw std::invalid_argument(fmt::format("unknown log format {}", h.format));
  h.kernel = j.at("kernel").get<std::string>();
  for (const auto& [name, value] : j.at("sizes").items()) h.sizes.emplace_back(name, value.get<std::int64_t>());
  h.device = j.at("device").get<std::string>();
  h.space_hash = std::stoull(j.at("space_hash").get<std::string>(), nullptr, 16);
  h.seed = j.at("seed").get<std::uint64_t>();
  h.algorithm = j.value("algorithm", "");
  return h;
}

/// The number at `key`: finite and at least `least` (and above it when `strictly`).
double number_at(const json& j, const char* key, double least, bool strictly = false) {
  const double v = j.at(key).get<double>();
  if (!std::isfinite(v) || v < least || (strictly && v == least)) {
    throw std::invalid_argument(fmt::format("{} is {:g}, not a number {} {:g}", key, v,
                                            strictly ? "above" : "of at least", least));
  }
  return v;
}

/// One evaluation line, checked so that a hand-edited or damaged log is refused rather than
/// searched on (an `ok` without a time, a negative time that would become the best, ids that
/// repeat). `previous_id` is the id of the line before, if any: ids only grow.
LogEvaluation evaluation_of(const json& j, std::optional<std::int64_t> previous_id) {
  LogEvaluation e;
  if (j.at("kind") != "evaluation") throw std::invalid_argument("not an evaluation line");
  e.id = j.at("id").get<std::int64_t>();
  if (e.id < 0 || (previous_id && e.id <= *previous_id)) {
    throw std::invalid_argument(
        previous_id
            ? fmt::format("id {} does not follow the previous line's {}", e.id, *previous_id)
            : fmt::format("id {} is negative", e.id));
  }
  for (const json& a : j.at("actions")) {
    std::string error;
    std::optional<spacegen::Action> action = spacegen::action_from_json(a.dump(), &error);
    if (!action) throw std::invalid_argument("bad action: " + error);
    e.actions.push_back(std::move(*action));
  }
  if (!j.at("bound_ns").is_null()) e.bound_ns = number_at(j, "bound_ns", 0);
  if (!j.at("time_ns").is_null()) e.time_ns = number_at(j, "time_ns", 0, /*strictly=*/true);
  e.check = j.at("check").get<std::string>();
  const std::optional<device::Check> check = device::check_from_string(e.check);
  if (!check) {
    std::vector<std::string_view> known;
    for (device::Check c : device::kChecks) known.push_back(device::to_string(c));
    throw std::invalid_argument(
        fmt::format("unknown check '{}' (known: {})", e.check, fmt::join(known, ", ")));
  }
  if (*check == device::Check::ok && !e.time_ns) {
    throw std::invalid_argument("an ok evaluation without its time_ns");
  }
  e.t = number_at(j, "t", 0);
  if (j.contains("spread_ns")) e.spread_ns = number_at(j, "spread_ns", 0);
  e.runs = j.value("runs", 0);
  if (e.runs < 0) throw std::invalid_argument(fmt::format("runs is {}, a negative count", e.runs));
  e.cut_short = j.value("cut_short", false);
  e.message = j.value("message", "");
  return e;
}

// The length of `text` up to its last newline. A crash may leave a last line without its newline:
// the evaluation in flight, which neither reading nor appending keeps.
std::size_t complete_lines_length(const std::string& text) {
  const std::size_t last = text.rfind('\n');
  return last == std::string::npos ? 0 : last + 1;
}

std::optional<std::string> read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

LogContents read_log(const std::filesystem::path& path) {
  LogContents log;
  std::optional<std::string> text = read_text(path);
  if (!text) {
    log.error = fmt::format("{}: cannot read the log", path.string());
    return log;
  }
  log.complete_bytes = complete_lines_length(*text);
  text->resize(log.complete_bytes);
  std::vector<std::string> lines;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  if (lines.empty()) {
    log.error = fmt::format("{}:1: the log is empty (no header)", path.string());
    return log;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    try {
      const json j = json::parse(lines[i]);
      if (i == 0) {
        log.header = header_of(j);
      } else {
        log.evaluations.push_back(evaluation_of(
            j, log.evaluations.empty() ? std::nullopt
                                       : std::optional<std::int64_t>(log.evaluations.back().id)));
      }
    } catch (const std::exception& e) {
      log.error = fmt::format("{}:{}: {}", path.string(), i + 1, e.what());
      return log;
    }
  }
  return log;
}

LogLock LogLock::lock(std::filesystem::path path, int fd) {
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      ::close(fd);
      throw std::runtime_error(
          fmt::format("{} is being written by another search of this run folder", path.string()));
    }
    // A file system without locks (some network or FUSE ones) must not stop the search.
    spdlog::warn("cannot lock {} ({}): a second search of this run folder would not be stopped",
                 path.string(), std::strerror(errno));
  }
  return LogLock(std::move(path), fd);
}

LogLock LogLock::acquire(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    throw std::runtime_error(
        fmt::format("{}: cannot read the log: {}", path.string(), std::strerror(errno)));
  }
  return lock(path, fd);
}

LogLock::~LogLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

EventLog EventLog::create(const std::filesystem::path& path, const LogHeader& header) {
  // Created exclusively: of two searches starting one run folder, one gets it.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == EEXIST) {
      throw std::runtime_error(path.string() + " exists already (use --resume to continue it)");
    }
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  }
  LogLock lock = LogLock::lock(path, fd);
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::runtime_error("cannot write " + path.string());
  json sizes = json::object();
  for (const auto& [name, value] : header.sizes) sizes[name] = value;
  const json line = {{"kind", "header"},        {"format", header.format},
                     {"kernel", header.kernel}, {"sizes", sizes},
                     {"device", header.device}, {"space_hash", fmt::format("{:016x}", header.space_hash)},
                     {"seed", header.seed},     {"algorithm", header.algorithm}};
  EventLog log(std::move(lock), std::move(out));
  log.write_line(line.dump());
  return log;
}

EventLog EventLog::append_to(LogLock lock, const LogContents& contents) {
  const std::filesystem::path& path = lock.path();
  // New lines start on a line of their own: the truncated last line that read_log skipped goes.
  if (std::filesystem::file_size(path) > contents.complete_bytes) {
    std::filesystem::resize_file(path, contents.complete_bytes);
  }
  std::ofstream out(path, std::ios::app);
  if (!out) throw std::runtime_error("cannot append to " + path.string());
  return EventLog(std::move(lock), std::move(out));
}

void EventLog::write_line(const std::string& line) {
  out_ << line << "\n" << std::flush;
  if (!out_) {
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", lock_.path().string(), std::strerror(errno)));
  }
}

void EventLog::write(const LogEvaluation& e) {
  json actions = json::array();
  for (const spacegen::Action& a : e.actions) actions.push_back(action_json(a));
  json line = {{"kind", "evaluation"},
               {"id", e.id},
               {"actions", actions},
               {"bound_ns", optional_number(e.bound_ns)},
               {"time_ns", optional_number(e.time_ns)},
               {"check", e.check},
               {"t", e.t},
               {"spread_ns", e.spread_ns},
               {"runs", e.runs}};
  if (e.cut_short) line["cut_short"] = true;
  if (!e.message.empty()) line["message"] = e.message;
  write_line(line.dump());
}

}  // namespace sculpt::explorer
