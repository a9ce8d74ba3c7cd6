import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { CLI_MAIN, makeTempDir, removeTempDir } from '@mmmq/test-support';
import { asyncApiErrors } from '../../core/test/asyncapi/validate-asyncapi';
import { ExitCode } from '../src';

const execFileAsync = promisify(execFile);
const FIXTURE = resolve(__dirname, 'fixtures/billing-app.module.ts');

/** Runs the built `mmmq` as a child process; ts-node loads the TypeScript fixture module it is pointed at. */
async function mmmqAsyncApi(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const command = ['-r', 'ts-node/register/transpile-only', CLI_MAIN, 'asyncapi', ...args];
    const { stdout, stderr } = await execFileAsync(process.execPath, command, { cwd: resolve(__dirname, '../../..') });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('mmmq asyncapi', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await makeTempDir('mmmq-asyncapi-');
  });
  afterAll(() => removeTempDir(dir));

  it("writes the application's document to --out without contacting its broker, and the parser accepts it", async () => {
    const out = join(dir, 'asyncapi.json');

    const result = await mmmqAsyncApi(['--module', FIXTURE, '--export', 'BillingModule', '--out', out, '--api-version', '3.4.5']);

    expect(result).toMatchObject({ code: ExitCode.OK, stderr: '' });
    const document = JSON.parse(await readFile(out, 'utf8'));
    expect(await asyncApiErrors(document)).toEqual([]);
    expect(document.info).toEqual({ title: 'MMMQ application', version: '3.4.5' });
    expect(document.operations['receive-invoice-any']).toMatchObject({
      action: 'receive',
      'x-mmmq-source': 'InvoiceListener.onDue',
      'x-mmmq-consumer-id': 'billing.invoice-listener.on-due',
      'x-mmmq-delivery': 'pull',
    });
    expect(document.operations['send-invoice-due']).toMatchObject({ action: 'send' });
    expect(document.components.schemas.InvoiceDue.properties.currency).toEqual({ type: 'string', enum: ['EUR', 'USD'] });
  });

  it("adds the controllers' @EventPattern and @MessagePattern handlers with --patterns, and only then", async () => {
    const out = join(dir, 'with-patterns.json');

    const result = await mmmqAsyncApi(['--module', FIXTURE, '--export', 'BillingModule', '--patterns', '--out', out]);

    expect(result).toMatchObject({ code: ExitCode.OK, stderr: '' });
    const document = JSON.parse(await readFile(out, 'utf8'));
    expect(await asyncApiErrors(document)).toEqual([]);
    expect(document.operations['receive-payment-settled']).toMatchObject({
      'x-mmmq-source': '@EventPattern("payment.settled")',
      messages: [{ $ref: '#/channels/payment-settled/messages/InvoiceDue' }],
    });
    expect(document.operations['receive-payment-quote']).toMatchObject({
      'x-mmmq-source': '@MessagePattern("payment.quote")',
      reply: { channel: { $ref: '#/channels/replies' } },
    });
    const without = JSON.parse(await readFile(join(dir, 'asyncapi.json'), 'utf8'));
    expect(Object.keys(without.channels).sort()).toEqual(['invoice-any', 'invoice-due']);
  });

  it('prints the document without --out, and exits 2 naming the export it could not find', async () => {
    const printed = await mmmqAsyncApi(['--module', FIXTURE, '--export', 'BillingModule', '--title', 'billing']);
    const missing = await mmmqAsyncApi(['--module', FIXTURE]);

    expect(printed.code).toBe(ExitCode.OK);
    expect(JSON.parse(printed.stdout).info.title).toBe('billing');
    expect(missing.code).toBe(ExitCode.USAGE);
    expect(missing.stderr).toBe(`mmmq: ${FIXTURE} exports no AppModule module class; name it with --export\n`);
  });
});
