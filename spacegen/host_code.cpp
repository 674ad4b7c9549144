#include "spacegen/host_code.h"

#include <algorithm>
#include <cctype>

namespace sculpt::spacegen {

namespace {

/// The end of the `$name` starting at code[i].
std::size_t name_end(const std::string& code, std::size_t i) {
  std::size_t j = i + 1;
  while (j < code.size() && (std::isalnum(static_cast<unsigned char>(code[j])) || code[j] == '_')) {
    ++j;
  }
  return j;
}

}  // namespace

std::vector<spacedsl::VarId> code_vars(const std::string& code,
                                       const std::vector<spacedsl::Variable>& vars) {
  std::vector<spacedsl::VarId> out;
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (code[i] != '$') continue;
    const std::size_t j = name_end(code, i);
    const std::string name = code.substr(i + 1, j - i - 1);
    for (spacedsl::VarId v = 0; v < vars.size(); ++v) {
      if (vars[v].name == name && std::find(out.begin(), out.end(), v) == out.end()) {
        out.push_back(v);
      }
    }
  }
  return out;
}

std::string substitute(const std::string& code, const std::map<std::string, std::string>& vars,
                       const std::string& fun) {
  std::string out;
  for (std::size_t i = 0; i < code.size();) {
    if (code[i] != '$') {
      out.push_back(code[i++]);
      continue;
    }
    const std::size_t j = name_end(code, i);
    const std::string name = code.substr(i + 1, j - i - 1);
    if (name == "fun") {
      out += fun;
    } else if (auto it = vars.find(name); it != vars.end()) {
      out += "(" + it->second + ")";
    } else {
      out += code.substr(i, j - i);
    }
    i = j;
  }
  return out;
}

std::string substitute_keep(const std::string& code, const std::string& name,
                            const std::string& replacement) {
  std::string out;
  for (std::size_t i = 0; i < code.size();) {
    const std::size_t j = code[i] == '$' ? name_end(code, i) : i + 1;
    out += code[i] == '$' && code.substr(i + 1, j - i - 1) == name ? replacement
                                                                   : code.substr(i, j - i);
    i = j;
  }
  return out;
}

}  // namespace sculpt::spacegen
