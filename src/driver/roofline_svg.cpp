// The roofline chart of an analysis (roofline_svg.h).
#include "driver/roofline_svg.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace tessel {

namespace {

constexpr double kWidth = 760, kHeight = 480;
constexpr double kLeft = 80, kRight = 230, kTop = 48, kBottom = 60;  // margins (legend right)

/// `s` with the characters XML reserves escaped.
std::string xml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

/// Log-log axes from [x0, x1] x [y0, y1] (decades) onto the plot area.
struct Axes {
  double x0, x1, y0, y1;
  double x(double v) const {
    return kLeft + (std::log10(v) - x0) / (x1 - x0) * (kWidth - kLeft - kRight);
  }
  double y(double v) const {
    return kHeight - kBottom - (std::log10(v) - y0) / (y1 - y0) * (kHeight - kTop - kBottom);
  }
};

struct Ceiling {
  std::string level;
  double rate;  // bytes/s
};

const char* colour(const std::string& level) {
  static const std::map<std::string, const char*> c = {
      {"DRAM", "#1f77b4"}, {"L2", "#2ca02c"}, {"L1", "#9467bd"}, {"shared memory", "#ff7f0e"}};
  auto it = c.find(level);
  return it == c.end() ? "#555555" : it->second;
}

/// Why kernel `k` (an entry of the analysis's kernels) has no point on the chart, or "" where it
/// has one.
std::string leftOutWhy(const nlohmann::json& k) {
  double flops = 0;
  for (const auto& l : k["levels"])
    if (l["level"] == "compute") flops = l["amount"].get<double>();
  if (k.value("updates", 1.0) <= 0) return "it runs no point-update at these parameter values";
  if (flops <= 0)
    return "0 FLOPs per point-update: no operational intensity to place on a log axis";
  if (k["roofline_seconds_per_update"].get<double>() <= 0) return "no predicted time";
  for (const auto& l : k["levels"])
    if (l["level"] != "compute" && l["intensity"].get<double>() > 0) return "";
  return "no memory traffic: no operational intensity to place on a log axis";
}

/// The kernels left out, by why (in the order of their first), each with its number (1 for the
/// first kernel of the analysis, as the legend numbers them) and name.
std::vector<std::pair<std::string, std::vector<std::pair<size_t, std::string>>>> leftOut(
    const nlohmann::json& a) {
  std::vector<std::pair<std::string, std::vector<std::pair<size_t, std::string>>>> out;
  for (size_t n = 0; n < a["kernels"].size(); ++n) {
    const nlohmann::json& k = a["kernels"][n];
    const std::string why = leftOutWhy(k);
    if (why.empty()) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.first == why; });
    if (it == out.end()) it = out.insert(out.end(), {why, {}});
    it->second.push_back({n + 1, k["name"].get<std::string>()});
  }
  return out;
}

}  // namespace

std::vector<std::string> rooflineLeftOut(const nlohmann::json& a) {
  std::vector<std::string> out;
  for (const auto& [why, kernels] : leftOut(a)) {
    std::vector<std::string> names;
    for (const auto& [n, name] : kernels) names.push_back(fmt::format("{} ({})", n, name));
    out.push_back(fmt::format("{} {} not plotted: {}", kernels.size() == 1 ? "kernel" : "kernels",
                              fmt::join(names, ", "), why));
  }
  return out;
}

std::string rooflineSvg(const nlohmann::json& a) {
  // The machine's ceilings, from the first kernel's levels (every kernel has the same rates).
  double peak = 0;
  std::vector<Ceiling> ceilings;
  if (!a["kernels"].empty())
    for (const auto& l : a["kernels"][0]["levels"]) {
      const double rate = l["rate"].get<double>();
      if (rate <= 0) continue;
      if (l["level"] == "compute")
        peak = rate;
      else
        ceilings.push_back({l["level"].get<std::string>(), rate});
    }
  // Points: per kernel and level with traffic, (intensity, predicted FLOP/s).
  struct Point {
    size_t number;  // the kernel's, from 1, in the analysis's order (every kernel numbered)
    std::string kernel, level;
    double oi, flops;
  };
  std::vector<Point> points;
  for (size_t n = 0; n < a["kernels"].size(); ++n) {
    const nlohmann::json& k = a["kernels"][n];
    // The roofline's own time (before any calibration factor): a kernel sits on the ceiling of
    // the level that bounds it, below it by its last wave's emptiness, and below every ceiling
    // where the latency bound is what binds. A kernel of no FLOPs has no intensity to plot
    // (leftOutWhy): it keeps its number, and the chart says it is left out.
    if (!leftOutWhy(k).empty()) continue;
    const double spu = k["roofline_seconds_per_update"].get<double>();
    double flops = 0;
    for (const auto& l : k["levels"])
      if (l["level"] == "compute") flops = l["amount"].get<double>();
    for (const auto& l : k["levels"])
      if (l["level"] != "compute" && l["intensity"].get<double>() > 0)
        points.push_back({n + 1, k["name"].get<std::string>(), l["level"].get<std::string>(),
                          l["intensity"].get<double>(), flops / spu});
  }
  // Axes: whole decades around every point and the ridges.
  double lo = 1e-2, hi = 1e2, ylo = peak > 0 ? peak / 1e3 : 1e9, yhi = peak > 0 ? peak * 2 : 1e13;
  for (const Point& p : points) {
    lo = std::min(lo, p.oi / 2), hi = std::max(hi, p.oi * 2);
    ylo = std::min(ylo, p.flops / 2);
  }
  for (const Ceiling& c : ceilings)
    if (peak > 0) lo = std::min(lo, peak / c.rate / 10), hi = std::max(hi, peak / c.rate * 10);
  const Axes ax{std::floor(std::log10(lo)), std::ceil(std::log10(hi)), std::floor(std::log10(ylo)),
                std::ceil(std::log10(yhi))};
  // The drawing; the document's height, known at the end, holds the legend and the notes below
  // the plot (the plot itself keeps kHeight).
  std::string s = fmt::format(
      "<text x=\"{}\" y=\"22\" font-size=\"14\">Roofline on {} (a prediction, not a "
      "measurement)</text>\n"
      "<text x=\"{}\" y=\"36\" font-size=\"10\">each kernel at each memory level: its "
      "intensity there, and the roofline's predicted rate (before calibration)</text>\n",
      kLeft, xml(a["machine"].get<std::string>()), kLeft);
  // Grid and axis labels, one per decade.
  for (int d = static_cast<int>(ax.x0); d <= static_cast<int>(ax.x1); ++d) {
    const double x = ax.x(std::pow(10.0, d));
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#dddddd\"/>\n"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">1e{4}</text>\n",
        x, kTop, kHeight - kBottom, kHeight - kBottom + 16, d);
  }
  for (int d = static_cast<int>(ax.y0); d <= static_cast<int>(ax.y1); ++d) {
    const double y = ax.y(std::pow(10.0, d));
    s += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#dddddd\"/>\n"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">1e{5}</text>\n",
        kLeft, y, kWidth - kRight, kLeft - 6, y + 4, d);
  }
  s += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">operational intensity (FLOP/byte)</text>\n",
      (kLeft + kWidth - kRight) / 2, kHeight - 20);
  s += fmt::format(
      "<text x=\"20\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 20 {0})\">"
      "predicted FLOP/s</text>\n",
      (kTop + kHeight - kBottom) / 2);
  // Ceilings: each level's bandwidth up to its ridge, then the compute peak.
  const double xmin = std::pow(10.0, ax.x0), xmax = std::pow(10.0, ax.x1);
  double legendY = kTop + 10;
  for (const Ceiling& c : ceilings) {
    const double ridge = peak > 0 ? peak / c.rate : xmax;
    const double xend = std::min(ridge, xmax);
    const double xstart = std::max(xmin, std::pow(10.0, ax.y0) / c.rate);  // on the plot's floor
    s += fmt::format(
        "<line class=\"ceiling\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"{}\" stroke-width=\"2\"><title>{}: {:.3g} TB/s</title></line>\n",
        ax.x(xstart), ax.y(xstart * c.rate), ax.x(xend), ax.y(xend * c.rate), colour(c.level),
        xml(c.level), c.rate / 1e12);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" fill=\"{}\">{} {:.3g} TB/s</text>\n",
                     kWidth - kRight + 10, legendY, colour(c.level), xml(c.level), c.rate / 1e12);
    legendY += 16;
  }
  // Levels with points but no ceiling (no bandwidth in the machine file: the L2 of most GPUs)
  // still need their colour named.
  std::vector<std::string> uncapped;
  for (const Point& p : points)
    if (std::none_of(ceilings.begin(), ceilings.end(),
                     [&](const Ceiling& c) { return c.level == p.level; }) &&
        std::find(uncapped.begin(), uncapped.end(), p.level) == uncapped.end())
      uncapped.push_back(p.level);
  for (const std::string& level : uncapped) {
    s += fmt::format(
        "<text x=\"{}\" y=\"{:.1f}\" fill=\"{}\">{}: points only (no bandwidth)</text>\n",
        kWidth - kRight + 10, legendY, colour(level), xml(level));
    legendY += 16;
  }
  if (peak > 0) {
    s += fmt::format(
        "<line class=\"ceiling\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" "
        "stroke=\"black\" stroke-width=\"2\"><title>compute peak: {:.3g} TFLOP/s</title></line>\n",
        ax.x(xmin), ax.y(peak), ax.x(xmax), ax.y(peak), peak / 1e12);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\">compute peak {:.3g} TFLOP/s</text>\n",
                     kWidth - kRight + 10, legendY, peak / 1e12);
    legendY += 24;
  }
  // The kernels: a point per level, in that level's colour, labelled with the kernel's number;
  // the legend names every kernel, those left out too.
  for (const Point& p : points) {
    s += fmt::format(
        "<circle class=\"kernel\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\" "
        "stroke=\"black\"><title>{} at {}: {:.3g} FLOP/B, {:.4g} GFLOP/s</title></circle>\n"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"10\">{}</text>\n",
        ax.x(p.oi), ax.y(p.flops), colour(p.level), xml(p.kernel), xml(p.level), p.oi,
        p.flops / 1e9, ax.x(p.oi) + 6, ax.y(p.flops) - 6, p.number);
  }
  const auto left = leftOut(a);
  for (size_t n = 0; n < a["kernels"].size(); ++n) {
    const bool plotted = std::any_of(points.begin(), points.end(),
                                     [&](const Point& p) { return p.number == n + 1; });
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"10\"{}>{}: {}{}</text>\n",
                     kWidth - kRight + 10, legendY, plotted ? "" : " fill=\"#777777\"", n + 1,
                     xml(a["kernels"][n]["name"].get<std::string>()),
                     plotted ? "" : " (not plotted)");
    legendY += 14;
  }
  // Below the plot, one line per reason a kernel is left out.
  double notesY = kHeight + 4;
  for (const auto& [why, kernels] : left) {
    std::vector<size_t> numbers;
    for (const auto& k : kernels) numbers.push_back(k.first);
    s += fmt::format(
        "<text class=\"left-out\" x=\"{}\" y=\"{:.1f}\" font-size=\"10\">not plotted: {} {} "
        "({})</text>\n",
        kLeft, notesY, kernels.size() == 1 ? "kernel" : "kernels", fmt::join(numbers, ", "),
        xml(why));
    notesY += 14;
  }
  const double height = std::ceil(std::max({kHeight, legendY, left.empty() ? kHeight : notesY}));
  return fmt::format(
             "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
             "viewBox=\"0 0 {} {}\" font-family=\"sans-serif\" font-size=\"12\">\n",
             kWidth, height, kWidth, height) +
         "<!-- tessel analyze, plot: predicted, not measured. x: FLOP per byte at each memory "
         "level; y: predicted FLOP/s; lines: the machine's ceilings -->\n" +
         fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", kWidth, height) + s +
         "</svg>\n";
}

}  // namespace tessel
