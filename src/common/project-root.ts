import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The folder holding package.json, whether running from src/ (tests) or dist/src/ (built). */
export function projectRoot(from: string = __dirname): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
  return dir;
}
