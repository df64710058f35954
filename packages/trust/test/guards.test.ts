import { describe, expect, it } from 'vitest';
import { HypruseError, TRUST_ORDER, TrustError, type Intent } from '@hypruse/core';
import {
  authLayer, confineLayer, createLockLayer, dangerousLayer, dangerousMatch, dryRunLayer, layerGuard, markLayer, policyLayer, readonlyLayer,
  strictLayer, type LockProbe,
} from '../src/index.js';
import { desktop, fakeCall, fakeCompositor, fakeNext, layer, logged, refusal, run, win } from './fakes.js';

const click = (x: number, y: number, extra: Partial<Intent> = {}): Intent => ({ summary: `click left at (${x}, ${y})`, input: 'pointer', points: [{ x, y }], ...extra });
const typeInto = (window: string | null, text = 'hello', extra: Partial<Intent> = {}): Intent => ({
  summary: `type ${text.length} characters`, input: 'keyboard', text, ...(window ? { windows: [window] } : { focusedWindow: true }), ...extra,
});

describe('readonly', () => {
  it('refuses every acting call with refused.readonly and never calls next', async () => {
    const next = fakeNext();
    const e = await refusal(run(readonlyLayer, fakeCall({ config: { readonly: true }, tool: 'keyboard' }), next));
    expect(e.code).toBe('refused.readonly');
    expect(e.category).toBe('refused');
    expect(e.message).toMatch(/^readonly: keyboard acts on the desktop/);
    expect(e.hint).toMatch(/HYPRUSE_READONLY=0/);
    expect(next.calls).toBe(0);
  });

  it('lets observations through in read-only mode, and everything when off', async () => {
    const next = fakeNext();
    await run(readonlyLayer, fakeCall({ config: { readonly: true }, kind: 'observe', tool: 'desktop' }), next);
    await run(readonlyLayer, fakeCall({ config: { readonly: false } }), next);
    expect(next.calls).toBe(2);
  });
});

describe('lock', () => {
  const probe = (logind: boolean | null, locker: string | null): LockProbe & { asked: string[] } => {
    const asked: string[] = [];
    return { asked, logind: async () => (asked.push('logind'), logind), locker: async () => (asked.push('locker'), locker) };
  };
  const locked = () => {
    const c = fakeCompositor(desktop([win('0xa', 'foot', 0, 0)]));
    c.lockedValue = true;
    return c;
  };

  it('allows input when the compositor says unlocked, without asking logind', async () => {
    const p = probe(true, 'swaylock');
    const next = fakeNext();
    await run(createLockLayer(p, {}), fakeCall({ intent: click(5, 5) }), next);
    expect(next.calls).toBe(1);
    expect(p.asked).toEqual([]);
  });

  it('refuses pointer input under lock unless allow_auth, then notes where it went', async () => {
    const l = createLockLayer(probe(null, null), {});
    const next = fakeNext();
    const e = await refusal(run(l, fakeCall({ compositor: locked(), intent: click(5, 5) }), next));
    expect(e.code).toBe('refused.lock');
    expect(e.hint).toMatch(/allow_auth: true/);
    const c = fakeCall({ compositor: locked(), intent: click(5, 5), allowAuth: true });
    await run(l, c, next);
    expect(next.calls).toBe(1);
    expect(c.notes.join()).toMatch(/session is locked/);
  });

  it('always refuses keys into a named window and control clicks under lock, even with allow_auth', async () => {
    const l = createLockLayer(probe(null, null), {});
    const next = fakeNext();
    expect((await refusal(run(l, fakeCall({ compositor: locked(), intent: typeInto('0xa'), allowAuth: true }), next))).code).toBe('refused.lock');
    expect((await refusal(run(l, fakeCall({ compositor: locked(), intent: click(5, 5, { control: { role: 'push button', name: 'OK' } }), allowAuth: true }), next))).code).toBe('refused.lock');
    expect(next.calls).toBe(0);
  });

  it('never allows input to the lock screen under confinement', async () => {
    const e = await refusal(run(createLockLayer(probe(null, null), {}), fakeCall({ compositor: locked(), intent: typeInto(null), allowAuth: true, config: { confine: ['launched'] } }), fakeNext()));
    expect(e.message).toMatch(/confinement/);
  });

  it('falls back to logind, then to a locker process, when the compositor cannot tell', async () => {
    const c = fakeCompositor(desktop([]));
    c.lockedValue = null;
    const p1 = probe(true, null);
    expect((await refusal(run(createLockLayer(p1, {}), fakeCall({ compositor: c, intent: click(1, 1) }), fakeNext()))).message).toMatch(/logind/);
    const p2 = probe(null, 'swaylock');
    expect((await refusal(run(createLockLayer(p2, {}), fakeCall({ compositor: c, intent: click(1, 1) }), fakeNext()))).message).toMatch(/swaylock is running/);
    expect(p2.asked).toEqual(['logind', 'locker']);
    const next = fakeNext();
    await run(createLockLayer(probe(null, null), {}), fakeCall({ compositor: c, intent: click(1, 1) }), next);
    expect(next.calls).toBe(1);
  });

  it('fails open when the compositor lock query throws and nothing else says locked', async () => {
    const c = fakeCompositor(desktop([]));
    c.lockedValue = new Error('ipc down');
    const next = fakeNext();
    await run(createLockLayer(probe(null, null), {}), fakeCall({ compositor: c, intent: click(1, 1) }), next);
    expect(next.calls).toBe(1);
  });

  it('does not check compositor-only actions (no input delivered)', async () => {
    const next = fakeNext();
    await run(createLockLayer(probe(true, 'swaylock'), {}), fakeCall({ compositor: locked(), intent: { summary: 'switch to workspace 2', input: 'none', workspace: '2' } }), next);
    expect(next.calls).toBe(1);
  });
});

describe('auth', () => {
  const polkit = win('0xb', 'polkit-gnome-authentication-agent-1', 500, 300, 300, 200, { floating: true });
  const editor = win('0xa', 'gedit', 0, 0, 1000, 800, { focused: true });

  it('refuses a click on an authentication dialog, and allow_auth lifts it', async () => {
    const comp = fakeCompositor(desktop([editor, polkit]));
    const next = fakeNext();
    const e = await refusal(run(authLayer, fakeCall({ compositor: comp, intent: click(600, 400) }), next));
    expect(e.code).toBe('refused.auth');
    expect(e.message).toMatch(/0xb.*authentication dialog/);
    expect(e.hint).toMatch(/allow_auth: true/);
    await run(authLayer, fakeCall({ compositor: comp, intent: click(600, 400), allowAuth: true }), next);
    expect(next.calls).toBe(1);
  });

  it('considers every window under the point (no z-order), and allows a point outside the dialog', async () => {
    const comp = fakeCompositor(desktop([editor, polkit]));
    const next = fakeNext();
    await run(authLayer, fakeCall({ compositor: comp, intent: click(100, 100) }), next);
    expect(next.calls).toBe(1);
  });

  it('counts an auth dialog whose position the compositor does not report (niri: tiled) anywhere on its monitor', async () => {
    const tiled = win('12', 'polkit-gnome-authentication-agent-1', 0, 0, 300, 200, { positionUnknown: 'niri reports no on-screen position for tiled windows' });
    const comp = fakeCompositor(desktop([editor, tiled]));
    expect((await refusal(run(authLayer, fakeCall({ compositor: comp, intent: click(1500, 900) }), fakeNext()))).code).toBe('refused.auth');
    // a hidden workspace's window is not under any point
    const hidden = fakeCompositor(desktop([editor, { ...tiled, workspace: '2', visible: false }]));
    const next = fakeNext();
    await run(authLayer, fakeCall({ compositor: hidden, intent: click(1500, 900) }), next);
    expect(next.calls).toBe(1);
  });

  it('refuses typing into a focused auth dialog of other families (gcr, pinentry, askpass)', async () => {
    for (const cls of ['gcr-prompter', 'pinentry-gnome3', 'ssh-askpass', 'org.kde.polkit-kde-authentication-agent-1']) {
      const comp = fakeCompositor(desktop([win('0xc', cls, 0, 0, 100, 100, { focused: true })]));
      expect((await refusal(run(authLayer, fakeCall({ compositor: comp, intent: typeInto(null) }), fakeNext()))).code).toBe('refused.auth');
    }
  });

  it("refuses typing into the compositor's own prompt named by its manifest (promptClasses), only there", async () => {
    const manifest = { id: 'examplewm', displayName: 'examplewm', envVars: [], sockets: '', capabilities: [], bindingSyntax: '', promptClasses: ['examplewm-dialog'] };
    const comp = () => fakeCompositor(desktop([win('0xc', 'Examplewm-Dialog', 0, 0, 100, 100, { focused: true })]));
    expect((await refusal(run(authLayer, fakeCall({ compositor: comp(), manifest, intent: typeInto(null) }), fakeNext()))).code).toBe('refused.auth');
    const next = fakeNext();
    await run(authLayer, fakeCall({ compositor: comp(), intent: typeInto(null) }), next);
    expect(next.calls).toBe(1);
  });

  it('refuses input when a shell-drawn polkit prompt (layer) covers the point or holds the keyboard', async () => {
    const comp = fakeCompositor(desktop([editor], { layers: [layer('quickshell:polkit', 'other', { geometry: { x: 400, y: 300, width: 400, height: 300 } })] }));
    expect((await refusal(run(authLayer, fakeCall({ compositor: comp, intent: click(500, 400) }), fakeNext()))).message).toMatch(/quickshell:polkit/);
    expect((await refusal(run(authLayer, fakeCall({ compositor: comp, intent: typeInto('0xa') }), fakeNext()))).message).toMatch(/holds the keyboard/);
    const next = fakeNext();
    await run(authLayer, fakeCall({ compositor: comp, intent: click(10, 10) }), next);
    expect(next.calls).toBe(1);
  });

  it('refuses a control click when an auth dialog floats over the target window', async () => {
    const comp = fakeCompositor(desktop([editor, polkit]));
    const e = await refusal(run(authLayer, fakeCall({ compositor: comp, intent: { summary: "click 'Save'", input: 'pointer', windows: ['0xa'], points: [{ x: 50, y: 50 }], control: { role: 'push button', name: 'Save' } } }), fakeNext()));
    expect(e.message).toMatch(/floats over/);
  });

  it('an element action on a target without a reported position (niri: tiled) refuses when an auth dialog may overlap it anywhere on its monitor', async () => {
    // the tiled target reports a made-up origin (0,0): the dialog at (1500, 700) is on the same monitor
    const target = win('0xd', 'zenity', 0, 0, 300, 200, { positionUnknown: 'niri reports no on-screen position for tiled windows' });
    const far = win('0xe', 'polkit-gnome-authentication-agent-1', 1500, 700, 300, 200, { floating: true });
    const intent: Intent = { summary: "set_text text 'First' over AT-SPI", input: 'keyboard', windows: ['0xd'], control: { role: 'text', name: 'First' } };
    const e = await refusal(run(authLayer, fakeCall({ compositor: fakeCompositor(desktop([target, far])), intent }), fakeNext()));
    expect(e.message).toMatch(/floats over/);
    // the same dialog beside a positioned window does not overlap it
    const next = fakeNext();
    await run(authLayer, fakeCall({ compositor: fakeCompositor(desktop([{ ...target, positionUnknown: undefined }, far])), intent }), next);
    expect(next.calls).toBe(1);
  });

  it('fails closed: an unreadable desktop or an unreadable layer list refuses', async () => {
    const comp = fakeCompositor(desktop([editor]));
    comp.snapshotError = new Error('socket closed');
    expect((await refusal(run(authLayer, fakeCall({ compositor: comp, intent: click(5, 5) }), fakeNext()))).message).toMatch(/cannot read the desktop/);
    const nolayers = fakeCompositor(desktop([editor], { layers: null }), ['layers']);
    expect((await refusal(run(authLayer, fakeCall({ compositor: nolayers, intent: click(5, 5) }), fakeNext()))).message).toMatch(/layer surfaces/);
  });

  it('does not guess when the compositor declares it cannot list layers (sway): the class check still applies', async () => {
    const comp = fakeCompositor(desktop([editor], { layers: null }), []);
    const next = fakeNext();
    await run(authLayer, fakeCall({ compositor: comp, intent: click(5, 5) }), next);
    expect(next.calls).toBe(1);
  });

  it('strict mode refuses typing into a password field, and refuses when the field cannot be read', async () => {
    const comp = fakeCompositor(desktop([editor]));
    const pw = { focusedText: async () => ({ element: { password: true, name: 'Password' } as never, text: null }) };
    const e = await refusal(run(authLayer, fakeCall({ compositor: comp, intent: typeInto(null, 'hunter2'), config: { authGuard: 'strict' }, a11y: pw }), fakeNext()));
    expect(e.message).toMatch(/'Password'.*password field/);
    const broken = { focusedText: async () => { throw new Error('bus gone'); } };
    expect((await refusal(run(authLayer, fakeCall({ compositor: comp, intent: typeInto(null), config: { authGuard: 'strict' }, a11y: broken }), fakeNext()))).message).toMatch(/cannot tell.*bus gone/);
    const plain = { focusedText: async () => ({ element: { password: false, name: 'Name' } as never, text: '' }) };
    const next = fakeNext();
    await run(authLayer, fakeCall({ compositor: comp, intent: typeInto(null), config: { authGuard: 'strict' }, a11y: plain }), next);
    // not strict: the password field is not read at all
    await run(authLayer, fakeCall({ compositor: comp, intent: typeInto(null), a11y: broken }), next);
    expect(next.calls).toBe(2);
  });

  it('is off with authGuard off', async () => {
    const next = fakeNext();
    await run(authLayer, fakeCall({ compositor: fakeCompositor(desktop([polkit])), intent: click(600, 400), config: { authGuard: 'off' } }), next);
    expect(next.calls).toBe(1);
  });
});

describe('confine', () => {
  const mine = win('0xa', 'zenity', 0, 0, 400, 300);
  const other = win('0xb', 'firefox', 300, 200, 600, 400, { focused: true });

  it('launched: allows a click on a launched window, refuses one where any window under the point is not launched', async () => {
    const comp = fakeCompositor(desktop([mine, other]));
    const c = fakeCall({ compositor: comp, intent: click(10, 10), config: { confine: ['launched'] } });
    c.session.launched.add('0xa');
    const next = fakeNext();
    await run(confineLayer, c, next);
    expect(next.calls).toBe(1);
    const overlap = fakeCall({ compositor: comp, intent: click(350, 250), config: { confine: ['launched'] }, session: c.session });
    const e = await refusal(run(confineLayer, overlap, next));
    expect(e.code).toBe('refused.confine');
    expect(e.message).toMatch(/0xb \(firefox/);
    expect(e.hint).toMatch(/launch one to own it/);
    expect(next.calls).toBe(1);
  });

  it('checks the focused window for keyboard input, and named windows', async () => {
    const comp = fakeCompositor(desktop([mine, other]));
    expect((await refusal(run(confineLayer, fakeCall({ compositor: comp, intent: typeInto(null), config: { confine: ['class:zenity'] } }), fakeNext()))).message).toMatch(/focused window 0xb/);
    const next = fakeNext();
    await run(confineLayer, fakeCall({ compositor: comp, intent: typeInto('0xa'), config: { confine: ['class:zenity'] } }), next);
    await run(confineLayer, fakeCall({ compositor: comp, intent: click(1500, 900), config: { confine: ['class:zenity'] } }), next); // empty space
    expect(next.calls).toBe(2);
  });

  it('workspace scopes match the workspace id or name', async () => {
    const comp = fakeCompositor(desktop([win('0xc', 'foot', 0, 0, 100, 100, { workspace: '2', visible: false })]));
    const next = fakeNext();
    await run(confineLayer, fakeCall({ compositor: comp, intent: { summary: 'close', input: 'none', windows: ['0xc'] }, config: { confine: ['workspace:mail'] } }), next);
    expect(next.calls).toBe(1);
    expect((await refusal(run(confineLayer, fakeCall({ compositor: comp, intent: { summary: 'close', input: 'none', windows: ['0xc'] }, config: { confine: ['workspace:3'] } }), next))).code).toBe('refused.confine');
  });

  it('refuses bindings always, refuses everything on a malformed scope, never confines launch or workspace switches', async () => {
    const comp = fakeCompositor(desktop([mine]));
    expect((await refusal(run(confineLayer, fakeCall({ compositor: comp, intent: { summary: 'run bind super+q', global: true }, config: { confine: ['launched'] } }), fakeNext()))).message).toMatch(/whole desktop/);
    expect((await refusal(run(confineLayer, fakeCall({ compositor: comp, intent: click(1, 1), config: { confine: ['klass:x'] } }), fakeNext()))).message).toMatch(/malformed scope "klass:x"/);
    const next = fakeNext();
    await run(confineLayer, fakeCall({ compositor: comp, tool: 'launch', intent: { summary: 'launch zenity', input: 'none', command: 'zenity --entry' }, config: { confine: ['launched'], launch: { allow: ['zenity'] } } }), next);
    await run(confineLayer, fakeCall({ compositor: comp, intent: { summary: 'switch to 2', input: 'none', workspace: '2' }, config: { confine: ['launched'] } }), next);
    expect(next.calls).toBe(2);
  });

  it('launch under confinement runs only an allowed program with plain arguments, naming the key when it refuses', async () => {
    const comp = fakeCompositor(desktop([mine]));
    const launch = (command: string, allow: string[], confine = ['launched']) =>
      fakeCall({ compositor: comp, tool: 'launch', intent: { summary: `launch ${command}`, input: 'none', command }, config: { confine, launch: { allow } } });
    const next = fakeNext();
    for (const ok of ['zenity', 'zenity --entry --title="Name?" --text=\'a b\'', '  foot  -e htop ', '/usr/bin/gedit /tmp/a.txt']) {
      await run(confineLayer, launch(ok, ['zenity', 'foot', '/usr/bin/gedit']), next);
    }
    expect(next.calls).toBe(4);
    const none = await refusal(run(confineLayer, launch('zenity', []), next));
    expect(none.code).toBe('refused.confine');
    expect(none.message).toMatch(/launch\.allow is empty/);
    expect(none.hint).toMatch(/launch\.allow .*HYPRUSE_LAUNCH_ALLOW/);
    const refused: Array<[string, RegExp]> = [
      ['firefox', /"firefox" is not an allowed program \(allowed: zenity, \/usr\/bin\/gedit\)/],
      ['/tmp/evil/zenity', /"\/tmp\/evil\/zenity" is not an allowed program/],
      ['gedit', /"gedit" is not an allowed program/],
      ['zenity; rm -rf ~', /shell character ";"/],
      ['zenity && foot', /shell character "&"/],
      ['zenity | sh', /shell character "\|"/],
      ['zenity > ~/.bashrc', /shell character ">"/],
      ['zenity $(id)', /shell character "\$"/],
      ['zenity "$(id)"', /"\$" inside double quotes/],
      ['zenity `id`', /shell character "`"/],
      ['zenity\nfoot', /shell character "\\n"/],
      ['LD_PRELOAD=/tmp/x.so zenity', /environment assignment \(LD_PRELOAD=/],
      ["zenity 'unclosed", /unclosed single quote/],
    ];
    for (const [command, why] of refused) {
      const e = await refusal(run(confineLayer, launch(command, ['zenity', '/usr/bin/gedit']), next));
      expect(e.code, command).toBe('refused.confine');
      expect(e.message, command).toMatch(why);
    }
    expect(next.calls).toBe(4);
    // without confinement every command runs, shell included
    await run(confineLayer, launch('zenity > /tmp/out; foot', [], []), next);
    expect(next.calls).toBe(5);
  });

  it('fails closed when the cursor position is unknown for a coordinate-less click', async () => {
    const comp = fakeCompositor(desktop([mine], { cursor: null }));
    expect((await refusal(run(confineLayer, fakeCall({ compositor: comp, intent: { summary: 'click', input: 'pointer' }, config: { confine: ['launched'] } }), fakeNext()))).message).toMatch(/cursor/);
  });

  it('keeps session.launched up to date from launch results, even with confinement off, but not in a dry run', async () => {
    const c = fakeCall({ tool: 'launch', intent: { summary: 'launch foot', input: 'none', command: 'foot' } });
    await run(confineLayer, c, fakeNext({ text: ['launched foot'], data: { address: '0x77', class: 'foot' } }));
    expect([...c.session.launched]).toEqual(['0x77']);
    const dry = fakeCall({ tool: 'launch', dryRun: true });
    await run(confineLayer, dry, fakeNext({ text: ['DRY RUN'], data: { address: '0x78' } }));
    expect(dry.session.launched.size).toBe(0);
  });
});

describe('policy', () => {
  const files = win('0xa', 'org.gnome.Nautilus', 0, 0, 500, 500, { focused: true });
  const bank = win('0xb', 'firefox', 600, 0, 500, 500);
  const policy = { 'org.gnome.Nautilus': 'click', Firefox: 'view' } as const;

  it('view refuses every action on that window (class matched case-insensitively)', async () => {
    const comp = fakeCompositor(desktop([files, bank]));
    const e = await refusal(run(policyLayer, fakeCall({ compositor: comp, intent: click(700, 100), config: { policy: { ...policy } } }), fakeNext()));
    expect(e.code).toBe('refused.policy');
    expect(e.message).toMatch(/'view'/);
  });

  it('click allows pointer input but not keyboard or window management', async () => {
    const comp = fakeCompositor(desktop([files, bank]));
    const next = fakeNext();
    await run(policyLayer, fakeCall({ compositor: comp, intent: click(100, 100), config: { policy: { ...policy } } }), next);
    expect(next.calls).toBe(1);
    expect((await refusal(run(policyLayer, fakeCall({ compositor: comp, intent: typeInto(null), config: { policy: { ...policy } } }), next))).message).toMatch(/'click'.*needs 'full'/);
    expect((await refusal(run(policyLayer, fakeCall({ compositor: comp, intent: { summary: 'close 0xa', input: 'none', windows: ['0xa'] }, config: { policy: { ...policy } } }), next))).code).toBe('refused.policy');
    expect(next.calls).toBe(1);
  });
});

describe('strict', () => {
  const a = win('0xa', 'foot', 0, 0, 400, 300, { focused: true });

  it('re-baselines after every successful call, observations included', async () => {
    const comp = fakeCompositor(desktop([a]));
    const c = fakeCall({ compositor: comp, kind: 'observe', tool: 'desktop', config: { strict: true } });
    await run(strictLayer, c, fakeNext());
    expect(c.session.seat).toMatchObject({ cursor: { x: 10, y: 10 }, focus: '0xa' });
  });

  it('refuses when the cursor or the focus moved since the baseline, and allows after looking again', async () => {
    const comp = fakeCompositor(desktop([a, win('0xb', 'gedit', 500, 0)]));
    const look = () => fakeCall({ compositor: comp, kind: 'observe', tool: 'desktop', config: { strict: true }, session });
    const session = fakeCall().session;
    await run(strictLayer, look(), fakeNext());
    comp.desk.cursor = { x: 300, y: 300, source: 'compositor' };
    const next = fakeNext();
    const e = await refusal(run(strictLayer, fakeCall({ compositor: comp, intent: click(5, 5), config: { strict: true }, session }), next));
    expect(e.code).toBe('refused.seat');
    expect(e.message).toMatch(/cursor moved from \(10, 10\) to \(300, 300\)/);
    comp.desk.activeWindow = '0xb';
    await run(strictLayer, look(), fakeNext());
    await run(strictLayer, fakeCall({ compositor: comp, intent: click(5, 5), config: { strict: true }, session }), next);
    expect(next.calls).toBe(1);
    comp.desk.activeWindow = '0xa';
    expect((await refusal(run(strictLayer, fakeCall({ compositor: comp, intent: typeInto(null), config: { strict: true }, session }), next))).message).toMatch(/focus moved from 0xb to 0xa/);
  });

  it('refuses stale coordinates: the observed window moved or is gone', async () => {
    const comp = fakeCompositor(desktop([a]));
    const observed = { address: '0xa', geometry: { x: 0, y: 0, width: 400, height: 300 } };
    const next = fakeNext();
    await run(strictLayer, fakeCall({ compositor: comp, intent: click(5, 5, { observed }), config: { strict: true } }), next);
    expect(next.calls).toBe(1);
    comp.desk.windows[0].geometry = { x: 40, y: 0, width: 400, height: 300 };
    const e = await refusal(run(strictLayer, fakeCall({ compositor: comp, intent: click(5, 5, { observed }), config: { strict: true } }), next));
    expect(e.code).toBe('refused.stale');
    expect(e.message).toMatch(/400x300\+0\+0 then, 400x300\+40\+0 now/);
    comp.desk.windows = [];
    expect((await refusal(run(strictLayer, fakeCall({ compositor: comp, intent: click(5, 5, { observed }), config: { strict: true } }), next))).message).toMatch(/is gone/);
  });

  it('refuses coordinates observed in a window whose position the compositor does not report (niri: tiled)', async () => {
    const comp = fakeCompositor(desktop([{ ...a, positionUnknown: 'niri reports no on-screen position for tiled windows' }]));
    const observed = { address: '0xa', geometry: { ...a.geometry } };
    const next = fakeNext();
    const e = await refusal(run(strictLayer, fakeCall({ compositor: comp, intent: click(5, 5, { observed }), config: { strict: true } }), next));
    expect(e.code).toBe('refused.stale');
    expect(e.message).toMatch(/reports no position for window 0xa/);
    expect(next.calls).toBe(0);
  });

  it('a nested call of a checked parent (click_ui focusing, then clicking) is not checked against the same baseline again', async () => {
    const comp = fakeCompositor(desktop([a, win('0xb', 'gedit', 500, 0)]));
    const session = fakeCall().session;
    await run(strictLayer, fakeCall({ compositor: comp, kind: 'observe', config: { strict: true }, session }), fakeNext());
    const clickUi = fakeCall({ compositor: comp, tool: 'click_ui', intent: click(600, 10, { windows: ['0xb'], control: { role: 'push button', name: 'OK' } }), config: { strict: true }, session });
    let nestedRan = false;
    await run(strictLayer, clickUi, async () => {
      comp.desk.activeWindow = '0xb'; // click_ui focused its window
      await run(strictLayer, fakeCall({ compositor: comp, parent: clickUi, intent: click(600, 10), config: { strict: true }, session }), async () => ((nestedRan = true), { text: ['clicked'] }));
      return { text: ['clicked OK'] };
    });
    expect(nestedRan).toBe(true);
    // a step of an unchecked parent (sequence: input none) is checked: the person moved the focus before it
    comp.desk.activeWindow = '0xa';
    const seq = fakeCall({ compositor: comp, tool: 'sequence', intent: { summary: 'run 1 step', input: 'none' }, config: { strict: true }, session });
    const e = await refusal(run(strictLayer, seq, () => run(strictLayer, fakeCall({ compositor: comp, parent: seq, intent: click(1, 1), config: { strict: true }, session }), fakeNext())));
    expect(e.code).toBe('refused.seat');
  });

  it('fails closed when the seat cannot be read', async () => {
    const comp = fakeCompositor(desktop([a]));
    const c = fakeCall({ compositor: comp, intent: click(5, 5), config: { strict: true } });
    c.session.seat = { cursor: { x: 10, y: 10 }, focus: '0xa', at: 0 };
    comp.snapshotError = new Error('ipc');
    expect((await refusal(run(strictLayer, c, fakeNext()))).code).toBe('refused.seat');
  });
});

describe('layer guard', () => {
  const a = win('0xa', 'foot', 0, 0, 1920, 1080, { focused: true });

  it('refuses pointer input under a launcher, lock or osk layer, with the dismiss advice', async () => {
    for (const [ns, kind, advice] of [['wofi', 'launcher', /Escape/], ['swaylock', 'lock', /unlock/], ['wvkbd', 'osk', /on-screen keyboard/]] as const) {
      const comp = fakeCompositor(desktop([a], { layers: [layer(ns, kind)] }));
      const e = await refusal(run(layerGuard, fakeCall({ compositor: comp, intent: click(50, 50) }), fakeNext()));
      expect(e.code).toBe('refused.layer');
      expect(e.message).toContain(`the ${kind} layer '${ns}' covers (50, 50)`);
      expect(e.hint).toMatch(advice);
    }
  });

  it('ignores bars, notifications and surfaces below windows', async () => {
    const comp = fakeCompositor(desktop([a], { layers: [layer('waybar', 'bar'), layer('mako', 'notification'), layer('rofi', 'launcher', { level: 'bottom' })] }));
    const next = fakeNext();
    await run(layerGuard, fakeCall({ compositor: comp, intent: click(50, 50) }), next);
    expect(next.calls).toBe(1);
  });

  it('typing while a launcher holds the keyboard: refused with window= or confinement, else noted', async () => {
    const comp = fakeCompositor(desktop([a], { layers: [layer('fuzzel', 'launcher')] }));
    expect((await refusal(run(layerGuard, fakeCall({ compositor: comp, intent: typeInto('0xa') }), fakeNext()))).message).toMatch(/not to window 0xa/);
    expect((await refusal(run(layerGuard, fakeCall({ compositor: comp, intent: typeInto(null), config: { confine: ['launched'] } }), fakeNext()))).message).toMatch(/confinement/);
    const c = fakeCall({ compositor: comp, intent: typeInto(null) });
    const next = fakeNext();
    await run(layerGuard, c, next);
    expect(next.calls).toBe(1);
    expect(c.notes).toEqual(["NOTE: the launcher layer 'fuzzel' holds the keyboard grab, so the keys went to it, not to the focused window"]);
  });

  it('a lock layer outranks a launcher and needs allow_auth', async () => {
    const comp = fakeCompositor(desktop([a], { layers: [layer('fuzzel', 'launcher'), layer('hyprlock', 'lock', { level: 'top' })] }));
    expect((await refusal(run(layerGuard, fakeCall({ compositor: comp, intent: typeInto(null) }), fakeNext()))).message).toMatch(/lock layer 'hyprlock'.*allow_auth/);
  });

  it('fails open when the compositor cannot list layers', async () => {
    const next = fakeNext();
    await run(layerGuard, fakeCall({ compositor: fakeCompositor(desktop([a], { layers: null })), intent: click(1, 1) }), next);
    expect(next.calls).toBe(1);
  });
});

describe('dangerous', () => {
  const del = (name: string, extra: Partial<Intent> = {}): Intent => ({ summary: `click push button '${name}'`, input: 'pointer', control: { role: 'push button', name }, ...extra });

  it('matches whole words case-insensitively, including configured extras', () => {
    const words = ['Delete', 'Send', 'Wipe disk'];
    expect(dangerousMatch('Delete all', words)).toBe('Delete');
    expect(dangerousMatch('send', words)).toBe('Send');
    expect(dangerousMatch('Undeleted items', words)).toBeNull();
    expect(dangerousMatch('Sender', words)).toBeNull();
    expect(dangerousMatch('Wipe disk now', words)).toBe('Wipe disk');
    expect(dangerousMatch('Löschen', words)).toBeNull();
  });

  it('refuses without a way to ask, with the confirm: true path, and proceeds when confirmed', async () => {
    const next = fakeNext();
    const e = await refusal(run(dangerousLayer, fakeCall({ intent: del('Delete') }), next));
    expect(e.code).toBe('refused.dangerous');
    expect(e.hint).toMatch(/confirm: true/);
    await run(dangerousLayer, fakeCall({ intent: del('Delete'), confirmed: true }), next);
    await run(dangerousLayer, fakeCall({ intent: del('Open') }), next);
    expect(next.calls).toBe(2);
  });

  it('asks the person through elicitation: yes proceeds, no refuses, cannot-ask refuses', async () => {
    const asked: string[] = [];
    const next = fakeNext();
    await run(dangerousLayer, fakeCall({ intent: del('Send'), confirm: async (m) => (asked.push(m), true) }), next);
    expect(next.calls).toBe(1);
    expect(asked[0]).toMatch(/click push button 'Send'/);
    expect((await refusal(run(dangerousLayer, fakeCall({ intent: del('Send'), confirm: async () => false }), next))).message).toMatch(/declined/);
    expect((await refusal(run(dangerousLayer, fakeCall({ intent: del('Send'), confirm: async () => null }), next))).hint).toMatch(/confirm: true/);
    expect(next.calls).toBe(1);
  });

  it('the built-in list cannot be emptied; extras add to it', async () => {
    const next = fakeNext();
    expect((await refusal(run(dangerousLayer, fakeCall({ intent: del('Pay now'), config: { dangerous: { extra: [] } } }), next))).code).toBe('refused.dangerous');
    expect((await refusal(run(dangerousLayer, fakeCall({ intent: del('Nuke'), config: { dangerous: { extra: ['nuke'] } } }), next))).code).toBe('refused.dangerous');
  });

  it('a dry run asks nobody and notes that the real call needs confirmation', async () => {
    const c = fakeCall({ intent: del('Delete'), dryRun: true, confirm: async () => { throw new Error('must not ask'); } });
    const next = fakeNext();
    await run(dangerousLayer, c, next);
    expect(next.calls).toBe(1);
    expect(c.notes[0]).toMatch(/needs the person's confirmation/);
  });
});

describe('mark', () => {
  it('installs the rule once per session, tags and announces launched windows', async () => {
    const comp = fakeCompositor(desktop([]));
    const c1 = fakeCall({ compositor: comp, tool: 'launch', config: { mark: true } });
    await run(markLayer, c1, fakeNext({ text: ['launched'], data: { address: '0x9', class: 'foot' } }));
    await run(markLayer, fakeCall({ compositor: comp, tool: 'pointer', config: { mark: true }, session: c1.session }), fakeNext());
    expect(comp.calls.filter((x) => x.startsWith('rule'))).toEqual(['rule hypruse-owned']);
    expect(comp.calls).toContain('tag 0x9 hypruse-owned');
    expect(comp.calls).toContain('notify hypruse opened foot');
  });

  it('says on stderr when the rule cannot be installed, and never fails the action', async () => {
    const comp = fakeCompositor(desktop([]));
    comp.installMarkRule = async () => false;
    comp.tagWindow = async () => { throw new Error('no tags'); };
    logged.length = 0;
    const r = await run(markLayer, fakeCall({ compositor: comp, tool: 'launch', config: { mark: true } }), fakeNext({ text: ['launched'], data: { address: '0x9' } }));
    expect(r.text).toEqual(['launched']);
    expect(logged.join('\n')).toMatch(/cannot install a border rule/);
    expect(logged.join('\n')).toMatch(/tagging 0x9 failed/);
  });

  it('announces captures at most every 3 s', async () => {
    const comp = fakeCompositor(desktop([]));
    const c = fakeCall({ compositor: comp, kind: 'observe', tool: 'screenshot', config: { mark: true } });
    await run(markLayer, c, fakeNext());
    await run(markLayer, fakeCall({ compositor: comp, kind: 'observe', tool: 'screenshot', config: { mark: true }, session: c.session }), fakeNext());
    expect(comp.calls.filter((x) => x.includes('captured'))).toHaveLength(1);
  });
});

describe('dry-run', () => {
  it('returns the would-text without calling next, only for acting calls in a dry run', async () => {
    const next = fakeNext();
    const intent = click(812, 433);
    const r = await run(dryRunLayer, fakeCall({ intent, dryRun: true }), next);
    expect(next.calls).toBe(0);
    expect(r.text).toEqual(['DRY RUN, nothing was delivered: would click left at (812, 433)']);
    expect(r.data).toEqual({ dry_run: true, would: intent });
    await run(dryRunLayer, fakeCall({ intent, dryRun: false }), next);
    await run(dryRunLayer, fakeCall({ kind: 'observe', dryRun: true }), next);
    expect(next.calls).toBe(2);
  });
});

describe('layer table', () => {
  it('every built-in layer takes its order from TRUST_ORDER', async () => {
    const { ALL_LAYERS } = await import('../src/index.js');
    for (const l of ALL_LAYERS) {
      const key = l.name as keyof typeof TRUST_ORDER;
      expect(TRUST_ORDER[key], l.name).toBeDefined();
      expect(l.order).toBe(TRUST_ORDER[key]);
    }
    expect(new Set(ALL_LAYERS.map((l) => l.name)).size).toBe(ALL_LAYERS.length);
  });

  it('refusals are TrustErrors naming their layer', async () => {
    const e = await refusal(run(readonlyLayer, fakeCall({ config: { readonly: true } }), fakeNext()));
    expect(e).toBeInstanceOf(TrustError);
    expect(e).toBeInstanceOf(HypruseError);
    expect(e.layer).toBe('readonly');
  });
});
