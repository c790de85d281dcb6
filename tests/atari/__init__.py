"""Tests of the puffer-atari plugin against ale-py."""
