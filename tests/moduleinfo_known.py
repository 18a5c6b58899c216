"""Known differences of the module_db walk (tests/opinfo/test_opinfo_moduleinfo.py): entry -> {"sample:init|fwd|bwd": reason}.

``KNOWN``: rows that differ on every CPU path walked (``PATHS``); the list only shrinks: a listed row that
matches on a machine is reported there (tests/_known_rows.py) and moved or deleted by a maintainer. ``PATH_DEPENDENT``: rows that differ on some paths only
("differs on" names them); such a row may match or differ. Regenerate with
``python tests/_moduleinfo_update.py`` after fixing modules."""

# the CPU paths walked (tests/_paths.py's walk_paths), on every machine the lists were walked on
PATHS = ['PyTorch AVX2, oneDNN AVX2, numpy AVX2, BLAS Haswell',
 'PyTorch AVX2, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
 'PyTorch AVX512, oneDNN AVX512, numpy AVX512, BLAS SkylakeX',
 'PyTorch DEFAULT, oneDNN AVX512, numpy AVX512, BLAS SkylakeX']

KNOWN: dict = {}

PATH_DEPENDENT: dict = {}
