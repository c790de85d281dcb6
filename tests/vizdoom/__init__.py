"""Tests of the puffer-vizdoom plugin against vizdoom."""
