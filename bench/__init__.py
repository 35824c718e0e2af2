"""Performance benchmarks of the explorer: ``python -m bench`` (see bench/README.md)."""
