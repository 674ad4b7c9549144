// sculpt-suite: sculpt against the libraries its users already have, at the sizes they bring.
// Each case is searched with the library call (sculpt::search) for a fixed budget on the CPU,
// then its best kernel and the case's peers are timed alternately by the same CPU device, on the
// same problem, each checked against the same reference; a second table searches random matmul
// sizes briefly, each starting from what the suite's cache holds (as a program that asks for
// many sizes does). Writes suite.md (the tables) and suite.json in --out. See bench/README.md.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/cpu/openblas_core.h"
#include "bench/suite/cases.h"
#include "bench/suite/peer_code.h"
#include "device/cpu_evaluator.h"
#include "explorer/library.h"
#include "search/log/event_log.h"
#include "support/atomic_file.h"
#include "support/duration.h"

namespace sculpt::bench {
namespace {

struct Options {
  double budget_s = 120;
  double random_budget_s = 30;
  int random = 20;
  std::uint64_t seed = 1;
  int rounds = 3;
  std::vector<std::string> only;  // case names that contain one of these; empty: all
  bool fresh = false;
  std::string openblas_core;  // empty: from the processor's flags
  std::filesystem::path out;
};

struct PeerResult {
  std::string name;
  std::string library;
  /// What the library chose, as its helpers reported it (peer_code.h).
  std::string chose;
  std::optional<double> ns;  // median over the rounds; none when a run failed
  std::string error;
};

struct CaseResult {
  std::string name;
  std::string error;  // the search failed: why
  std::optional<double> sculpt_ns;
  std::string sculpt_error;
  double search_ns = 0;  // the best time the search measured
  std::vector<PeerResult> peers;
  int best_peer = -1;
  nlohmann::ordered_json stats;  // the search's SessionStats
  std::string run_dir;
  bool from_cache_start = false;

  std::optional<double> ratio() const {
    if (!sculpt_ns || best_peer < 0) return std::nullopt;
    return *sculpt_ns / *peers[static_cast<std::size_t>(best_peer)].ns;
  }
};

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string read_and_clear(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::set<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.insert(line);
  }
  in.close();
  std::filesystem::remove(path);
  std::string joined;
  for (const std::string& line : lines) joined += (joined.empty() ? "" : "; ") + line;
  return joined;
}

/// The processor as /proc/cpuinfo names it, and the cores this process may use.
std::string machine() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string model = "unknown processor";
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.starts_with("model name")) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  return fmt::format("{}, {} cores", model, std::thread::hardware_concurrency());
}

std::string today() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::localtime(&now));
  return text;
}

class Suite {
 public:
  explicit Suite(Options options) : o_(std::move(options)) {
    std::filesystem::create_directories(o_.out);
    // The kernel that suits the processor's flags, whatever the environment asked for: the
    // peer is the best the library does here (--openblas-core says otherwise).
    core_ = o_.openblas_core.empty() ? OpenBlasCoreType{openblas_core_type(), true}
                                     : OpenBlasCoreType{o_.openblas_core, false};
    if (!core_.name.empty()) setenv("OPENBLAS_CORETYPE", core_.name.c_str(), 1);
    openblas_report_ = std::filesystem::absolute(o_.out / "openblas-kernel.txt");
    onednn_report_ = std::filesystem::absolute(o_.out / "onednn-implementation.txt");
    // Before the evaluators fork: the processes that run the peers read them.
    setenv(kOpenBlasReportVariable, openblas_report_.c_str(), 1);
    setenv(kOneDnnReportVariable, onednn_report_.c_str(), 1);
    device::CpuEvaluatorOptions with_libraries;
    for (const std::string& flag : peer_link_flags()) with_libraries.flags.push_back(flag);
    sculpt_ = std::make_unique<device::CpuEvaluator>();
    peers_ = std::make_unique<device::CpuEvaluator>(with_libraries);
  }

  CaseResult run(const Case& c, double budget_s, bool start_from_cache) {
    CaseResult r;
    r.name = c.name;
    SearchOptions options;
    options.device = "cpu";
    options.budget_s = budget_s;
    options.evals = std::int64_t{1} << 40;
    options.seed = o_.seed;
    options.cache_dir = o_.out / "cache";
    options.use_cache = false;
    options.start_from_cache = start_from_cache;
    options.definition = c.definition;
    Kernel found;
    try {
      found = explorer::search_kernel(c.kernel, c.sizes, options);
    } catch (const Error& e) {
      r.error = e.what();
      return r;
    }
    r.search_ns = found.time_ns;
    r.run_dir = found.run_dir.string();
    const search::LogContents log = search::read_log(found.log);
    if (!log.sessions.empty()) r.stats = nlohmann::ordered_json::parse(log.sessions.back().json);
    r.from_cache_start = std::any_of(log.evaluations.begin(), log.evaluations.end(),
                                     [](const search::LogEvaluation& e) { return e.start; });

    const std::shared_ptr<const device::Problem> problem = case_problem(c, c.sizes, o_.seed);
    const device::KernelCode best{device::Language::c, found.code, found.entry, {}};
    std::vector<device::KernelCode> peer_codes;
    for (const Peer& peer : c.peers) {
      peer_codes.push_back(peer_code(peer, *problem));
      r.peers.push_back({peer.name, to_string(peer.library), "", std::nullopt, ""});
    }
    // Alternately, so that a drift of the machine's speed (another tenant, the clock) falls on
    // both sides alike.
    std::vector<double> sculpt_times;
    std::vector<std::vector<double>> peer_times(c.peers.size());
    for (int round = 0; round < o_.rounds; ++round) {
      time_one(*sculpt_, best, problem, sculpt_times, r.sculpt_error);
      for (std::size_t p = 0; p < c.peers.size(); ++p) {
        time_one(*peers_, peer_codes[p], problem, peer_times[p], r.peers[p].error);
        if (round == 0) {
          std::string chose = read_and_clear(onednn_report_);
          const std::string blas = read_and_clear(openblas_report_);
          if (c.peers[p].library == Library::openblas) chose = blas;
          r.peers[p].chose = chose;
          if (c.peers[p].library == Library::openblas) openblas_kernel_ = blas;
        }
      }
    }
    if (r.sculpt_error.empty()) r.sculpt_ns = median(sculpt_times);
    for (std::size_t p = 0; p < c.peers.size(); ++p) {
      if (!r.peers[p].error.empty()) continue;
      r.peers[p].ns = median(peer_times[p]);
      if (r.best_peer < 0 || *r.peers[p].ns < *r.peers[static_cast<std::size_t>(r.best_peer)].ns)
        r.best_peer = static_cast<int>(p);
    }
    return r;
  }

  const Options& options() const { return o_; }
  const OpenBlasCoreType& core() const { return core_; }
  const std::string& openblas_kernel() const { return openblas_kernel_; }

 private:
  /// Times `code` once more, unless an earlier round failed it (`error` says why then).
  static void time_one(device::CpuEvaluator& evaluator, const device::KernelCode& code,
                       const std::shared_ptr<const device::Problem>& problem,
                       std::vector<double>& times, std::string& error) {
    if (!error.empty()) return;
    const device::Evaluation e = evaluator.evaluate(code, problem);
    if (e.check == device::Check::ok && e.time_ns) {
      times.push_back(*e.time_ns);
      return;
    }
    error = fmt::format("{}: {}", device::to_string(e.check), e.message.substr(0, 600));
  }

  Options o_;
  OpenBlasCoreType core_;
  std::string openblas_kernel_;
  std::filesystem::path openblas_report_, onednn_report_;
  std::unique_ptr<device::CpuEvaluator> sculpt_, peers_;
};

std::string format_time(const std::optional<double>& ns) {
  return ns ? support::format_ns(*ns) : "-";
}

/// The geometric mean of the ratios there are, and how many there are.
std::pair<double, int> geometric_mean(const std::vector<CaseResult>& results) {
  double log_sum = 0;
  int count = 0;
  for (const CaseResult& r : results) {
    if (auto ratio = r.ratio()) {
      log_sum += std::log(*ratio);
      ++count;
    }
  }
  return {count ? std::exp(log_sum / count) : NAN, count};
}

std::string table(const std::vector<CaseResult>& results, bool where_time_went) {
  std::string out = where_time_went ? "| case | sculpt | best peer | peer | sculpt / peer | "
                                      "evaluations | compiling | measuring | device idle |\n"
                                      "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
                                    : "| case | sculpt | peer | sculpt / peer | evaluations |\n"
                                      "| --- | --- | --- | --- | --- |\n";
  for (const CaseResult& r : results) {
    if (!r.error.empty()) {
      out += fmt::format("| {} | search failed: {} |\n", r.name, r.error);
      continue;
    }
    std::string peer = "-", peer_time = "-";
    if (r.best_peer >= 0) {
      const PeerResult& p = r.peers[static_cast<std::size_t>(r.best_peer)];
      peer = fmt::format("{} ({})", p.name, p.library);
      peer_time = format_time(p.ns);
    }
    const std::string sculpt = r.sculpt_ns ? format_time(r.sculpt_ns) : "failed: " + r.sculpt_error;
    const std::string ratio = r.ratio() ? fmt::format("{:.2f}", *r.ratio()) : "-";
    const auto stat = [&](const char* key) {
      return r.stats.contains(key) ? r.stats[key].get<double>() : NAN;
    };
    const std::int64_t evaluations =
        r.stats.contains("evaluated") ? r.stats["evaluated"].get<std::int64_t>() : 0;
    if (where_time_went) {
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {:.0f} s | {:.1f} s | {:.0f}% |\n",
                         r.name, sculpt, peer_time, peer, ratio, evaluations, stat("compile_s"),
                         stat("measure_s"), 100 * stat("device_idle_share"));
    } else {
      out += fmt::format("| {} | {} | {} | {} | {} |\n", r.name, sculpt, peer_time, ratio,
                         evaluations);
    }
  }
  const auto [mean, count] = geometric_mean(results);
  out += fmt::format("\nGeometric mean of sculpt / peer over {} cases: {:.2f}\n", count, mean);
  return out;
}

nlohmann::ordered_json to_json(const CaseResult& r) {
  nlohmann::ordered_json peers = nlohmann::ordered_json::array();
  for (const PeerResult& p : r.peers) {
    nlohmann::ordered_json j{{"name", p.name}, {"library", p.library}, {"chose", p.chose}};
    j["ns"] = p.ns ? nlohmann::ordered_json(*p.ns) : nlohmann::ordered_json();
    if (!p.error.empty()) j["error"] = p.error;
    peers.push_back(j);
  }
  nlohmann::ordered_json j{{"case", r.name}};
  if (!r.error.empty()) {
    j["error"] = r.error;
    return j;
  }
  j["sculpt_ns"] = r.sculpt_ns ? nlohmann::ordered_json(*r.sculpt_ns) : nlohmann::ordered_json();
  if (!r.sculpt_error.empty()) j["sculpt_error"] = r.sculpt_error;
  j["search_best_ns"] = r.search_ns;
  j["best_peer"] = r.best_peer >= 0 ? nlohmann::ordered_json(r.peers[r.best_peer].name)
                                    : nlohmann::ordered_json();
  j["ratio"] = r.ratio() ? nlohmann::ordered_json(*r.ratio()) : nlohmann::ordered_json();
  j["peers"] = peers;
  j["started_from_cache"] = r.from_cache_start;
  j["search"] = r.stats;
  j["run_dir"] = r.run_dir;
  return j;
}

nlohmann::ordered_json to_json(const std::vector<CaseResult>& results) {
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (const CaseResult& r : results) cases.push_back(to_json(r));
  const auto [mean, count] = geometric_mean(results);
  return {{"cases", cases},
          {"geometric_mean", count ? nlohmann::ordered_json(mean) : nlohmann::ordered_json()}};
}

bool selected(const Options& o, const Case& c) {
  if (o.only.empty()) return true;
  return std::any_of(o.only.begin(), o.only.end(), [&](const std::string& part) {
    return c.name.find(part) != std::string::npos;
  });
}

/// Runs `cases` into `results`, calling `written` after each, so that a run cut short leaves
/// the tables of the cases it finished.
void run_all(Suite& suite, const std::vector<Case>& cases, double budget_s, bool start_from_cache,
             const std::string& what, std::vector<CaseResult>& results,
             const std::function<void()>& written) {
  int index = 0;
  for (const Case& c : cases) {
    ++index;
    fmt::print(stderr, "[{} {}/{}] {}: searching for {}\n", what, index, cases.size(), c.name,
               support::format_ns(budget_s * 1e9));
    results.push_back(suite.run(c, budget_s, start_from_cache));
    const CaseResult& r = results.back();
    if (!r.error.empty()) {
      fmt::print(stderr, "  search failed: {}\n", r.error);
    } else {
      fmt::print(stderr, "  sculpt {} (search: {}), peer {}, ratio {}\n", format_time(r.sculpt_ns),
                 support::format_ns(r.search_ns),
                 r.best_peer >= 0 ? format_time(r.peers[r.best_peer].ns) : "-",
                 r.ratio() ? fmt::format("{:.2f}", *r.ratio()) : "-");
    }
    written();
  }
}

int run_suite(const Options& o) {
  Suite suite(o);
  std::vector<Case> cases;
  for (const Case& c : suite_cases()) {
    if (selected(o, c)) cases.push_back(c);
  }
  const std::vector<Case> random_cases = random_matmul_cases(o.seed, o.random);
  std::vector<CaseResult> fixed, random;
  std::string text;
  // Both files after each case: written whole each time, marked incomplete until the last.
  const auto write = [&](bool complete) {
    const std::string blas =
        fmt::format("OpenBLAS kernel {} (OPENBLAS_CORETYPE={}{})",
                    suite.openblas_kernel().empty() ? "not reported" : suite.openblas_kernel(),
                    suite.core().name.empty() ? "unset" : suite.core().name,
                    suite.core().derived ? ", from /proc/cpuinfo's flags" : "");
    text = fmt::format(
        "sculpt-suite, {}, on {}; {}.\nEach case searched for {} (seed {}){}; times are medians "
        "of {} alternate evaluations by the CPU device.{}\n\n",
        today(), machine(), blas, support::format_ns(o.budget_s * 1e9), o.seed,
        o.fresh ? ", from scratch" : ", starting from what the suite's cache held of its kernel",
        o.rounds,
        complete ? ""
                 : fmt::format(" Under way: {} of {} cases done.", fixed.size() + random.size(),
                               cases.size() + random_cases.size()));
    text += table(fixed, true);
    if (!random.empty()) {
      text += fmt::format(
          "\n{} random matmul sizes (seed {}), each searched for {} starting from the suite's "
          "cache:\n\n",
          random.size(), o.seed, support::format_ns(o.random_budget_s * 1e9));
      text += table(random, false);
    }
    nlohmann::ordered_json json{{"date", today()},
                                {"machine", machine()},
                                {"openblas", blas},
                                {"budget_s", o.budget_s},
                                {"random_budget_s", o.random_budget_s},
                                {"seed", o.seed},
                                {"rounds", o.rounds},
                                {"fresh", o.fresh},
                                {"complete", complete},
                                {"suite", to_json(fixed)},
                                {"random_sizes", to_json(random)}};
    support::write_atomically(o.out / "suite.md", text, std::to_string(getpid()));
    support::write_atomically(o.out / "suite.json", json.dump(2) + "\n", std::to_string(getpid()));
  };
  const auto partial = [&] { write(false); };
  run_all(suite, cases, o.budget_s, !o.fresh, "suite", fixed, partial);
  run_all(suite, random_cases, o.random_budget_s, true, "random sizes", random, partial);
  write(true);
  fmt::print("{}\nWritten: {} and {}\n", text, (o.out / "suite.md").string(),
             (o.out / "suite.json").string());
  return 0;
}

}  // namespace
}  // namespace sculpt::bench

int main(int argc, char** argv) {
  using namespace sculpt::bench;
  Options o;
  std::string budget = "2m", random_budget = "30s";
  CLI::App app(
      "sculpt-suite: sculpt's searches against the libraries a user has (bench/README.md)");
  app.add_option("--budget", budget, "Search budget of each case (default 2m)");
  app.add_option("--random", o.random, "Random matmul sizes (default 20; 0: none)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--random-budget", random_budget, "Search budget of each random size (30s)");
  app.add_option("--seed", o.seed, "Seed of the searches, the inputs and the random sizes");
  app.add_option("--rounds", o.rounds, "Alternate timings of each kernel (default 3)")
      ->check(CLI::PositiveNumber);
  app.add_option("--case", o.only, "Run only the cases whose name contains this (repeatable)");
  app.add_flag("--fresh", o.fresh, "Search each case from scratch, not from the suite's cache");
  app.add_option("--openblas-core", o.openblas_core,
                 "OPENBLAS_CORETYPE of the OpenBLAS peers (default: from /proc/cpuinfo's flags)");
  app.add_option("--out", o.out, "Folder of the tables, the cache and the runs")->required();
  CLI11_PARSE(app, argc, argv);
  for (auto [text, seconds] :
       {std::pair{&budget, &o.budget_s}, {&random_budget, &o.random_budget_s}}) {
    const std::optional<double> parsed = sculpt::support::parse_duration(*text);
    if (!parsed || !(*parsed > 0)) {
      fmt::print(stderr, "sculpt-suite: '{}' is not a duration (90s, 2m, 1h30m)\n", *text);
      return 2;
    }
    *seconds = *parsed;
  }
  if (std::filesystem::exists(o.out / "suite.json")) {
    fmt::print(stderr, "sculpt-suite: {} holds a suite's results already; give a new --out\n",
               o.out.string());
    return 2;
  }
  try {
    return run_suite(o);
  } catch (const std::exception& e) {
    fmt::print(stderr, "sculpt-suite: {}\n", e.what());
    return 1;
  }
}
