// implemented by the metrics work; see metrics/samples.h
