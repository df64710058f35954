// The executable's entry: answers --version without loading anything, then
// loads the CLI (and with it the plugins) only when it is needed.
import { VERSION } from './version.js';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`hypruse ${VERSION}\n`);
} else {
  await import('reflect-metadata');
  const [{ main }, { errorText, toHypruseError }] = await Promise.all([import('./cli.js'), import('@hypruse/core')]);
  main(argv).then(
    (code) => {
      process.exitCode = code;
      // a verb must not linger on handles kept open by backends
      const verb = argv[0];
      if (verb !== undefined && verb !== 'serve' && !verb.startsWith('-')) setImmediate(() => process.exit(code));
    },
    (err) => {
      process.stderr.write(`hypruse: ${errorText(toHypruseError(err))}\n`);
      process.exit(1);
    },
  );
}
