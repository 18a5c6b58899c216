"""Files that are no checkpoint, or broken ones, against PyTorch's ``torch.load`` (its default weights_only=True):
tinytorch raises a ``SerializationError`` (the project's rule) that ``except <PyTorch's type>`` catches too, and
says what the file is rather than reading it as something else."""
import gzip
import io
import json
import pickle
import random
import struct
import tarfile
import warnings
import zipfile

import numpy as np
import pytest

import tinytorch
from tinytorch.serialization import SerializationError


def _torch_zip(torch):
    buf = io.BytesIO()
    torch.save({"w": torch.ones(3)}, buf)
    return buf.getvalue()


def _zip_of(name, text):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(name, text)
    return buf.getvalue()


def _tar():
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tf:
        info = tarfile.TarInfo("a.txt")
        info.size = 2
        tf.addfile(info, io.BytesIO(b"hi"))
    return buf.getvalue()


def _npy(fn, **arrays):
    buf = io.BytesIO()
    fn(buf, **arrays)
    return buf.getvalue()


LEGACY_MAGIC = pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2)

JUNK = {  # name -> the file's bytes (PyTorch's own zip file given, for its cut-down forms)
    "text": lambda z: b"hello world, this is not a checkpoint\n" * 3,
    "text_of_7_bytes": lambda z: b"abcdefg",
    "html_error_page": lambda z: b"<!DOCTYPE html><html><body>404 Not Found</body></html>",
    "json": lambda z: json.dumps({"a": 1}).encode(),
    "random_bytes": lambda z: bytes(random.Random(0).getrandbits(8) for _ in range(1000)),
    "zero_bytes": lambda z: bytes(64),
    "ff_bytes": lambda z: b"\xff" * 64,
    "empty": lambda z: b"",
    "one_byte": lambda z: b"\x80",
    "npy": lambda z: _npy(lambda f, a: np.save(f, a), a=np.arange(10)),
    "npz": lambda z: _npy(np.savez, a=np.arange(3)),
    "gzip": lambda z: gzip.compress(b"hello" * 100),
    "png": lambda z: b"\x89PNG\r\n\x1a\n" + bytes(50),
    "elf": lambda z: b"\x7fELF" + bytes(60),
    "utf16_text": lambda z: "hello".encode("utf-16"),
    "tar": lambda z: _tar(),
    "plain_zip": lambda z: _zip_of("hello.txt", "hi"),
    "zip_magic_then_zeros": lambda z: b"PK\x03\x04" + bytes(100),
    "truncated_zip": lambda z: z[: len(z) // 2],
    "zip_first_30_bytes": lambda z: z[:30],
    "pickle_of_a_dict": lambda z: pickle.dumps({"a": 1}, protocol=2),
    "pickle_protocol_4": lambda z: pickle.dumps([1, 2, 3], protocol=4),
    "truncated_pickle": lambda z: pickle.dumps({"a": list(range(100))}, protocol=2)[:20],
    "legacy_magic_alone": lambda z: LEGACY_MAGIC,
}


def _raised(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - what each library raises is compared
            return e
    raise AssertionError("no error")


@pytest.mark.parametrize("kind", sorted(JUNK))
def test_junk_file_raises_pytorchs_type(torch, tmp_path, kind):
    path = tmp_path / f"{kind}.pt"
    path.write_bytes(JUNK[kind](_torch_zip(torch)))
    theirs = _raised(lambda: torch.load(path))
    ours = _raised(lambda: tinytorch.load(path))
    assert isinstance(ours, SerializationError)
    assert isinstance(ours, type(theirs)), (type(theirs), type(ours).__mro__)
    text = str(ours)
    assert text.startswith(("not a checkpoint: ", "malformed PyTorch checkpoint", "malformed legacy PyTorch")), text
    assert "header length" not in text  # (a safetensors message for what is no safetensors file)


@pytest.mark.parametrize("kind", ["text", "empty", "one_byte", "tar", "npy", "pickle_of_a_dict", "truncated_zip"])
def test_junk_stream_raises_pytorchs_type(torch, kind):
    # from a stream PyTorch skips its .tar attempt and reads the bytes as a pickle at once
    blob = JUNK[kind](_torch_zip(torch))
    theirs = _raised(lambda: torch.load(io.BytesIO(blob)))
    ours = _raised(lambda: tinytorch.load(io.BytesIO(blob)))
    assert isinstance(ours, SerializationError) and isinstance(ours, type(theirs))


@pytest.mark.parametrize("kind,says", [
    ("text", "the file is text, beginning 'hello world"), ("html_error_page", "an error page"),
    ("gzip", "gzip-compressed"), ("npy", "numpy .npy"), ("empty", "the file is empty"), ("tar", "tar archive"),
    ("pickle_of_a_dict", "a pickle that is not a PyTorch checkpoint"), ("png", "PNG image"),
])
def test_junk_message_says_what_the_file_is(tmp_path, kind, says):
    path = tmp_path / "f.pt"
    path.write_bytes(JUNK[kind](b""))
    with pytest.raises(SerializationError, match="^not a checkpoint: ") as info:
        tinytorch.load(path)
    assert says in str(info.value)


def test_key_error_kind_prints_its_message_unquoted(tmp_path):
    path = tmp_path / "f.pt"
    path.write_bytes(JUNK["text"](b""))
    with pytest.raises(KeyError) as info:
        tinytorch.load(path)
    assert str(info.value).startswith("not a checkpoint")


def test_safetensors_with_an_oversized_header_is_still_named_so():
    blob = struct.pack("<Q", 200_000_000) + b"{" + bytes(7)
    with pytest.raises(SerializationError, match="header length 200000000 bytes exceeds"):
        tinytorch.load(io.BytesIO(blob))
