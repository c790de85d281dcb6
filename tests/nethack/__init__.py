"""Tests of the puffer-nethack plugin against nle."""
