"""Tests of the puffer-dmcontrol plugin against dm_control."""
