#!/bin/bash
# PID 1 of the real-compositor guest (run by the rootfs's /hypruse-init,
# guest/stub.sh, from this boot's job directory). Brings up the system part of a desktop (udev, seatd), mounts
# the project (/hypruse, read-only) and the job directory (/job, read-write),
# runs /job/plan.sh with the helpers of lib.sh, and powers off. Every line it
# prints goes to the serial console, which the host keeps as serial.log.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LANG=C.UTF-8
exec >/dev/console 2>&1
echo "hypruse-guest: init started (uptime $(cut -d' ' -f1 /proc/uptime) s)"
poweroff_now() { sync; sleep 1; sync; echo o >/proc/sysrq-trigger; sleep 30; }
trap poweroff_now EXIT
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sys /sys
mountpoint -q /dev || mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mountpoint -q /run || mount -t tmpfs -o mode=755 run /run
mount -t tmpfs -o mode=1777,size=2g tmp /tmp
mkdir -p /hypruse /job
# The checkout comes read-only; an overlay with a tmpfs upper layer lets tools write beside it
# (vite writes its bundled config under node_modules/.vite-temp) without touching the host.
mkdir -p /run/hypruse-ro /tmp/.hypruse-upper /tmp/.hypruse-work
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=loose,ro hypruse /run/hypruse-ro || echo "hypruse-guest: FAILED to mount the project"
modprobe -q overlay 2>/dev/null
mount -t overlay -o lowerdir=/run/hypruse-ro,upperdir=/tmp/.hypruse-upper,workdir=/tmp/.hypruse-work overlay /hypruse \
  || { echo "hypruse-guest: overlay failed; the project is read-only"; mount --bind /run/hypruse-ro /hypruse; }
mkdir -p /hypruse/node_modules/.vite-temp && chown 1000:1000 /hypruse/node_modules/.vite-temp
mountpoint -q /job || mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 job /job || echo "hypruse-guest: FAILED to mount the job directory"
hostname hypruse-vm
echo "hypruse-guest: mounts done (uptime $(cut -d' ' -f1 /proc/uptime) s)"
. /job/lib.sh
# The guest's time scale (HYPRUSE_TIME_SCALE, hypruse's one timeout policy, 0.1..100): given by the
# host (HYPRUSE_VM_TIME_SCALE), else from how long the boot took.
if [ -s /job/time-scale ]; then HYPRUSE_TIME_SCALE=$(cat /job/time-scale)
else HYPRUSE_TIME_SCALE=$(awk -v u="$(cut -d' ' -f1 /proc/uptime)" -v n="$GUEST_NOMINAL_INIT_UPTIME" -v b="$GUEST_BASE_SCALE" 'BEGIN{ s=b*u/n; if (s<b) s=b; if (s>100) s=100; printf "%.1f", s }')
fi
export HYPRUSE_TIME_SCALE
echo "hypruse-guest: time scale $HYPRUSE_TIME_SCALE"
guest_system_up
if [ -f /job/plan.sh ]; then
  ( . /job/plan.sh ) 
  echo "hypruse-guest: plan exited with $?"
else
  echo "hypruse-guest: no /job/plan.sh"
fi
dmesg >"$OUT/dmesg.txt" 2>&1
echo "hypruse-guest: done (uptime $(cut -d' ' -f1 /proc/uptime) s)"
