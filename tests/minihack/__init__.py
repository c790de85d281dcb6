"""Tests of the puffer-minihack plugin against minihack."""
