#include "search/log/event_log.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "device/evaluator.h"
#include "support/error.h"
#include "support/input_file.h"

namespace sculpt::search {
namespace {

using json = nlohmann::ordered_json;

json action_json(const spacegen::Action& action) { return json::parse(spacegen::to_json(action)); }

json optional_number(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

/// How a log describes `value` in an error: the number itself, or its JSON type.
std::string described(const json& value) {
  if (value.is_number()) return value.dump();
  const std::string_view type = value.type_name();
  if (value.is_null()) return std::string(type);
  return fmt::format("{} {}", type == "array" || type == "object" ? "an" : "a", type);
}

/// The value at `key` as a T; a value of another JSON type, or an integer T cannot hold, is an
/// error that names the key.
template <typename T>
T field(const json& j, const char* key) {
  const json& value = j.at(key);
  std::string_view expected;
  bool fits = false;
  if constexpr (std::is_same_v<T, std::string>) {
    expected = "a string";
    fits = value.is_string();
  } else if constexpr (std::is_same_v<T, bool>) {
    expected = "a boolean";
    fits = value.is_boolean();
  } else if constexpr (std::is_integral_v<T>) {
    expected = "an integer";
    if (value.is_number_integer()) {
      const bool in_range = value.is_number_unsigned()
                                ? std::in_range<T>(value.get<std::uint64_t>())
                                : std::in_range<T>(value.get<std::int64_t>());
      if (!in_range)
        throw Error(Error::Kind::input, fmt::format("'{}' is {}, out of range", key, value.dump()));
      fits = true;
    }
  } else {
    expected = "a number";
    fits = value.is_number();
  }
  if (!fits) {
    throw Error(Error::Kind::input,
                fmt::format("'{}' is {}, not {}", key, described(value), expected));
  }
  return value.get<T>();
}

/// field(j, key), or `fallback` where the line has no `key` (fields added since format 1).
template <typename T>
T optional_field(const json& j, const char* key, T fallback) {
  return j.contains(key) ? field<T>(j, key) : fallback;
}

LogHeader header_of(const json& j) {
  LogHeader h;
  if (j.at("kind") != "header") throw Error(Error::Kind::input, "the first line is not a header");
  h.format = field<int>(j, "format");
  if (h.format != 1)
    throw Error(Error::Kind::input, fmt::format("unknown log format {}", h.format));
  h.kernel = field<std::string>(j, "kernel");
  const json& sizes = j.at("sizes");
  for (const auto& size : sizes.items()) {
    h.sizes.emplace_back(size.key(), field<std::int64_t>(sizes, size.key().c_str()));
  }
  const std::string device = field<std::string>(j, "device");
  const std::optional<device::Kind> kind = device::kind_named(device);
  if (!kind) {
    throw Error(Error::Kind::input,
                fmt::format("'device' is '{}', not a device ({})", device, device::kind_names()));
  }
  h.device = *kind;
  const std::string hash = field<std::string>(j, "space_hash");
  const char* const end = hash.data() + hash.size();
  if (const auto [stop, error] = std::from_chars(hash.data(), end, h.space_hash, 16);
      error != std::errc() || stop != end) {
    throw Error(Error::Kind::input,
                fmt::format("'space_hash' is '{}', not a hexadecimal hash", hash));
  }
  h.seed = field<std::uint64_t>(j, "seed");
  h.algorithm = optional_field<std::string>(j, "algorithm", "");
  h.model = optional_field<std::string>(j, "model", "");
  return h;
}

/// The number at `key`: finite and at least `least` (and above it when `strictly`).
double number_at(const json& j, const char* key, double least, bool strictly = false) {
  const double v = field<double>(j, key);
  if (!std::isfinite(v) || v < least || (strictly && v == least)) {
    throw Error(Error::Kind::input, fmt::format("{} is {:g}, not a number {} {:g}", key, v,
                                                strictly ? "above" : "of at least", least));
  }
  return v;
}

/// One evaluation line, checked so that a hand-edited or damaged log is refused rather than
/// searched on (an `ok` without a time, a negative time that would become the best, ids that
/// repeat). `previous_id` is the id of the line before, if any: ids only grow.
LogEvaluation evaluation_of(const json& j, std::optional<std::int64_t> previous_id) {
  LogEvaluation e;
  if (j.at("kind") != "evaluation") throw Error(Error::Kind::input, "not an evaluation line");
  e.id = field<std::int64_t>(j, "id");
  if (e.id < 0 || (previous_id && e.id <= *previous_id)) {
    throw Error(Error::Kind::input,
                previous_id ? fmt::format("id {} does not follow the previous line's {}", e.id,
                                          *previous_id)
                            : fmt::format("id {} is negative", e.id));
  }
  for (const json& a : j.at("actions")) {
    std::string error;
    std::optional<spacegen::Action> action = spacegen::action_from_json(a.dump(), &error);
    if (!action) throw Error(Error::Kind::input, "bad action: " + error);
    e.actions.push_back(std::move(*action));
  }
  if (!j.at("bound_ns").is_null()) e.bound_ns = number_at(j, "bound_ns", 0);
  if (!j.at("time_ns").is_null()) e.time_ns = number_at(j, "time_ns", 0, /*strictly=*/true);
  e.check = field<std::string>(j, "check");
  const std::optional<device::Check> check = device::check_from_string(e.check);
  if (!check) {
    std::vector<std::string_view> known;
    for (device::Check c : device::kChecks) known.push_back(device::to_string(c));
    throw Error(Error::Kind::input,
                fmt::format("unknown check '{}' (known: {})", e.check, fmt::join(known, ", ")));
  }
  if (*check == device::Check::ok && !e.time_ns) {
    throw Error(Error::Kind::input, "an ok evaluation without its time_ns");
  }
  e.t = number_at(j, "t", 0);
  if (j.contains("spread_ns")) e.spread_ns = number_at(j, "spread_ns", 0);
  e.runs = optional_field<int>(j, "runs", 0);
  if (e.runs < 0)
    throw Error(Error::Kind::input, fmt::format("runs is {}, a negative count", e.runs));
  e.cut_short = optional_field<bool>(j, "cut_short", false);
  if (j.contains("estimate_ns")) e.estimate_ns = number_at(j, "estimate_ns", 0);
  e.start = optional_field<bool>(j, "start", false);
  e.message = optional_field<std::string>(j, "message", "");
  if (j.contains("rank")) {
    e.rank = field<int>(j, "rank");
    // Rank 0 searches; the others measure.
    if (*e.rank < 1)
      throw Error(Error::Kind::input, fmt::format("rank is {}, not a rank that measures", *e.rank));
  }
  return e;
}

/// nlohmann's message without its "[json.exception.parse_error.101] " tag, and a parse error's
/// place on the line ("column 12: ...": a line is parsed alone, so it is always on line 1).
std::string json_error(const json::exception& e) {
  std::string_view message = e.what();
  if (const std::size_t tag_end = message.find("] ");
      message.starts_with("[json.exception.") && tag_end != std::string_view::npos) {
    message.remove_prefix(tag_end + 2);
  }
  constexpr std::string_view kParseAt = "parse error at line 1, ";
  if (message.starts_with(kParseAt)) message.remove_prefix(kParseAt.size());
  return std::string(message);
}

/// The lines of a log, each at most kMaxLogLine bytes and all of them at most kMaxLogBytes, so
/// that no file (/dev/zero, a binary) makes a reader hold more than that.
class LineReader {
 public:
  explicit LineReader(std::istream& in) : in_(in), buffer_(std::size_t{1} << 16) {}

  enum class Read { line, end, truncated, too_long, too_large };
  /// The next line, without its newline, in `line`.
  Read next(std::string& line) {
    line.clear();
    for (;;) {
      if (pos_ == end_ && !fill()) return line.empty() ? Read::end : Read::truncated;
      const char* start = buffer_.data() + pos_;
      const auto* newline = static_cast<const char*>(std::memchr(start, '\n', end_ - pos_));
      const std::size_t n = newline ? static_cast<std::size_t>(newline - start) : end_ - pos_;
      if (line.size() + n > kMaxLogLine) return Read::too_long;
      line.append(start, n);
      const std::size_t used = n + (newline ? 1 : 0);
      pos_ += used;
      bytes_ += used;
      if (bytes_ > kMaxLogBytes) return Read::too_large;
      if (newline) return Read::line;
    }
  }

 private:
  bool fill() {
    in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    pos_ = 0;
    end_ = static_cast<std::size_t>(in_.gcount());
    return end_ > 0;
  }

  std::istream& in_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::uintmax_t bytes_ = 0;
};

}  // namespace

LogContents read_log(const std::filesystem::path& path,
                     const std::function<void(LogEvaluation&&, std::size_t line)>& each) {
  LogContents log;
  if (const std::string why = support::not_an_input_file(path); !why.empty()) {
    log.error = fmt::format("{}: cannot read the log: {}", path.string(),
                            why == "no such file" ? "No such file or directory" : why);
    return log;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    log.error = fmt::format("{}: cannot read the log: {}", path.string(), std::strerror(errno));
    return log;
  }
  LineReader reader(in);
  std::size_t number = 0;
  std::string line;
  for (;;) {
    const LineReader::Read read = reader.next(line);
    if (read == LineReader::Read::end) break;
    ++number;
    if (read == LineReader::Read::truncated) {
      // A crash may leave a last line without its newline: the evaluation in flight, which
      // neither reading nor appending keeps.
      log.truncated_line = number;
      break;
    }
    if (read == LineReader::Read::too_long || read == LineReader::Read::too_large) {
      log.error = fmt::format(
          "{}:{}: {} (sculpt writes no log so large: is it a log?)", path.string(), number,
          read == LineReader::Read::too_long
              ? fmt::format("the line is longer than {} MiB", kMaxLogLine >> 20)
              : fmt::format("the log is larger than {} GiB", kMaxLogBytes >> 30));
      return log;
    }
    log.complete_bytes += line.size() + 1;
    try {
      if (line.find_first_not_of(" \t\r") == std::string::npos) {
        throw Error(Error::Kind::input, "an empty line (a log holds one JSON object per line)");
      }
      if (line.back() == '\r') {
        throw Error(
            Error::Kind::input,
            "the line ends in a carriage return (a log's lines end in a newline alone: was it "
            "rewritten with CRLF line endings?)");
      }
      const json j = json::parse(line);
      if (number == 1) {
        log.header = header_of(j);
      } else if (j.contains("kind") && j.at("kind") == "stats") {
        log.sessions.push_back({line});
      } else {
        LogEvaluation evaluation = evaluation_of(j, log.last_id);
        log.last_id = evaluation.id;
        ++log.evaluation_count;
        each(std::move(evaluation), number);
      }
    } catch (const json::exception& e) {
      log.error = fmt::format("{}:{}: {}", path.string(), number, json_error(e));
      return log;
    } catch (const std::exception& e) {
      log.error = fmt::format("{}:{}: {}", path.string(), number, e.what());
      return log;
    }
  }
  if (number == 0) log.error = fmt::format("{}:1: the log is empty (no header)", path.string());
  return log;
}

LogContents read_log(const std::filesystem::path& path) {
  std::vector<LogEvaluation> evaluations;
  LogContents log =
      read_log(path, [&](LogEvaluation&& e, std::size_t) { evaluations.push_back(std::move(e)); });
  log.evaluations = std::move(evaluations);
  return log;
}

LogLock LogLock::lock(std::filesystem::path path, int fd) {
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      ::close(fd);
      throw Error(
          Error::Kind::usage,
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
    throw Error(Error::Kind::environment,
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
      throw Error(Error::Kind::usage,
                  path.string() + " exists already (use --resume to continue it)");
    }
    throw Error(Error::Kind::environment,
                fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
  }
  LogLock lock = LogLock::lock(path, fd);
  std::ofstream out(path, std::ios::app);
  if (!out) throw Error(Error::Kind::environment, "cannot write " + path.string());
  json sizes = json::object();
  for (const auto& [name, value] : header.sizes) sizes[name] = value;
  json line = {{"kind", "header"},
               {"format", header.format},
               {"kernel", header.kernel},
               {"sizes", sizes},
               {"device", device::name(header.device)},
               {"space_hash", fmt::format("{:016x}", header.space_hash)},
               {"seed", header.seed},
               {"algorithm", header.algorithm}};
  if (!header.model.empty()) line["model"] = header.model;
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
  if (!out) throw Error(Error::Kind::environment, "cannot append to " + path.string());
  return EventLog(std::move(lock), std::move(out));
}

void EventLog::write_line(const std::string& line) {
  out_ << line << "\n" << std::flush;
  if (!out_) {
    throw Error(Error::Kind::environment,
                fmt::format("cannot write {}: {}", lock_.path().string(), std::strerror(errno)));
  }
}

void EventLog::write_stats(const std::string& stats) {
  json line = {{"kind", "stats"}};
  line.update(json::parse(stats));
  write_line(line.dump());
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
  if (e.estimate_ns) line["estimate_ns"] = *e.estimate_ns;
  if (e.start) line["start"] = true;
  if (!e.message.empty()) line["message"] = e.message;
  if (e.rank) line["rank"] = *e.rank;
  write_line(line.dump());
}

}  // namespace sculpt::search
