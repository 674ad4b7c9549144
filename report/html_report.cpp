#include "report/html_report.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <utility>
#include <vector>

#include "codegen/device_code.h"
#include "codegen/lower.h"
#include "device/evaluator.h"
#include "report/svg_plot.h"
#include "search/log/best_code.h"
#include "search/session/candidate_evaluator.h"
#include "support/atomic_file.h"
#include "support/duration.h"

namespace sculpt::report {
namespace {

using search::LogEvaluation;
using support::format_ns;

/// What the report says of a candidate another search gave (`--start-from`).
constexpr const char* kStartNote = ", another search's (--start-from)";

constexpr const char* kStyle = R"(
:root { --ink: #1f2933; --muted: #616e7c; --line: #e4e7eb; --accent: #f58518;
        --point: #4c78a8; --fail: #e45756; --good: #54a24b; --panel: #fff; }
* { box-sizing: border-box; }
body { margin: 0; background: #f4f6f8; color: var(--ink);
       font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 28px 32px 48px; }
h1 { font-size: 26px; margin: 0 0 2px; }
h2 { font-size: 19px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 0 0 4px; }
.sub, .muted { color: var(--muted); }
.sub { margin: 0 0 18px; }
code { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(210px, 1fr)); gap: 14px; }
.card, figure, .candidate { background: var(--panel); border: 1px solid var(--line); border-radius: 8px; }
.card { padding: 12px 16px; }
.card .label { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.card .value { font-size: 24px; font-weight: 600; margin: 2px 0; }
.card .note { font-size: 13px; color: var(--muted); }
.glance { background: var(--panel); border-left: 4px solid var(--accent); border-radius: 4px;
          padding: 10px 16px; margin: 16px 0 0; }
.warning { background: #fff4e5; border-left: 4px solid var(--fail); border-radius: 4px; padding: 8px 14px; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(480px, 1fr)); gap: 16px; }
figure { margin: 0; padding: 12px 14px; }
figcaption { font-size: 13px; color: var(--muted); }
svg.plot { width: 100%; height: auto; display: block; margin: 6px 0; }
svg .frame { fill: #fff; stroke: #cbd2d9; }
svg .grid { stroke: #edf0f3; }
svg .tick { font-size: 11px; fill: var(--muted); }
svg .axis-label { font-size: 12px; fill: var(--ink); }
svg .evaluation { fill: var(--point); fill-opacity: .8; stroke: #fff; stroke-width: .8; }
svg .evaluation[data-cut-short] { fill: #fff; stroke: var(--point); stroke-width: 1.3; }
svg .evaluation[data-best], svg .sample[data-best] { fill: var(--accent); fill-opacity: 1;
                                                     stroke: #fff; r: 5.5; }
svg .sample { fill: var(--point); fill-opacity: .55; }
svg .sample[data-cut-short] { fill: #fff; stroke: var(--point); }
svg .best { fill: none; stroke: var(--accent); stroke-width: 2.2; }
svg .failure { stroke: var(--fail); stroke-width: 2; }
svg .bar { fill: #72b7b2; }
svg .bar:hover, svg circle:hover { opacity: .7; }
svg .bounded { fill: var(--good); fill-opacity: .8; }
svg .bounded[data-above] { fill: var(--fail); }
svg .diagonal { stroke: #9aa5b1; stroke-width: 1.2; stroke-dasharray: 5 4; }
.key { display: inline-block; width: 10px; height: 10px; vertical-align: middle; margin: 0 4px 0 12px; }
.key:first-child { margin-left: 0; }
.key.dot { border-radius: 50%; background: var(--point); }
.key.hollow { border-radius: 50%; border: 1.5px solid var(--point); background: #fff; }
.key.top { border-radius: 50%; background: var(--accent); }
.key.line { height: 3px; background: var(--accent); }
.key.fail { width: 3px; height: 11px; background: var(--fail); }
.key.bar { background: #72b7b2; }
.key.bounded { border-radius: 50%; background: var(--good); }
.key.above { border-radius: 50%; background: var(--fail); }
.key.diagonal { height: 0; border-top: 2px dashed #9aa5b1; }
table { border-collapse: collapse; background: var(--panel); width: 100%; font-size: 14px;
        border: 1px solid var(--line); }
th, td { padding: 6px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #eef1f5; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.stats { width: auto; min-width: 60%; }
table.stats td { min-width: 300px; }
tr.group th { background: #f7f9fb; color: var(--muted); font-weight: 600; font-size: 12px;
              text-transform: uppercase; letter-spacing: .05em; }
.candidate { padding: 12px 16px; margin: 12px 0; }
.candidate p { margin: 4px 0; }
details { margin: 6px 0; }
summary { cursor: pointer; color: #1f5fa8; }
pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px;
      overflow: auto; max-height: 520px; margin: 6px 0;
      font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.share { display: inline-block; width: 80px; height: 8px; background: #edf0f3; border-radius: 4px;
         margin-right: 8px; vertical-align: middle; overflow: hidden; }
.share span { display: block; height: 100%; background: var(--point); }
footer { margin-top: 40px; font-size: 12px; color: var(--muted); }
)";

std::string seconds(double s) { return format_ns(s * 1e9); }

/// A tick's label on an axis of counts or seconds.
std::string plain(double v) { return fmt::format("{:g}", v); }

std::string percent(double share) {
  return fmt::format("{:.{}f}%", share * 100, share < 0.1 ? 1 : 0);
}

std::string bytes(std::int64_t n) {
  return n < 1024 ? fmt::format("{} bytes", n) : fmt::format("{:.3g} KiB", n / 1024.0);
}

/// "3 candidates", "1 candidate".
std::string count(std::size_t n, const char* noun) {
  return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

/// A sentence listing `items`: "a", "a and b", "a, b and c".
std::string listing(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) s += i + 1 == items.size() ? " and " : ", ";
    s += items[i];
  }
  return s;
}

/// "3 wrong", "2 compile errors".
std::string check_count(device::Check check, std::size_t n) {
  switch (check) {
    case device::Check::fault:
      return count(n, "fault");
    case device::Check::timeout:
      return fmt::format("{} timed out", n);
    case device::Check::compile_error:
      return count(n, "compile error");
    default:
      return fmt::format("{} {}", n, device::to_string(check));
  }
}

/// The first line of a message, shortened for a table cell.
std::string first_line(const std::string& message) {
  std::string line = message.substr(0, message.find('\n'));
  if (line.size() > 200) line = line.substr(0, 200) + "…";
  return line;
}

/// The lowered kernel's main decisions in words: its grid, shared memory, how each loop runs and
/// what stays in registers.
std::string describe(const codegen::LoweredKernel& k) {
  std::vector<std::string> shape;
  for (std::int64_t n : k.block_size)
    if (n > 1) shape.push_back(std::to_string(n));
  std::string s = fmt::format("{} of {}", count(static_cast<std::size_t>(k.num_blocks()), "block"),
                              count(static_cast<std::size_t>(k.num_threads()), "thread"));
  if (shape.size() > 1) s += fmt::format(" ({})", fmt::join(shape, " × "));
  std::vector<std::string> shared;
  for (const codegen::Memory& m : k.memories)
    if (m.kind == codegen::Memory::Kind::kShared) shared.push_back(m.name);
  s += k.shared_bytes() > 0 ? fmt::format("; {} of shared memory ({})", bytes(k.shared_bytes()),
                                          fmt::join(shared, ", "))
                            : "; no shared memory";
  std::vector<std::string> loops[3];  // sequential, unrolled, vectorised
  for (const codegen::LoopDim& d : k.dims) {
    if (d.size == 1) continue;  // no loop in the code
    const std::string loop = fmt::format("{} ({})", d.name, d.size);
    if (d.kind == codegen::LoopKind::kLoop) loops[0].push_back(loop);
    if (d.kind == codegen::LoopKind::kUnroll) loops[1].push_back(loop);
    if (d.kind == codegen::LoopKind::kVector) loops[2].push_back(loop);
  }
  const char* how[3] = {"loops", "unrolled", "vectorised"};
  for (int i = 0; i < 3; ++i)
    if (!loops[i].empty()) s += fmt::format("; {}: {}", how[i], listing(loops[i]));
  std::int64_t registers = 0;
  for (const codegen::RegisterArray& r : k.registers) {
    std::int64_t n = 1;
    for (int d : r.dims) n *= k.dims[d].size;
    registers += n;
  }
  return s + fmt::format("; {} in registers per thread.",
                         count(static_cast<std::size_t>(registers), "value"));
}

/// The page, section by section, from the log and what is derived from it once.
class Page {
 public:
  Page(const search::LoggedSearch& search, const ReportOptions& options)
      : search_(search), options_(options), all_(search.log().evaluations) {
    // Each session's `t` restarts at 0 (a resumed search): sessions are laid end to end, each
    // from where the previous one's last evaluation ended.
    double offset = 0;
    double last = 0;
    for (const LogEvaluation& e : all_) {
      if (e.t < last) offset += last;
      last = e.t;
      wall_.push_back(offset + e.t);
    }
    for (std::size_t i = 0; i < all_.size(); ++i) {
      if (all_[i].check == "ok" && all_[i].time_ns) checked_.push_back(i);
      if (all_[i].check != "ok") failed_.push_back(i);
    }
    const std::vector<const LogEvaluation*> best = search.fastest(1);
    if (!best.empty()) best_ = best.front();
    double session_s = 0;
    for (const search::LogStats& stats : search.log().sessions) {
      const nlohmann::json j = nlohmann::json::parse(stats.json, nullptr, false);
      sessions_.push_back(j.is_object() ? j : nlohmann::json::object());
      session_s += sessions_.back().value("wall_s", 0.0);
    }
    total_s_ = std::max(wall_.empty() ? 0 : wall_.back(), session_s);
  }

  std::string render() const {
    const std::string what = search_.what();
    std::string s = fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>sculpt report: {}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n",
        escape_html(what), kStyle);
    s += header();
    s += plots();
    s += top();
    s += failures();
    s += statistics();
    s += fmt::format(
        "<footer>Written by <code>sculpt report</code> from {}. Times are medians of a "
        "candidate's timed runs; a candidate timed short ran slower than the search's cutoff "
        "and was timed once. Bounds are the performance model's lower bounds.</footer>\n",
        escape_html(search_.path().string()));
    return s + "</main>\n</body>\n</html>\n";
  }

 private:
  const LogEvaluation* first_checked() const {
    return checked_.empty() ? nullptr : &all_[checked_.front()];
  }

  /// A point per checked evaluation at `xs` of the evaluations and its time; the best one last,
  /// drawn above the others.
  std::vector<Point> checked_points(const std::vector<double>& xs,
                                    const std::string& css_class) const {
    const auto point = [&](std::size_t i) {
      return Point{xs[i], *all_[i].time_ns, css_class, point_attributes(all_[i]),
                   point_title(all_[i])};
    };
    std::vector<Point> points;
    for (std::size_t i : checked_)
      if (&all_[i] != best_) points.push_back(point(i));
    if (best_ != nullptr) points.push_back(point(index(*best_)));
    return points;
  }

  std::string point_attributes(const LogEvaluation& e) const {
    std::string a = fmt::format("data-id=\"{}\"", e.id);
    if (e.cut_short) a += " data-cut-short=\"\"";
    if (&e == best_) a += " data-best=\"\"";
    return a;
  }

  std::string point_title(const LogEvaluation& e) const {
    std::string t = fmt::format("candidate {}: {}", e.id, format_ns(*e.time_ns));
    if (e.runs > 0)
      t += fmt::format(" (spread {}, {})", format_ns(e.spread_ns), count(e.runs, "run"));
    if (e.cut_short) t += ", timed short";
    if (e.start) t += kStartNote;
    return t + fmt::format(", at {}", seconds(wall_[index(e)]));
  }

  std::size_t index(const LogEvaluation& e) const {
    return static_cast<std::size_t>(&e - all_.data());
  }

  std::string header() const {
    const search::LogHeader& h = search_.log().header;
    std::string s = fmt::format("<h1>{}</h1>\n", escape_html(search_.what()));
    s += fmt::format(
        "<p class=\"sub\">Search by {} with seed {} on the {} device; log <code>{}</code></p>\n",
        escape_html(h.algorithm), h.seed, device::name(h.device),
        escape_html(search_.path().string()));
    if (search_.truncated_line()) {
      s += fmt::format(
          "<p class=\"warning\">The log's line {} was cut short (the search stopped while "
          "writing it) and is left out.</p>\n",
          *search_.truncated_line());
    }

    std::vector<std::string> checks;
    for (device::Check check : device::kChecks) {
      const std::string name(device::to_string(check));
      const auto n = std::count_if(all_.begin(), all_.end(),
                                   [&](const LogEvaluation& e) { return e.check == name; });
      if (n > 0) checks.push_back(check_count(check, static_cast<std::size_t>(n)));
    }
    const auto cut =
        std::count_if(all_.begin(), all_.end(), [](const LogEvaluation& e) { return e.cut_short; });

    s += "<section class=\"cards\">\n";
    const auto card = [&](const std::string& label, const std::string& value,
                          const std::string& note) {
      s += fmt::format(
          "<div class=\"card\"><div class=\"label\">{}</div><div class=\"value\">{}</div>"
          "<div class=\"note\">{}</div></div>\n",
          label, value, note);
    };
    const LogEvaluation* first = first_checked();
    if (best_ != nullptr) {
      card("Best time", format_ns(*best_->time_ns),
           fmt::format("candidate {}, evaluation {} of {}, at {}", best_->id, index(*best_) + 1,
                       all_.size(), seconds(wall_[index(*best_)])));
      card("Speed-up", fmt::format("{:.3g}×", *first->time_ns / *best_->time_ns),
           fmt::format("over candidate {}, the first checked ({})", first->id,
                       format_ns(*first->time_ns)));
    } else {
      card("Best time", "none", "no candidate checked ok");
    }
    card("Evaluations", std::to_string(all_.size()),
         (checks.empty() ? std::string("none logged") : listing(checks)) +
             (cut > 0 ? fmt::format("; {} timed short", cut) : ""));
    card("Search time", seconds(total_s_),
         sessions_.empty() ? std::string("no session ended normally")
                           : count(sessions_.size(), "session"));
    if (best_ != nullptr && best_->bound_ns) {
      card("Bound of the best", format_ns(*best_->bound_ns),
           fmt::format("measured / bound: {:.3g}", *best_->time_ns / *best_->bound_ns));
    }
    s += "</section>\n";
    s += "<p class=\"glance\">" + glance() + "</p>\n";
    return s;
  }

  /// How the search went, in a sentence or two.
  std::string glance() const {
    if (all_.empty()) return "The log holds no evaluation yet.";
    if (best_ == nullptr) {
      return fmt::format("No candidate checked ok ({} evaluated): see the failed checks below.",
                         all_.size());
    }
    const std::size_t improvements = best_steps(wall_).size() - 1;
    const std::size_t at = index(*best_) + 1;
    const std::size_t after = all_.size() - at;
    if (improvements == 0) {
      return fmt::format("The first checked candidate, evaluation {} of {}, stayed the fastest{}.",
                         at, all_.size(),
                         after > 0 ? fmt::format(": the {} after it found nothing faster",
                                                 count(after, "evaluation"))
                                   : "");
    }
    std::string s = fmt::format(
        "The best time fell {} after the first checked candidate, last at evaluation {} of {} "
        "({} of {}). ",
        improvements == 1 ? std::string("once") : fmt::format("{} times", improvements), at,
        all_.size(), seconds(wall_[at - 1]), seconds(total_s_));
    s += at * 4 > all_.size() * 3
             ? "It was still improving near the end: a longer search may find faster candidates."
             : fmt::format("The last {} found nothing faster.", count(after, "evaluation"));
    return s;
  }

  std::string plots() const {
    std::string s = "<h2>How the search went</h2>\n";
    if (checked_.empty()) {
      s += "<p class=\"muted\">No candidate checked ok: there are no times to plot.</p>\n";
      return s;
    }
    s += "<section class=\"plots\">\n";
    s += best_against_evaluations();
    s += best_against_time();
    s += histogram();
    s += bounds();
    return s + "</section>\n";
  }

  std::vector<Point> failure_marks(const std::vector<double>& xs) const {
    std::vector<Point> marks;
    for (std::size_t i : failed_) {
      const LogEvaluation& e = all_[i];
      std::string title = fmt::format("candidate {}: {}", e.id, e.check);
      if (!e.message.empty()) title += ": " + first_line(e.message);
      marks.push_back({xs[i], 0, "failure", fmt::format("data-id=\"{}\"", e.id), title});
    }
    return marks;
  }

  /// The best time so far at each improvement, at `xs` of the evaluations.
  std::vector<std::pair<double, double>> best_steps(const std::vector<double>& xs) const {
    std::vector<std::pair<double, double>> steps;
    for (std::size_t i : checked_) {
      if (steps.empty() || *all_[i].time_ns < steps.back().second)
        steps.emplace_back(xs[i], *all_[i].time_ns);
    }
    return steps;
  }

  static Axis time_axis(const std::string& label) {
    return Axis{
        .label = label, .scale = Scale::log, .format = [](double ns) { return format_ns(ns); }};
  }

  std::string figure(const std::string& title, const std::string& svg,
                     const std::string& caption) const {
    return fmt::format("<figure>\n<h3>{}</h3>\n{}<figcaption>{}</figcaption>\n</figure>\n", title,
                       svg, caption);
  }

  std::string legend() const {
    std::string s =
        "<span class=\"key dot\"></span>checked candidate"
        "<span class=\"key top\"></span>best"
        "<span class=\"key line\"></span>best so far";
    if (std::any_of(all_.begin(), all_.end(), [](const LogEvaluation& e) { return e.cut_short; }))
      s += "<span class=\"key hollow\"></span>timed short (slower than the cutoff)";
    if (!failed_.empty()) s += "<span class=\"key fail\"></span>failed its check";
    return s;
  }

  std::string best_against_evaluations() const {
    std::vector<double> ids;
    for (const LogEvaluation& e : all_) ids.push_back(static_cast<double>(e.id));
    Plot plot(Axis{.label = "evaluation (candidate id)",
                   .format = plain,
                   .from_zero = true,
                   .integer = true},
              time_axis("time"));
    plot.add_step_line(best_steps(ids), ids.back(), "best");
    plot.add_points(checked_points(ids, "evaluation"));
    plot.add_rug(failure_marks(ids));
    return figure("Best time against evaluations",
                  plot.svg("measured time of each checked candidate, and the best so far"),
                  legend());
  }

  std::string best_against_time() const {
    Plot plot(
        Axis{.label = "wall time since the search started (s)", .format = plain, .from_zero = true},
        time_axis("time"));
    plot.add_step_line(best_steps(wall_), wall_.back(), "best");
    plot.add_points(checked_points(wall_, "sample"));
    plot.add_rug(failure_marks(wall_));
    return figure("Best time against wall time", plot.svg("best time so far against wall time"),
                  legend() + (sessions_.size() > 1
                                  ? "<br>The sessions of a resumed search are laid end to end."
                                  : ""));
  }

  std::string histogram() const {
    std::vector<double> times;
    for (std::size_t i : checked_) times.push_back(*all_[i].time_ns);
    double lo = std::log10(*std::min_element(times.begin(), times.end()));
    double hi = std::log10(*std::max_element(times.begin(), times.end()));
    if (hi - lo < 1e-3) {  // one time, or nearly: one bin around it
      lo -= 0.02;
      hi += 0.02;
    }
    // Bins of equal width on the log axis, about 1.5 sqrt(n) of them.
    const int n = std::clamp(static_cast<int>(std::lround(1.5 * std::sqrt(times.size()))), 1, 30);
    std::vector<std::size_t> counts(n);
    for (double t : times) {
      const int bin = static_cast<int>((std::log10(t) - lo) / (hi - lo) * n);
      ++counts[std::clamp(bin, 0, n - 1)];
    }
    std::vector<Bar> bars;
    for (int b = 0; b < n; ++b) {
      const double x0 = std::pow(10.0, lo + (hi - lo) * b / n);
      const double x1 = std::pow(10.0, lo + (hi - lo) * (b + 1) / n);
      bars.push_back({x0, x1, static_cast<double>(counts[b]),
                      fmt::format("{} from {} to {}", count(counts[b], "candidate"), format_ns(x0),
                                  format_ns(x1))});
    }
    Plot plot(time_axis("measured time"),
              Axis{.label = "candidates", .format = plain, .from_zero = true, .integer = true});
    plot.add_bars(std::move(bars), "bar");
    std::sort(times.begin(), times.end());
    return figure("Distribution of measured times", plot.svg("histogram of the measured times"),
                  fmt::format("{} checked candidates, on bins of equal ratio; median {}, "
                              "fastest {}, slowest {}.",
                              times.size(), format_ns(times[times.size() / 2]),
                              format_ns(times.front()), format_ns(times.back())));
  }

  std::string bounds() const {
    std::vector<Point> points;
    std::vector<double> ratios;
    std::size_t above = 0;
    for (std::size_t i : checked_) {
      const LogEvaluation& e = all_[i];
      if (!e.bound_ns || *e.bound_ns <= 0) continue;
      const double ratio = *e.time_ns / *e.bound_ns;
      ratios.push_back(ratio);
      std::string attributes = fmt::format("data-id=\"{}\"", e.id);
      if (ratio < 1) {
        attributes += " data-above=\"\"";
        ++above;
      }
      points.push_back({*e.time_ns, *e.bound_ns, "bounded", attributes,
                        fmt::format("candidate {}: measured {}, bound {} (measured / bound {:.3g})",
                                    e.id, format_ns(*e.time_ns), format_ns(*e.bound_ns), ratio)});
    }
    if (points.empty()) {
      return figure("Bound against measured time",
                    "<p class=\"muted\">The log holds no bounds (searched without a model).</p>\n",
                    "");
    }
    Plot plot(time_axis("measured time"), time_axis("lower bound"));
    plot.add_points(std::move(points));
    plot.add_diagonal("diagonal");
    std::sort(ratios.begin(), ratios.end());
    std::string caption = fmt::format(
        "<span class=\"key bounded\"></span>candidate<span class=\"key diagonal\"></span>bound = "
        "time. Below the diagonal the bound holds; the nearer, the tighter. Measured / bound: "
        "median {:.3g}, from {:.3g} to {:.3g}.",
        ratios[ratios.size() / 2], ratios.front(), ratios.back());
    if (above > 0) {
      caption += fmt::format(
          " <span class=\"key above\"></span>{} above the diagonal: the bound exceeds the "
          "measured time.",
          above);
    }
    return figure("Bound against measured time",
                  plot.svg("lower bound against measured time, with the line bound = time"),
                  caption);
  }

  std::string top() const {
    const std::vector<const LogEvaluation*> fastest = search_.fastest(options_.top);
    if (fastest.empty()) {
      return "<h2>The fastest candidates</h2>\n<p class=\"muted\">No candidate checked ok.</p>\n";
    }
    std::string s = fmt::format("<h2>The fastest {}</h2>\n", count(fastest.size(), "candidate"));
    s += "<table>\n<tr><th>#</th><th class=\"num\">candidate</th><th class=\"num\">time</th>"
         "<th class=\"num\">spread</th><th class=\"num\">runs</th><th class=\"num\">bound</th>"
         "<th class=\"num\">measured / bound</th><th class=\"num\">found at</th></tr>\n";
    for (std::size_t r = 0; r < fastest.size(); ++r) {
      const LogEvaluation& e = *fastest[r];
      s += fmt::format(
          "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}{}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"num\">evaluation {}, {}{}</td></tr>\n",
          r + 1, e.id, format_ns(*e.time_ns), e.cut_short ? " (timed short)" : "",
          format_ns(e.spread_ns), e.runs, e.bound_ns ? format_ns(*e.bound_ns) : "—",
          e.bound_ns ? fmt::format("{:.3g}", *e.time_ns / *e.bound_ns) : "—", index(e) + 1,
          seconds(wall_[index(e)]), e.start ? kStartNote : "");
    }
    s += "</table>\n";
    for (std::size_t r = 0; r < fastest.size(); ++r) s += candidate(*fastest[r], r == 0);
    return s;
  }

  /// A candidate rebuilt from its actions: its decisions in words, its lowered kernel, its
  /// bound term by term and its code; the best one's lowered kernel open.
  std::string candidate(const LogEvaluation& e, bool open) const {
    std::string s = fmt::format("<article class=\"candidate\">\n<h3>Candidate {}: {}</h3>\n", e.id,
                                format_ns(*e.time_ns));
    try {
      const std::unique_ptr<gpu_space::Candidate> c = search_.rebuild(e);
      const codegen::LoweredKernel lowered = codegen::lower(*c);
      const device::KernelCode code =
          codegen::kernel_code(*c, device::language_of(search_.log().header.device), "candidate");
      s += "<p>" + escape_html(describe(lowered)) + "</p>\n";
      s += fmt::format(
          "<details{}><summary>Decisions: the lowered kernel</summary><pre>{}</pre></details>\n",
          open ? " open" : "", escape_html(lowered.dump()));
      s += fmt::format(
          "<details><summary>Lower bound, term by term</summary><pre>{}</pre></details>\n",
          escape_html(search_.model().bound(*c).explain()));
      s += fmt::format("<details><summary>Code ({})</summary><pre>{}</pre></details>\n",
                       code.language == device::Language::ptx ? "PTX" : "C",
                       escape_html(search::code_listing(code)));
    } catch (const std::runtime_error& error) {
      s += "<p class=\"warning\">" + escape_html(error.what()) + "</p>\n";
    }
    return s + "</article>\n";
  }

  std::string failures() const {
    if (failed_.empty()) return "";
    constexpr std::size_t kShown = 10;
    std::string s =
        "<h2>Failed checks</h2>\n<table>\n<tr><th class=\"num\">candidate</th><th>check</th>"
        "<th>message</th></tr>\n";
    for (std::size_t k = 0; k < failed_.size() && k < kShown; ++k) {
      const LogEvaluation& e = all_[failed_[k]];
      s += fmt::format("<tr><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>\n", e.id,
                       escape_html(e.check), escape_html(first_line(e.message)));
    }
    s += "</table>\n";
    if (failed_.size() > kShown) {
      s += fmt::format("<p class=\"muted\">and {} more in the log.</p>\n", failed_.size() - kShown);
    }
    return s;
  }

  std::string statistics() const {
    std::string s = "<h2>Statistics of each session</h2>\n";
    if (sessions_.empty()) {
      return s +
             "<p class=\"muted\">No session ended normally: the log has no statistics line "
             "(a search still running, or one that crashed).</p>\n";
    }
    using Cell = std::function<std::string(const nlohmann::json&)>;
    const auto number = [](const char* key) -> Cell {
      return [key](const nlohmann::json& j) { return fmt::format("{}", j.value(key, 0LL)); };
    };
    const auto rate = [](const char* key) -> Cell {
      return [key](const nlohmann::json& j) { return fmt::format("{:.3g}", j.value(key, 0.0)); };
    };
    // A share of the session's wall time, as a bar and a percentage.
    const auto time = [](const char* key) -> Cell {
      return [key](const nlohmann::json& j) {
        const double t = j.value(key, 0.0);
        const double wall = j.value("wall_s", 0.0);
        const double share = wall > 0 ? t / wall : 0;
        return fmt::format(
            "<span class=\"share\"><span style=\"width:{:.0f}%\"></span></span>{} ({} of the "
            "wall time)",
            std::min(share, 1.0) * 100, seconds(t), percent(share));
      };
    };
    // A row without a cell heads a group of rows.
    const std::vector<std::pair<std::string, Cell>> rows = {
        {"The search", nullptr},
        {"algorithm",
         [](const nlohmann::json& j) { return escape_html(j.value("algorithm", "")); }},
        {"searching threads", number("threads")},
        {"evaluated", number("evaluated")},
        {"walks (rollouts)", number("rollouts")},
        {"dead ends",
         [](const nlohmann::json& j) {
           return fmt::format("{} ({})", j.value("dead_ends", 0LL),
                              percent(j.value("dead_end_rate", 0.0)));
         }},
        {"walks cut by the bound", number("pruned")},
        {"faster than their bound",
         [](const nlohmann::json& j) {
           // A violation widens the cut (search/README.md): say from which one, and how far.
           const nlohmann::json first = j.value("first_violation", nlohmann::json());
           return first.is_object()
                      ? fmt::format(
                            "{} (the first: candidate {}; the bound then cut past {:.3g} times "
                            "the best time)",
                            j.value("bound_violations", 0LL), first.value("id", 0LL),
                            j.value("slack", 1.0))
                      : std::string("0");
         }},
        {"candidates found again", number("repeats")},
        {"abandoned at the end", number("abandoned")},
        {"timed short (killed)",
         [](const nlohmann::json& j) {
           return fmt::format("{} ({})", j.value("cut_short", 0LL), j.value("killed", 0LL));
         }},
        {"space exhausted",
         [](const nlohmann::json& j) { return j.value("exhausted", false) ? "yes" : "no"; }},
        {"Time and rates", nullptr},
        {"wall time", [](const nlohmann::json& j) { return seconds(j.value("wall_s", 0.0)); }},
        {"evaluations per second", rate("evaluations_per_s")},
        {"walks per second", rate("rollouts_per_s")},
        {"Where the time went: the searching threads (summed over threads)", nullptr},
        {"propagation", time("propagation_s")},
        {"the model's bounds", time("model_s")},
        {"code generation", time("codegen_s")},
        {"paused while the device measured", time("paused_s")},
        {"Where the time went: the device", nullptr},
        {"compiling (summed over its compilers)", time("compile_s")},
        {"measuring", time("measure_s")},
        {"idle", [](const nlohmann::json& j) {
           return percent(j.value("device_idle_share", 0.0)) +
                  " of the time after its fifth evaluation";
         }}};
    s += "<table class=\"stats\">\n<tr><th></th>";
    for (std::size_t k = 0; k < sessions_.size(); ++k)
      s += fmt::format("<th>session {}</th>", k + 1);
    s += "</tr>\n";
    for (const auto& [label, cell] : rows) {
      if (!cell) {
        s += fmt::format("<tr class=\"group\"><th colspan=\"{}\">{}</th></tr>\n",
                         sessions_.size() + 1, label);
        continue;
      }
      s += "<tr><th>" + label + "</th>";
      for (const nlohmann::json& j : sessions_) s += "<td>" + cell(j) + "</td>";
      s += "</tr>\n";
    }
    return s + "</table>\n";
  }

  const search::LoggedSearch& search_;
  const ReportOptions& options_;
  const std::vector<LogEvaluation>& all_;
  /// Seconds from the start of the search to the end of each evaluation, sessions end to end.
  std::vector<double> wall_;
  /// The whole search's: its sessions' wall times, or its last evaluation's end when longer.
  double total_s_ = 0;
  /// Indices into all_ of the evaluations that checked ok (with their times), and the others.
  std::vector<std::size_t> checked_;
  std::vector<std::size_t> failed_;
  const LogEvaluation* best_ = nullptr;
  /// Each session's statistics line (an empty object where it does not parse).
  std::vector<nlohmann::json> sessions_;
};

}  // namespace

std::string html_report(const search::LoggedSearch& search, const ReportOptions& options) {
  return Page(search, options).render();
}

void write_report(const search::LoggedSearch& search, const std::filesystem::path& file,
                  const ReportOptions& options) {
  support::write_atomically(file, html_report(search, options), std::to_string(getpid()));
}

}  // namespace sculpt::report
