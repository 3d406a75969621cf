"""HTA's hta.utils package path."""
