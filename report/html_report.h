#pragma once
// `sculpt report`: a search's log as one self-contained HTML page that shows how the search
// went: its header and outcome, the best time against evaluations and against wall time, the
// measured times' distribution, bounds against times, the fastest candidates with their
// decisions and code, and each session's statistics. Plots are inline SVG styled by inline CSS:
// the page needs no script and refers to nothing outside itself.
#include <cstddef>
#include <filesystem>
#include <string>

#include "search/gpu/logged_search.h"

namespace sculpt::report {

struct ReportOptions {
  /// The fastest candidates shown with their decisions and code.
  std::size_t top = 5;
};

/// The page. Each evaluation that checked ok is one `<circle class="evaluation" data-id="ID">`
/// in the first plot.
std::string html_report(const search::LoggedSearch& search, const ReportOptions& options = {});

/// Writes the page to `file` atomically (a temporary file renamed). Throws std::runtime_error
/// ("cannot write PATH: why").
void write_report(const search::LoggedSearch& search, const std::filesystem::path& file,
                  const ReportOptions& options = {});

}  // namespace sculpt::report
