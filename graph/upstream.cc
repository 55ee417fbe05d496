// implemented by the graph work; see graph/upstream.h
