"""Where the checkout lies, for tests that run its scripts or read its files (a test's own folder depth
varies with the package it mirrors)."""
import os

TESTS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS)
