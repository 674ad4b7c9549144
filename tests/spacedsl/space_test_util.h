#pragma once
// Helpers shared by the spacedsl tests: load a test file, find things in a Model by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>

#include "spacedsl/frontend.h"

namespace sculpt::spacedsl::testing {

inline std::filesystem::path data_dir() { return std::filesystem::path(SCULPT_TEST_DATA_DIR); }

inline std::string printed(const Diagnostics& diags) {
  std::ostringstream out;
  diags.print(out);
  return out.str();
}

inline SetId set_id(const Model& model, const std::string& name) {
  for (SetId i = 0; i < model.sets.size(); ++i) {
    if (model.sets[i].name == name) return i;
  }
  ADD_FAILURE() << "no set " << name;
  return 0;
}

inline ChoiceId choice_id(const Model& model, const std::string& name) {
  for (ChoiceId i = 0; i < model.choices.size(); ++i) {
    if (model.choices[i].name == name) return i;
  }
  ADD_FAILURE() << "no choice " << name;
  return 0;
}

inline const Choice& choice(const Model& model, const std::string& name) {
  return model.choices[choice_id(model, name)];
}

inline ValueSet bits(const Choice& choice, std::initializer_list<const char*> names) {
  ValueSet out = 0;
  for (const char* name : names) {
    bool found = false;
    for (std::size_t i = 0; i < choice.values.size(); ++i) {
      if (choice.values[i].name == name) {
        out |= ValueSet{1} << i;
        found = true;
      }
    }
    if (!found) ADD_FAILURE() << name << " is not a value of " << choice.name;
  }
  return out;
}

}  // namespace sculpt::spacedsl::testing
