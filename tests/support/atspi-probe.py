# An accessibility reader independent of hypruse (libatspi through python3-gi):
# prints the showing objects of one application as JSON lines, for tests to
# check what a tool did. Usage: atspi-probe.py PID
import json
import sys

import gi

gi.require_version('Atspi', '2.0')
from gi.repository import Atspi  # noqa: E402

STATES = ['checked', 'selected', 'expanded', 'focused', 'sensitive', 'showing']


def node(o, depth):
    st = o.get_state_set()
    out = {'depth': depth, 'role': o.get_role_name(), 'name': (o.get_name() or '').strip(), 'states': [s for s in STATES if st.contains(getattr(Atspi.StateType, s.upper()))]}
    text = o.get_text_iface() if hasattr(o, 'get_text_iface') else None
    if text is not None and o.get_role() != Atspi.Role.PASSWORD_TEXT:
        n = Atspi.Text.get_character_count(o)
        out['text'] = Atspi.Text.get_text(o, 0, min(n, 2000))
    if o.get_component_iface() is not None:
        w = o.get_extents(Atspi.CoordType.WINDOW)
        s = o.get_extents(Atspi.CoordType.SCREEN)
        out['box'] = [w.x, w.y, w.width, w.height]
        out['screen'] = [s.x, s.y]
    return out, st.contains(Atspi.StateType.SHOWING)


def walk(o, depth, lines):
    if o is None or len(lines) > 4000 or depth > 30:
        return
    try:
        rec, showing = node(o, depth)
    except Exception:  # an object that vanished while read
        return
    if depth > 1 and not showing:
        return
    lines.append(rec)
    for i in range(o.get_child_count()):
        walk(o.get_child_at_index(i), depth + 1, lines)


def main():
    pid = int(sys.argv[1])
    desk = Atspi.get_desktop(0)
    lines = []
    for i in range(desk.get_child_count()):
        app = desk.get_child_at_index(i)
        if app is not None and app.get_process_id() == pid:
            walk(app, 0, lines)
    for rec in lines:
        print(json.dumps(rec))


main()
