#!/bin/sh
# Waybar custom module: shows when an AI agent has hands on this desktop.
# Reads the hypruse activity beacons ($XDG_RUNTIME_DIR/hypruse/beacons/<pid>.json,
# one per hypruse process: the MCP server, each running shell verb) and prints
# one JSON line:
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
beacons="$dir/beacons"

off() {
  printf '{"text":"","class":"off","tooltip":""}\n'
  exit 0
}

# one beacon per hypruse process (<pid>.json); keep those whose process is alive
live=""
for f in "$beacons"/*.json; do
  [ -r "$f" ] || continue
  pid=${f##*/}
  pid=${pid%.json}
  case "$pid" in '' | *[!0-9]*) continue ;; esac
  kill -0 "$pid" 2>/dev/null || [ -d "/proc/$pid" ] || continue
  live="$live $f"
done
[ -n "$live" ] || off

if command -v jq >/dev/null 2>&1; then
  # shellcheck disable=SC2086 # $live is a list of paths without spaces (pid.json)
  exec jq -c -s --arg icon "${HYPRUSE_WAYBAR_ICON:-󰚩}" '
    def mode: [ (if .mode.readonly then "read-only" else empty end),
                (if .mode.dry_run then "dry run" else empty end),
                (if .mode.confine then "confined" else empty end),
                (if .mode.strict then "strict" else empty end) ] | join(", ");
    def line: "pid " + (.pid | tostring) + " (" + (.mode.source // "?" | tostring) + ")"
              + (if .state == "active" then ": " + (.action // "" | tostring)
                 elif (.action // "") != "" then ", last: " + (.action | tostring) else "" end)
              + (if mode != "" then " [" + mode + "]" else "" end);
    (map(select(.state == "active")) | length) as $active
    | if $active > 0 then
        { text: $icon, class: "active",
          tooltip: ("agent is acting on this desktop:\n" + (map(line) | join("\n")) + "\nclick to stop it") }
      else
        { text: $icon, class: "idle",
          tooltip: ("hypruse session connected:\n" + (map(line) | join("\n")) + "\nclick to stop it") }
      end' $live 2>/dev/null || off
else
  # shellcheck disable=SC2086
  if grep -q '"state":"active"' $live 2>/dev/null; then
    printf '{"text":"A","class":"active","tooltip":"agent is acting on this desktop; click to stop it"}\n'
  else
    printf '{"text":"A","class":"idle","tooltip":"hypruse session connected; click to stop it"}\n'
  fi
fi
