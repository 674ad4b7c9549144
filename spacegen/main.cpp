// The spacegen command line.
//   spacegen --check FILE.space                 checks a space, prints its one-line summary
//   spacegen FILE.space --out DIR --namespace NS --backbone-type T [--new-objs-type T]
//            [--header H]... [--mutation-file F] [--format-with CLANG_FORMAT --format-style FILE]
//            generates the C++ sources into DIR (formatted as FILE says, when given)
//   spacegen --list-mutants FILE.space          prints the mutants of the space, one a line
// A mutant (spacedsl/mutation.h) changes one constraint of the model the generator receives
// (never what spacedsl checks); the oracle tests (tests/spacegen/mutants.cmake) must fail on each.
// Exit codes: 0 ok, 2 invalid input (diagnostics on stderr).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "spacedsl/frontend.h"
#include "spacedsl/mutation.h"
#include "spacegen/generator.h"
#include "spacegen/line_directives.h"

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

/// `text` in single quotes, for a shell.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// `text` as `clang_format` formats it with the style file `style` (empty: the .clang-format
/// above `path`), the project's width, so that generated code reads as the rest; nothing when
/// clang-format fails.
std::optional<std::string> formatted(const std::string& clang_format, const std::string& style,
                                     const fs::path& path, const std::string& text) {
  const fs::path unformatted = path.string() + ".unformatted" + path.extension().string();
  {
    std::ofstream out(unformatted, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return std::nullopt;
  }
  const std::string command =
      quoted(clang_format) + (style.empty() ? " --style=file " : " --style=file:" + quoted(style)) +
      " " + quoted(unformatted.string());
  FILE* pipe = popen(command.c_str(), "r");
  std::string result;
  if (pipe != nullptr) {
    char buffer[1 << 16];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
      result.append(buffer, n);
    }
  }
  const bool ok = pipe != nullptr && pclose(pipe) == 0;
  fs::remove(unformatted);
  if (!ok) return std::nullopt;
  return result;
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
  bool list_mutants = false;
  std::string mutation_file;
  app.add_flag("--list-mutants", list_mutants, "print the mutants of the space");
  app.add_option("--mutation-file", mutation_file, "a file naming the mutant to generate");
  std::string clang_format, format_style;
  app.add_option("--format-with", clang_format, "clang-format, to format the generated sources");
  app.add_option("--format-style", format_style, "the .clang-format file --format-with reads")
      ->needs(app.get_option("--format-with"));
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
  if (list_mutants) {
    for (const std::string& m : sculpt::spacedsl::list_mutants(*model)) std::cout << m << "\n";
    return 0;
  }
  if (!mutation_file.empty()) {
    std::ifstream in(mutation_file);
    if (!in) {
      std::cerr << "spacegen: error: cannot read " << mutation_file << "\n";
      return 2;
    }
    std::string spec((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!sculpt::spacedsl::apply_mutant(*model, spec)) {
      std::cerr << "spacegen: error: no mutant '" << spec << "' in " << file << "\n";
      return 2;
    }
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
    std::string text = generated.text;
    if (!clang_format.empty()) {
      std::optional<std::string> pretty = formatted(clang_format, format_style, path, text);
      if (!pretty) {
        std::cerr << "spacegen: error: " << clang_format << " cannot format " << path.string()
                  << "\n";
        return 2;
      }
      text = std::move(*pretty);
    }
    text = sculpt::spacegen::renumber_line_directives(
        text, generated.name, fs::absolute(path).lexically_normal().string());
    if (!write_if_changed(path, text)) {
      std::cerr << "spacegen: error: cannot write " << path.string() << "\n";
      return 2;
    }
  }
  return 0;
}
