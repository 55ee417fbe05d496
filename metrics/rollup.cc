// implemented by the metrics work; see metrics/rollup.h
