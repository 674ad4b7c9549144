// libFuzzer target over the whole front end: parse, include, resolve, print the diagnostics.
// Any input must give either a model and no error, or no model and located errors; never a
// crash, a hang or a sanitizer report. See README.md for the commands.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "spacedsl/frontend.h"

namespace {

// Includes resolve against the valid corpus, so that inputs grown from it can use them.
const std::filesystem::path kBaseDir = SCULPT_FUZZ_INCLUDE_DIR;

void require(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sculpt::spacedsl;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diags;
  std::optional<Model> model = load_space_from_string(text, "fuzz.space", kBaseDir, diags);
  require(model.has_value() != diags.has_errors());
  for (const Diagnostic& d : diags.errors()) {
    require(d.loc.line >= 1 && d.loc.column >= 1 && !d.message.empty());
  }
  std::ostringstream out;
  diags.print(out);
  if (model) out << summarize(*model);
  return 0;
}
