// implemented by the metrics work; see metrics/analysis.h
