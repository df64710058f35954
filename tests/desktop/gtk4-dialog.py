#!/usr/bin/python3
"""A GTK 4 window with a client-side-decorated (header bar) dialog holding an entry and two buttons.

    gtk4-dialog.py

The main window (title "hypruse gtk4 main") has a button "Open dialog"; the dialog (title "hypruse
gtk4 dialog", a Gtk.Dialog with use-header-bar, so GTK draws its own title bar and shadow) has an
entry "Name" and the buttons "Cancel" and "Apply". Every click prints a line on stdout:

    clicked Apply entry=<text>
    clicked Open dialog

The independent reader of GTK 4 points and clickability. With --dialog-only the dialog opens at
start, alone (the zenity 4 shape).
"""
import sys

import gi

gi.require_version('Gtk', '4.0')
from gi.repository import GLib, Gtk

loop = GLib.MainLoop()
dialog_only = '--dialog-only' in sys.argv


def say(msg):
    print(msg, flush=True)


def open_dialog(*_):
    say('clicked Open dialog')
    d = Gtk.Dialog(title='hypruse gtk4 dialog', use_header_bar=1)
    if not dialog_only:
        d.set_transient_for(win)
    d.set_default_size(360, 160)
    box = d.get_content_area()
    box.set_spacing(8)
    box.set_margin_top(12)
    box.set_margin_start(12)
    box.set_margin_end(12)
    label = Gtk.Label(label='Name')
    entry = Gtk.Entry()
    entry.update_property([Gtk.AccessibleProperty.LABEL], ['Name'])
    box.append(label)
    box.append(entry)
    d.add_button('Cancel', Gtk.ResponseType.CANCEL)
    d.add_button('Apply', Gtk.ResponseType.APPLY)

    def response(dlg, rid):
        say(f'clicked {"Apply" if rid == Gtk.ResponseType.APPLY else "Cancel"} entry={entry.get_text()}')
        dlg.destroy()
        if dialog_only:
            loop.quit()

    d.connect('response', response)
    d.present()


if dialog_only:
    win = None
    open_dialog()
else:
    win = Gtk.Window(title='hypruse gtk4 main')
    win.set_default_size(420, 300)
    b = Gtk.Button(label='Open dialog')
    b.connect('clicked', open_dialog)
    win.set_child(b)
    win.connect('close-request', lambda *_: loop.quit())
    win.present()
loop.run()
