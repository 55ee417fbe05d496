// implemented by the graph work; see graph/reachability.h
