// `tessel info`: what a program is made of, as text for people and JSON for scripts.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ir/program.h"

namespace tessel {

/// `params`: values to evaluate regions and sizes at (defaults or --param); nullopt prints the
/// symbolic regions only.
nlohmann::json infoJson(const Program& prog, const std::optional<ParamValues>& params);
std::string infoText(const nlohmann::json& info);

/// `tessel info --dag`: the stencil DAG (analysis/dag.h) as JSON: nodes (id, call, statement,
/// name) and edges (from, to, kind, via, offsets, carried).
nlohmann::json dagJson(const Program& prog);

}  // namespace tessel
