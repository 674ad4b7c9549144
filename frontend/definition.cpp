#include "frontend/definition.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "frontend/tc_check.h"
#include "frontend/tc_parser.h"
#include "frontend/tc_reference.h"
#include "support/error.h"
#include "support/input_file.h"

namespace sculpt::frontend {
namespace {

// Bounds on what one definition file may hold, so that no input can exhaust memory.
constexpr std::uintmax_t kMaxFileSize = std::uintmax_t{4} << 20;
constexpr int64_t kMaxSize = (int64_t{1} << 31) - 1;

std::string lines(const Diagnostics& diags) {
  std::string out;
  for (const Diagnostic& d : diags.errors()) {
    out += (out.empty() ? "" : "\n") + d.loc.file + ":" + std::to_string(d.loc.line) + ":" +
           std::to_string(d.loc.column) + ": error: " + d.message;
  }
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

/// "M=256,N=256,K=32" for the sizes of `def`, in the definition's order.
backbone::SizeParse parse_named_sizes(std::string_view text, const Definition& def) {
  backbone::SizeParse parse;
  const std::string known = " (sizes of " + def.name + ": " + joined(def.sizes) + ")";
  if (text.find('=') == std::string_view::npos) {
    std::string example;
    for (const std::string& s : def.sizes) example += (example.empty() ? "" : ",") + s + "=...";
    parse.error = "the sizes of a definition are given by name: --size " + example;
    return parse;
  }
  std::map<std::string, int64_t> given;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    const std::string field = trimmed(text.substr(start, end - start));
    start = end + 1;
    const std::size_t eq = field.find('=');
    const std::string name = trimmed(std::string_view(field).substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : trimmed(field.substr(eq + 1));
    if (std::find(def.sizes.begin(), def.sizes.end(), name) == def.sizes.end()) {
      parse.error = "unknown size '" + name + "'" + known;
      return parse;
    }
    const bool digits = !value.empty() && value.size() <= 10 &&
                        value.find_first_not_of("0123456789") == std::string::npos;
    const int64_t v = digits ? std::stoll(value) : 0;
    if (v < 1 || v > kMaxSize) {
      parse.error = "size " + name + " must be a positive integer below 2^31, not '" + value + "'";
      return parse;
    }
    if (!given.emplace(name, v).second) {
      parse.error = "size " + name + " is given twice";
      return parse;
    }
  }
  std::vector<std::string> missing;
  for (const std::string& s : def.sizes) {
    if (!given.count(s)) missing.push_back(s);
  }
  if (!missing.empty()) {
    parse.error =
        "missing size" + std::string(missing.size() > 1 ? "s " : " ") + joined(missing) + known;
    return parse;
  }
  for (const std::string& s : def.sizes) parse.sizes.set(s, given.at(s));
  return parse;
}

/// The sizes a range depends on, with their values: "H=2, KH=3".
std::string values_of(const IndexRange& range, const backbone::Sizes& sizes) {
  std::map<std::string, int64_t> used;
  for (const SizeAffine* a : {&range.lo.num, &range.last.num}) {
    for (const auto& [name, coeff] : a->coeffs) used[name] = sizes.at(name);
  }
  std::string out;
  for (const auto& [name, value] : used) {
    out += (out.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  }
  return out.empty() ? "every size" : out;
}

/// Whether every range holds values at `sizes`, and no statement iterates over more points than
/// the zoo allows; reports the others at their place.
bool check_sizes(const Definition& def, const backbone::Sizes& sizes, const SourceFile& source,
                 Diagnostics& diags) {
  for (const Dim& dim : def.dims) {
    const int64_t extent = dim.range.extent(sizes);
    if (extent < 1) {
      report(diags, source, dim.offset,
             "index '" + dim.name + "' ranges over " + dim.range.to_string() + ", empty for " +
                 values_of(dim.range, sizes));
    } else if (extent > kMaxSize) {
      report(diags, source, dim.offset,
             "index '" + dim.name + "' ranges over more than 2^31 - 1 values");
    }
  }
  if (diags.has_errors()) return false;
  for (const Statement& st : def.statements) {
    double points = 1;
    for (const Index& index : st.indices) {
      points *= static_cast<double>(def.dims[index.dim].range.extent(sizes));
    }
    if (points > static_cast<double>(backbone::kMaxIterationPoints)) {
      report(diags, source, st.offset, "this statement iterates over more than 2^52 points");
    }
  }
  for (const Tensor& t : def.tensors) {
    double elements = 1;
    for (const std::string& s : t.sizes) elements *= static_cast<double>(sizes.at(s));
    if (elements > static_cast<double>(backbone::kMaxIterationPoints)) {
      report(diags, source, t.offset, "'" + t.name + "' holds more than 2^52 elements");
    }
  }
  return !diags.has_errors();
}

std::string shape(const Definition& def, const Tensor& t) {
  std::string out = std::string(backbone::elem_type_name(t.type)) + "(";
  if (t.defined()) {
    for (std::size_t i = 0; i < t.dims.size(); ++i) {
      const IndexRange& r = def.dims[t.dims[i]].range;
      out += (i ? ", " : "") + r.to_string().substr(r.to_string().find(':') + 1);
    }
  } else {
    out += joined(t.sizes);
  }
  return out + ")";
}

}  // namespace

std::vector<Definition> load_definitions(std::string_view text, const std::string& file,
                                         Diagnostics& diags) {
  const SourceFile source(file, std::string(text));
  const ast::File parsed = parse(source, diags);
  std::vector<Definition> defs = check(parsed, source, diags);
  if (parsed.definitions.empty() && !diags.has_errors()) {
    report(diags, source, 0, "no definition (a definition starts with 'def')");
  }
  return defs;
}

backbone::KernelInfo kernel_info(std::shared_ptr<const Definition> def,
                                 std::vector<backbone::SizeSpec> sizes, BuildOptions options) {
  backbone::KernelInfo info;
  info.name = def->name;
  info.description = def->text;
  info.sizes = std::move(sizes);
  info.build = [def, options](const backbone::Sizes& s) { return build_kernel(*def, s, options); };
  info.reference = [def](const backbone::Sizes& s, backbone::HostArgs& args) {
    run_reference(*def, s, args);
  };
  return info;
}

DefinitionLookup lookup_definition(std::string_view text, const std::string& file,
                                   std::string_view kernel, std::string_view size) {
  DefinitionLookup lookup;
  Diagnostics diags;
  const SourceFile source(file, std::string(text));
  std::vector<Definition> defs = load_definitions(text, file, diags);
  if (diags.has_errors()) {
    lookup.error = lines(diags);
    return lookup;
  }
  std::vector<std::string> names;
  for (const Definition& d : defs) names.push_back(d.name);
  auto it = std::find_if(defs.begin(), defs.end(),
                         [&](const Definition& d) { return kernel.empty() || d.name == kernel; });
  if (kernel.empty() && defs.size() > 1) {
    lookup.error = file + " defines " + std::to_string(defs.size()) + " kernels (" + joined(names) +
                   "): pick one with --kernel";
    return lookup;
  }
  if (it == defs.end()) {
    lookup.error = file + " has no definition '" + std::string(kernel) + "' (it defines " +
                   joined(names) + ")";
    return lookup;
  }
  lookup.definition = std::make_shared<const Definition>(std::move(*it));
  if (size.empty()) return lookup;
  backbone::SizeParse parse = parse_named_sizes(size, *lookup.definition);
  if (!parse.ok()) {
    lookup.error = std::move(parse.error);
    return lookup;
  }
  if (!check_sizes(*lookup.definition, parse.sizes, source, diags)) {
    lookup.error = lines(diags);
    return lookup;
  }
  std::vector<backbone::SizeSpec> specs;
  for (const auto& [name, value] : parse.sizes.entries()) specs.push_back({name, value, value});
  backbone::KernelInfo info = kernel_info(lookup.definition, std::move(specs));
  if (const std::string why = backbone::too_large_to_search(info.build(parse.sizes));
      !why.empty()) {
    report(diags, source, lookup.definition->offset,
           "definition '" + lookup.definition->name + "' is too large: " + why +
               "; split it into smaller definitions");
    lookup.error = lines(diags);
    return lookup;
  }
  lookup.info = std::move(info);
  lookup.sizes = std::move(parse.sizes);
  return lookup;
}

std::optional<std::string> read_definition_file(const std::filesystem::path& path,
                                                std::string* error) {
  std::string why;
  std::optional<std::string> text = support::read_input_file(path, kMaxFileSize, &why);
  if (!text) *error = "cannot read '" + path.string() + "': " + why;
  return text;
}

DefinitionLookup lookup_definition_file(const std::filesystem::path& path, std::string_view kernel,
                                        std::string_view size) {
  DefinitionLookup lookup;
  const std::optional<std::string> text = read_definition_file(path, &lookup.error);
  if (!text) return lookup;
  return lookup_definition(*text, path.string(), kernel, size);
}

void save_definition(const std::filesystem::path& dir, std::string_view text) {
  const std::filesystem::path path = dir / kRunDefinitionFile;
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw Error(Error::Kind::environment, "cannot write " + path.string());
}

std::optional<DefinitionLookup> lookup_run_definition(
    const std::filesystem::path& dir, const std::string& kernel,
    const std::vector<std::pair<std::string, int64_t>>& sizes) {
  const std::filesystem::path path = dir / kRunDefinitionFile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  std::string size;
  for (const auto& [name, value] : sizes) {
    size += (size.empty() ? "" : ",") + name + "=" + std::to_string(value);
  }
  return lookup_definition_file(path, kernel, size);
}

std::string describe(const Definition& def) {
  std::ostringstream out;
  out << def.name << ": " << def.text << "\n";
  out << "sizes: " << joined(def.sizes) << "\n";
  for (const Definition::Param& p : def.params) {
    if (p.scalar) {
      const Scalar& s = def.scalars[p.id];
      out << "  " << s.name << ": scalar " << backbone::elem_type_name(s.type) << "\n";
    } else {
      out << "  " << def.tensors[p.id].name << ": input " << shape(def, def.tensors[p.id]) << "\n";
    }
  }
  for (int id : def.outputs) {
    const Tensor& t = def.tensors[id];
    out << "  " << t.name << ": " << (t.reads_initial ? "in-out " : "output ") << shape(def, t)
        << "\n";
  }
  out << "dimensions:";
  for (const Dim& dim : def.dims) {
    out << " " << dim.name << " in " << dim.range.to_string() << (dim.parallel ? "" : " (reduced)")
        << (&dim == &def.dims.back() ? "" : ",");
  }
  out << "\n";
  return out.str();
}

}  // namespace sculpt::frontend
