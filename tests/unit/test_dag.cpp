// The stencil DAG (analysis/dag.h; issue 13): statements as nodes, flow, anti and output
// dependences with their offsets, the ones carried by a loop apart, and the convexity check.
#include <gtest/gtest.h>

#include "analysis/counts.h"
#include "analysis/dag.h"
#include "unit/sten_test_util.h"

namespace tessel {
namespace {

using test::Compiled;

/// The forward edges of `dag` from `from` to `to`, as "kind via offsets" strings.
std::vector<std::string> edgesBetween(const StencilDag& dag, int from, int to,
                                      bool carried = false) {
  std::vector<std::string> out;
  for (const DagEdge& e : dag.edges) {
    if (e.from != from || e.to != to || e.carried != carried) continue;
    std::string s = std::string(kindName(e.kind)) + " " + e.via;
    for (const auto& o : e.offsets) {
      s += " (";
      for (size_t d = 0; d < o.size(); ++d) s += (d ? "," : "") + std::to_string(o[d]);
      s += ")";
    }
    out.push_back(s);
  }
  return out;
}

using Edges = std::vector<std::string>;

}  // namespace

// COSMO's horizontal diffusion (paper 002 Figure 2): lap feeds fli and flj, which feed out; the
// offsets are the consumers' reads (k, j, i).
TEST(StencilDag, CosmoHorizontalDiffusion) {
  Compiled c = test::compileBenchmark("cosmo-hdiff");
  ASSERT_TRUE(c.prog) << c.diagText();
  const Program& p = *c.prog;
  StencilDag dag = buildDag(p);
  ASSERT_EQ(dag.nodes.size(), 4u);
  EXPECT_EQ(nodeName(dag, p, 0), "#0 hdiff s0 (lap)");
  EXPECT_EQ(nodeName(dag, p, 3), "#0 hdiff s3 (out)");
  EXPECT_EQ(edgesBetween(dag, 0, 1), (Edges{"flow lap (0,0,0) (0,0,1)"}));
  EXPECT_EQ(edgesBetween(dag, 0, 2), (Edges{"flow lap (0,0,0) (0,1,0)"}));
  EXPECT_EQ(edgesBetween(dag, 1, 3), (Edges{"flow fli (0,0,-1) (0,0,0)"}));
  EXPECT_EQ(edgesBetween(dag, 2, 3), (Edges{"flow flj (0,-1,0) (0,0,0)"}));
  EXPECT_TRUE(edgesBetween(dag, 0, 3).empty());
  EXPECT_TRUE(edgesBetween(dag, 1, 2).empty());
  EXPECT_EQ(dag.edges.size(), 4u);

  // Convex groups: all four; fli with flj (no path between them); lap alone. Not convex: lap
  // with out (every path from one to the other leaves through fli or flj), lap, fli and out
  // (the path through flj).
  EXPECT_TRUE(convex(dag, p, {0, 1, 2, 3}));
  EXPECT_TRUE(convex(dag, p, {1, 2}));
  EXPECT_TRUE(convex(dag, p, {0}));
  std::string why;
  EXPECT_FALSE(convex(dag, p, {0, 3}, &why));
  EXPECT_TRUE(why == "#0 hdiff s0 (lap) -> #0 hdiff s1 (fli) -> #0 hdiff s3 (out)" ||
              why == "#0 hdiff s0 (lap) -> #0 hdiff s2 (flj) -> #0 hdiff s3 (out)")
      << why;
  EXPECT_FALSE(convex(dag, p, {0, 1, 3}, &why));
  EXPECT_EQ(why, "#0 hdiff s0 (lap) -> #0 hdiff s2 (flj) -> #0 hdiff s3 (out)");
}

// j3d7pt's ping-pong: the first call reads `in` and writes `out`, the second the other way.
// Forward: flow on out (the second call's seven reads), anti on in (the first call's reads,
// overwritten by the second). Carried by the loop, from the second call to the first of the next
// iteration: flow on in, anti on out.
TEST(StencilDag, PingPongForwardAndCarried) {
  Compiled c = test::compileBenchmark("j3d7pt");
  ASSERT_TRUE(c.prog) << c.diagText();
  StencilDag dag = buildDag(*c.prog);
  ASSERT_EQ(dag.nodes.size(), 2u);
  const std::string seven = "(-1,0,0) (0,-1,0) (0,0,-1) (0,0,0) (0,0,1) (0,1,0) (1,0,0)";
  EXPECT_EQ(edgesBetween(dag, 0, 1), (Edges{"flow out " + seven, "anti in " + seven}));
  EXPECT_EQ(edgesBetween(dag, 1, 0, true), (Edges{"flow in " + seven, "anti out " + seven}));
  EXPECT_TRUE(edgesBetween(dag, 1, 0, false).empty());  // the DAG runs forward only
  EXPECT_TRUE(convex(dag, *c.prog, {0, 1}));
  const std::string text = dagText(dag, *c.prog);
  EXPECT_NE(text.find("n1 -> n0  flow   in  " + seven + "  (carried by the loop)"),
            std::string::npos)
      << text;
  const std::string dot = dagDot(dag, *c.prog);
  EXPECT_NE(dot.find("digraph stencil_dag {"), std::string::npos) << dot;
  EXPECT_NE(dot.find("subgraph cluster_call1 {"), std::string::npos) << dot;
  EXPECT_NE(dot.find("n0 -> n1 [label=\"flow out "), std::string::npos) << dot;
  EXPECT_NE(dot.find("color=grey"), std::string::npos) << dot;
}

// A call's local array in the next iteration of a loop is another value: heat's `lap`, written
// and read by each call's two statements, gives forward edges inside the call and none carried
// by the loop (the carried ones go through the global arrays only).
TEST(StencilDag, LocalsCarryNothingAcrossIterations) {
  Compiled c = test::compileBenchmark("heat");
  ASSERT_TRUE(c.prog) << c.diagText();
  StencilDag dag = buildDag(*c.prog);
  bool forwardLap = false, carriedGlobal = false;
  for (const DagEdge& e : dag.edges) {
    if (e.carried) {
      EXPECT_EQ(e.via.find("lap"), std::string::npos) << e.via;
      carriedGlobal = true;
    } else if (e.via == "lap") {
      forwardLap = true;
    }
  }
  EXPECT_TRUE(forwardLap);
  EXPECT_TRUE(carriedGlobal);
}

// Locals belong to their call: denoise's rician writes its local scalar r twice (output and
// flow dependences at the point itself) and reads g, which diffusivity writes (flow across the
// calls, at rician's six neighbour offsets).
TEST(StencilDag, LocalScalarsAndAcrossCalls) {
  Compiled c = test::compileBenchmark("denoise");
  ASSERT_TRUE(c.prog) << c.diagText();
  const Program& p = *c.prog;
  StencilDag dag = buildDag(p);
  ASSERT_EQ(dag.nodes.size(), 4u);  // diffusivity s0; rician s0, s1, s2
  EXPECT_EQ(edgesBetween(dag, 1, 2),
            (Edges{"flow r (local scalar) (0,0,0)", "output r (local scalar) (0,0,0)"}));
  EXPECT_EQ(edgesBetween(dag, 2, 3), (Edges{"flow r (local scalar) (0,0,0)"}));
  EXPECT_EQ(edgesBetween(dag, 0, 3),
            (Edges{"flow g (-1,0,0) (0,-1,0) (0,0,-1) (0,0,1) (0,1,0) (1,0,0)"}));
  EXPECT_TRUE(edgesBetween(dag, 0, 1).empty());  // rician's first statement reads u and f only
  EXPECT_TRUE(convex(dag, p, {0, 3}));           // nothing in between on a path
  EXPECT_FALSE(convex(dag, p, {1, 3}));          // r's path through s1
}

}  // namespace tessel

namespace tessel {
namespace {

// The dependences between calls `tessel info` lists (analysis/counts.h): the nearest ones, from
// which the others follow. Four calls of a ping-pong: each reads what the one before wrote
// (RAW), overwrites what that one read (WAR) and what the one before it wrote (WAW); call 3
// reads b, which calls 0 and 2 wrote: only 2 -> 3 is listed (0 -> 3 follows through 2).
TEST(CallDependences, TheNearestOnesWhichImplyTheOthers) {
  Compiled c = test::compileText(R"(
parameter N=16;
iterator i;
double a[N], b[N];
copyin a, b;
stencil s (out, in) { out[i] = in[i-1] + in[i+1]; }
s (b, a);
s (a, b);
s (b, a);
s (a, b);
copyout a;
)");
  ASSERT_TRUE(c.prog) << c.diagText();
  std::vector<std::string> deps;
  for (const Dependence& d : callDependences(*c.prog))
    deps.push_back(std::to_string(d.from) + "->" + std::to_string(d.to) + " " + d.kind + " " +
                   d.via);
  EXPECT_EQ(deps,
            (std::vector<std::string>{"0->1 RAW b", "0->1 WAR a", "0->2 WAW b", "1->2 RAW a",
                                      "1->2 WAR b", "1->3 WAW a", "2->3 RAW b", "2->3 WAR a"}));
}

}  // namespace
}  // namespace tessel
