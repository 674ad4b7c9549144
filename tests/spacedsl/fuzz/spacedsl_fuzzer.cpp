// libFuzzer target over the whole front end: parse, include, resolve, print the diagnostics.
// Any input must give either a model and no error, or no model and located errors; never a
// crash, a hang or a sanitizer report. An input that starts with byte 0x01 is a recipe instead
// (generate.h): a long, deep or wide space far past what -max_len lets the fuzzer write itself.
// See README.md for the commands.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "spacedsl/frontend.h"
#include "tests/spacedsl/fuzz/generate.h"

namespace {

// Includes resolve against the valid corpus, so that inputs grown from it can use them.
const std::filesystem::path kBaseDir = SCULPT_FUZZ_INCLUDE_DIR;

void require(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sculpt::spacedsl;
  const std::string generated = fuzz::generate(data, size);
  const std::string_view text = generated.empty()
                                    ? std::string_view(reinterpret_cast<const char*>(data), size)
                                    : std::string_view(generated);
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
