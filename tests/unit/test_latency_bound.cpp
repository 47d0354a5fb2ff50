// The latency bound of the performance model (perf/predict.h): Little's law over the resident
// threads that have work. A launch of fewer points than its resident threads would take (a
// domain of one point) counts only the threads with work, so a point-update takes at least a
// DRAM round trip; a large launch is bounded by the resident blocks, as before.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "driver/analyze.h"
#include "driver/params.h"
#include "sten_test_util.h"

using namespace tessel;

namespace {

const char* kCopy =
    "parameter N=1;\n"
    "iterator i;\n"
    "double a[N], b[N];\n"
    "copyin a;\n"
    "copyout b;\n"
    "stencil copy (out, in) {\n"
    "  out[i] = in[i];\n"
    "}\n"
    "copy(b, a);\n";

/// The latency bound of the copy's one kernel on the H200 (DRAM latency 1.5 us) at N = `n`.
nlohmann::json latency(int64_t n, std::map<std::string, std::string> flags) {
  auto c = test::compileText(kCopy);
  EXPECT_TRUE(c.prog) << c.diagText();
  if (!c.prog) return {};
  DiagnosticEngine diags;
  auto params = bindParams(*c.prog, {{"N", n}}, diags);
  EXPECT_TRUE(params);
  if (!params) return {};
  flags["--machine"] = "h200";
  std::string why;
  auto p = predictUnder(*c.prog, flags, *params, false, diags, nullptr, &why);
  EXPECT_TRUE(p) << why;
  if (!p) return {};
  EXPECT_EQ((*p)["kernels"].size(), 1u) << p->dump(1);
  return (*p)["kernels"][0]["latency"];
}

}  // namespace

TEST(LatencyBound, ADomainOfOnePointTakesARoundTripPerUpdate) {
  // One point: one thread has work, not the block's 256 (which predicted 7.7 ns per update on
  // the H200, below one DRAM round trip), under every family.
  for (const char* family : {"global", "shared", "stream", "overlapped"}) {
    const nlohmann::json l = latency(1, {{"--schedule", family}});
    EXPECT_EQ(l["resident_threads"], 1) << family << l.dump(1);
    EXPECT_DOUBLE_EQ(l["updates_per_thread"].get<double>(), 1) << family;
    // A whole round per update: the DRAM round trip, and the barriers the family passes.
    EXPECT_DOUBLE_EQ(l["seconds"].get<double>(), l["round_seconds"].get<double>()) << family;
    EXPECT_GE(l["seconds"].get<double>(), 1.5e-6) << family;
    EXPECT_NE(l["source"].get<std::string>().find(
                  "1 resident threads with work (the launch's 1 point-update(s)) x 1 update(s)"),
              std::string::npos)
        << family << l.dump(1);
  }
}

TEST(LatencyBound, AThreadWithWorkDoesItsUpdatesAtMost) {
  // Three points, two per thread: two threads have work, 1.5 updates each on average.
  const nlohmann::json l = latency(3, {{"--schedule", "global"}, {"--unroll", "i=2"}});
  EXPECT_EQ(l["resident_threads"], 2) << l.dump(1);
  EXPECT_DOUBLE_EQ(l["updates_per_thread"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(l["seconds"].get<double>(), 1.5e-6 / 3);
}

TEST(LatencyBound, ALargeLaunchIsBoundedByTheResidentBlocks) {
  // 2^20 points: more than the GPU holds at once (132 SMs x 8 blocks of 256 threads), which
  // bound the resident threads as before; the source says nothing about threads with work.
  const nlohmann::json l = latency(1 << 20, {{"--schedule", "global"}});
  EXPECT_EQ(l["resident_threads"], 132 * 8 * 256) << l.dump(1);
  EXPECT_DOUBLE_EQ(l["updates_per_thread"].get<double>(), 1);
  EXPECT_EQ(l["source"].get<std::string>().find("with work"), std::string::npos) << l.dump(1);
}
