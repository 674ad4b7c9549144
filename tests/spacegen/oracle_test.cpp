// Every registered generated space against the reference evaluator (oracle_harness.h).
// SCULPT_ORACLE_BACKBONES sets the number of random backbones per space,
// SCULPT_ORACLE_MAX_ASSIGNMENTS the largest enumeration.
#include <gtest/gtest.h>

#include "tests/spacegen/oracle_harness.h"

#ifndef SCULPT_ORACLE_BACKBONES
#define SCULPT_ORACLE_BACKBONES 12
#endif
#ifndef SCULPT_ORACLE_MAX_ASSIGNMENTS
#define SCULPT_ORACLE_MAX_ASSIGNMENTS 20000
#endif
// The slow variant builds this file again under another suite name.
#ifndef SCULPT_ORACLE_SUITE
#define SCULPT_ORACLE_SUITE SpacegenOracle
#endif

namespace sculpt::spacegen::test {
namespace {

TEST(SCULPT_ORACLE_SUITE, GeneratedPropagationAgreesWithTheOracle) {
  ASSERT_FALSE(registered_spaces().empty());
  OracleCheckOptions options;
  options.backbones = SCULPT_ORACLE_BACKBONES;
  options.max_assignments = SCULPT_ORACLE_MAX_ASSIGNMENTS;
  for (const SpaceUnderTest& space : registered_spaces()) check_against_oracle(space, options);
}

}  // namespace
}  // namespace sculpt::spacegen::test
