// `sculpt kernels`: the kernel zoo. Without arguments, one line per kernel with its sizes and
// their defaults; with a kernel name, its signature at the given (or default) sizes, and on
// request its backbone and its dependences. With --def or --expr, a kernel of one's own: what
// the front end infers of its definition, and at given sizes the same as for a zoo kernel.
#include <fmt/format.h>

#include <cstdio>

#include "backbone/dependences.h"
#include "explorer/command.h"
#include "frontend/definition.h"
#include "zoo/zoo.h"

namespace sculpt::explorer {
namespace {

struct KernelsOptions {
  std::string name;
  std::string def;
  std::string expr;
  std::string kernel;  // the definition of --def to describe
  std::string size;
  bool backbone = false;
  bool dependences = false;
};

std::string size_names(const backbone::KernelInfo& info) {
  std::string names;
  for (const backbone::SizeSpec& spec : info.sizes) names += (names.empty() ? "" : "x") + spec.name;
  return names;
}

void list_kernels() {
  fmt::print("{:<18} {:<8} {:<16} {}\n", "kernel", "sizes", "default", "computes");
  for (const backbone::KernelInfo& info : zoo::kernel_zoo()) {
    fmt::print("{:<18} {:<8} {:<16} {}\n", info.name, size_names(info),
               backbone::format_sizes(backbone::default_sizes(info.sizes)), info.description);
  }
}

std::string shape(const backbone::MemRegion& mem) {
  std::string out;
  for (int64_t extent : mem.extents) out += (out.empty() ? "" : " x ") + std::to_string(extent);
  return out;
}

void describe(const backbone::KernelInfo& info, const backbone::Sizes& sizes,
              const KernelsOptions& options) {
  const backbone::Kernel kernel = info.build(sizes);
  fmt::print("{}: {}\n", info.name, info.description);
  fmt::print("sizes ({}): {}  [default {}, tests {}]\n", size_names(info), sizes.to_string(),
             backbone::format_sizes(backbone::default_sizes(info.sizes)),
             backbone::format_sizes(backbone::test_sizes(info.sizes)));
  for (const backbone::PaperSize& paper : info.paper_sizes) {
    fmt::print("  measured in {}: --size {}\n", paper.source, paper.size);
  }
  fmt::print("parameters:\n");
  for (const backbone::Parameter& param : kernel.params()) {
    using Kind = backbone::Parameter::Kind;
    const std::string_view type = backbone::elem_type_name(param.type);
    if (param.kind == Kind::kSize) {
      fmt::print("  {:<8} size   {} = {}\n", param.name, type, param.size_value);
    } else if (param.kind == Kind::kScalar) {
      fmt::print("  {:<8} scalar {}\n", param.name, type);
    } else {
      const backbone::MemRegion& mem = kernel.mem(param.mem);
      const char* role = mem.kind == backbone::MemRegion::Kind::kInput    ? "input"
                         : mem.kind == backbone::MemRegion::Kind::kOutput ? "output"
                                                                          : "in-out";
      fmt::print("  {:<8} array  {}[{}] {}, {} elements\n", param.name, type, shape(mem), role,
                 mem.num_elements());
    }
  }
  fmt::print(
      "objects: {} instructions, {} dimensions ({} static), {} dim mappings; with "
      "lowerings up to {} instructions, {} memory regions\n",
      kernel.instructions().size(), kernel.dim_capacity(), kernel.static_dims().size(),
      kernel.mapping_capacity(), kernel.inst_capacity(), kernel.mem_capacity());
  if (options.backbone) fmt::print("\n{}", kernel.to_string());
  if (options.dependences) {
    fmt::print("\n{}", backbone::compute_dependences(kernel).to_string(kernel));
  }
}

int describe_definition(const KernelsOptions& options) {
  frontend::DefinitionLookup lookup =
      options.def.empty()
          ? frontend::lookup_definition(options.expr, "--expr", options.kernel, options.size)
          : frontend::lookup_definition_file(options.def, options.kernel, options.size);
  if (!lookup.ok()) {
    fmt::print(stderr, "sculpt kernels: {}\n", lookup.error);
    return kExitUsage;
  }
  if (!lookup.info && (options.backbone || options.dependences)) {
    std::fputs(
        "sculpt kernels: --backbone and --dependences need the definition's sizes (--size)\n",
        stderr);
    return kExitUsage;
  }
  fmt::print("{}", frontend::describe(*lookup.definition));
  if (lookup.info) {
    fmt::print("\n");
    describe(*lookup.info, lookup.sizes, options);
  }
  return kExitOk;
}

int run_kernels(const KernelsOptions& options) {
  if (!options.def.empty() || !options.expr.empty()) {
    if (!options.name.empty()) {
      std::fputs("sculpt kernels: a definition's kernel is picked with --kernel, not a name\n",
                 stderr);
      return kExitUsage;
    }
    return describe_definition(options);
  }
  if (!options.kernel.empty()) {
    std::fputs("sculpt kernels: --kernel picks a definition of --def\n", stderr);
    return kExitUsage;
  }
  if (options.name.empty()) {
    if (!options.size.empty() || options.backbone || options.dependences) {
      std::fputs("sculpt kernels: --size, --backbone and --dependences need a kernel name\n",
                 stderr);
      return kExitUsage;
    }
    list_kernels();
    return kExitOk;
  }
  const zoo::ZooLookup lookup = zoo::lookup_kernel(options.name, options.size);
  if (!lookup.ok()) {
    fmt::print(stderr, "sculpt kernels: {}\n", lookup.error);
    return kExitUsage;
  }
  describe(*lookup.info, lookup.sizes, options);
  return kExitOk;
}

}  // namespace

Command add_kernels_command(CLI::App& sculpt) {
  auto options = std::make_shared<KernelsOptions>();
  CLI::App* app = sculpt.add_subcommand("kernels", "List the kernel zoo, or describe one kernel");
  app->add_option("name", options->name, "Kernel to describe");
  CLI::Option* def = app->add_option(
      "--def", options->def,
      "File of kernel definitions in the Tensor Comprehensions notation (frontend/LANGUAGE.md)");
  app->add_option("--expr", options->expr, "One kernel definition, as in --def")->excludes(def);
  app->add_option("--kernel", options->kernel, "The definition of --def to describe");
  add_size_option(*app, options->size)
      ->description(
          "Problem size: 1024x1024x1024 for a zoo kernel (default: its sizes), M=256,N=256,K=32 "
          "for a definition");
  app->add_flag("--backbone", options->backbone, "Print the kernel's backbone");
  app->add_flag("--dependences", options->dependences,
                "Print the dependences computed with isl and what they allow");
  return Command{app, [options] { return run_kernels(*options); }};
}

}  // namespace sculpt::explorer
