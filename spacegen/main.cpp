// The spacegen command line.
//   spacegen --check FILE.space                 checks a space, prints its one-line summary
//   spacegen FILE.space --out DIR --namespace NS --backbone-type T [--new-objs-type T]
//            [--header H]...                    generates the C++ sources into DIR
// Exit codes: 0 ok, 2 invalid input (diagnostics on stderr).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "spacedsl/frontend.h"
#include "spacegen/generator.h"

namespace {

namespace fs = std::filesystem;
using sculpt::spacegen::GeneratorOptions;

/// Rewrites a file only when its content changes, so that regenerating an unchanged space
/// does not rebuild its users.
bool write_if_changed(const fs::path& path, const std::string& text) {
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::ostringstream old;
      old << in.rdbuf();
      if (old.str() == text) return true;
    }
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"spacegen: compiles .space files into C++ propagators"};
  std::string file;
  bool check_only = false;
  std::string out_dir;
  GeneratorOptions options;
  app.add_option("file", file, "the root .space file")->required();
  app.add_flag("--check", check_only, "check the file and print its summary");
  app.add_option("--out", out_dir, "output folder of the generated sources");
  app.add_option("--namespace", options.ns, "C++ namespace of the generated code");
  app.add_option("--backbone-type", options.backbone_type, "C++ type of $fun");
  app.add_option("--new-objs-type", options.new_objs_type, "C++ type of $new");
  app.add_option("--header", options.headers, "headers the host code needs");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  sculpt::spacedsl::Diagnostics diags;
  std::optional<sculpt::spacedsl::Model> model = sculpt::spacedsl::load_space(file, diags);
  if (!model) {
    diags.print(std::cerr);
    return 2;
  }
  if (check_only) {
    std::cout << sculpt::spacedsl::summarize(*model) << "\n";
    return 0;
  }
  if (out_dir.empty() || options.ns.empty() || options.backbone_type.empty()) {
    std::cerr << "spacegen: error: generation needs --out, --namespace and --backbone-type\n";
    return 2;
  }
  options.source_name = fs::path(file).filename().string();
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    std::cerr << "spacegen: error: cannot create " << out_dir << ": " << ec.message() << "\n";
    return 2;
  }
  for (const auto& generated : sculpt::spacegen::generate(*model, options)) {
    fs::path path = fs::path(out_dir) / generated.name;
    if (!write_if_changed(path, generated.text)) {
      std::cerr << "spacegen: error: cannot write " << path.string() << "\n";
      return 2;
    }
  }
  return 0;
}
