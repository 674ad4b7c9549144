#include "spacedsl/frontend.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <system_error>

#include "spacedsl/parser.h"
#include "spacedsl/resolver.h"

namespace sculpt::spacedsl {
namespace {

namespace fs = std::filesystem;

// Bounds on what one space may read, so that no input can exhaust memory or stack.
constexpr int kMaxIncludeDepth = 64;
constexpr std::uintmax_t kMaxFileSize = std::uintmax_t{4} << 20;

/// Reads the root file and, depth first in include order, every file it includes (each once).
class Loader {
 public:
  explicit Loader(Diagnostics& diags) : diags_(diags) {}

  std::optional<Model> load(std::unique_ptr<SourceFile> root, const fs::path& dir,
                            const fs::path& identity) {
    visit(std::move(root), dir, identity, 0);
    if (diags_.has_errors()) return std::nullopt;
    std::vector<ParsedFile> parsed;
    for (auto& [source, syntax] : files_) parsed.push_back({source.get(), std::move(syntax)});
    std::optional<Model> model = resolve(parsed, diags_);
    if (!model) return std::nullopt;
    for (const auto& [source, syntax] : files_) model->files.push_back(source->name());
    return model;
  }

  /// Reads `path` for an include at `offset` of `from` (or the root when `from` is null);
  /// `shown` is how messages name the file.
  std::unique_ptr<SourceFile> read(const fs::path& path, const SourceFile* from, std::size_t offset,
                                   const std::string& shown) {
    auto fail = [&](const std::string& message) -> std::unique_ptr<SourceFile> {
      if (from) {
        report(diags_, *from, offset, message);
      } else {
        diags_.error({path.string(), 1, 1}, message);
      }
      return nullptr;
    };
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      const char* why = fs::is_directory(path, ec) ? "a folder, not a file"
                        : fs::exists(path, ec)     ? "not a regular file"
                                                   : "no such file";
      return fail("cannot open '" + shown + "': " + why);
    }
    if (fs::file_size(path, ec) > kMaxFileSize || ec) {
      return fail("'" + shown + "' is too large for a space file");
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) return fail("cannot read '" + shown + "'");
    return std::make_unique<SourceFile>(path.string(), text.str());
  }

 private:
  void visit(std::unique_ptr<SourceFile> source, const fs::path& dir, const fs::path& identity,
             int depth) {
    const SourceFile& file = *source;
    ast::File syntax = parse(file, diags_);
    stack_.push_back(identity);
    done_.push_back(identity);
    std::vector<const ast::Include*> includes;
    for (const ast::Item& item : syntax.items) {
      if (const auto* include = boost::get<ast::Include>(&item)) includes.push_back(include);
    }
    files_.emplace_back(std::move(source), std::move(syntax));
    for (const ast::Include* include : includes) {
      fs::path target = dir / fs::path(include->path.raw);
      std::error_code ec;
      fs::path key = fs::weakly_canonical(target, ec);
      if (ec) key = target.lexically_normal();
      if (std::find(stack_.begin(), stack_.end(), key) != stack_.end()) {
        report(diags_, file, include->offset,
               "include cycle: '" + include->path.raw + "' is already being included");
        continue;
      }
      if (std::find(done_.begin(), done_.end(), key) != done_.end()) continue;
      // The generated propagators of a file are named after its stem (propagators_<stem>.cpp).
      if (const auto same =
              std::find_if(done_.begin(), done_.end(),
                           [&](const fs::path& other) { return other.stem() == key.stem(); });
          same != done_.end()) {
        report(diags_, file, include->offset,
               "'" + include->path.raw + "' has the name of '" + same->filename().string() +
                   "', already part of the space: the files of a space need distinct names");
        continue;
      }
      if (depth + 1 >= kMaxIncludeDepth) {
        report(diags_, file, include->offset, "includes are nested too deeply");
        continue;
      }
      if (auto next = read(target, &file, include->offset, include->path.raw)) {
        visit(std::move(next), target.parent_path(), key, depth + 1);
      }
    }
    stack_.pop_back();
  }

  Diagnostics& diags_;
  std::vector<std::pair<std::unique_ptr<SourceFile>, ast::File>> files_;
  std::vector<fs::path> stack_;  // the files being included, root first
  std::vector<fs::path> done_;   // every file read so far
};

fs::path identity_of(const fs::path& path) {
  std::error_code ec;
  fs::path key = fs::weakly_canonical(path, ec);
  return ec ? path.lexically_normal() : key;
}

}  // namespace

std::optional<Model> load_space(const std::filesystem::path& file, Diagnostics& diags) {
  Loader loader(diags);
  std::unique_ptr<SourceFile> root = loader.read(file, nullptr, 0, file.string());
  if (!root) return std::nullopt;
  return loader.load(std::move(root), file.parent_path(), identity_of(file));
}

std::optional<Model> load_space_from_string(std::string_view text, const std::string& name,
                                            const std::filesystem::path& base_dir,
                                            Diagnostics& diags) {
  Loader loader(diags);
  return loader.load(std::make_unique<SourceFile>(name, std::string(text)), base_dir,
                     identity_of(base_dir / name));
}

std::string summarize(const Model& model) {
  std::size_t counters = 0;
  for (const Choice& choice : model.choices) counters += choice.kind == ChoiceKind::Counter;
  std::ostringstream out;
  out << model.sets.size() << " sets, " << model.choices.size() << " choices, "
      << model.constraints.size() << " constraints, " << counters << " counters, "
      << model.triggers.size() << " triggers, " << model.quotients.size() << " quotients";
  return out.str();
}

}  // namespace sculpt::spacedsl
