// libFuzzer target over the whole definition front end: parse, check (isl range inference
// included), print the diagnostics, and for what checks, pick each definition with sizes of 3,
// build its backbone and run its reference (those of a million points at most). Every error
// must be located; no input may crash, hang or make a sanitizer report. An input that starts
// with byte 0x01 is a recipe instead (generate.h): a long, deep or wide definition far past
// what -max_len lets the fuzzer write itself. See README.md.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "backbone/host_args.h"
#include "frontend/definition.h"
#include "tests/frontend/fuzz/generate.h"

namespace {

void require(bool condition) {
  if (!condition) __builtin_trap();
}

/// Iteration points of the definition's statements, in all (`where` ranges may be huge).
double points(const sculpt::frontend::Definition& def, const sculpt::backbone::Sizes& sizes) {
  double total = 0;
  for (const sculpt::frontend::Statement& st : def.statements) {
    double n = 1;
    for (const sculpt::frontend::Index& index : st.indices) {
      n *= static_cast<double>(def.dims[index.dim].range.extent(sizes));
    }
    total += n;
  }
  return total;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace sculpt::frontend;
  const std::string generated = sculpt::frontend::fuzz::generate(data, size);
  const std::string_view text = generated.empty()
                                    ? std::string_view(reinterpret_cast<const char*>(data), size)
                                    : std::string_view(generated);
  Diagnostics diags;
  const std::vector<Definition> defs = load_definitions(text, "fuzz.tc", diags);
  for (const Diagnostic& d : diags.errors()) {
    require(d.loc.line >= 1 && d.loc.column >= 1 && !d.message.empty());
  }
  std::ostringstream out;
  diags.print(out);
  if (diags.has_errors()) return 0;
  // Each lookup checks the whole file again: a few of its definitions, so that a file of many
  // does not make the harness quadratic.
  for (std::size_t d = 0; d < defs.size() && d < 4; ++d) {
    const Definition& def = defs[d];
    std::string sizes;
    for (const std::string& s : def.sizes) sizes += (sizes.empty() ? "" : ",") + s + "=3";
    const DefinitionLookup lookup = lookup_definition(text, "fuzz.tc", def.name, sizes);
    require(lookup.ok() || !lookup.error.empty());
    if (!lookup.info || points(*lookup.definition, lookup.sizes) > (1 << 20)) continue;
    out << describe(*lookup.definition);
    const sculpt::backbone::Kernel kernel = lookup.info->build(lookup.sizes);
    sculpt::backbone::HostArgs args = sculpt::backbone::make_host_args(kernel, 1);
    lookup.info->reference(lookup.sizes, args);
  }
  return 0;
}
