import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { encodeMethodCall, type MethodCall } from '../src/dbus-encode.js';

const require = createRequire(import.meta.url);
const dbus = require('dbus-next') as typeof import('dbus-next');
const { marshallMessage } = require('dbus-next/lib/marshall-compat.js') as { marshallMessage(m: unknown): [Buffer, unknown[]] };

/** What dbus-next itself puts on the wire for the same call. */
function reference(serial: number, c: MethodCall): Buffer {
  const m = new dbus.Message({ destination: c.destination, path: c.path, interface: c.iface, member: c.member, signature: c.signature ?? '', body: c.body ?? [] });
  m.serial = serial;
  return marshallMessage(m)[0];
}

const calls: MethodCall[] = [
  { destination: ':1.42', path: '/org/a11y/atspi/accessible/root', iface: 'org.a11y.atspi.Accessible', member: 'GetChildren' },
  { destination: ':1.7', path: '/org/a11y/atspi/accessible/163', iface: 'org.a11y.atspi.Component', member: 'GetExtents', signature: 'u', body: [1] },
  { destination: ':1.7', path: '/a', iface: 'org.freedesktop.DBus.Properties', member: 'Get', signature: 'ss', body: ['org.a11y.atspi.Accessible', 'Name'] },
  { destination: ':1.7', path: '/org/a11y/atspi/accessible/1', iface: 'org.a11y.atspi.Text', member: 'GetText', signature: 'ii', body: [0, -1] },
  { destination: 'org.a11y.atspi.Registry', path: '/org/a11y/atspi/registry', iface: 'org.a11y.atspi.Registry', member: 'RegisterEvent', signature: 'sass', body: ['object:state-changed', [], ''] },
  { destination: 'org.a11y.atspi.Registry', path: '/org/a11y/atspi/registry', iface: 'org.a11y.atspi.Registry', member: 'RegisterEvent', signature: 'sass', body: ['window:create', ['a', 'bcd', 'ünïcødé'], ':1.9'] },
  { destination: ':1.7', path: '/p', iface: 'org.a11y.atspi.EditableText', member: 'SetTextContents', signature: 's', body: ['naïve café 日本語 ✓'] },
  { destination: ':1.7', path: '/p', iface: 'x.y', member: 'M', signature: 'ybuigo', body: [7, true, 4294967295, -5, 'a{sv}', '/o/p'] },
  { destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', iface: 'org.freedesktop.DBus', member: 'AddMatch', signature: 's', body: ["type='signal',sender=':1.7'"] },
];

describe('encodeMethodCall', () => {
  for (const [i, c] of calls.entries()) {
    it(`${c.member}(${c.signature ?? ''}) is byte for byte what dbus-next sends`, () => {
      const serial = 1000 + i * 77777;
      const ours = encodeMethodCall(serial, c);
      expect(ours).not.toBeNull();
      expect(ours!.toString('hex')).toBe(reference(serial, c).toString('hex'));
    });
  }

  it('a long body (grows its buffer) is still right', () => {
    const c: MethodCall = { destination: ':1.7', path: '/p', iface: 'x.y', member: 'M', signature: 'as', body: [Array.from({ length: 500 }, (_, i) => `item ${i} `.repeat(5))] };
    expect(encodeMethodCall(3, c)!.toString('hex')).toBe(reference(3, c).toString('hex'));
  });

  it('leaves signatures and values it does not handle to dbus-next (null)', () => {
    const base = { destination: ':1.7', path: '/p', iface: 'x.y', member: 'M' };
    expect(encodeMethodCall(1, { ...base, signature: 'v', body: [1] })).toBeNull();
    expect(encodeMethodCall(1, { ...base, signature: 'a{sv}', body: [{}] })).toBeNull();
    expect(encodeMethodCall(1, { ...base, signature: '(ii)', body: [[1, 2]] })).toBeNull();
    expect(encodeMethodCall(1, { ...base, signature: 'u', body: ['1'] })).toBeNull();
    expect(encodeMethodCall(1, { ...base, signature: 'ss', body: ['only one'] })).toBeNull();
    expect(encodeMethodCall(1, { ...base, signature: 'i', body: [1.5] })).toBeNull();
  });
});
