import 'reflect-metadata';
import { errorText, toHypruseError } from '@hypruse/core';
import { main } from './cli.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // a verb must not linger on handles kept open by backends
    const verb = process.argv[2];
    if (verb !== undefined && verb !== 'serve' && !verb.startsWith('-')) setImmediate(() => process.exit(code));
  },
  (err) => {
    process.stderr.write(`hypruse: ${errorText(toHypruseError(err))}\n`);
    process.exit(1);
  },
);
