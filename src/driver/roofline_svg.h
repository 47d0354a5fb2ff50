// `tessel analyze --plot FILE.svg`: the analysis (driver/analyze.h) as a roofline chart, every
// kernel a point per memory level at its operational intensity there (x, FLOP per byte) and its
// predicted FLOP rate (y), against the machine's ceilings: the compute peak and one slanted line
// per level with a known bandwidth. Log-log axes. A drawing of the prediction, not a measurement.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tessel {

/// The SVG document for `analysis` (analyzeProgram's JSON). The legend numbers every kernel in
/// the analysis's order; a kernel without a point (0 FLOPs: no operational intensity on a log
/// axis) keeps its number, marked not plotted, and a line below the plot says why. The picture
/// grows to hold the legend.
std::string rooflineSvg(const nlohmann::json& analysis);

/// The kernels the chart leaves out, one line per reason ("kernels 1 (NAME), 3 (NAME) not
/// plotted: 0 FLOPs per point-update: ..."), for a note on stderr; empty where every kernel has
/// a point.
std::vector<std::string> rooflineLeftOut(const nlohmann::json& analysis);

}  // namespace tessel
