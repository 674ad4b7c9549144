#pragma once
// Character classes shared by the grammar and the scanner of `$name`s in host code.

namespace sculpt::spacedsl {

inline bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

inline bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

}  // namespace sculpt::spacedsl
