#pragma once
// Host code (`"$fun.size($d)"`): the C++ text of a `.space` file, with `$name` naming the
// backbone and the variables in scope.
#include <map>
#include <string>
#include <vector>

#include "spacedsl/model.h"

namespace sculpt::spacegen {

/// The variables of `vars` that host code names, in order of first mention.
std::vector<spacedsl::VarId> code_vars(const std::string& code,
                                       const std::vector<spacedsl::Variable>& vars);

/// Replaces `$name` by the expressions of `vars` (parenthesized) and `$fun` by `fun`.
std::string substitute(const std::string& code, const std::map<std::string, std::string>& vars,
                       const std::string& fun);

/// Renames `$name` to `replacement` (another `$variable`) in host code.
std::string substitute_keep(const std::string& code, const std::string& name,
                            const std::string& replacement);

}  // namespace sculpt::spacegen
