// distributed: every message of the wire format decodes to what was encoded, and bytes that are
// cut short, too long or of an unknown kind are refused.
#include "distributed/wire.h"

#include <gtest/gtest.h>

namespace sculpt::distributed {
namespace {

TEST(Wire, AHelloRoundTrips) {
  const Hello sent{"node7", "cuda", "sm_90", "NVIDIA H100 80GB HBM3 (sm_90)", ""};
  const Hello got = decode_hello(encode(sent));
  EXPECT_EQ(got.host, sent.host);
  EXPECT_EQ(got.name, sent.name);
  EXPECT_EQ(got.architecture, sent.architecture);
  EXPECT_EQ(got.model, sent.model);
  EXPECT_EQ(got.error, "");
  EXPECT_EQ(decode_hello(encode(Hello{"node7", "", "", "", "no GPU 3"})).error, "no GPU 3");
}

TEST(Wire, AProblemRoundTripsOfTheZooOrOfADefinition) {
  const ProblemMessage zoo =
      decode_problem(encode(ProblemMessage{"matmul", "256x256x256", 0xfedcba9876543210, "", ""}));
  EXPECT_EQ(zoo.kernel, "matmul");
  EXPECT_EQ(zoo.sizes, "256x256x256");
  EXPECT_EQ(zoo.seed, 0xfedcba9876543210u);
  EXPECT_EQ(zoo.definition, "");
  const std::string text = "def scale(float(N) X, float s) -> (Y) { Y(i) = s * X(i) + 1 }";
  const ProblemMessage defined =
      decode_problem(encode(ProblemMessage{"scale", "N=64", 3, text, "--expr"}));
  EXPECT_EQ(defined.kernel, "scale");
  EXPECT_EQ(defined.sizes, "N=64");
  EXPECT_EQ(defined.definition, text);
  EXPECT_EQ(defined.definition_file, "--expr");
}

TEST(Wire, ASubmissionRoundTripsWithItsCodeLaunchAndCutoff) {
  SubmissionMessage sent;
  sent.job = 41;
  sent.submission.code.language = device::Language::ptx;
  sent.submission.code.source = std::string(".version 8.0\n\0 a NUL inside\n", 28);
  sent.submission.code.entry = "candidate";
  sent.submission.code.launch = {{128, 2, 1}, {256, 1, 1}, 4096};
  sent.submission.bound_ns = 1234.5;
  sent.submission.hash = 0x8000000000000001;
  sent.cutoff = CutoffState{4, 987.25};
  const SubmissionMessage got = decode_submission(encode(sent));
  EXPECT_EQ(got.job, 41u);
  EXPECT_EQ(got.submission.code.language, device::Language::ptx);
  EXPECT_EQ(got.submission.code.source, sent.submission.code.source);
  EXPECT_EQ(got.submission.code.entry, "candidate");
  EXPECT_EQ(got.submission.code.launch.grid, sent.submission.code.launch.grid);
  EXPECT_EQ(got.submission.code.launch.block, sent.submission.code.launch.block);
  EXPECT_EQ(got.submission.code.launch.shared_bytes, 4096u);
  EXPECT_EQ(got.submission.bound_ns, 1234.5);
  EXPECT_EQ(got.submission.hash, 0x8000000000000001u);
  ASSERT_TRUE(got.cutoff);
  EXPECT_EQ(got.cutoff->factor, 4);
  EXPECT_EQ(got.cutoff->best_ns, 987.25);

  // A stand-in's: no code, and a cutoff without a best time yet; then none at all.
  SubmissionMessage bare;
  bare.cutoff = CutoffState{1.5, std::nullopt};
  const SubmissionMessage got_bare = decode_submission(encode(bare));
  EXPECT_EQ(got_bare.submission.code.source, "");
  ASSERT_TRUE(got_bare.cutoff);
  EXPECT_EQ(got_bare.cutoff->factor, 1.5);
  EXPECT_FALSE(got_bare.cutoff->best_ns);
  EXPECT_FALSE(decode_submission(encode(SubmissionMessage{})).cutoff);
}

TEST(Wire, EvaluationsRoundTripWhateverTheirOutcome) {
  EvaluationMessage sent;
  sent.job = 7;
  sent.evaluation.check = device::Check::timeout;
  sent.evaluation.time_ns = 5e6;
  sent.evaluation.spread_ns = 12.5;
  sent.evaluation.runs = 3;
  sent.evaluation.cut_short = true;
  sent.evaluation.estimate_ns = 9e7;
  sent.evaluation.message = "killed past 10 cutoffs";
  sent.times = {1.25, 30.5};
  const EvaluationMessage got = decode_evaluation(encode(sent));
  EXPECT_EQ(got.job, 7u);
  EXPECT_EQ(got.outcome, EvaluationMessage::Outcome::evaluated);
  EXPECT_EQ(got.evaluation.check, device::Check::timeout);
  EXPECT_EQ(got.evaluation.time_ns, 5e6);
  EXPECT_EQ(got.evaluation.spread_ns, 12.5);
  EXPECT_EQ(got.evaluation.runs, 3);
  EXPECT_TRUE(got.evaluation.cut_short);
  EXPECT_EQ(got.evaluation.estimate_ns, 9e7);
  EXPECT_EQ(got.evaluation.message, "killed past 10 cutoffs");
  EXPECT_FALSE(got.evaluation.rank);  // the receiver knows it
  EXPECT_EQ(got.times.compiling_s, 1.25);
  EXPECT_EQ(got.times.measuring_s, 30.5);

  EvaluationMessage failed;
  failed.outcome = EvaluationMessage::Outcome::failed;
  failed.error = "no GPU: cuInit returned CUDA_ERROR_NO_DEVICE";
  const EvaluationMessage got_failed = decode_evaluation(encode(failed));
  EXPECT_EQ(got_failed.outcome, EvaluationMessage::Outcome::failed);
  EXPECT_EQ(got_failed.error, failed.error);
  EXPECT_FALSE(got_failed.evaluation.time_ns);
  EXPECT_EQ(decode_evaluation(
                encode(EvaluationMessage{3, EvaluationMessage::Outcome::abandoned, {}, "", {}}))
                .outcome,
            EvaluationMessage::Outcome::abandoned);
}

TEST(Wire, BytesCutShortTooLongOrOfAnUnknownKindAreRefused) {
  const std::string problem = encode(ProblemMessage{"axpy", "64", 1, "", ""});
  EXPECT_THROW(decode_problem(problem.substr(0, problem.size() - 1)), WireError);
  EXPECT_THROW(decode_problem(problem + "x"), WireError);
  EXPECT_THROW(decode_hello(""), WireError);

  EvaluationMessage e;
  e.evaluation.check = device::Check::compile_error;
  std::string bytes = encode(e);
  bytes[8] = 9;  // the outcome, after the job's 8 bytes
  EXPECT_THROW(decode_evaluation(bytes), WireError);
  bytes = encode(e);
  bytes[9] = 5;  // the check: one past compile_error
  EXPECT_THROW(decode_evaluation(bytes), WireError);
}

}  // namespace
}  // namespace sculpt::distributed
