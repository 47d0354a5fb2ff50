// `tessel info --fusion-plan`: STENCILGEN's greedy resource-driven fusion
// (analysis/greedy_fusion.h) run on every call of a program, as text and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "analysis/greedy_fusion.h"
#include "ir/program.h"

namespace tessel {

struct FusionPlanReport {
  nlohmann::json json;  // one entry per call
  std::string text;
};

/// Throws std::invalid_argument on a bad rule order (the message says which).
FusionPlanReport fusionPlanReport(const Program& prog, const GreedyFusionOptions& opt);

}  // namespace tessel
