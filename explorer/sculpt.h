#pragma once
// sculpt's library call: the fastest implementation of a kernel for one problem size on this
// machine's GPU (or its CPU), found by a search and kept in a cache, so that a program asks for
// it every time it starts and pays for the search once. Installed as <sculpt/sculpt.h>; the
// header needs nothing but the standard library.
//
//   sculpt::SearchOptions options;
//   options.budget_s = 60;
//   const sculpt::Kernel k = sculpt::search("matmul", "1024x1024x1024", options);
//   // k.code (PTX for a GPU, C for the CPU), k.entry, k.launch, k.time_ns, k.log
//   sculpt::load(k)({a, b, c});  // runs it (executable.h)
#include <string>

#include "executable.h"
#include "sculpt_types.h"

namespace sculpt {

/// The fastest implementation of the zoo kernel `kernel` ("matmul"; `sculpt kernels` lists them)
/// for `sizes` ("1024x1024x1024"; empty: its defaults), or of a kernel of one's own given by
/// `options.definition` (then `sizes` names every size: "M=256,N=256,K=32"). From the cache when it
/// holds one for the same kernel, sizes, device, space and device description; else found by a
/// search, which is logged in a new run folder under the cache folder and then cached. Throws
/// sculpt::Error.
Kernel search(const std::string& kernel, const std::string& sizes,
              const SearchOptions& options = {});

/// Parses and checks the kernel definitions `text` (Tensor Comprehensions notation; `file` names
/// it in messages) and picks the one named `name` (empty: the only one), as a search of it
/// would. Throws sculpt::Error with every mistake located ("conv.tc:3:25: error: ...").
Definition define(const std::string& text, const std::string& name = "",
                  const std::string& file = "definition");

}  // namespace sculpt
