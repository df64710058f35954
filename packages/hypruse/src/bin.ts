// The executable's entry: answers --version without loading anything, reports a
// built-in verb's provable usage errors from a generated table, starts
// the MCP server with only the SDK and the configuration loaded (the session
// follows on the first request that needs it), and loads the CLI (and with it
// the plugins) only when it is needed.
import { VERSION } from './version.js';

const argv = process.argv.slice(2);
const fail = async (err: unknown) => {
  const { errorText, toHypruseError } = await import('@hypruse/core');
  process.stderr.write(`hypruse: ${errorText(toHypruseError(err))}\n`);
  process.exit(1);
};
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`hypruse ${VERSION}\n`);
} else if ((argv.length === 0 && !process.stdin.isTTY) || (argv.length === 1 && argv[0] === 'serve')) {
  const { serveCommand } = await import('./commands/serve.js');
  serveCommand.run([]).then((code) => {
    process.exitCode = code;
    // a refused start (a bad configuration) must not wait for the host to close stdin
    if (code !== 0) process.exit(code);
  }, fail);
} else {
  // a built-in verb's arguments are checked against the generated table first: a usage error
  // exits before zod, the tools or the configuration load (the full check runs again after)
  const [verb, ...rest] = argv;
  const { VERBS } = await import('./verbs.generated.js');
  const spec = verb !== undefined && Object.hasOwn(VERBS, verb) ? VERBS[verb] : undefined;
  if (spec) {
    const { precheckVerb } = await import('@hypruse/core/cli/precheck');
    const line = (w: NodeJS.WriteStream) => (s: string) => w.write(s.endsWith('\n') ? s : `${s}\n`);
    const code = precheckVerb(spec, verb!, rest, { out: line(process.stdout), err: line(process.stderr), stdin: () => '' });
    if (code !== null) process.exit(code);
  }
  await import('reflect-metadata');
  const { main } = await import('./cli.js');
  main(argv).then((code) => {
    process.exitCode = code;
    // a verb must not linger on handles kept open by backends
    const verb = argv[0];
    if (verb !== undefined && verb !== 'serve' && !verb.startsWith('-')) setImmediate(() => process.exit(code));
  }, fail);
}
