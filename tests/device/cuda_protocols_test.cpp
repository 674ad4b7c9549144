// The CUDA workers' protocols (device/cuda_protocols.h): every kind of every protocol travels
// and comes back as itself, through encode/decode and through a channel, with its value and data;
// a number no kind of the protocol has decodes to nothing, and receiving one is a bug.
#include "device/cuda_protocols.h"

#include <gtest/gtest.h>

#include <string>

namespace sculpt::device {
namespace {

template <FrameKind Kind>
void expect_round_trips() {
  auto [ours, theirs] = Channel::pair();
  for (std::int32_t raw = 0; raw <= encode(Kind::last); ++raw) {
    const std::optional<Kind> kind = decode<Kind>(raw);
    ASSERT_TRUE(kind) << raw;
    EXPECT_EQ(encode(*kind), raw);
    const Frame<Kind> sent{.kind = *kind, .value = -raw, .data = std::string(raw, 'x') + '\0'};
    ASSERT_TRUE(ours.send(sent));
    Frame<Kind> received;
    ASSERT_EQ(theirs.receive(received, std::chrono::seconds(5)), Channel::Received::frame);
    EXPECT_EQ(received.kind, sent.kind);
    EXPECT_EQ(received.value, sent.value);
    EXPECT_EQ(received.data, sent.data);
  }
  EXPECT_FALSE(decode<Kind>(-1));
  EXPECT_FALSE(decode<Kind>(encode(Kind::last) + 1));
}

TEST(CudaProtocols, EveryKindRoundTrips) {
  expect_round_trips<WorkerStart>();
  expect_round_trips<CompileMessage>();
  expect_round_trips<RunMessage>();
  expect_round_trips<CharacterizeMessage>();
}

TEST(CudaProtocolsDeathTest, AKindTheProtocolDoesNotHaveIsABug) {
  auto [ours, theirs] = Channel::pair();
  ASSERT_TRUE(ours.send(Frame<RunMessage>{.kind = RunMessage::fault, .value = 0, .data = {}}));
  EXPECT_DEATH(
      {
        Frame<CompileMessage> frame;
        theirs.receive(frame);
      },
      "a frame of kind 13 its protocol does not have");
}

}  // namespace
}  // namespace sculpt::device
