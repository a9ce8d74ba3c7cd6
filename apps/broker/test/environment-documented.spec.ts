import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../..');
/** A whole name: not the `MMMQ_HTTP_*` a comment uses for a family of them. */
const VARIABLE = /MMMQ_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_*])/g;

/** The `MMMQ_*` names in the part of `file` from `heading` to the next heading of the same or a higher level. */
function variablesUnder(file: string, heading: string): Set<string> {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no section "${heading}"`);
  const level = heading.indexOf(' ');
  const next = text.slice(start + heading.length + 2).search(new RegExp(`\\n#{1,${level}} `));
  const section = next < 0 ? text.slice(start) : text.slice(start, start + heading.length + 2 + next);
  return new Set(section.match(VARIABLE));
}

describe("the standalone broker's environment variables", () => {
  const read = new Set(
    readdirSync(join(ROOT, 'packages/cli/src/broker'))
      .filter((name) => name.endsWith('.ts'))
      .flatMap((name) => readFileSync(join(ROOT, 'packages/cli/src/broker', name), 'utf8').match(VARIABLE) ?? []),
  );

  it('are all listed in docs/http-api.md, the one complete list, and nothing else is', () => {
    expect([...variablesUnder('docs/http-api.md', '## Standalone server')].sort()).toEqual([...read].sort());
  });

  it('in the README are a part of that list', () => {
    const readme = variablesUnder('README.md', '## Configuring the standalone broker');
    expect(readme.size).toBeGreaterThan(0);
    for (const variable of readme) expect(read).toContain(variable);
  });
});
