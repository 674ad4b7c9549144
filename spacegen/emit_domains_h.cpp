// domains.h: set and choice ids, and the values and aliases of each enum choice as bitsets.
#include "spacegen/emission.h"
#include "spacegen/emitters.h"

namespace sculpt::spacegen {

namespace {

class DomainsHeader : public Emission {
 public:
  explicit DomainsHeader(const Emission& e) : Emission(e) {}

  std::string domains_h() const {
    CodeWriter w;
    w.line(header_line());
    w.line("// Domains: the values and aliases of each enum choice, as bitsets.");
    w.line("#pragma once");
    w.line("#include <cstdint>");
    w.line();
    w.line("#include \"spacegen/runtime/domain.h\"");
    w.line();
    w.line("namespace " + o_.ns + " {");
    w.line();
    w.line("namespace set_id {");
    for (SetId s = 0; s < m_.sets.size(); ++s) {
      w.line("inline constexpr std::uint32_t " + m_.sets[s].name + " = " + std::to_string(s) + ";");
    }
    w.line("}  // namespace set_id");
    w.line();
    w.line("namespace choice_id {");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      w.line("inline constexpr std::uint32_t " + cname(c) + " = " + std::to_string(c) + ";");
    }
    w.line("}  // namespace choice_id");
    w.line();
    w.line("namespace values {");
    for (ChoiceId c = 0; c < m_.choices.size(); ++c) {
      const auto& choice = m_.choices[c];
      if (choice.kind != ChoiceKind::Enum) continue;
      if (!choice.doc.empty()) w.comment(choice.doc, "/// ");
      w.line("namespace " + choice.name + " {");
      for (std::size_t v = 0; v < choice.values.size(); ++v) {
        if (!choice.values[v].doc.empty()) w.comment(choice.values[v].doc, "/// ");
        w.line("inline constexpr sculpt::spacegen::ValueSet " + choice.values[v].name + " = " +
               hex(std::uint64_t{1} << v) + ";");
      }
      for (const auto& alias : choice.aliases) {
        if (!alias.doc.empty()) w.comment(alias.doc, "/// ");
        w.line("inline constexpr sculpt::spacegen::ValueSet " + alias.name + " = " +
               hex(alias.values) + ";");
      }
      w.line("inline constexpr sculpt::spacegen::ValueSet ALL = " + hex(full_mask(c)) + ";");
      w.line("}  // namespace " + choice.name);
    }
    w.line("}  // namespace values");
    w.line();
    w.line("}  // namespace " + o_.ns);
    return w.text();
  }
};

}  // namespace

std::string emit_domains_h(const Emission& e) { return DomainsHeader(e).domains_h(); }

}  // namespace sculpt::spacegen
