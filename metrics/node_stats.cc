// implemented by the metrics work; see metrics/node_stats.h
