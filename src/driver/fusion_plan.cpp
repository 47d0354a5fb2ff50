// `tessel info --fusion-plan` (fusion_plan.h).
#include "driver/fusion_plan.h"

#include <fmt/format.h>

namespace tessel {

namespace {

nlohmann::json mapJson(const ResourceMap& m) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& [plane, st] : m)
    j.push_back({{"value", plane.value}, {"offset", plane.offset}, {"storage", storageName(st)}});
  return j;
}

nlohmann::json operatorJson(const FusionOperator& op) {
  return {{"statements", op.stmts}, {"shift", op.shift},           {"map", mapJson(op.map)},
          {"order", op.order},      {"registers", op.registers()}, {"shared", op.sharedBuffers()}};
}

}  // namespace

FusionPlanReport fusionPlanReport(const Program& prog, const GreedyFusionOptions& opt) {
  FusionPlanReport r;
  r.json = nlohmann::json::array();
  const StencilDag dag = buildDag(prog);
  r.text = fmt::format(
      "fusion plan (STENCILGEN's greedy resource-driven fusion, paper 004 VI; streaming along "
      "'{}', shared memory {} B per block):\n",
      prog.iterators.front().name, opt.sharedLimit);
  for (size_t c = 0; c < prog.calls.size(); ++c) {
    GreedyFusionPlan plan = greedyFusion(prog, dag, static_cast<int>(c), opt);
    nlohmann::json j = {{"call", c},
                        {"stencil", prog.calls[c].name},
                        {"rules", plan.rules},
                        {"max_order", plan.maxOrder},
                        {"operators", nlohmann::json::array()},
                        {"steps", nlohmann::json::array()},
                        {"kernels", nlohmann::json::array()},
                        {"not_fused", plan.stops}};
    for (const FusionOperator& op : plan.initial) j["operators"].push_back(operatorJson(op));
    for (const FusionStep& st : plan.steps) {
      const FusionMetrics& m = st.metrics;
      j["steps"].push_back({{"fused", operatorJson(st.fused)},
                            {"D_m", m.dm},
                            {"S_reg", m.sReg},
                            {"S_shm", m.sShm},
                            {"T_reg", m.tReg},
                            {"T_shm", m.tShm},
                            {"order", m.order},
                            {"shared_bytes", m.sharedBytes}});
    }
    for (const FusionOperator& op : plan.result) j["kernels"].push_back(op.stmts);
    r.json.push_back(j);
    if (plan.initial.size() > 1)
      r.text += greedyFusionText(prog, plan);
    else
      r.text +=
          fmt::format("call #{} ({}): one operator, nothing to fuse\n", c, prog.calls[c].name);
  }
  return r;
}

}  // namespace tessel
