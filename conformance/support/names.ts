import { randomBytes } from 'node:crypto';

/**
 * Names unique to one test: its topics (`conf.<id>.…`), application names and consumer ids, so that tests sharing a
 * broker or an exchange never see each other's messages.
 */
export function uniqueNames(): { id: string; topic(...segments: string[]): string; consumerId(name: string): string } {
  const id = `c${randomBytes(4).toString('hex')}`;
  return {
    id,
    topic: (...segments) => ['conf', id, ...segments].join('.'),
    consumerId: (name) => `${id}.${name}`,
  };
}
