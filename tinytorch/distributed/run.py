"""``python -m tinytorch.distributed.run --nproc-per-node=N script.py [args]``: ``torchrun`` for one machine.

It starts N workers, each as ``python -u -m tinytorch.run script.py [args]`` (so ``import torch`` in the
script gives tinytorch), with torchrun's environment: ``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``,
``LOCAL_WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT``, ... The workers meet through ``env://`` in
``init_process_group``. It watches them: when one fails, the others are terminated (SIGTERM, then SIGKILL
after a grace period), the failure is reported as torchrun reports it (rank, exit code, pid), and the
launcher exits with status 1. Workers die with the launcher (Linux's parent-death signal): none is left
behind. One node only (``--nnodes=1``); no restarts."""
from __future__ import annotations

import argparse
import ctypes
import datetime
import os
import signal
import socket
import subprocess
import sys
import time

_GRACE_S = 30.0  # torchrun's wait between SIGTERM and SIGKILL


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tinytorch.distributed.run",
                                description="Start N workers of a training script on this machine (torchrun's "
                                            "options for one node).")

    def opt(*names, **kw):  # torchrun takes each option with dashes and with underscores
        spelled = []
        for n in names:
            spelled.append(n)
            if n.startswith("--") and "-" in n[2:]:
                spelled.append("--" + n[2:].replace("-", "_"))
        p.add_argument(*spelled, **kw)

    opt("--nnodes", default="1:1", help="must be 1 (or 1:1): one machine")
    opt("--nproc-per-node", default="1", help="workers to start: a number, or 'cpu'/'auto' for one per CPU core")
    opt("--node-rank", type=int, default=0)
    opt("--master-addr", default="127.0.0.1")
    opt("--master-port", type=int, default=29500)
    opt("--standalone", action="store_true", help="pick a free port on this machine for the rendezvous")
    opt("--rdzv-backend", default="static")
    opt("--rdzv-endpoint", default="", help="host:port of the rendezvous (as --master-addr/--master-port)")
    opt("--rdzv-id", default="none")
    opt("--rdzv-conf", default="")
    opt("--max-restarts", type=int, default=0)
    opt("--monitor-interval", type=float, default=0.1)
    opt("--start-method", default="spawn")
    opt("--role", default="default")
    opt("-m", "--module", action="store_true", help="run the script argument as a module (python -m)")
    opt("--no-python", action="store_true", help="run the script argument as a command, without python")
    opt("--run-path", action="store_true")
    opt("--log-dir", default=None, help="with --redirects: where each worker's stdout.log/stderr.log go")
    opt("-r", "--redirects", default="0", help="send workers' output to files: 0 none, 1 stdout, 2 stderr, 3 both")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return p


def _nproc(value: str) -> int:
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    if value == "gpu":
        raise SystemExit("error: --nproc-per-node=gpu: tinytorch runs on the CPU")
    try:
        n = int(value)
    except ValueError:
        raise SystemExit(f"error: --nproc-per-node must be a number, 'cpu' or 'auto', got {value!r}") from None
    if n < 1:
        raise SystemExit(f"error: --nproc-per-node must be at least 1, got {n}")
    return n


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the worker, before exec: SIGKILL when the launcher goes, so no worker outlives it."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _command(args) -> list:
    if args.no_python:
        return [args.training_script, *args.training_script_args]
    run = [sys.executable, "-u", "-m", "tinytorch.run"]
    if args.module:
        return [*run, "-m", args.training_script, *args.training_script_args]
    return [*run, args.training_script, *args.training_script_args]


def _describe(code: int, pid: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "an unknown signal"
        return f"Signal {-code} ({name}) received by PID {pid}"
    return f"exited with status {code} (its own traceback, if any, is above)"


def _report(script: str, failures: list) -> str:
    """torchrun's summary of a failed job: the first failure is the root cause."""
    host = socket.gethostname()
    lines = ["=" * 60, f"{script} FAILED", "-" * 60, "Failures:"]
    others = failures[1:]
    if not others:
        lines.append("  <NO_OTHER_FAILURES>")
    blocks = []
    for i, (when, rank, code, pid) in enumerate(failures):
        blocks.append([f"[{i}]:", f"  time      : {when}", f"  host      : {host}",
                       f"  rank      : {rank} (local_rank: {rank})", f"  exitcode  : {code} (pid: {pid})",
                       f"  traceback : {_describe(code, pid)}"])
    for b in blocks[1:]:
        lines += b
    lines += ["-" * 60, "Root Cause (first observed failure):", *blocks[0], "=" * 60]
    return "\n".join(lines)


def _stop(procs: list, grace_s: float) -> None:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    deadline = time.monotonic() + grace_s
    for p in procs:
        try:
            p.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main(argv: list | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.nnodes not in ("1", "1:1"):
        raise SystemExit(f"error: --nnodes={args.nnodes}: this launcher runs the workers of one machine only")
    if args.node_rank != 0:
        raise SystemExit("error: --node-rank must be 0 on one machine")
    if args.max_restarts != 0:
        raise SystemExit("error: --max-restarts: restarting workers is not supported")
    n = _nproc(args.nproc_per_node)
    addr, port = args.master_addr, args.master_port
    if args.rdzv_endpoint:
        host, _, p = args.rdzv_endpoint.rpartition(":")
        addr, port = (host or addr), int(p) if p else port
    if args.standalone:
        addr, port = "127.0.0.1", _free_port()
    env = dict(os.environ, MASTER_ADDR=addr, MASTER_PORT=str(port), WORLD_SIZE=str(n), LOCAL_WORLD_SIZE=str(n),
               GROUP_RANK="0", GROUP_WORLD_SIZE="1", ROLE_NAME=args.role, ROLE_WORLD_SIZE=str(n),
               TORCHELASTIC_RESTART_COUNT="0", TORCHELASTIC_MAX_RESTARTS="0", TORCHELASTIC_RUN_ID=args.rdzv_id)
    if n > 1 and "OMP_NUM_THREADS" not in os.environ:
        env["OMP_NUM_THREADS"] = "1"
        print("*" * 41 + "\nSetting OMP_NUM_THREADS environment variable for each process to be 1 in default, to "
              "avoid your system being overloaded, please further tune the variable for optimal performance in "
              "your application as needed. \n" + "*" * 41, file=sys.stderr, flush=True)
    command = _command(args)
    redirect = int(args.redirects) if args.redirects.isdigit() else 0
    if redirect and not args.log_dir:
        raise SystemExit("error: --redirects needs --log-dir")
    procs, files = [], []
    previous_term = signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        for rank in range(n):
            worker_env = dict(env, RANK=str(rank), LOCAL_RANK=str(rank), ROLE_RANK=str(rank))
            out = err = None
            if redirect:  # torchrun's layout: LOG_DIR/RUN_ID/attempt_0/LOCAL_RANK/{stdout,stderr}.log
                folder = os.path.join(args.log_dir, args.rdzv_id, "attempt_0", str(rank))
                os.makedirs(folder, exist_ok=True)
                if redirect & 1:
                    out = open(os.path.join(folder, "stdout.log"), "w")
                    files.append(out)
                if redirect & 2:
                    err = open(os.path.join(folder, "stderr.log"), "w")
                    files.append(err)
            procs.append(subprocess.Popen(command, env=worker_env, stdout=out, stderr=err,
                                          preexec_fn=_die_with_parent))
        failures = []
        while True:
            codes = [p.poll() for p in procs]
            for rank, (p, code) in enumerate(zip(procs, codes)):
                if code not in (None, 0) and all(f[1] != rank for f in failures):
                    failures.append((datetime.datetime.now().strftime("%Y-%m-%d_%H:%M:%S"), rank, code, p.pid))
            if failures:
                _stop(procs, _GRACE_S)
                print(_report(args.training_script, failures), file=sys.stderr, flush=True)
                return 1
            if all(c == 0 for c in codes):
                return 0
            time.sleep(args.monitor_interval)
    except KeyboardInterrupt:
        _stop(procs, _GRACE_S)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous_term)
        for f in files:
            f.close()


if __name__ == "__main__":
    sys.exit(main())
