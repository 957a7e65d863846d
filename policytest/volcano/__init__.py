"""Volcano (``volcano-scheduler.conf``): decoding as yaml.v2 and Volcano do, the conf
model with its silent corrections, its rules and checks, and its executable scheduler."""
