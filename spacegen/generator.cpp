// The driver: analyse the model into a plan, then write each file from it.
#include "spacegen/generator.h"

#include <filesystem>
#include <set>

#include "spacegen/emitters.h"
#include "spacegen/line_directives.h"
#include "spacegen/plan.h"
#include "support/check.h"

namespace sculpt::spacegen {

namespace {

/// The propagators of the constraints written in `space_file`.
std::string propagators_file(const std::string& space_file) {
  return "propagators_" + std::filesystem::path(space_file).stem().string() + ".cpp";
}

/// FNV-1a over the code of the propagators, counters and triggers and the choices' values:
/// what a saved candidate's decision vector means.
std::uint64_t model_hash(const spacedsl::Model& model, const std::vector<GeneratedFile>& code) {
  std::uint64_t hash = 1469598103934665603ULL;
  auto add = [&](const std::string& s) {
    for (char c : s) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  };
  for (const GeneratedFile& file : code) add(without_marks(file.text));
  for (const auto& c : model.choices) {
    for (const auto& v : c.values) add(c.name + "." + v.name);
  }
  return hash;
}

}  // namespace

std::vector<std::string> generated_file_names(const std::vector<std::string>& space_files) {
  std::vector<std::string> names = {"domains.h",     "space.h",      "decision_vector.cpp",
                                    "quotients.cpp", "counters.cpp", "triggers.cpp"};
  for (const std::string& file : space_files) names.push_back(propagators_file(file));
  return names;
}

std::vector<GeneratedFile> generate(const spacedsl::Model& model, const GeneratorOptions& options) {
  const Plan plan = build_plan(model);
  const Emission emission(model, plan, options);
  std::vector<GeneratedFile> code;
  std::set<std::string> names;
  for (const std::string& file : model.files) {
    code.push_back({propagators_file(file), emit_propagators(emission, file)});
    SCULPT_CHECK(names.insert(code.back().name).second)
        << "two .space files of one space named like " << file;
  }
  code.push_back({"quotients.cpp", emit_quotients(emission)});
  code.push_back({"counters.cpp", emit_counters(emission)});
  code.push_back({"triggers.cpp", emit_triggers(emission)});
  std::vector<GeneratedFile> files = {
      {"domains.h", emit_domains_h(emission)},
      {"space.h", emit_space_h(emission)},
      {"decision_vector.cpp", emit_decision_vector(emission, model_hash(model, code))}};
  files.insert(files.end(), std::make_move_iterator(code.begin()),
               std::make_move_iterator(code.end()));
  for (GeneratedFile& file : files) file.text = place_line_directives(file.text, file.name);
  return files;
}

}  // namespace sculpt::spacegen
