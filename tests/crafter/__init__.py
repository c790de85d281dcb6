"""Tests of the puffer-crafter plugin against crafter."""
