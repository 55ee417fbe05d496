// implemented by the metrics work; see metrics/frames.h
