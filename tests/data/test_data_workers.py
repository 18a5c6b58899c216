"""DataLoader with worker processes: order, errors, dead workers, shutdown, seeds, worker info.

Every test runs under an alarm, so a hang fails the test instead of stalling the suite."""

import gc
import os
import random
import re
import signal
import threading
import time

import numpy as np
import pytest

import tinytorch
from tinytorch.data import DataLoader, Dataset, IterableDataset, get_worker_info

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="worker tests use fork")


@pytest.fixture(autouse=True)
def no_hang():
    def fail(signum, frame):
        raise TimeoutError("DataLoader test hung")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(30)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class Jittery(Dataset):
    """Sample i is [i, worker pid]; some samples are slow so replies arrive out of order."""

    def __init__(self, n, slow=(), delay=0.03):
        self.n, self.slow, self.delay = n, set(slow), delay

    def __getitem__(self, i):
        if i in self.slow:
            time.sleep(self.delay)
        return [i, os.getpid()]

    def __len__(self):
        return self.n


def test_workers_keep_sampler_order():
    ds = Jittery(24, slow=range(0, 24, 4))
    expected = [
        b[0].tolist()
        for b in DataLoader(
            ds, batch_size=2, shuffle=True, generator=tinytorch.Generator().manual_seed(9)
        )
    ]
    got = [
        b[0].tolist()
        for b in DataLoader(
            ds,
            batch_size=2,
            shuffle=True,
            num_workers=2,
            generator=tinytorch.Generator().manual_seed(9),
        )
    ]
    assert got == expected


def test_workers_shut_down_when_exhausted():
    batches = list(DataLoader(Jittery(8), batch_size=2, num_workers=2))
    pids = {pid for b in batches for pid in b[1].tolist()}
    assert len(pids) == 2 and os.getpid() not in pids
    assert not any(_alive(p) for p in pids)


def test_workers_shut_down_when_iterator_deleted():
    it = iter(DataLoader(Jittery(40), batch_size=2, num_workers=2))
    pids = set(next(it)[1].tolist()) | set(next(it)[1].tolist())
    del it
    gc.collect()
    assert len(pids) == 2 and not any(_alive(p) for p in pids)


def test_keyboard_interrupt_shuts_workers_down():
    ds = Jittery(40, slow=range(2, 40), delay=0.2)
    pids = set()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    try:
        with pytest.raises(KeyboardInterrupt):
            for batch in DataLoader(ds, batch_size=1, num_workers=2):
                pids.update(batch[1].tolist())
                if len(pids) == 2 and not timer.is_alive():
                    timer.start()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert len(pids) == 2 and not any(_alive(p) for p in pids)


class Failing(Dataset):
    def __init__(self, exc_type, bad=5):
        self.exc_type, self.bad = exc_type, bad

    def __getitem__(self, i):
        if i == self.bad:
            raise self.exc_type(f"sample {i} is broken")
        return i

    def __len__(self):
        return 10


def _worker_error(loader):
    """The first error a pass raises, as (type, message). The pass is run to its end, which lets
    PyTorch's own loader shut its workers down promptly (deleting it mid-error takes seconds)."""
    first = None
    it = iter(loader)
    while True:
        try:
            next(it)
        except StopIteration:
            break
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            first = first or (type(e), str(e))
    assert first is not None, "no error was raised"
    return first


def test_worker_exception_reraised_with_pytorch_text(torch):
    ours = _worker_error(DataLoader(Failing(ValueError), batch_size=2, num_workers=2))
    theirs = _worker_error(
        torch.utils.data.DataLoader(Failing(ValueError), batch_size=2, num_workers=2)
    )
    assert ours[0] is theirs[0] is ValueError
    head = (
        "Caught ValueError in DataLoader worker process 0.\n"
        "Original Traceback (most recent call last):\n"
    )
    assert ours[1].startswith(head) and theirs[1].startswith(head)
    assert ours[1].endswith("ValueError: sample 5 is broken\n")
    assert theirs[1].endswith("ValueError: sample 5 is broken\n")


def test_worker_key_error_keeps_a_readable_message():
    err_type, message = _worker_error(
        DataLoader(Failing(KeyError, bad=2), batch_size=1, num_workers=2)
    )
    assert err_type is KeyError
    assert message.startswith("Caught KeyError in DataLoader worker process 0.\nOriginal Traceback")
    assert "\\n" not in message  # KeyError would print repr(): escaped newlines


def test_loader_continues_after_a_worker_exception():
    it = iter(DataLoader(Failing(ValueError, bad=1), batch_size=1, num_workers=2))
    assert next(it).tolist() == [0]
    with pytest.raises(ValueError):
        next(it)
    assert [b.tolist() for b in it] == [[i] for i in range(2, 10)]


class Suicidal(Dataset):
    """Sample ``victim`` SIGKILLs its worker, after writing that worker's pid to a file."""

    def __init__(self, pid_file, victim=4):
        self.pid_file, self.victim = pid_file, victim

    def __getitem__(self, i):
        if i == self.victim:
            with open(self.pid_file, "w") as f:
                f.write(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return [i, os.getpid()]

    def __len__(self):
        return 12


def test_killed_worker_is_an_error_not_a_hang(tmp_path):
    pid_file = str(tmp_path / "victim.pid")
    pids = set()
    with pytest.raises(RuntimeError) as info:
        for batch in DataLoader(Suicidal(pid_file), batch_size=1, num_workers=2):
            pids.update(batch[1].tolist())
    victim = int(open(pid_file).read())
    assert str(info.value) == f"DataLoader worker (pid(s) {victim}) exited unexpectedly"
    assert not any(_alive(p) for p in pids | {victim})


class Slow(Dataset):
    def __getitem__(self, i):
        time.sleep(0.6)
        return i

    def __len__(self):
        return 1


def test_timeout():
    with pytest.raises(RuntimeError, match=r"^DataLoader timed out after 0.2 seconds$"):
        next(iter(DataLoader(Slow(), num_workers=1, timeout=0.2)))


class Introspective(Dataset):
    """Sample i reports what its worker knows about itself and draws from every RNG it seeded."""

    def __getitem__(self, i):
        info = get_worker_info()
        return dict(
            index=i,
            id=info.id,
            num_workers=info.num_workers,
            seed=info.seed,
            is_own_copy=info.dataset is self,
            torch_seed=tinytorch.random.default_generator.initial_seed(),
            numpy_draw=int(np.random.randint(1 << 30)),
            python_draw=random.random(),
            init=os.environ.get("TT_WORKER_INIT"),
        )

    def __len__(self):
        return 4


def _introspect(seed, **kwargs):
    tinytorch.manual_seed(seed)
    loader = DataLoader(Introspective(), batch_size=None, num_workers=2, **kwargs)
    return [
        {k: (v.item() if isinstance(v, tinytorch.Tensor) else v) for k, v in s.items()}
        for s in loader
    ]


def test_worker_info_and_seeding(torch):
    assert get_worker_info() is None
    samples = _introspect(7)
    first_by_worker = {s["id"]: s for s in samples[:2]}
    w0, w1 = first_by_worker[0], first_by_worker[1]
    # the base seed is the loader's first draw from the default generator, as in PyTorch
    torch.manual_seed(7)
    base = int(torch.empty((), dtype=torch.int64).random_().item())
    assert (w0["seed"], w1["seed"]) == (base, base + 1)
    assert all(
        s["num_workers"] == 2 and s["is_own_copy"] and s["torch_seed"] == s["seed"] for s in samples
    )
    assert w0["numpy_draw"] != w1["numpy_draw"] and w0["python_draw"] != w1["python_draw"]
    assert _introspect(7) == samples
    assert _introspect(8)[0]["seed"] != w0["seed"]


def test_worker_init_fn_runs_in_each_worker():
    def init(worker_id):
        os.environ["TT_WORKER_INIT"] = f"worker {worker_id}"

    samples = _introspect(0, worker_init_fn=init)
    assert {(s["id"], s["init"]) for s in samples} == {(0, "worker 0"), (1, "worker 1")}
    assert "TT_WORKER_INIT" not in os.environ


def test_worker_init_fn_error_is_reraised():
    def init(worker_id):
        raise ValueError("bad init")

    err_type, message = _worker_error(DataLoader(Jittery(4), num_workers=1, worker_init_fn=init))
    assert err_type is ValueError and message.startswith(
        "Caught ValueError in DataLoader worker process 0."
    )
    assert "bad init" in message


def test_unpicklable_batch_is_an_error_not_a_hang():
    _, message = _worker_error(
        DataLoader(Jittery(2), num_workers=1, collate_fn=lambda batch: lambda: batch)
    )
    assert message.startswith("Caught ") and "in DataLoader worker process 0." in message


def test_persistent_workers_survive_epochs_and_abandoned_epochs():
    loader = DataLoader(
        Jittery(10, slow=[0, 6]), batch_size=2, num_workers=2, persistent_workers=True
    )
    it = iter(loader)
    pids = set(next(it)[1].tolist())  # abandon the first epoch after one batch
    for _ in range(2):
        batches = list(loader)
        assert [b[0].tolist() for b in batches] == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]
        pids |= {p for b in batches for p in b[1].tolist()}
    assert len(pids) == 2 and all(_alive(p) for p in pids)
    del it, loader, batches
    gc.collect()
    assert not any(_alive(p) for p in pids)


class Shard(IterableDataset):
    def __init__(self, n, shard):
        self.n, self.shard = n, shard

    def __iter__(self):
        info = get_worker_info()
        if not self.shard or info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


def test_iterable_dataset_in_workers():
    got = [
        x
        for b in DataLoader(Shard(11, shard=True), batch_size=2, num_workers=2)
        for x in b.tolist()
    ]
    assert sorted(got) == list(range(11))
    # without sharding each worker yields the whole stream, as in PyTorch
    got = [
        x
        for b in DataLoader(Shard(5, shard=False), batch_size=2, num_workers=2)
        for x in b.tolist()
    ]
    assert sorted(got) == sorted(list(range(5)) * 2)


def test_fashion_mnist_in_workers_equals_single_process():
    from conftest import data_root

    from tinytorch.data import datasets, transforms

    if not os.path.isdir(os.path.join(data_root(), "FashionMNIST")):
        pytest.skip("shared FashionMNIST subset missing")
    ds = datasets.FashionMNIST(
        data_root(),
        train=False,
        transform=transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))]),
    )
    kwargs = dict(batch_size=256, shuffle=True)
    one = list(DataLoader(ds, generator=tinytorch.Generator().manual_seed(1), **kwargs))
    two = list(
        DataLoader(ds, num_workers=2, generator=tinytorch.Generator().manual_seed(1), **kwargs)
    )
    assert len(one) == len(two) == 16
    for (x1, y1), (x2, y2) in zip(one, two):
        np.testing.assert_array_equal(x1.numpy(), x2.numpy())
        np.testing.assert_array_equal(y1.numpy(), y2.numpy())


def test_spawn_context_works_too():
    # the default on macOS and Windows: the dataset is pickled, the worker re-imports everything
    loader = DataLoader(Jittery(6), batch_size=2, num_workers=2, multiprocessing_context="spawn")
    assert [b[0].tolist() for b in loader] == [[0, 1], [2, 3], [4, 5]]


MID_SEND = '''
import os, struct, sys
from tinytorch.data import DataLoader

def half_a_message(batch):
    # in the worker: begin a 50 MB reply on the result pipe, send 4 kB of it, and die
    frame = sys._getframe()
    while frame is not None and "result_queue" not in frame.f_locals:
        frame = frame.f_back
    queue = frame.f_locals["result_queue"]
    os.write(queue._writer.fileno(), struct.pack("!i", 50_000_000) + bytes(4096))
    os._exit(3)

try:
    for _ in DataLoader(list(range(4)), batch_size=2, num_workers=1, collate_fn=half_a_message):
        pass
except RuntimeError as e:
    print(e)
'''


def test_worker_dying_mid_send_is_an_error_not_a_hang():
    import subprocess
    import sys as _sys

    start = time.monotonic()
    done = subprocess.run([_sys.executable, "-c", MID_SEND], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.fullmatch(r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly\n", done.stdout), done.stdout
    assert time.monotonic() - start < 30
