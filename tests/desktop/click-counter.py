#!/usr/bin/python3
"""A window that is one big button and prints a line per click it registers.

    click-counter.py gtk3|gtk4|qt5

The independent reader of the click-hold measurement (tests/bench/click-hold.ts):
the toolkit itself says which clicks it took, on stdout. On SIGUSR1 the app renames
its button itself ("relabelled N"; GTK only), printing "relabelled N": a change no
input caused (tests/e2e/a11y-reuse.test.ts).
"""
import signal
import sys

kit = sys.argv[1] if len(sys.argv) > 1 else 'gtk3'
title = f'hypruse click counter {kit}'
count = 0


def clicked(*_):
    global count
    count += 1
    print(f'click {count}', flush=True)


if kit in ('gtk3', 'gtk4'):
    import gi
    gi.require_version('Gtk', '3.0' if kit == 'gtk3' else '4.0')
    from gi.repository import GLib, Gtk
    relabels = 0

    def relabel():
        global relabels
        relabels += 1
        button.set_label(f'relabelled {relabels}')
        print(f'relabelled {relabels}', flush=True)
        return GLib.SOURCE_CONTINUE

    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, relabel)
    if kit == 'gtk3':
        win = Gtk.Window(title=title)
        win.set_default_size(300, 200)
        button = Gtk.Button(label='count')
        button.connect('clicked', clicked)
        win.add(button)
        win.connect('destroy', Gtk.main_quit)
        win.show_all()
        Gtk.main()
    else:
        loop = GLib.MainLoop()
        win = Gtk.Window(title=title)
        win.set_default_size(300, 200)
        button = Gtk.Button(label='count')
        button.connect('clicked', clicked)
        win.set_child(button)
        win.connect('close-request', lambda *_: loop.quit())
        win.present()
        loop.run()
elif kit == 'qt5':
    import os
    os.environ.setdefault('QT_LINUX_ACCESSIBILITY_ALWAYS_ON', '1')
    from PyQt5.QtWidgets import QApplication, QPushButton
    app = QApplication(sys.argv)
    button = QPushButton('count')
    button.setWindowTitle(title)
    button.resize(300, 200)
    button.clicked.connect(clicked)
    button.show()
    app.exec_()
else:
    sys.exit(f'unknown toolkit {kit}: gtk3, gtk4 or qt5')
