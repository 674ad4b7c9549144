#pragma once
// A user's kernel from its definition: a file (or a one-line string) of Tensor Comprehensions
// definitions parsed and checked, one picked by name, its sizes given by name, and the result a
// backbone::KernelInfo whose backbone and CPU reference both come from the definition, so that
// every stage after this one treats it as it treats a zoo kernel.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backbone/kernel_info.h"
#include "frontend/source.h"
#include "frontend/tc_builder.h"
#include "frontend/tc_model.h"

namespace sculpt::frontend {

/// The checked definitions of `text` (named `file` in messages); the errors are in `diags`.
std::vector<Definition> load_definitions(std::string_view text, const std::string& file,
                                         Diagnostics& diags);

/// A definition as a kernel: `sizes` (the definition's, in the order of the `--size` string and
/// of the backbone's size parameters, with defaults and test values), the backbone and the
/// reference derived from the definition.
backbone::KernelInfo kernel_info(std::shared_ptr<const Definition> def,
                                 std::vector<backbone::SizeSpec> sizes, BuildOptions options = {});

/// A definition picked on a command line or by the library, or what is wrong.
struct DefinitionLookup {
  std::shared_ptr<const Definition> definition;
  /// When sizes were given: the kernel, and its sizes.
  std::optional<backbone::KernelInfo> info;
  backbone::Sizes sizes;
  /// One line per mistake, "file:line:column: error: message" where it has a place.
  std::string error;
  bool ok() const { return error.empty(); }
};

/// The text of a definition file (at most 4 MiB), or nothing with what is wrong in `error`
/// ("cannot read 'x.tc': no such file").
std::optional<std::string> read_definition_file(const std::filesystem::path& path,
                                                std::string* error);

/// Parses and checks `text`, picks the definition `kernel` (empty: the only one) and, unless
/// `size` is empty, reads its sizes by name ("M=256,N=256,K=32": each size once, positive) and
/// checks that no range is empty at them.
DefinitionLookup lookup_definition(std::string_view text, const std::string& file,
                                   std::string_view kernel, std::string_view size);
/// The same, from a file.
DefinitionLookup lookup_definition_file(const std::filesystem::path& path, std::string_view kernel,
                                        std::string_view size);

/// The file a run folder keeps its kernel's definitions in, so that `sculpt report` and
/// `sculpt replay` can rebuild the kernel its log names.
inline constexpr std::string_view kRunDefinitionFile = "kernel.tc";

/// Writes `text` to `dir`/kernel.tc. Throws std::runtime_error ("cannot write PATH").
void save_definition(const std::filesystem::path& dir, std::string_view text);

/// The kernel `kernel` at `sizes` (as a log's header lists them) of the definitions a run folder
/// keeps; nothing when `dir` keeps none.
std::optional<DefinitionLookup> lookup_run_definition(
    const std::filesystem::path& dir, const std::string& kernel,
    const std::vector<std::pair<std::string, int64_t>>& sizes);

/// What `sculpt kernels --def` prints of a definition: its statements, sizes, signature,
/// outputs and the range of every dimension, symbolically.
std::string describe(const Definition& def);

}  // namespace sculpt::frontend
