"""Evaluation of memory against recorded agent sessions (R29): replay and the A/B harness."""
