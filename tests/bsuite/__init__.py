"""Tests of the puffer-bsuite plugin against bsuite."""
