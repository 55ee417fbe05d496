#include "writers/heatmap/color_scale.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace cookgraph {
namespace {

struct Rgb {
  double r, g, b;  // 0..255
};

// matplotlib's viridis sampled at t = 0, 0.1, ..., 1.
constexpr std::array<Rgb, 11> kViridis = {{
    {0x44, 0x01, 0x54},
    {0x48, 0x24, 0x75},
    {0x41, 0x44, 0x87},
    {0x35, 0x5f, 0x8d},
    {0x2a, 0x78, 0x8e},
    {0x21, 0x91, 0x8c},
    {0x22, 0xa8, 0x84},
    {0x44, 0xbf, 0x70},
    {0x7a, 0xd1, 0x51},
    {0xbd, 0xdf, 0x26},
    {0xfd, 0xe7, 0x25},
}};

double Clamp01(double t) { return std::isnan(t) ? 0.0 : std::clamp(t, 0.0, 1.0); }

}  // namespace

std::string Viridis(double t) {
  const double x = Clamp01(t) * (kViridis.size() - 1);
  const size_t i = std::min(static_cast<size_t>(x), kViridis.size() - 2);
  const double f = x - static_cast<double>(i);
  const Rgb& a = kViridis[i];
  const Rgb& b = kViridis[i + 1];
  auto mix = [f](double u, double v) { return static_cast<int>(std::lround(u + (v - u) * f)); };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
}

// From about t = 0.6 on (green to yellow) black text has the better contrast.
bool ViridisWantsDarkText(double t) { return Clamp01(t) >= 0.6; }

ScoreScale::ScoreScale(double max_score)
    : max_(std::isfinite(max_score) && max_score > 0 ? max_score : 0) {}

double ScoreScale::operator()(double score) const {
  if (max_ <= 0 || !std::isfinite(score) || score <= 0) return 0;
  return Clamp01(1.0 + std::log10(score / max_) / kDecades);
}

double ScoreScale::ScoreAt(double t) const {
  return max_ * std::pow(10.0, (Clamp01(t) - 1.0) * kDecades);
}

}  // namespace cookgraph
