// implemented by the adapters work
