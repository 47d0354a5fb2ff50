// `tessel analyze --plot FILE.svg`: the analysis (driver/analyze.h) as a roofline chart, every
// kernel a point per memory level at its operational intensity there (x, FLOP per byte) and its
// predicted FLOP rate (y), against the machine's ceilings: the compute peak and one slanted line
// per level with a known bandwidth. Log-log axes. A drawing of the prediction, not a measurement.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tessel {

/// The SVG document for `analysis` (analyzeProgram's JSON).
std::string rooflineSvg(const nlohmann::json& analysis);

}  // namespace tessel
