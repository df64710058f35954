#!/usr/bin/python3
"""Independent reader for tests: the accessibility tree of one app's window through libatspi
(python3-gi, gir1.2-atspi-2.0), as JSON lines: role, name, states, text (of text elements), value,
box (window-relative extents [x, y, width, height] of a Component; GTK 3 gives scrolled-out objects INT_MIN).
Every object is walked, showing or not.
Usage: atspi-dump.py PID [TITLE]"""
import json
import sys
import warnings

warnings.simplefilter('ignore')

import gi

gi.require_version('Atspi', '2.0')
from gi.repository import Atspi  # noqa: E402

pid = int(sys.argv[1])
title = sys.argv[2] if len(sys.argv) > 2 else None
desktop = Atspi.get_desktop(0)


def walk(node, depth, out):
    try:
        role = node.get_role_name()
        name = node.get_name() or ''
        states = [Atspi.StateType(s).value_nick for s in node.get_state_set().get_states()]
    except Exception:
        return
    row = {'role': role, 'name': name, 'states': states, 'depth': depth}
    try:
        desc = node.get_description() or ''
        if desc:
            row['description'] = desc
    except Exception:
        pass
    try:
        t = node.get_text_iface()
        if t is not None and role != 'password text':
            row['text'] = t.get_text(0, min(t.get_character_count(), 10000))
    except Exception:
        pass
    try:
        v = node.get_value_iface()
        if v is not None:
            row['value'] = v.get_current_value()
    except Exception:
        pass
    try:
        if node.get_component_iface() is not None:
            e = node.get_extents(Atspi.CoordType.WINDOW)
            row['box'] = [e.x, e.y, e.width, e.height]
    except Exception:
        pass
    out.append(row)
    if len(out) > 5000:
        return
    for i in range(node.get_child_count()):
        c = node.get_child_at_index(i)
        if c is not None:
            walk(c, depth + 1, out)


for i in range(desktop.get_child_count()):
    app = desktop.get_child_at_index(i)
    if app is None or app.get_process_id() != pid:
        continue
    for j in range(app.get_child_count()):
        w = app.get_child_at_index(j)
        if w is None or (title and w.get_name() != title):
            continue
        rows = []
        walk(w, 0, rows)
        for r in rows:
            print(json.dumps(r))
        sys.exit(0)
sys.exit(3)
