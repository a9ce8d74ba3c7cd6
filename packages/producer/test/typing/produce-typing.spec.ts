import { join } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '../../../..');
const CASES = join(__dirname, 'produce-typing.cases.ts');

/**
 * Jest transpiles without type checking, so how `produce()` and `produceBatch()` type their ACKs is checked here with
 * the compiler itself: the cases file must compile cleanly, its `@ts-expect-error` lines included (an expected error
 * that no longer occurs is reported as "Unused '@ts-expect-error' directive").
 */
describe('the typing of produce() and produceBatch() by deliveryMode', () => {
  it('gives a persistent ACK, the default, a number offset, and a nonPersistent one none', () => {
    const configPath = join(ROOT, 'tsconfig.json');
    const { config } = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
    const program = ts.createProgram([CASES], { ...options, noEmit: true });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => `${diagnostic.file?.fileName ?? ''}:${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    expect(diagnostics).toEqual([]);
  }, 60_000);
});
