import { promises as fs } from 'node:fs';
import { dirname, join } from 'node:path';
import { MmmqError } from '@mmmq/core';
import { syncDirectory } from '../storage/file-handle';
import { DispatcherDefinition, parseDispatcherDefinition, toStoredDefinitionJson } from './dispatcher-definition';

export const DISPATCHERS_FILE = 'dispatchers.json';
/** Owner read/write only: the file holds the dispatchers' signing secrets. */
export const DISPATCHERS_FILE_MODE = 0o600;

/** `dispatchers.json` is unreadable or invalid; the broker refuses to start rather than guess. */
export class InvalidDispatchersFileError extends MmmqError {}

/**
 * `{rootDir}/dispatchers.json`: the durable list of push consumers. Every change rewrites the whole file
 * atomically (temp file + fsync + rename + directory fsync), before memory changes, with mode 0600: it holds
 * signing secrets.
 */
export class DispatchersFile {
  readonly path: string;

  constructor(rootDir: string) {
    this.path = join(rootDir, DISPATCHERS_FILE);
  }

  /** Reads every definition; a missing file is created as `[]`. */
  async load(): Promise<DispatcherDefinition[]> {
    let text: string;
    try {
      text = await fs.readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new InvalidDispatchersFileError(`Cannot read ${this.path}`, { cause: error });
      }
      await fs.mkdir(dirname(this.path), { recursive: true });
      await this.save([]);
      return [];
    }
    return this.parse(text);
  }

  private parse(text: string): DispatcherDefinition[] {
    let entries: unknown;
    try {
      entries = JSON.parse(text);
    } catch (error) {
      throw new InvalidDispatchersFileError(`${this.path} is not valid JSON: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (!Array.isArray(entries)) throw new InvalidDispatchersFileError(`${this.path} must hold a JSON array`);
    const seen = new Set<string>();
    return entries.map((entry, i) => {
      const where = `${this.path} entry ${i}`;
      let definition: DispatcherDefinition;
      try {
        definition = parseDispatcherDefinition(entry, where);
      } catch (error) {
        throw new InvalidDispatchersFileError((error as Error).message, { cause: error });
      }
      if (seen.has(definition.consumerId)) {
        throw new InvalidDispatchersFileError(`${where}: duplicate consumerId ${definition.consumerId}`);
      }
      seen.add(definition.consumerId);
      return definition;
    });
  }

  /** Atomically replaces the file with `definitions`, in order. */
  async save(definitions: readonly DispatcherDefinition[]): Promise<void> {
    const temp = `${this.path}.tmp`;
    const text = JSON.stringify(definitions.map(toStoredDefinitionJson), null, 2) + '\n';
    const handle = await fs.open(temp, 'w', DISPATCHERS_FILE_MODE);
    try {
      // The mode given to open only applies to a new file; a temp file left behind by a crash keeps its own.
      await handle.chmod(DISPATCHERS_FILE_MODE);
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, this.path);
    await syncDirectory(dirname(this.path));
  }
}
