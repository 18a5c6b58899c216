"""Views, reshapes, joins and copies: ops that rearrange elements without computing new values."""
