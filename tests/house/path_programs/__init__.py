"""Programs that reach each family's CPU paths, for tests/house/test_house_second_layer.py."""
