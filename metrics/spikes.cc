// implemented by the metrics work; see metrics/spikes.h
