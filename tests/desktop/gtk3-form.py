#!/usr/bin/python3
"""A GTK 3 form with one control of each kind `act` works on; OK prints their state and quits.

    gtk3-form.py

Window title "hypruse gtk3 form". From the top: a label "Name" left of an unnamed entry, a check
button "Subscribe", an expander "Details" (holding a label "Hidden detail"), a label "Color" left
of a combo box (Red, Green, Blue; Red chosen), a notebook with the tabs Alpha, Beta and Gamma, a
list of 40 rows "Row 1".."Row 40" in a scrolled window showing about four rows, and the buttons
Cancel and OK. Each change prints a line on stdout as it happens:

    expanded Details=True
    focus entry            (the entry took the keyboard focus)
    scrolled 594           (the list's scrolled window now shows its content from y=594 down)

and OK prints the whole state, then the window closes:

    ok name=<text> subscribe=<bool> details=<bool> color=<text> tab=<label> row=<label>
"""
import gi

gi.require_version('Gtk', '3.0')
from gi.repository import Gtk  # noqa: E402


def say(msg):
    print(msg, flush=True)


win = Gtk.Window(title='hypruse gtk3 form')
win.set_default_size(460, 560)
grid = Gtk.Grid(row_spacing=6, column_spacing=8, margin=12)
win.add(grid)

grid.attach(Gtk.Label(label='Name', xalign=0), 0, 0, 1, 1)
entry = Gtk.Entry(hexpand=True)
entry.connect('focus-in-event', lambda *_: say('focus entry'))
grid.attach(entry, 1, 0, 1, 1)

subscribe = Gtk.CheckButton(label='Subscribe')
grid.attach(subscribe, 0, 1, 2, 1)

details = Gtk.Expander(label='Details')
details.add(Gtk.Label(label='Hidden detail'))
details.connect('notify::expanded', lambda e, _p: say(f'expanded Details={e.get_expanded()}'))
grid.attach(details, 0, 2, 2, 1)

grid.attach(Gtk.Label(label='Color', xalign=0), 0, 3, 1, 1)
color = Gtk.ComboBoxText()
for c in ('Red', 'Green', 'Blue'):
    color.append_text(c)
color.set_active(0)
grid.attach(color, 1, 3, 1, 1)

tabs = Gtk.Notebook()
for t in ('Alpha', 'Beta', 'Gamma'):
    tabs.append_page(Gtk.Label(label=f'{t} page'), Gtk.Label(label=t))
grid.attach(tabs, 0, 4, 2, 1)

rows = Gtk.ListBox()
for i in range(1, 41):
    rows.add(Gtk.Label(label=f'Row {i}', xalign=0))
scroll = Gtk.ScrolledWindow(min_content_height=100, max_content_height=100, propagate_natural_height=True)
scroll.add(rows)
scroll.get_vadjustment().connect('value-changed', lambda a: say(f'scrolled {a.get_value():.0f}'))
grid.attach(scroll, 0, 5, 2, 1)

buttons = Gtk.Box(spacing=8, halign=Gtk.Align.END)
cancel = Gtk.Button(label='Cancel')
ok = Gtk.Button(label='OK')
buttons.pack_start(cancel, False, False, 0)
buttons.pack_start(ok, False, False, 0)
grid.attach(buttons, 0, 6, 2, 1)


def on_ok(*_):
    row = rows.get_selected_row()
    label = row.get_child().get_label() if row else ''
    tab = tabs.get_tab_label_text(tabs.get_nth_page(tabs.get_current_page()))
    say(f'ok name={entry.get_text()} subscribe={subscribe.get_active()} details={details.get_expanded()} '
        f'color={color.get_active_text()} tab={tab} row={label}')
    Gtk.main_quit()


ok.connect('clicked', on_ok)
cancel.connect('clicked', lambda *_: (say('cancel'), Gtk.main_quit()))
win.connect('destroy', Gtk.main_quit)
win.show_all()
Gtk.main()
