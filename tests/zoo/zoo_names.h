#pragma once
// The zoo's kernel names, to instantiate a parameterised test once per kernel.
#include <string>
#include <vector>

#include "zoo/zoo.h"

namespace sculpt::zoo {

inline std::vector<std::string> zoo_names() {
  std::vector<std::string> names;
  for (const backbone::KernelInfo& info : kernel_zoo()) names.push_back(info.name);
  return names;
}

}  // namespace sculpt::zoo
