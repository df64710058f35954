// The executable's entry: answers --version without loading anything, starts
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
  await import('reflect-metadata');
  const { main } = await import('./cli.js');
  main(argv).then((code) => {
    process.exitCode = code;
    // a verb must not linger on handles kept open by backends
    const verb = argv[0];
    if (verb !== undefined && verb !== 'serve' && !verb.startsWith('-')) setImmediate(() => process.exit(code));
  }, fail);
}
