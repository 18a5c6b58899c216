#!/usr/bin/env bash
# README's two commands on a Debian release's own Python, as a user's machine has it:
#
#     .ci/debian_python.sh DIST [PYTHON [collect]]   e.g.  .ci/debian_python.sh trixie   (Python 3.13)
#                                                          .ci/debian_python.sh sid python3.14
#
# debootstrap builds a minimal DIST from this machine's Debian mirror; inside it Debian's PYTHON (default python3)
# makes a venv, `pip install -e ".[test]"` of a copy of the checkout takes the registry's newest numpy, the main job
# must print README's lines (.ci/readme_lines.py), and pytest runs the suite. PyTorch is not installed there (its
# comparisons skip, the outputs it printed and the suite stores stand in); like CI's numpy-floor stage, the suite
# leaves out what does no arithmetic of numpy's own (the layout tests, the whole programs, the launcher, the
# ecosystem). With ``collect`` the suite is only collected (every test module imports on that Python): CI runs one
# release's suite whole and the other's collection, the two on its two cores beside the main stages. Needs root
# (debootstrap, chroot, mount).
set -euo pipefail
dist=$1
python=${2:-python3}
what=${3:-suite}
repo=$(cd "$(dirname "$0")/.." && pwd)
data=${TINYTORCH_DATA_ROOT:-$(dirname "$repo")/shared/datasets}
stamp() { echo "[$dist $(date +%T)] $*"; }

# the Debian mirror this machine's apt uses (its main archive, not the security one)
mirror=$(apt-cache policy | awk '/^ *[0-9]+ [a-z]+:\/\//{uri=$2} /release .*o=Debian,.*l=Debian,/{print uri; exit}')
if [ -z "$mirror" ]; then echo "no Debian mirror in this machine's apt configuration" >&2; exit 1; fi

work=$(mktemp -d)
root=$work/$dist
mounts=()
cleanup() {
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" || true; done
    rm -rf --one-file-system "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT  # stopped by .ci/run: the mounts still go
bind() {  # the host's path $1, read-only, at the same path inside the chroot
    if [ -d "$1" ]; then mkdir -p "$root$1"; else mkdir -p "$(dirname "$root$1")"; touch "$root$1"; fi
    mount -o bind,ro "$1" "$root$1"
    mounts+=("$root$1")
}

stamp "debootstrap --variant=minbase $dist from $mirror"
packages=ca-certificates,$python,$python-venv
[ "$python" = python3 ] || packages=$packages,python3
debootstrap --variant=minbase --include="$packages" "$dist" "$root" "$mirror" > "$work/debootstrap.log" 2>&1 \
    || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
stamp "$(chroot "$root" "$python" --version)"

# pip reaches the registry as this machine's pip does: its CA bundle, and its configuration (files and PIP_*
# variables, as `pip config list` reports them) written into the chroot, with the local paths it names (wheel
# folders, indexes, constraint files) bound in read-only
cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
python3 -m pip config list 2>/dev/null | python3 -c '
import re, sys
sections = {}
for line in sys.stdin:
    m = re.match(r"(.*?)\.([\w-]+)=(.*)$", line.strip())
    if m:
        section = "global" if m.group(1) in (":env:", "") else m.group(1)
        sections.setdefault(section, {})[m.group(2)] = m.group(3).strip("\x27\"")
for section, items in sections.items():
    print(f"[{section}]")
    print("".join(f"{k} = {v}\n" for k, v in items.items()))
' > "$root/etc/pip.conf"
for path in $(grep -o '\(file://\)\?/[^ ]*' "$root/etc/pip.conf" | sed 's|^file://||; s|/$||' | sort -u); do
    # a local index (.../simple) links its files relative to itself (../../files/...): its whole folder comes in
    case $path in */simple) path=$(dirname "$path") ;; esac
    if [ -e "$path" ] && [ ! -e "$root$path" ]; then bind "$path"; fi
done

# the checkout as the working tree has it (tracked and untracked files, not what git ignores) and the shared
# data beside it, as README's `--data-root ../shared/datasets` finds it
mkdir -p "$root/src/tinytorch" "$root/src/shared"
(cd "$repo" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$root/src/tinytorch"
cp -r "$data" "$root/src/shared/datasets"
# /proc for the tests that read it, /dev/shm for the DataLoader workers' and MPI's shared memory
mount -t proc proc "$root/proc"
mounts+=("$root/proc")
mkdir -p "$root/dev/shm"
mount -t tmpfs shm "$root/dev/shm"
mounts+=("$root/dev/shm")

inside() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/venv/bin:/usr/bin:/bin LANG=C.UTF-8 \
    TINYTORCH_DATA_ROOT=/src/shared/datasets bash -c "cd /src/tinytorch && $1"; }

stamp "venv, and README's install command"
inside "$python -m venv /venv && pip install --quiet -e '.[test]'"
stamp "$(inside "python -c 'import sys, numpy; print(\"Python\", sys.version.split()[0], \"numpy\", numpy.__version__)'")"

stamp "README's main job"
inside "python train_fashion_mnist.py --data-root ../shared/datasets --no-download" > "$work/main.txt" 2> "$work/main.err"
python3 "$repo/.ci/readme_lines.py" < "$work/main.txt"

# CI's gate: with DEBIAN_SUITE_AFTER set, the suite waits until that file exists (CI creates it once its own
# stages are done: a suite beside them would share the two cores with theirs, and BLAS threads spinning on an
# oversubscribed machine slow both far more than running one after the other)
if [ -n "${DEBIAN_SUITE_AFTER:-}" ] && [ "$what" != collect ]; then
    stamp "waiting for CI's stages to finish"
    while [ ! -e "$DEBIAN_SUITE_AFTER" ]; do sleep 5; done
fi
leave_out="--ignore=tests/house --ignore=tests/distributed --ignore=tests/ecosystem \
    --ignore=tests/scripts/test_scripts_train_fashion_mnist.py --ignore=tests/scripts/test_scripts_char_lm.py \
    --ignore=tests/scripts/test_scripts_vae.py"
if [ "$what" = collect ]; then
    stamp "the suite's collection (PyTorch absent)"
    inside "set -o pipefail; pytest -p no:cacheprovider --collect-only $leave_out | tail -n 3"
else
    stamp "the suite (PyTorch absent: its comparisons skip)"
    inside "pytest -p no:cacheprovider $leave_out"
fi
stamp "done"
