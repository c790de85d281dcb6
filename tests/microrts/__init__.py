"""Tests of the puffer-microrts plugin against gym-microrts 0.6.0's microRTS."""
