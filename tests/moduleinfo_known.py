"""Known differences of the module_db walk (tests/test_moduleinfo.py): entry -> {"sample:init|fwd|bwd": reason}.

The list only shrinks: test_moduleinfo fails for a listed row that matches now. Regenerate with
``python tests/_moduleinfo_update.py`` after fixing modules."""

KNOWN: dict = {}
