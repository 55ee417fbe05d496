// implemented by the graph work; see graph/condensation.h
