import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh real directory per test, removed afterwards. */
export function useTempDir(): () => string {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mmmq-storage-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}

export const bytes = (text: string): Buffer => Buffer.from(text, 'utf8');
