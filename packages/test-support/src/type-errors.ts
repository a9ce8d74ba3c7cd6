import { join, resolve } from 'node:path';
import * as ts from 'typescript';

const REPOSITORY_ROOT = resolve(__dirname, '../../..');

/**
 * Jest transpiles without type checking, so compile-time rules are checked with the compiler itself: the type
 * errors of `casesFile` under the repository's tsconfig.json, `file:message` each; empty when it compiles cleanly,
 * its `@ts-expect-error` lines included (an expected error that no longer occurs is reported as "Unused
 * '@ts-expect-error' directive").
 */
export function typeErrorsOf(casesFile: string): string[] {
  const { config } = ts.readConfigFile(join(REPOSITORY_ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, REPOSITORY_ROOT);
  const program = ts.createProgram([casesFile], { ...options, noEmit: true });
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => `${diagnostic.file?.fileName ?? ''}:${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
}
