"""Hostile checkpoints must fail fast: the work and memory of ``load`` stay in proportion to the file.

Each case runs in a child process under a time bound, so a regression shows as a failure, not as a
suite that never ends."""
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent('''
    import io, sys, zipfile
    import tinytorch

    def pickle_zip(data):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("archive/data.pkl", data)
            z.writestr("archive/version", "3\\n")
        return buf.getvalue()

    def tuple_dag(levels):
        # a dict whose key is t_k = (t_{k-1}, t_{k-1}), each level a memo reference to the one below:
        # a few hundred bytes, 2**levels items when hashed
        out = bytearray(b"\\x80\\x02}K\\x01\\x85q\\x000")
        for k in range(levels):
            out += b"h" + bytes([k]) + b"h" + bytes([k]) + b"\\x86q" + bytes([k + 1])
            out += b"0" if k < levels - 1 else b""
        return bytes(out + b"K\\x01s.")

    def list_dag(levels):
        # the same shape of lists, handed to a call the loader refuses: its message must stay short
        out = bytearray(b"\\x80\\x02ccollections\\nOrderedDict\\n]q\\x00K\\x01a")
        for k in range(levels):
            out += b"]h" + bytes([k]) + b"ah" + bytes([k]) + b"aq" + bytes([k + 1])
        return bytes(out + b"\\x85R.")

    data = {"tuple": tuple_dag(64), "list": list_dag(40)}[sys.argv[1]]
    try:
        tinytorch.load(io.BytesIO(pickle_zip(data)))
    except tinytorch.SerializationError as e:
        print(len(str(e)), str(e)[:200])
''')


@pytest.mark.parametrize("case", ["tuple", "list"])
def test_shared_structure_fails_fast(case):
    done = subprocess.run([sys.executable, "-c", CHILD, case], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    length, message = done.stdout.split(" ", 1)
    assert int(length) < 400, message
    assert "Weights only load failed" in message or "malformed pickle" in message


def test_a_global_inside_a_tuple_never_reaches_the_loaded_object():
    import io
    import zipfile

    import tinytorch

    # [ (collections.OrderedDict,) ]: the global's stand-in is only valid as a call's argument
    data = b"\x80\x02]ccollections\nOrderedDict\n\x85a."
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", data)
        z.writestr("archive/version", "3\n")
    buf.seek(0)
    with pytest.raises(tinytorch.SerializationError, match="a tuple holding a global or a storage is used as a value"):
        tinytorch.load(buf)
