import { describe, expect, it } from 'vitest';
import { parseEventLine, splitFields, toDesktopEvent } from '../src/events/parse-event.js';

const ev = (line: string) => toDesktopEvent(parseEventLine(line)!);

describe('socket2 event parsing', () => {
  it('splits EVENT>>DATA at the first >> only', () => {
    expect(parseEventLine('custom>>a>>b')).toEqual({ name: 'custom', data: 'a>>b' });
    expect(parseEventLine('no separator')).toBeNull();
    expect(parseEventLine('>>x')).toBeNull();
  });

  it('splits fields comma-safely with a maxsplit', () => {
    expect(splitFields('a,b,c,d,e', 4)).toEqual(['a', 'b', 'c', 'd,e']);
    expect(splitFields('a', 3)).toEqual(['a']);
  });

  it.each([
    ['openwindow>>5600aa02,3,foot,vim notes, draft', { type: 'window_open', address: '0x5600aa02', workspace: '3', class: 'foot', title: 'vim notes, draft' }],
    ['openwindow>>5600aa03,name:web,,', { type: 'window_open', address: '0x5600aa03', workspace: 'name:web', class: '', title: '' }],
    ['closewindow>>5600aa02', { type: 'window_close', address: '0x5600aa02' }],
    ['movewindowv2>>5600aa02,4,4', { type: 'window_move', address: '0x5600aa02', workspace: '4' }],
    ['workspacev2>>5,my, ws', { type: 'workspace', id: '5', name: 'my, ws' }],
    ['activewindowv2>>5600aa02', { type: 'focus', address: '0x5600aa02' }],
    ['activewindowv2>>', { type: 'focus', address: null }],
    ['windowtitlev2>>5600aa02,vim notes, draft', { type: 'title_change', address: '0x5600aa02', title: 'vim notes, draft' }],
    ['fullscreen>>1', { type: 'fullscreen', address: null, fullscreen: true }],
    ['fullscreen>>0', { type: 'fullscreen', address: null, fullscreen: false }],
    ['changefloatingmode>>5600aa02,1', { type: 'floating', address: '0x5600aa02', floating: true }],
    ['openlayer>>rofi', { type: 'layer_open', namespace: 'rofi', kind: 'launcher' }],
    ['openlayer>>gtklock', { type: 'layer_open', namespace: 'gtklock', kind: 'lock' }],
    ['openlayer>>bemenu', { type: 'layer_open', namespace: 'bemenu', kind: 'launcher' }],
    ['closelayer>>rofi', { type: 'layer_close', namespace: 'rofi', kind: 'launcher' }],
    ['urgent>>5600aa02', { type: 'urgent', address: '0x5600aa02' }],
    ['screencast>>1,0', { type: 'screencast', active: true, owner: '0' }],
    ['screencast>>0,1', { type: 'screencast', active: false, owner: '1' }],
    ['monitoradded>>HDMI-A-2', { type: 'monitor', name: 'HDMI-A-2', change: 'added' }],
    ['monitorremoved>>HDMI-A-2', { type: 'monitor', name: 'HDMI-A-2', change: 'removed' }],
  ])('%s', (line, expected) => {
    expect(ev(line)).toEqual(expected);
  });

  it('maps the v1 twin of a v2 event to `other`, so one change is seen once', () => {
    for (const line of ['movewindow>>5600aa02,4', 'workspace>>5', 'activewindow>>foot,vim', 'windowtitle>>5600aa02', 'screencastv2>>1,0,obs']) {
      expect(ev(line).type).toBe('other');
    }
    expect(ev('submap>>resize')).toEqual({ type: 'other', name: 'submap', data: 'resize' });
  });
});
