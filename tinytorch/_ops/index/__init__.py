"""Indexing, masked and indexed reads and writes, gather and scatter."""
