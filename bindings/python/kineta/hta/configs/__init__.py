"""HTA's hta.configs package path (ParserConfig, HtaConfig, logger)."""
