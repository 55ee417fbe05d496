// implemented by the graph work; see graph/critical_path.h
