"""Tests of the puffer-craftax plugin (JAX, CPU)."""
