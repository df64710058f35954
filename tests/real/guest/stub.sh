#!/bin/bash
# /hypruse-init in the rootfs: the kernel's init. Mounts this boot's job
# directory and runs its init.sh (tests/real/guest/init.sh, copied there by the
# host), so a boot never depends on files another boot may rewrite.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mkdir -p /job
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 job /job
[ -f /job/init.sh ] && exec /bin/bash /job/init.sh
echo "hypruse-guest: no /job/init.sh"; sync; echo o >/proc/sysrq-trigger; sleep 30
