"""Tests of the puffer-griddly plugin against griddly."""
