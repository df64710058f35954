#!/bin/sh
# Waybar custom module: shows when an AI agent has hands on this desktop.
# Reads the hypruse activity beacon ($XDG_RUNTIME_DIR/hypruse/state.json,
# written by hypruse while a session runs) and prints one JSON line:
#   active: a call is running right now        class "active"
#   idle:   a hypruse session is connected     class "idle"
#   off:    no live hypruse process            class "off", empty text
# JSON is built with jq so nothing from the beacon can inject markup or
# break the line; without jq only fixed strings are printed.
# Click to stop the session: "on-click": "hypruse stop" (see README.md).

# the same place hypruse writes it: $XDG_RUNTIME_DIR, else /run/user/<uid>, else /tmp/hypruse-<uid>
if [ -n "$XDG_RUNTIME_DIR" ]; then
  dir="$XDG_RUNTIME_DIR/hypruse"
elif [ -d "/run/user/$(id -u)" ]; then
  dir="/run/user/$(id -u)/hypruse"
else
  dir="/tmp/hypruse-$(id -u)"
fi
beacon="$dir/state.json"

off() {
  printf '{"text":"","class":"off","tooltip":""}\n'
  exit 0
}

[ -r "$beacon" ] || off

if command -v jq >/dev/null 2>&1; then
  pid=$(jq -r '.pid // empty | tostring' "$beacon" 2>/dev/null) || off
  case "$pid" in '' | *[!0-9]*) off ;; esac
  kill -0 "$pid" 2>/dev/null || [ -d "/proc/$pid" ] || off
  exec jq -c --arg icon "${HYPRUSE_WAYBAR_ICON:-󰚩}" '
    def mode: [ (if .mode.readonly then "read-only" else empty end),
                (if .mode.dry_run then "dry run" else empty end),
                (if .mode.confine then "confined" else empty end),
                (if .mode.strict then "strict" else empty end) ] | join(", ");
    if .state == "active" then
      { text: $icon, class: "active",
        tooltip: ("agent is acting on this desktop: " + (.action // "" | tostring)
                  + (if mode != "" then "\n" + mode else "" end) + "\nclick to stop it") }
    else
      { text: $icon, class: "idle",
        tooltip: ("hypruse session connected (pid " + (.pid | tostring) + ")"
                  + (if (.action // "") != "" then "\nlast: " + (.action | tostring) else "" end)
                  + (if mode != "" then "\n" + mode else "" end) + "\nclick to stop it") }
    end' "$beacon" 2>/dev/null || off
else
  pid=$(sed -n 's/.*"pid":\([0-9][0-9]*\).*/\1/p' "$beacon")
  [ -n "$pid" ] || off
  kill -0 "$pid" 2>/dev/null || [ -d "/proc/$pid" ] || off
  if grep -q '"state":"active"' "$beacon"; then
    printf '{"text":"A","class":"active","tooltip":"agent is acting on this desktop; click to stop it"}\n'
  else
    printf '{"text":"A","class":"idle","tooltip":"hypruse session connected; click to stop it"}\n'
  fi
fi
