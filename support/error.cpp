#include "support/error.h"

#include <string>
#include <utility>

namespace sculpt {

namespace {

std::string located(const std::string& message, const std::optional<Error::Location>& location) {
  if (!location) return message;
  std::string where = location->file + ":" + std::to_string(location->line) + ":";
  if (location->column > 0) where += std::to_string(location->column) + ":";
  return where + " " + message;
}

}  // namespace

Error::Error(Kind kind, const std::string& message, std::optional<Location> location)
    : std::runtime_error(located(message, location)),
      kind_(kind),
      message_(message),
      location_(std::move(location)) {}

int Error::exit_code() const {
  switch (kind_) {
    case Kind::nothing_valid:
      return 1;
    case Kind::interrupted:
      return 128;
    case Kind::usage:
    case Kind::input:
    case Kind::environment:
      break;
  }
  return 2;
}

}  // namespace sculpt
