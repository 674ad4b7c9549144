#include "report/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace sculpt::report {
namespace {

// The drawing's own units; the page scales it to its column.
constexpr double kWidth = 560;
constexpr double kHeight = 330;
constexpr double kLeft = 78;
constexpr double kRight = 18;
constexpr double kTop = 14;
constexpr double kBottom = 50;
constexpr double kPlotWidth = kWidth - kLeft - kRight;
constexpr double kPlotHeight = kHeight - kTop - kBottom;

/// 1, 2 or 5 times a power of ten, the nearest above `raw`.
double round_step(double raw) {
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

/// Where values fall along one axis: its range (in log10 of the values on a log axis) and
/// ticks.
class Scaler {
 public:
  Scaler(const Axis& axis, const std::vector<double>& values) : log_(axis.scale == Scale::log) {
    std::vector<double> usable;
    for (double v : values)
      if (std::isfinite(v) && (!log_ || v > 0)) usable.push_back(v);
    if (log_) {
      fit_log(usable);
    } else {
      fit_linear(axis, usable);
    }
  }

  /// From 0 at the start of the axis to 1 at its end.
  double fraction(double v) const {
    const double u = log_ ? std::log10(std::max(v, 1e-300)) : v;
    return (u - lo_) / (hi_ - lo_);
  }
  double low() const { return log_ ? std::pow(10.0, lo_) : lo_; }
  double high() const { return log_ ? std::pow(10.0, hi_) : hi_; }
  const std::vector<double>& ticks() const { return ticks_; }

 private:
  void fit_linear(const Axis& axis, const std::vector<double>& values) {
    double lo = values.empty() ? 0 : *std::min_element(values.begin(), values.end());
    double hi = values.empty() ? 1 : *std::max_element(values.begin(), values.end());
    if (axis.from_zero) {
      lo = std::min(lo, 0.0);
      hi = std::max(hi, 0.0);
    }
    if (hi == lo) {
      const double half = axis.integer ? 0.5 : std::max(std::abs(lo) * 0.1, 0.5);
      hi += half;
      lo = axis.from_zero && lo == 0 ? 0 : lo - half;
    }
    double step = round_step((hi - lo) / 5);
    if (axis.integer) step = std::max(step, 1.0);
    lo_ = std::floor(lo / step) * step;
    hi_ = std::ceil(hi / step) * step;
    for (double k = std::round(lo_ / step); k * step <= hi_ + step * 1e-9; ++k)
      ticks_.push_back(k * step);
  }

  void fit_log(const std::vector<double>& values) {
    lo_ = values.empty() ? 0 : std::log10(*std::min_element(values.begin(), values.end()));
    hi_ = values.empty() ? 1 : std::log10(*std::max_element(values.begin(), values.end()));
    if (hi_ - lo_ < 0.05) {  // one value, or nearly: a span that shows it in the middle
      const double middle = (lo_ + hi_) / 2;
      lo_ = middle - 0.15;
      hi_ = middle + 0.15;
    }
    const double pad = (hi_ - lo_) * 0.05;
    lo_ -= pad;
    hi_ += pad;
    // Powers of ten when they give three ticks or more, else 1-2-5 of each power, else every
    // digit; a range narrower than that gets round linear steps.
    for (const std::vector<double>& mantissas :
         {std::vector<double>{1}, {1, 2, 5}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}) {
      ticks_.clear();
      for (double e = std::floor(lo_); e <= std::ceil(hi_); ++e) {
        for (double m : mantissas) {
          const double v = m * std::pow(10.0, e);
          const double u = std::log10(v);
          if (u >= lo_ && u <= hi_) ticks_.push_back(v);
        }
      }
      if (ticks_.size() >= 3) return;
    }
    const double step = round_step((high() - low()) / 4);
    ticks_.clear();
    for (double k = std::ceil(low() / step); k * step <= high(); ++k) ticks_.push_back(k * step);
  }

  bool log_;
  double lo_ = 0;
  double hi_ = 1;
  std::vector<double> ticks_;
};

std::string number(double v) { return fmt::format("{:.1f}", v); }

}  // namespace

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void Plot::add_points(std::vector<Point> points) {
  points_.insert(points_.end(), std::make_move_iterator(points.begin()),
                 std::make_move_iterator(points.end()));
}

void Plot::add_step_line(std::vector<std::pair<double, double>> steps, double x_end,
                         std::string css_class) {
  steps_ = std::move(steps);
  steps_end_ = x_end;
  steps_class_ = std::move(css_class);
}

void Plot::add_bars(std::vector<Bar> bars, std::string css_class) {
  bars_ = std::move(bars);
  bars_class_ = std::move(css_class);
}

void Plot::add_rug(std::vector<Point> marks) {
  rug_.insert(rug_.end(), std::make_move_iterator(marks.begin()),
              std::make_move_iterator(marks.end()));
}

void Plot::add_diagonal(std::string css_class) { diagonal_class_ = std::move(css_class); }

std::string Plot::svg(const std::string& label) const {
  std::vector<double> xs;
  std::vector<double> ys;
  for (const Point& p : points_) {
    xs.push_back(p.x);
    ys.push_back(p.y);
  }
  for (const auto& [x, y] : steps_) {
    xs.push_back(x);
    ys.push_back(y);
  }
  if (!steps_.empty()) xs.push_back(steps_end_);
  for (const Bar& b : bars_) {
    xs.push_back(b.x0);
    xs.push_back(b.x1);
    ys.push_back(b.height);
  }
  for (const Point& p : rug_) xs.push_back(p.x);
  if (!diagonal_class_.empty()) {  // one range for both axes, so that y = x is the diagonal
    xs.insert(xs.end(), ys.begin(), ys.end());
    ys = xs;
  }
  const Scaler sx(x_, xs);
  const Scaler sy(y_, ys);
  const auto px = [&](double v) { return kLeft + sx.fraction(v) * kPlotWidth; };
  const auto py = [&](double v) { return kTop + (1 - sy.fraction(v)) * kPlotHeight; };
  const double bottom = kTop + kPlotHeight;

  std::string s =
      fmt::format("<svg class=\"plot\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
                  kWidth, kHeight, escape_html(label));
  s += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", kLeft,
                   kTop, kPlotWidth, kPlotHeight);
  // Grid lines at every tick; labels where they do not run into the previous one.
  double last_right = -1e9;
  for (double t : sx.ticks()) {
    const double x = px(t);
    s += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n",
                     number(x), kTop, bottom);
    const std::string text = x_.format(t);
    const double half = static_cast<double>(text.size()) * 3.3;
    if (x - half < last_right + 8) continue;
    last_right = x + half;
    s += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                     number(x), bottom + 17, escape_html(text));
  }
  double last_top = 1e9;
  for (double t : sy.ticks()) {
    const double y = py(t);
    s += fmt::format("<line class=\"grid\" x1=\"{0}\" y1=\"{2}\" x2=\"{1}\" y2=\"{2}\"/>\n", kLeft,
                     kLeft + kPlotWidth, number(y));
    if (y > last_top - 14) continue;
    last_top = y;
    s += fmt::format("<text class=\"tick\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
                     kLeft - 6, number(y + 4), escape_html(y_.format(t)));
  }
  s +=
      fmt::format("<text class=\"axis-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                  number(kLeft + kPlotWidth / 2), kHeight - 8, escape_html(x_.label));
  s += fmt::format(
      "<text class=\"axis-label\" transform=\"rotate(-90)\" x=\"{}\" y=\"16\" "
      "text-anchor=\"middle\">{}</text>\n",
      number(-(kTop + kPlotHeight / 2)), escape_html(y_.label));

  for (const Bar& b : bars_) {
    const double x0 = px(b.x0) + 0.5;
    const double x1 = std::max(px(b.x1) - 0.5, x0 + 1);
    s += fmt::format(
        "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" "
        "height=\"{}\"><title>{}</title></rect>\n",
        bars_class_, number(x0), number(py(b.height)), number(x1 - x0),
        number(py(0) - py(b.height)), escape_html(b.title));
  }
  if (!diagonal_class_.empty()) {
    s += fmt::format("<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>\n",
                     diagonal_class_, number(px(sx.low())), number(py(sx.low())),
                     number(px(sx.high())), number(py(sx.high())));
  }
  if (!steps_.empty()) {
    std::string d =
        fmt::format("M{} {}", number(px(steps_.front().first)), number(py(steps_.front().second)));
    for (std::size_t i = 1; i < steps_.size(); ++i) {
      d += fmt::format(" H{} V{}", number(px(steps_[i].first)), number(py(steps_[i].second)));
    }
    d += fmt::format(" H{}", number(px(steps_end_)));
    s += fmt::format("<path class=\"{}\" d=\"{}\"/>\n", steps_class_, d);
  }
  for (const Point& p : rug_) {
    s += fmt::format(
        "<line class=\"{0}\" x1=\"{2}\" y1=\"{3}\" x2=\"{2}\" "
        "y2=\"{4}\"{1}><title>{5}</title></line>\n",
        p.css_class, p.attributes.empty() ? "" : " " + p.attributes, number(px(p.x)), bottom,
        bottom - 9, escape_html(p.title));
  }
  for (const Point& p : points_) {
    s += fmt::format(
        "<circle class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3.5\"{}><title>{}</title></circle>\n",
        p.css_class, number(px(p.x)), number(py(p.y)),
        p.attributes.empty() ? "" : " " + p.attributes, escape_html(p.title));
  }
  return s + "</svg>\n";
}

}  // namespace sculpt::report
