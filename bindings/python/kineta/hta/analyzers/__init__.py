"""HTA's hta.analyzers package path (critical path, CUPTI counters)."""
