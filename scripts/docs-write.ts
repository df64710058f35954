import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GENERATED } from './docs.js';

const root = join(import.meta.dirname, '..');
for (const [file, make] of Object.entries(GENERATED)) {
  writeFileSync(join(root, file), make());
  console.error(`wrote ${file}`);
}
