"""Helpers shared by the tests (real components only: no mocks of our own code)."""
