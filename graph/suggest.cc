// implemented by the graph work; see graph/suggest.h
