"""Tests of the puffer-minigrid plugin against minigrid."""
