#!/usr/bin/env bash
# Builds the Debian sid rootfs of the real-compositor guest into DEST.
# Usage: build-rootfs.sh DEST PACKAGES_FILE
# Needs root, debootstrap and a reachable Debian mirror. DEST must not exist.
set -Eeuo pipefail
DEST=$1
PKGS=$2
MIRROR=${HYPRUSE_VM_MIRROR:-http://deb.debian.org/debian}
t0=$(date +%s)
phase() { printf 'phase %s %ss\n' "$1" "$(( $(date +%s) - t0 ))"; t0=$(date +%s); }

mounted=()
cleanup() {
  for ((i=${#mounted[@]}-1; i>=0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT

debootstrap --variant=minbase --include=ca-certificates sid "$DEST" "$MIRROR" >"$DEST.debootstrap.log" 2>&1 \
  || { tail -30 "$DEST.debootstrap.log" >&2; exit 1; }
phase debootstrap

# The mirror's sid Release file can be past its Valid-Until date.
echo 'Acquire::Check-Valid-Until "false";' >"$DEST/etc/apt/apt.conf.d/99hypruse-valid-until"
printf '#!/bin/sh\nexit 101\n' >"$DEST/usr/sbin/policy-rc.d"; chmod +x "$DEST/usr/sbin/policy-rc.d"
for m in proc sys dev; do mount --bind "/$m" "$DEST/$m"; mounted+=("$DEST/$m"); done

mapfile -t list < <(grep -v '^\s*#' "$PKGS" | grep -v '^\s*$')
chroot "$DEST" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
chroot "$DEST" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  -o Dpkg::Use-Pty=0 "${list[@]}" >"$DEST.install.log" 2>&1 \
  || { tail -40 "$DEST.install.log" >&2; exit 1; }
chroot "$DEST" apt-get clean
phase chroot-install

printf '%s\n' netfs 9pnet 9pnet_virtio 9p virtio_pci virtio_gpu vgem >>"$DEST/etc/initramfs-tools/modules"
chroot "$DEST" update-initramfs -u -k all >/dev/null 2>&1
phase initramfs

# The desktop user: uid 1000, in the groups that open the DRM and input devices.
for g in video render input; do chroot "$DEST" groupadd -f "$g"; done
chroot "$DEST" useradd -m -u 1000 -U -G video,render,input -s /bin/sh desk
echo hypruse-vm >"$DEST/etc/hostname"
rm -f "$DEST/usr/sbin/policy-rc.d"
cleanup; mounted=()
phase user
