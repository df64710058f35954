#!/bin/sh
# Deserializes every request the niri plugin sends and every reply and event
# the niri simulator produces with niri's own IPC types (the niri-ipc crate
# Debian packages as librust-niri-ipc-dev), built offline in a Debian sid
# rootfs against Debian's crate registry.
#
#   tests/niri-ipc-check/check.sh ROOTFS [LINES.jsonl]
#
# ROOTFS must have cargo, rustc, librust-niri-ipc-dev and
# librust-serde-json-dev installed. LINES defaults to a fresh run of
# produce.ts (needs this checkout's node_modules). Prints the failures, then
# `N passed, N failed`; exits 1 on any failure or when nothing was checked.
# Run as root (chroot, mounts).
set -eu

ROOTFS=${1:-}
if [ -z "$ROOTFS" ] || [ ! -d "$ROOTFS" ]; then
  echo "usage: $0 ROOTFS [LINES.jsonl]  (ROOTFS: a Debian sid root with cargo, rustc, librust-niri-ipc-dev, librust-serde-json-dev)" >&2
  echo "0 passed, 1 failed"
  exit 2
fi
ROOTFS=$(cd "$ROOTFS" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

for need in /usr/bin/cargo /usr/bin/rustc; do
  if [ ! -x "$ROOTFS$need" ]; then
    echo "niri-ipc-check: $ROOTFS has no $need; install cargo rustc librust-niri-ipc-dev librust-serde-json-dev there" >&2
    echo "0 passed, 1 failed"
    exit 1
  fi
done
if ! ls -d "$ROOTFS"/usr/share/cargo/registry/niri-ipc-* >/dev/null 2>&1; then
  echo "niri-ipc-check: $ROOTFS has no niri-ipc crate in /usr/share/cargo/registry; install librust-niri-ipc-dev there" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

WORK=/var/tmp/hypruse-niri-ipc-check.$$
MOUNTED=""
CHILD=""
cleanup() {
  # a signal lands here at once (the chroot runs in the background, see inroot): stop it first
  if [ -n "$CHILD" ]; then
    kill -TERM "-$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  for m in $MOUNTED; do umount -l "$ROOTFS$m" 2>/dev/null || true; done
  rm -rf "$ROOTFS$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# Run a command line in the rootfs, in its own process group, waited for in a
# way a signal interrupts (so the traps above run at once, not after cargo).
inroot() {
  setsid chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root CARGO_HOME="$WORK/.cargo-home" sh -c "$1" &
  CHILD=$!
  rc=0
  wait "$CHILD" || rc=$?
  CHILD=""
  return $rc
}

mkdir -p "$ROOTFS$WORK"
cp -r "$HERE/Cargo.toml" "$HERE/src" "$HERE/.cargo" "$ROOTFS$WORK/"
if [ -f "$HERE/Cargo.lock" ]; then cp "$HERE/Cargo.lock" "$ROOTFS$WORK/"; fi

if [ $# -ge 2 ]; then
  cp "$2" "$ROOTFS$WORK/lines.jsonl"
else
  (cd "$REPO" && node --conditions=@hypruse/source --import tsx tests/niri-ipc-check/produce.ts) > "$ROOTFS$WORK/lines.jsonl"
fi

for m in /proc /sys /dev; do
  mkdir -p "$ROOTFS$m"
  case $m in
    /proc) mount -t proc proc "$ROOTFS$m" ;;
    *) mount --rbind "$m" "$ROOTFS$m" && mount --make-rslave "$ROOTFS$m" ;;
  esac
  MOUNTED="$m $MOUNTED"
done

crate=$(basename "$(ls -d "$ROOTFS"/usr/share/cargo/registry/niri-ipc-* | sort -V | tail -1)")
echo "niri-ipc-check: building against Debian's $crate (offline)" >&2
if ! inroot "cd '$WORK' && cargo build --offline --quiet" >&2; then
  echo "niri-ipc-check: cargo build failed in $ROOTFS" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
rc=0
inroot "'$WORK/target/debug/niri-ipc-check' < '$WORK/lines.jsonl'" || rc=$?
exit $rc
