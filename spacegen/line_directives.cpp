#include "spacegen/line_directives.h"

#include <filesystem>
#include <sstream>
#include <vector>

#include "support/check.h"

namespace sculpt::spacegen {

namespace {

// A mark: kBegin FILE kMiddle LINE kEnd, characters no host code or generated code holds.
constexpr char kBegin = '\x01';
constexpr char kMiddle = '\x02';
constexpr char kEnd = '\x03';

std::string quoted(const std::string& path) {
  std::string out = "\"";
  for (char c : path) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string directive(std::size_t line, const std::string& file) {
  return "#line " + std::to_string(line) + " " + quoted(file);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace

std::string located(const spacedsl::SourceLocation& loc, const std::string& code) {
  // Absolute, so that the message names the file wherever the compiler runs.
  const std::string file = std::filesystem::absolute(loc.file).lexically_normal().string();
  return kBegin + file + kMiddle + std::to_string(loc.line) + kEnd + code;
}

std::string without_marks(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == kBegin) {
      i = text.find(kEnd, i);
      SCULPT_CHECK(i != std::string::npos) << "a location mark without its end";
      continue;
    }
    out += text[i];
  }
  return out;
}

std::string place_line_directives(const std::string& text, const std::string& own) {
  if (text.find(kBegin) == std::string::npos) return text;
  std::vector<std::string> out;
  for (const std::string& line : lines_of(text)) {
    const std::size_t begin = line.find(kBegin);
    if (begin == std::string::npos) {
      out.push_back(line);
      continue;
    }
    const std::size_t middle = line.find(kMiddle, begin), end = line.find(kEnd, middle);
    out.push_back("#line " + line.substr(middle + 1, end - middle - 1) + " " +
                  quoted(line.substr(begin + 1, middle - begin - 1)));
    out.push_back(without_marks(line));
    out.push_back(directive(out.size() + 2, own));
  }
  return joined(out);
}

std::string renumber_line_directives(const std::string& text, const std::string& own,
                                     const std::string& path) {
  const std::string back = " " + quoted(own);
  if (text.find(back) == std::string::npos) return text;
  std::vector<std::string> lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.rfind("#line ", 0) == 0 && line.size() > back.size() &&
        line.compare(line.size() - back.size(), back.size(), back) == 0) {
      lines[i] = directive(i + 2, path);
    }
  }
  return joined(lines);
}

}  // namespace sculpt::spacegen
