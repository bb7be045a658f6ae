"""Helpers shared by the benchmark scripts in bench/: options, statistics, fixtures."""
