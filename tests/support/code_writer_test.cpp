// The emission mechanism: blocks written apart land at the indentation where they are spliced.
#include "support/code_writer.h"

#include <gtest/gtest.h>

namespace sculpt::support {
namespace {

TEST(SupportCodeWriter, SplicedLinesTakeTheIndentationWhereTheyLand) {
  CodeWriter inner;
  inner.line("int a = 0;");
  inner.open("if (a)");
  inner.line("a = 1;");
  inner.close();
  inner.line();
  inner.comment("done");
  CodeWriter outer;
  outer.open("void f()");
  outer.lines(inner);
  outer.close();
  EXPECT_EQ(outer.text(),
            "void f() {\n"
            "  int a = 0;\n"
            "  if (a) {\n"
            "    a = 1;\n"
            "  }\n"
            "\n"
            "  // done\n"
            "}\n");
}

}  // namespace
}  // namespace sculpt::support
