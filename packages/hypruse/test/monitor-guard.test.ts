// The monitor page's request guard: a foreign Host or Origin, a cross-site
// fetch, a missing or wrong token, a write by GET and a write that is not
// JSON are each refused with their own status, before anything is done.
import { describe, expect, it } from 'vitest';
import { checkRequest, parseControl } from '../src/monitor/guard.js';

const token = 'T0k3n_abcdefghijklmnopqrstuvwxyz0123456789AB';
const port = 43111;
const opts = { token, port };
const ok = { host: `127.0.0.1:${port}` };

describe('monitor request guard', () => {
  it('serves the page, script, events, state and frames under the token to GET', () => {
    expect(checkRequest({ method: 'GET', url: `/${token}/`, ...ok }, opts)).toEqual({ ok: true, route: { kind: 'page' } });
    expect(checkRequest({ method: 'GET', url: `/${token}/app.js`, ...ok }, opts)).toEqual({ ok: true, route: { kind: 'script' } });
    expect(checkRequest({ method: 'GET', url: `/${token}/events`, ...ok, origin: `http://127.0.0.1:${port}` }, opts)).toEqual({ ok: true, route: { kind: 'events' } });
    expect(checkRequest({ method: 'GET', url: `/${token}/state`, host: `localhost:${port}` }, opts)).toEqual({ ok: true, route: { kind: 'state' } });
    expect(checkRequest({ method: 'GET', url: `/${token}/frame/HEADLESS-1?v=3`, ...ok, fetchSite: 'same-origin' }, opts)).toEqual({ ok: true, route: { kind: 'frame', output: 'HEADLESS-1' } });
    expect(checkRequest({ method: 'HEAD', url: `/${token}/frame/DP%2D1`, ...ok }, opts)).toEqual({ ok: true, route: { kind: 'frame', output: 'DP-1' } });
  });

  it('takes control as a POST of JSON only', () => {
    expect(checkRequest({ method: 'POST', url: `/${token}/control`, ...ok, origin: `http://127.0.0.1:${port}`, contentType: 'application/json' }, opts)).toEqual({ ok: true, route: { kind: 'control' } });
    const form = checkRequest({ method: 'POST', url: `/${token}/control`, ...ok, contentType: 'application/x-www-form-urlencoded' }, opts);
    expect(form).toMatchObject({ ok: false, status: 415 });
  });

  it('refuses any write by GET (405, Allow: POST), under every write name', () => {
    for (const name of ['control', 'stop', 'pause', 'resume']) {
      const v = checkRequest({ method: 'GET', url: `/${token}/${name}?action=stop`, ...ok }, opts);
      expect(v).toMatchObject({ ok: false, status: 405, allow: 'POST' });
    }
    expect(checkRequest({ method: 'PUT', url: `/${token}/control`, ...ok, contentType: 'application/json' }, opts)).toMatchObject({ ok: false, status: 405 });
    expect(checkRequest({ method: 'POST', url: `/${token}/state`, ...ok, contentType: 'application/json' }, opts)).toMatchObject({ ok: false, status: 405 });
  });

  it('refuses a missing or wrong token (401)', () => {
    for (const url of ['/', '/index.html', `/${token.slice(1)}/`, `/${token}x/`, `/x${token}/state`, `/${token.toLowerCase()}/`]) {
      const v = checkRequest({ method: 'GET', url, ...ok }, opts);
      expect(v, url).toMatchObject({ ok: false, status: 401 });
    }
    expect(checkRequest({ method: 'POST', url: '/control', ...ok, contentType: 'application/json' }, opts)).toMatchObject({ ok: false, status: 401 });
  });

  it('refuses a foreign Host (DNS rebinding) even with the token (403)', () => {
    for (const host of [undefined, 'evil.example', `evil.example:${port}`, '127.0.0.1', `127.0.0.1:${port + 1}`, `[::1]:${port}`, `127.0.0.2:${port}`]) {
      const v = checkRequest({ method: 'GET', url: `/${token}/`, host }, opts);
      expect(v, String(host)).toMatchObject({ ok: false, status: 403 });
      if (!v.ok) expect(v.reason).toMatch(/foreign Host/);
    }
  });

  it('refuses another Origin and cross-site fetches (403)', () => {
    for (const origin of ['http://evil.example', `http://127.0.0.1:${port + 1}`, 'null', `https://127.0.0.1:${port}`]) {
      const v = checkRequest({ method: 'POST', url: `/${token}/control`, ...ok, origin, contentType: 'application/json' }, opts);
      expect(v, origin).toMatchObject({ ok: false, status: 403 });
      if (!v.ok) expect(v.reason).toMatch(/foreign Origin/);
    }
    expect(checkRequest({ method: 'GET', url: `/${token}/frame/HEADLESS-1`, ...ok, fetchSite: 'cross-site' }, opts)).toMatchObject({ ok: false, status: 403 });
    expect(checkRequest({ method: 'GET', url: `/${token}/`, ...ok, fetchSite: 'same-site' }, opts)).toMatchObject({ ok: false, status: 403 });
    expect(checkRequest({ method: 'GET', url: `/${token}/`, ...ok, fetchSite: 'none' }, opts)).toEqual({ ok: true, route: { kind: 'page' } });
  });

  it('sends the bare token folder to its slash, and unknown paths to 404', () => {
    expect(checkRequest({ method: 'GET', url: `/${token}`, ...ok }, opts)).toMatchObject({ ok: false, status: 308, location: `/${token}/` });
    expect(checkRequest({ method: 'GET', url: `/${token}/nope`, ...ok }, opts)).toMatchObject({ ok: false, status: 404 });
    expect(checkRequest({ method: 'GET', url: `/${token}/frame/`, ...ok }, opts)).toMatchObject({ ok: false, status: 404 });
    expect(checkRequest({ method: 'GET', url: `/${token}/frame/%E0%A4%A`, ...ok }, opts)).toMatchObject({ ok: false, status: 400 });
  });
});

describe('monitor control body', () => {
  it('accepts exactly one of pause, resume, stop', () => {
    expect(parseControl('{"action":"stop"}')).toEqual({ action: 'stop' });
    expect(parseControl('{"action":"pause"}')).toEqual({ action: 'pause' });
    expect(parseControl('{"action":"resume"}')).toEqual({ action: 'resume' });
  });
  it('says what is wrong with anything else', () => {
    expect(parseControl('stop')).toEqual({ error: expect.stringMatching(/not JSON/) });
    expect(parseControl('{"action":"type","text":"x"}')).toEqual({ error: expect.stringMatching(/exactly/) });
    expect(parseControl('{"action":"click"}')).toEqual({ error: expect.stringMatching(/accepted: pause, resume, stop/) });
    expect(parseControl('[]')).toEqual({ error: expect.stringMatching(/exactly/) });
    expect(parseControl('null')).toEqual({ error: expect.stringMatching(/exactly/) });
  });
});
