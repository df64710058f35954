# Helpers of the real-compositor guest, sourced by init.sh (from /job/lib.sh)
# and used by the host-written /job/plan.sh:
#   guest_system_up                 udev, seatd (called by init.sh)
#   session_up                      the desktop user's runtime dir, session bus, AT-SPI bus
#   start_hyprland | start_sway | start_labwc
#                                   start that compositor for the desktop user; writes $SESSION_ENV
#   stop_compositor                 stop it, keep its log in /job/out/<name>/
#   as_desk CMD...                  run CMD as the desktop user with the session environment
#   as_desk_exec CMD... &           the same, replacing the background subshell: $! is CMD's own pid
#   phase NAME                      record a timing line in /job/out/phases.txt
DESK_UID=1000
DESK_HOME=/home/desk
RUNDIR=/run/user/$DESK_UID
SESSION_ENV=$RUNDIR/hypruse-session.env
OUT=/job/out
mkdir -p "$OUT"
chmod 777 "$OUT" 2>/dev/null
COMPOSITOR=
COMPOSITOR_PID=
PHASE_T0=$(cut -d' ' -f1 /proc/uptime)
# TCG runs ~10x slower than the host the nominal timeouts were set on; a slower boot than
# GUEST_NOMINAL_INIT_UPTIME (seconds of guest uptime at init on an idle machine) scales it up.
GUEST_BASE_SCALE=10
GUEST_NOMINAL_INIT_UPTIME=12

say() { echo "hypruse-guest: $*"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
phase() {
  local now; now=$(uptime_s)
  printf '%s %s %s\n' "$1" "$(awk -v a="$PHASE_T0" -v b="$now" 'BEGIN{printf "%.1f", b-a}')" "$now" >>"$OUT/phases.txt"
  say "phase $1 done at uptime $now s"
  PHASE_T0=$now
}

# Every 20 s, the process list into /job/out/ps.txt (readable on the host while the guest runs).
watchdog() {
  while sleep 20; do
    { echo "== uptime $(uptime_s)"; ps -eo pid,user,etime,time,stat,args --sort=start_time | cut -c1-200 | tail -40; } >"$OUT/ps.txt.new" 2>&1
    mv "$OUT/ps.txt.new" "$OUT/ps.txt"
  done
}

guest_system_up() {
  watchdog &
  modprobe -q vgem 2>/dev/null; modprobe -q virtio_gpu 2>/dev/null
  /usr/lib/systemd/systemd-udevd --daemon >/dev/null 2>&1 || /lib/systemd/systemd-udevd --daemon
  udevadm trigger --action=add >/dev/null 2>&1
  udevadm settle --timeout=120
  ls -l /dev/dri 2>&1 | sed 's/^/hypruse-guest: dri: /'
  # DRM uevents (hotplug/change) with their time, to tell what makes a compositor re-modeset an output
  udevadm monitor --kernel --property --subsystem-match=drm >"$OUT/udev-drm.log" 2>&1 &
  seatd -g video >"$OUT/seatd.log" 2>&1 &
  phase guest-system
}

# The environment of every desktop process (the compositor's variables are added by start_*).
base_env() {
  echo "HOME=$DESK_HOME"; echo "USER=desk"; echo "LOGNAME=desk"; echo "SHELL=/bin/sh"
  echo "PATH=/usr/local/bin:/usr/bin:/bin"; echo "LANG=C.UTF-8"
  echo "XDG_RUNTIME_DIR=$RUNDIR"; echo "DBUS_SESSION_BUS_ADDRESS=unix:path=$RUNDIR/bus"
  echo "XDG_SESSION_TYPE=wayland"; echo "GDK_BACKEND=wayland"; echo "GTK_A11Y=atspi"
  # GTK 4's GL renderers crash on this guest's llvmpipe (egl: failed to create dri2 screen).
  echo "GSK_RENDERER=cairo"
  echo "HYPRUSE_TIME_SCALE=${HYPRUSE_TIME_SCALE:-1}"
  echo "HYPRUSE_REAL_GUEST=1"
  echo "NODE_OPTIONS=--max-old-space-size=1536"
}

# as_desk CMD...: run as the desktop user with the session environment (base_env + $SESSION_ENV).
as_desk() {
  local envs=()
  mapfile -t envs < <(base_env; [ -f "$SESSION_ENV" ] && cat "$SESSION_ENV")
  setpriv --reuid=$DESK_UID --regid=$DESK_UID --init-groups env -i "${envs[@]}" "$@"
}

# as_desk_exec CMD...: as_desk for a command started in the background (`as_desk_exec CMD &`): the
# subshell execs setpriv, which execs env, which execs CMD, so $! is the pid of CMD itself.
as_desk_exec() {
  local envs=()
  mapfile -t envs < <(base_env; [ -f "$SESSION_ENV" ] && cat "$SESSION_ENV")
  exec setpriv --reuid=$DESK_UID --regid=$DESK_UID --init-groups env -i "${envs[@]}" "$@"
}

# Processes are stopped by pid, never by name. desc_pids PID: PID's descendants. desk_pids: the desktop
# user's processes. stage_mark (at a compositor's start) records those already running (the session
# buses); stop_compositor stops, by pid, what the desktop user started since: the compositor, the
# suites, the apps they or the compositor started (a launcher may have re-parented them to init), and
# the services the buses started on demand during the stage (at-spi2-registryd, dconf-service: the next
# stage's first call starts them again).
desc_pids() { local c; for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; desc_pids "$c"; done; }
desk_pids() { ps -o pid= -u $DESK_UID 2>/dev/null | tr -d ' '; }
STAGE_BASE=
stage_mark() { STAGE_BASE=" $(desk_pids | tr '\n' ' ') "; }
stage_pids() { local p; for p in $(desk_pids); do case "$STAGE_BASE" in *" $p "*) ;; *) echo "$p" ;; esac; done; }

session_up() {
  mkdir -p "$RUNDIR"; chown $DESK_UID:$DESK_UID "$RUNDIR"; chmod 700 "$RUNDIR"
  rm -f "$SESSION_ENV"
  rm -rf "$DESK_HOME/.config/hypr" "$DESK_HOME/.config/sway" "$DESK_HOME/.config/labwc" "$DESK_HOME/.cache" "$DESK_HOME/.local/state/hypruse"
  as_desk dbus-daemon --session --address="unix:path=$RUNDIR/bus" --fork --print-pid >/dev/null
  as_desk /usr/libexec/at-spi-bus-launcher --launch-immediately >"$OUT/at-spi.log" 2>&1 &
  local i
  for i in $(seq 1 120); do
    [ -S "$RUNDIR/at-spi/bus" ] && break
    sleep 0.5
  done
  [ -S "$RUNDIR/at-spi/bus" ] || say "WARNING: the AT-SPI bus did not come up"
  phase session
}

write_hypr_config() {
  install -d -o $DESK_UID -g $DESK_UID "$DESK_HOME/.config" "$DESK_HOME/.config/hypr"
  cat >"$DESK_HOME/.config/hypr/hyprland.lua" <<'LUA'
hl.monitor({ output = "", mode = "preferred", position = "auto", scale = 1 })
hl.monitor({ output = "Virtual-1", mode = "1920x1080@60", position = "0x0", scale = 1 })
hl.monitor({ output = "HEADLESS-1", mode = "1920x1080", position = "1920x0", scale = 1.5 })
hl.config({
  animations = { enabled = false },
  decoration = { blur = { enabled = false }, shadow = { enabled = false }, rounding = 0 },
  misc = { disable_hyprland_logo = true, disable_splash_rendering = true, force_default_wallpaper = 0,
           disable_hyprland_guiutils_check = true, disable_watchdog_warning = true },
  ecosystem = { no_update_news = true, no_donation_nag = true },
  xwayland = { enabled = false },
  input = { kb_layout = "us", follow_mouse = 1 },
})
hl.config({ debug = { disable_logs = false } })
hl.bind("SUPER + Return", hl.dsp.exec_cmd("foot -a hypruse.bind -T 'bind foot'"), { description = "open a terminal" })
hl.bind("SUPER + Q", hl.dsp.window.close(), { description = "close the focused window" })
hl.bind("SUPER + 2", hl.dsp.focus({ workspace = 2 }), { description = "go to workspace 2" })
LUA
  chown $DESK_UID:$DESK_UID "$DESK_HOME/.config/hypr/hyprland.lua"
}

# One request to Hyprland's request socket, straight through socat: hyprctl gives up after a
# fixed 5 s, which a loaded TCG guest exceeds.
HYPR_SIG=
hypr_ipc() {
  printf '%s' "$1" | timeout 300 socat -t 300 - "UNIX-CONNECT:$RUNDIR/hypr/$HYPR_SIG/.socket.sock"
}

start_hyprland() {
  COMPOSITOR=hyprland
  mkdir -p "$OUT/hyprland"; chmod 777 "$OUT/hyprland"
  write_hypr_config
  rm -rf "$RUNDIR/hypr"
  # GALLIUM_OVERRIDE_CPU_CAPS=sse4.1: llvmpipe's shaders without AVX. With AVX2, a texture fetch's
  # vpgatherdd faults (SIGSEGV) in llvmpipe's rasterizer threads under QEMU TCG as soon as a window is
  # drawn scaled (HEADLESS-1, scale 1.5); docs/real-compositors.md has the backtrace.
  stage_mark
  as_desk_exec env LIBSEAT_BACKEND=seatd GALLIUM_OVERRIDE_CPU_CAPS=sse4.1 Hyprland >"$OUT/hyprland/stdout.log" 2>&1 &
  COMPOSITOR_PID=$!
  local sig="" i
  for i in $(seq 1 1200); do
    sig=$(ls -1 "$RUNDIR/hypr" 2>/dev/null | head -1)
    if [ -n "$sig" ] && [ -S "$RUNDIR/hypr/$sig/.socket.sock" ]; then
      HYPR_SIG=$sig
      hypr_ipc j/status 2>/dev/null | grep -q configProvider && break
    fi
    kill -0 $COMPOSITOR_PID 2>/dev/null || { say "Hyprland exited"; tail -30 "$OUT/hyprland/stdout.log"; return 1; }
    sleep 0.5
  done
  [ -n "$sig" ] || { say "Hyprland did not create its instance"; return 1; }
  local wl
  wl=$(hypr_ipc j/instances | jq -r --arg s "$sig" '.[] | select(.instance==$s) | .wl_socket' 2>/dev/null)
  [ -n "$wl" ] || wl=$(cd "$RUNDIR" && ls -1 wayland-* 2>/dev/null | grep -v lock | head -1)
  say "Hyprland instance $sig on $wl: $(hypr_ipc j/status | tr -d '\n ')"
  printf 'HYPRLAND_INSTANCE_SIGNATURE=%s\nWAYLAND_DISPLAY=%s\nXDG_CURRENT_DESKTOP=Hyprland\n' "$sig" "$wl" >"$SESSION_ENV"
  chown $DESK_UID "$SESSION_ENV"
  phase hyprland-ipc
  # Two monitors: the virtio-gpu output Virtual-1 (DRM, scale 1) and one headless output (scale 1.5).
  # Virtual-1 stays enabled: a disabled DRM output is modeset again on the next DRM change uevent,
  # and Hyprland 0.57 crashed (SIGSEGV) that way in this guest. A loaded guest sometimes loses a
  # request (the connection is reset) or shows the new output only after a while: wait for it
  # before asking again, and remove any extra ones.
  local mons="" n n2 j extra
  headless() { hypr_ipc 'j/monitors all' 2>/dev/null | jq -r '.[].name' 2>/dev/null | grep '^HEADLESS' | sort -V; }
  for i in $(seq 1 6); do
    kill -0 $COMPOSITOR_PID 2>/dev/null || { say "Hyprland exited while its outputs were set up"; tail -5 "$OUT/hyprland/stdout.log"; return 1; }
    n=$(headless | wc -l)
    [ "$n" -ge 1 ] && break
    say "output create headless: $(hypr_ipc 'output create headless' 2>&1 | tr '\n' ' ')"
    for j in $(seq 1 30); do
      sleep 1
      n2=$(headless | wc -l)
      [ "$n2" -gt "$n" ] && break
    done
  done
  for extra in $(headless | tail -n +2); do say "output remove $extra: $(hypr_ipc "output remove $extra" 2>&1 | tr '\n' ' ')"; done
  for i in $(seq 1 60); do
    mons=$(hypr_ipc j/monitors 2>&1)
    [ "$(printf '%s' "$mons" | jq -r '[.[] | select((.name == "Virtual-1" and .width == 1920 and .scale == 1) or (.name == "HEADLESS-1" and .scale == 1.5))] | length' 2>/dev/null)" = 2 ] && break
    sleep 1
  done
  printf '%s\n' "$mons" >"$OUT/hyprland/monitors.json"
  gdb_attach Hyprland "$COMPOSITOR_PID" "$OUT/hyprland"
  say "monitors: $(printf '%s' "$mons" | jq -c '[.[] | {name, width, height, scale, x, y, focused}]' 2>&1 | head -c 600)"
  phase hyprland-ready
}

start_sway() {
  COMPOSITOR=sway
  mkdir -p "$OUT/sway"; chmod 777 "$OUT/sway"
  install -d -o $DESK_UID -g $DESK_UID "$DESK_HOME/.config" "$DESK_HOME/.config/sway"
  cat >"$DESK_HOME/.config/sway/config" <<'SWAY'
output HEADLESS-1 resolution 1920x1080 position 0 0 scale 1
output HEADLESS-2 resolution 1920x1080 position 1920 0 scale 1.5
default_border normal
focus_follows_mouse no
bindsym Mod4+Return exec foot -a hypruse.bind -T 'bind foot'
bindsym Mod4+q kill
SWAY
  chown $DESK_UID:$DESK_UID "$DESK_HOME/.config/sway/config"
  local sock=$RUNDIR/sway-ipc.sock
  rm -f "$sock" "$RUNDIR"/wayland-*
  stage_mark
  as_desk_exec env SWAYSOCK="$sock" WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS=2 WLR_LIBINPUT_NO_DEVICES=1 \
    sway -c "$DESK_HOME/.config/sway/config" >"$OUT/sway/stdout.log" 2>&1 &
  COMPOSITOR_PID=$!
  local i wl=""
  for i in $(seq 1 240); do
    wl=$(cd "$RUNDIR" && ls -1 wayland-* 2>/dev/null | grep -v lock | head -1)
    if [ -n "$wl" ] && [ -S "$sock" ] && as_desk env SWAYSOCK="$sock" swaymsg -t get_version >/dev/null 2>&1; then break; fi
    kill -0 $COMPOSITOR_PID 2>/dev/null || { say "sway exited"; tail -30 "$OUT/sway/stdout.log"; return 1; }
    sleep 0.5
  done
  printf 'SWAYSOCK=%s\nWAYLAND_DISPLAY=%s\nXDG_CURRENT_DESKTOP=sway\n' "$sock" "$wl" >"$SESSION_ENV"
  chown $DESK_UID "$SESSION_ENV"
  as_desk swaymsg -t get_outputs | jq -c '[.[] | {name, rect, scale, focused}]' | sed 's/^/hypruse-guest: outputs: /'
  phase sway-ready
}

# labwc: no IPC socket; hypruse drives it through the Wayland protocols (the wlroots plugin). Two headless
# outputs like sway's, laid out with wlr-randr (wlr-output-management): HEADLESS-2 at scale 1.5.
start_labwc() {
  COMPOSITOR=labwc
  mkdir -p "$OUT/labwc"; chmod 777 "$OUT/labwc"
  install -d -o $DESK_UID -g $DESK_UID "$DESK_HOME/.config" "$DESK_HOME/.config/labwc"
  cat >"$DESK_HOME/.config/labwc/rc.xml" <<'LABWC'
<?xml version="1.0"?>
<labwc_config>
  <core><decoration>server</decoration></core>
  <focus><followMouse>no</followMouse></focus>
  <desktops number="4"/>
  <keyboard>
    <keybind key="W-Return"><action name="Execute" command="foot -a hypruse.bind -T 'bind foot'"/></keybind>
    <keybind key="W-q"><action name="Close"/></keybind>
  </keyboard>
</labwc_config>
LABWC
  : >"$DESK_HOME/.config/labwc/autostart"
  chown -R $DESK_UID:$DESK_UID "$DESK_HOME/.config/labwc"
  rm -f "$RUNDIR"/wayland-*
  stage_mark
  as_desk_exec env WLR_BACKENDS=headless WLR_RENDERER=pixman WLR_HEADLESS_OUTPUTS=2 WLR_LIBINPUT_NO_DEVICES=1 \
    labwc -C "$DESK_HOME/.config/labwc" >"$OUT/labwc/stdout.log" 2>&1 &
  COMPOSITOR_PID=$!
  local i wl=""
  for i in $(seq 1 240); do
    wl=$(cd "$RUNDIR" && ls -1 wayland-* 2>/dev/null | grep -v lock | head -1)
    if [ -n "$wl" ] && as_desk env WAYLAND_DISPLAY="$wl" wlr-randr >/dev/null 2>&1; then break; fi
    kill -0 $COMPOSITOR_PID 2>/dev/null || { say "labwc exited"; tail -30 "$OUT/labwc/stdout.log"; return 1; }
    sleep 0.5
  done
  printf 'WAYLAND_DISPLAY=%s\nXDG_CURRENT_DESKTOP=labwc:wlroots\n' "$wl" >"$SESSION_ENV"
  chown $DESK_UID "$SESSION_ENV"
  as_desk wlr-randr --output HEADLESS-1 --custom-mode 1920x1080 --pos 0,0 --scale 1 \
    --output HEADLESS-2 --custom-mode 1920x1080 --pos 1920,0 --scale 1.5 2>&1 | sed 's/^/hypruse-guest: wlr-randr: /'
  for i in $(seq 1 40); do
    as_desk wlr-randr --json 2>/dev/null | jq -e '[.[] | select(.enabled and .scale == 1.5)] | length == 1' >/dev/null && break
    sleep 0.5
  done
  as_desk wlr-randr --json | jq -c '[.[] | {name, position, scale, enabled}]' | sed 's/^/hypruse-guest: outputs: /'
  say "labwc $(labwc --version 2>&1 | head -1) on $wl"
  phase labwc-ready
}

# gdb_attach NAME PID DIR: if the rootfs has gdb, attach it to PID (the compositor NAME); a fatal
# signal leaves the crash's registers, backtraces and stack scan in DIR/gdb.txt (crash-report.gdb).
gdb_attach() {
  command -v gdb >/dev/null || return 0
  local pid=$2 t0
  kill -0 "$pid" 2>/dev/null || { say "gdb: no $1 process (pid $pid) to attach to"; return 0; }
  t0=$(uptime_s)
  gdb -q -nx -batch -p "$pid" -x /hypruse/tests/real/guest/crash-report.gdb >"$3/gdb.txt" 2>&1 &
  # the attach stops the program (state t) while gdb reads its libraries' symbols: wait until it runs again
  local i st stopped=
  for i in $(seq 1 1200); do
    sleep 0.5
    st=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
    if [ "$st" = t ]; then stopped=1; elif [ -n "$stopped" ]; then break; fi
    kill -0 $! 2>/dev/null || break
  done
  say "gdb attached to $1 (pid $pid) in $(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN{printf "%.1f", b-a}') s"
}

# suites_watch NAME PID: wait for the suites (PID, a background job); if the compositor exits first,
# write $OUT/NAME/crashed, stop the suites (PID's descendants, by pid) and return 1.
suites_watch() {
  local name=$1 pid=$2
  while kill -0 "$pid" 2>/dev/null; do
    if [ -n "$COMPOSITOR_PID" ] && ! kill -0 "$COMPOSITOR_PID" 2>/dev/null; then
      say "$name exited during its suites (uptime $(uptime_s) s): stopping them"
      echo "exited during its suites at guest uptime $(uptime_s) s" >"$OUT/$name/crashed"
      local suites
      suites=$(desc_pids "$pid")
      [ -n "$suites" ] && kill -TERM $suites 2>/dev/null
      sleep 10
      suites=$(desc_pids "$pid")
      [ -n "$suites" ] && kill -KILL $suites 2>/dev/null
      wait "$pid" 2>/dev/null
      return 1
    fi
    sleep 2
  done
  wait "$pid"
}

stop_compositor() {
  [ -n "$COMPOSITOR_PID" ] || return 0
  if [ "$COMPOSITOR" = hyprland ]; then
    cp "$RUNDIR"/hypr/*/hyprland.log "$OUT/hyprland/hyprland.log" 2>/dev/null
    # a crash report (session_up clears ~/.cache on the next boot)
    cp "$DESK_HOME"/.cache/hyprland/hyprlandCrashReport*.txt "$OUT/hyprland/" 2>/dev/null
  fi
  # what the desktop user started since the compositor's start, except the compositor (stopped last)
  local left
  left=$(stage_pids | grep -vx "$COMPOSITOR_PID")
  [ -n "$left" ] && say "stopping $(echo $left | wc -w) processes left from the $COMPOSITOR stage: $(ps -o pid=,comm= -p "$(echo $left | tr ' ' ,)" 2>/dev/null | tr -s ' \n' ' ')"
  [ -n "$left" ] && kill -TERM $left 2>/dev/null
  # $COMPOSITOR_PID is the compositor itself (as_desk_exec)
  kill -TERM "$COMPOSITOR_PID" 2>/dev/null
  local i
  for i in $(seq 1 40); do kill -0 "$COMPOSITOR_PID" 2>/dev/null || break; sleep 0.25; done
  kill -KILL "$COMPOSITOR_PID" 2>/dev/null
  wait "$COMPOSITOR_PID" 2>/dev/null
  left=$(stage_pids)
  [ -n "$left" ] && kill -KILL $left 2>/dev/null
  rm -f "$SESSION_ENV"
  COMPOSITOR_PID=
  phase "$COMPOSITOR-stopped"
}
