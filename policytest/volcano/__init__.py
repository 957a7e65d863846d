"""Volcano scheduler (``volcano-scheduler.conf``): model, rules and weights."""
