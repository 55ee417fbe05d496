// implemented by the graph work; see graph/containers.h
