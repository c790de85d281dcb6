"""Tests of the puffer-procgen plugin against procgen."""
