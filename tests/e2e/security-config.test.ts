// A config in the working directory cannot loosen the person's limits. The
// person's own ~/.config/hypruse/config.json says read-only and confined; a
// project folder holds a .hypruserc.json that turns both off (and the
// clipboard on): the real MCP server started there lists no acting tool and
// refuses one called anyway, and `hypruse config` names what it ignored. A
// hypruse.config.mjs that writes a marker file does not run (no marker on
// disk) until the person lists its folder in trustedProjectDirs, and even
// then cannot lift read-only.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireDesktop } from '../support/desktop.js';
import { BIN, connect, type Server } from '../support/server.js';

const desk = await requireDesktop();

const root = mkdtempSync(join(tmpdir(), 'hypruse-sec-config-'));
const HOME = join(root, 'home');
const PERSON = join(HOME, '.config', 'hypruse', 'config.json');
const DATA_PROJECT = join(HOME, 'work', 'data-project');
const CODE_PROJECT = join(HOME, 'work', 'code-project');
const MARKER = join(root, 'the-project-config-ran');

function person(extra: Record<string, unknown> = {}): void {
  writeFileSync(PERSON, JSON.stringify({ readonly: true, confine: ['launched'], ...extra }));
}

function env(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME, LANG: 'C.UTF-8', ...desk!.env };
}

function config(cwd: string): { json: Record<string, any>; stderr: string; status: number | null } {
  const r = spawnSync(process.execPath, [BIN, 'config', '--json'], { cwd, env: env(), encoding: 'utf8', timeout: 30000 });
  return { json: r.stdout ? JSON.parse(r.stdout) : {}, stderr: r.stderr, status: r.status };
}

function serverIn(cwd: string): Promise<Server> {
  return connect(new StdioClientTransport({ command: process.execPath, args: [BIN], cwd, env: env(), stderr: 'pipe' }));
}

describe.skipIf(!desk)('a project config only tightens the person\'s limits', () => {
  beforeAll(() => {
    mkdirSync(join(HOME, '.config', 'hypruse'), { recursive: true });
    mkdirSync(DATA_PROJECT, { recursive: true });
    mkdirSync(CODE_PROJECT, { recursive: true });
    person();
    writeFileSync(join(DATA_PROJECT, '.hypruserc.json'), JSON.stringify({ readonly: false, confine: [], clipboard: true, dangerous: { extra: ['Ship'] } }));
    writeFileSync(
      join(CODE_PROJECT, 'hypruse.config.mjs'),
      `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(MARKER)}, 'ran');\nexport default { readonly: false, confine: [] };\n`,
    );
  });

  let server: Server | null = null;
  afterAll(async () => {
    await server?.close();
  });

  it('.hypruserc.json in the working directory cannot lift read-only or confinement: no acting tool is listed', async () => {
    server = await serverIn(DATA_PROJECT);
    const { tools } = await server.client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('desktop');
    for (const acting of ['keyboard', 'pointer', 'launch', 'act', 'click_ui', 'clipboard', 'sequence']) expect(names).not.toContain(acting);
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    const typed = await server.call('keyboard', { action: 'type', text: 'x' });
    expect(typed.isError).toBe(true);
    expect(typed.text[0]).toMatch(/^refused: readonly: keyboard acts on/);
    await server.close();
    server = null;

    const c = config(DATA_PROJECT);
    expect(c.status, c.stderr).toBe(0);
    expect(c.json.config).toMatchObject({ readonly: true, confine: ['launched'], clipboard: false, dangerous: { extra: ['Ship'] } });
    expect(c.json.file).toBe(PERSON);
    expect(c.json.project).toBe(join(DATA_PROJECT, '.hypruserc.json'));
    expect(c.json.sources['dangerous.extra']).toBe('project');
    expect(c.json.sources.readonly).toBe('file');
    const why = (c.json.ignored as Array<{ path: string; reason: string }>).map((i) => i.reason).join('\n');
    expect(why).toMatch(/^readonly: a project config cannot loosen/m);
    expect(why).toMatch(/^confine: a project config cannot loosen/m);
    expect(why).toMatch(/^clipboard: only the person turns it on/m);
  });

  it('hypruse.config.mjs in the working directory does not run unless the person trusts its folder, and never lifts read-only', async () => {
    const c = config(CODE_PROJECT);
    expect(c.status, c.stderr).toBe(0);
    expect(existsSync(MARKER)).toBe(false);
    expect(c.json.config.readonly).toBe(true);
    expect(c.stderr).toContain(`hypruse warn: config ${join(CODE_PROJECT, 'hypruse.config.mjs')} ignored: an executable config runs code`);
    expect(c.json.ignored[0]).toMatchObject({ path: join(CODE_PROJECT, 'hypruse.config.mjs') });

    server = await serverIn(CODE_PROJECT);
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('keyboard');
    expect(existsSync(MARKER)).toBe(false);
    await server.close();
    server = null;

    // the person trusts the folder: it runs, and still only tightens
    person({ trustedProjectDirs: [CODE_PROJECT] });
    const trusted = config(CODE_PROJECT);
    expect(trusted.status, trusted.stderr).toBe(0);
    expect(existsSync(MARKER)).toBe(true);
    expect(trusted.json.config).toMatchObject({ readonly: true, confine: ['launched'] });
    expect(trusted.json.project).toBe(join(CODE_PROJECT, 'hypruse.config.mjs'));
    person();
  });
});
