import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { CONSOLE_ICON, CONSOLE_ICON_NAME } from './console-icon';

/**
 * Where the console's files are: `packages/broker/console`, shipped with the package. From `src/console` (tests)
 * and `dist/console` (the build) alike it is two levels up, so no build step copies anything.
 */
export const CONSOLE_ASSETS_DIR = join(__dirname, '..', '..', 'console');

/** The page every console URL starts from. */
export const CONSOLE_PAGE = 'index.html';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
};

export interface ConsoleAsset {
  contentType: string;
  body: string;
}

/**
 * The console's files, read once: a few dozen KiB. A request names one by its file name, looked up in this map,
 * so no request ever reaches the file system (no path to traverse).
 */
export class ConsoleAssets {
  private readonly assets = new Map<string, ConsoleAsset>();

  constructor(dir: string = CONSOLE_ASSETS_DIR) {
    for (const name of readdirSync(dir)) {
      const contentType = CONTENT_TYPES[extname(name)];
      if (contentType !== undefined) this.assets.set(name, { contentType, body: readFileSync(join(dir, name), 'utf8') });
    }
    if (!this.assets.has(CONSOLE_PAGE)) throw new Error(`The console's ${CONSOLE_PAGE} is missing from ${dir}`);
    this.assets.set(CONSOLE_ICON_NAME, CONSOLE_ICON);
  }

  get(name: string): ConsoleAsset | undefined {
    return this.assets.get(name);
  }
}
