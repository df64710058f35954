#!/usr/bin/python3
"""A GTK 3 window that prints one line per button press it receives, as the toolkit saw it:

    press button=1 n=3 ctrl=1 shift=0 alt=0 x=120 y=45

n is 1, 2 or 3 (GTK's own double/triple click detection), x,y the point in the
toplevel surface's coordinates. The independent reader of pointer modifiers,
triple clicks and image_x/image_y. With --motion it also prints one line per
pointer motion it receives (`motion x=.. y=..`): a parked pointer gives none.
"""
import sys

import gi

gi.require_version('Gtk', '3.0')
gi.require_version('Gdk', '3.0')
from gi.repository import Gdk, Gtk

KINDS = {Gdk.EventType.BUTTON_PRESS: 1, Gdk.EventType._2BUTTON_PRESS: 2, Gdk.EventType._3BUTTON_PRESS: 3}


def pressed(_widget, event):
    n = KINDS.get(event.type)
    if n is None:
        return False
    s = event.state
    flag = lambda m: 1 if s & m else 0
    print(f'press button={event.button} n={n} ctrl={flag(Gdk.ModifierType.CONTROL_MASK)} shift={flag(Gdk.ModifierType.SHIFT_MASK)} '
          f'alt={flag(Gdk.ModifierType.MOD1_MASK)} x={round(event.x_root)} y={round(event.y_root)}', flush=True)
    return True


win = Gtk.Window(title='hypruse pointer probe')
win.set_default_size(400, 300)
area = Gtk.DrawingArea()
area.add_events(Gdk.EventMask.BUTTON_PRESS_MASK)
area.connect('button-press-event', pressed)
if '--motion' in sys.argv[1:]:
    area.add_events(Gdk.EventMask.POINTER_MOTION_MASK)
    area.connect('motion-notify-event', lambda _w, e: print(f'motion x={round(e.x_root)} y={round(e.y_root)}', flush=True) and False)
win.add(area)
win.connect('destroy', Gtk.main_quit)
win.show_all()
Gtk.main()
