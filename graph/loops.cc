// implemented by the graph work; see graph/loops.h
