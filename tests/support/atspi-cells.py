#!/usr/bin/python3
"""Independent reader for tests: the top-left cells of a spreadsheet's table through libatspi
(python3-gi), without walking its cells (a sheet holds millions): the first object of role
'table' in the app's first window, then Table.get_accessible_at for each of ROWS x COLS.
Prints one JSON list of rows, each a list of the cells' names' text part ('' when empty).
Usage: atspi-cells.py PID ROWS COLS"""
import json
import sys
import warnings

warnings.simplefilter('ignore')

import gi

gi.require_version('Atspi', '2.0')
from gi.repository import Atspi  # noqa: E402

pid, rows, cols = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
desktop = Atspi.get_desktop(0)


def find_table(node, depth):
    if depth > 12:
        return None
    try:
        if node.get_role() == Atspi.Role.TABLE:
            return node
        for i in range(node.get_child_count()):
            c = node.get_child_at_index(i)
            if c is None or c.get_role() == Atspi.Role.TABLE_CELL:
                continue
            t = find_table(c, depth + 1)
            if t is not None:
                return t
    except Exception:
        return None
    return None


table = None
for i in range(desktop.get_child_count()):
    app = desktop.get_child_at_index(i)
    if app is None or app.get_process_id() != pid:
        continue
    for j in range(app.get_child_count()):
        table = find_table(app.get_child_at_index(j), 0)
        if table is not None:
            break
    if table is not None:
        break
if table is None:
    sys.exit('no table')
out = []
for r in range(rows):
    row = []
    for c in range(cols):
        cell = Atspi.Table.get_accessible_at(table, r, c)
        text = ''
        if cell is not None and cell.get_text_iface() is not None:
            text = Atspi.Text.get_text(cell, 0, Atspi.Text.get_character_count(cell))
        row.append(text)
    out.append(row)
print(json.dumps(out))
