"""The op families, one subpackage each (see __init__'s list)."""
