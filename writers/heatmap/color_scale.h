#ifndef COOKGRAPH_WRITERS_HEATMAP_COLOR_SCALE_H_
#define COOKGRAPH_WRITERS_HEATMAP_COLOR_SCALE_H_

// A perceptually uniform colour scale for heatmaps, and the mapping of scores
// onto it.

#include <string>
#include <vector>

namespace cookgraph {

/// Viridis at `t` in [0, 1] (clamped; NaN counts as 0) as "#rrggbb": dark
/// purple at 0, yellow at 1. Interpolated linearly in sRGB between 11 samples
/// of matplotlib's viridis taken at t = 0, 0.1, ..., 1; the samples are close
/// enough that the interpolation stays uniform to the eye.
std::string Viridis(double t);

/// True when text on a Viridis(t) background reads better in black than in
/// white (the light, yellow-green end of the scale).
bool ViridisWantsDarkText(double t);

/// Scores mapped onto [0, 1] on a logarithmic scale: cook costs spread over
/// orders of magnitude, and a linear scale would paint all but the top few
/// nodes the same dark colour. The scale spans `kDecades` decades below the
/// largest score; smaller scores (and 0) sit at 0.
class ScoreScale {
 public:
  static constexpr double kDecades = 3;

  /// A scale whose top is `max_score` (> 0; otherwise every score maps to 0).
  explicit ScoreScale(double max_score);

  /// Where `score` (ms) lies on the scale, 0..1.
  double operator()(double score) const;
  /// The score at position `t` in [0, 1]: the inverse, for legend ticks.
  double ScoreAt(double t) const;
  double max() const { return max_; }

 private:
  double max_ = 0;
};

}  // namespace cookgraph

#endif  // COOKGRAPH_WRITERS_HEATMAP_COLOR_SCALE_H_
