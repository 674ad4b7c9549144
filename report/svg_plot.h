#pragma once
// Plots for the search report as inline SVG: two axes with round ticks (linear, or logarithmic
// for times) and marks on them: points, a step line, histogram bars, the diagonal y = x, short
// marks along the x axis. Marks carry class names; the page's CSS styles them, so a plot is
// plain markup with no script and no reference outside itself.
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sculpt::report {

/// `text` as the content of an HTML or SVG element or attribute: &, <, >, " and ' escaped.
std::string escape_html(std::string_view text);

enum class Scale { linear, log };

struct Axis {
  std::string label;
  Scale scale = Scale::linear;
  /// A tick's label.
  std::function<std::string(double)> format;
  /// The axis starts at 0 (counts, evaluation ids, seconds); linear axes only.
  bool from_zero = false;
  /// Ticks at whole numbers only (evaluation ids, counts); linear axes only.
  bool integer = false;
};

/// A point of the plot; a short mark along the x axis when given to add_rug (its y unused).
struct Point {
  double x = 0;
  double y = 0;
  std::string css_class;
  /// Written into its element as they are (`data-id="17"`): escape values.
  std::string attributes;
  /// Its tooltip (text).
  std::string title;
};

/// A histogram bar over [x0, x1] of height `height`, drawn from 0.
struct Bar {
  double x0 = 0;
  double x1 = 0;
  double height = 0;
  std::string title;
};

class Plot {
 public:
  Plot(Axis x, Axis y) : x_(std::move(x)), y_(std::move(y)) {}

  void add_points(std::vector<Point> points);
  /// A line through `steps`, holding each y until the next x, and the last until `x_end`: the
  /// best time so far.
  void add_step_line(std::vector<std::pair<double, double>> steps, double x_end,
                     std::string css_class);
  /// The bars of a histogram.
  void add_bars(std::vector<Bar> bars, std::string css_class);
  /// Short marks at the bottom of the plot, at each point's x.
  void add_rug(std::vector<Point> marks);
  /// The line y = x; both axes then share one range (they must have the same scale).
  void add_diagonal(std::string css_class);

  /// The plot as an <svg> element sized by its container, `label` its accessible name. Without
  /// any mark, empty axes.
  std::string svg(const std::string& label) const;

 private:
  Axis x_;
  Axis y_;
  std::vector<Point> points_;
  std::vector<std::pair<double, double>> steps_;
  double steps_end_ = 0;
  std::string steps_class_;
  std::vector<Bar> bars_;
  std::string bars_class_;
  std::vector<Point> rug_;
  std::string diagonal_class_;
};

}  // namespace sculpt::report
