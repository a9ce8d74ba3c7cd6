import { Parser } from '@asyncapi/parser';

/** The parser's errors (severity 0) for `document`, as `path: message` lines; warnings and hints are not errors. */
export async function asyncApiErrors(document: unknown): Promise<string[]> {
  const { diagnostics } = await new Parser().parse(JSON.stringify(document));
  return diagnostics.filter((diagnostic) => diagnostic.severity === 0).map((d) => `${d.path.join('.')}: ${d.message}`);
}
