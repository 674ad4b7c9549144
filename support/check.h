#pragma once
// Internal invariants. A failed SCULPT_CHECK is a bug in sculpt, never a user mistake:
// user mistakes get located diagnostics from the stage that reads the input.
//
//   SCULPT_CHECK(dom.any()) << "choice " << name << " has an empty domain";
#include <sstream>

namespace sculpt::support {

/// Streams a message and aborts when destroyed; only ever built for a failed check.
class CheckFailure {
 public:
  CheckFailure(const char* condition, const char* file, int line);
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  [[noreturn]] ~CheckFailure();

  template <typename T>
  CheckFailure& operator<<(const T& value) {
    message_ << value;
    return *this;
  }

 private:
  std::ostringstream message_;
};

/// Lets `cond ? (void)0 : Voidify() & CheckFailure(...) << x` parse as one expression.
struct Voidify {
  void operator&(const CheckFailure&) {}
};

}  // namespace sculpt::support

#define SCULPT_CHECK(condition)                \
  (condition) ? (void)0                        \
              : ::sculpt::support::Voidify() & \
                    ::sculpt::support::CheckFailure(#condition, __FILE__, __LINE__)
