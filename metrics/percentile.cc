// implemented by the metrics work; see metrics/percentile.h
