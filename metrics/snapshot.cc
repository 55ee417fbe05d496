// implemented by the metrics work; see metrics/snapshot.h
