"""Tests of the puffer-nmmo plugin against nmmo 2.1.2."""
