// graphLoop (lower_gpu_internal.h): a host loop whose iterations the runtime may capture once
// and replay (issue 11: "the iterate loop captured once as a CUDA Graph").
//
// The generated code reads:
//
//   int64_t graph_replays = 0;
//   tessel_graph_begin(rt, site, graph_replays, iterations, period);
//   int64_t t_first = lo;
//   if (graph_replays > 0) {
//     for (t = lo; t <= lo + period - 1; ++t) { body }   // captured, not run
//     tessel_graph_end(rt, site, graph_replays);         // run graph_replays times
//     t_first = lo + graph_replays * period;
//   }
//   for (t = t_first; t <= hi; ++t) { body }             // the iterations left, one by one
//
// The body's launches do not depend on the loop's index; what changes from one iteration to
// the next is host state that a capture bakes in: the buffers a swap exchanges (every swap
// exchanges an array with its own second buffer, so after two iterations every buffer is back
// in place) and, in a loop of fused kernels, the phase of the variant that runs. `period` is a
// multiple of both, so that the captured iterations, replayed, do what the iterations they stand
// for would have done. The runtime decides (gpu_host_runtime_*.cpp): CUDA captures a CUDA Graph,
// OpenCL records the commands and enqueues them again, the CPU runtime runs every iteration
// directly; all of them run directly when $TESSEL_GRAPHS is 0, when the loop would be replayed
// fewer than twice, and inside a capture (an inner loop is part of the outer one's graph).
#include <fmt/format.h>

#include "lower/lower_gpu_internal.h"

namespace tessel::gpu {

using namespace lir;

std::vector<StmtPtr> graphLoop(GlobalNames& g, const std::string& loopVar, const ExprPtr& lo,
                               const ExprPtr& hi, int64_t period,
                               const std::vector<StmtPtr>& body) {
  if (period < 1) internal("a graph loop of period < 1");
  const int site = g.graphSites++;
  ExprPtr rt = var(kRuntimeVar, ScalarType::Int);
  std::string replays = g.namer.take("graph_replays"), first = g.namer.take("t_first");
  ExprPtr iterations = indexMax(intLit(0), indexAddConst(indexSub(hi, lo), 1));
  std::vector<StmtPtr> captured = {
      comment(fmt::format("Captured, not run: {} iteration{} (then the buffers and the loop's "
                          "phase repeat), then replayed.",
                          period, period == 1 ? "" : "s")),
      forLoop(loopVar, lo, indexAddConst(lo, period - 1), LoopKind::Serial, body),
      callFn("tessel_graph_end", {rt, intLit(site), var(replays, ScalarType::Int)}),
      assign(first, indexAdd(lo, indexMul(var(replays, ScalarType::Int), intLit(period))))};
  return {
      comment("As a graph where the runtime takes one (CUDA: a CUDA Graph; OpenCL: the commands "
              "recorded\nonce, enqueued again): the loop's first iterations captured once and "
              "replayed, the rest\none by one."),
      localDecl(CType::Int64, replays, intLit(0), false),
      callFn("tessel_graph_begin",
             {rt, intLit(site), var(replays, ScalarType::Int), iterations, intLit(period)}),
      localDecl(CType::Int64, first, lo, false),
      ifThen(binary(Op::Gt, var(replays, ScalarType::Int), intLit(0)), captured),
      comment("The iterations left (all of them without a graph), one by one."),
      forLoop(loopVar, var(first, ScalarType::Int), hi, LoopKind::Serial, body)};
}

}  // namespace tessel::gpu
