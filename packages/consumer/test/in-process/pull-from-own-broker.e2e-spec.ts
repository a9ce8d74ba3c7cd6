import { MmmqBrokerModule } from '@mmmq/broker';
import { freePort, makeTempDir, removeTempDir } from '@mmmq/test-support';
import { Injectable, LoggerService, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MmmqConsumerModule, MMMQListener } from '../../src';
import { waitFor } from '../support/wait-for';

const MESSAGES = 20;

@Injectable()
class Stock {
  readonly seen: number[] = [];

  @MMMQListener('stock.*', { consumerId: 'shop.stock' })
  onChange(content: { n: number }): void {
    this.seen.push(content.n);
  }
}

/** Keeps the warnings and errors the application logs. */
class ProblemLogger implements LoggerService {
  readonly problems: string[] = [];
  log(): void {}
  debug(): void {}
  verbose(): void {}
  warn(message: unknown): void {
    this.problems.push(`WARN ${String(message)}`);
  }
  error(message: unknown): void {
    this.problems.push(`ERROR ${String(message)}`);
  }
}

describe('a pull listener that fetches over HTTP from the broker of its own application', () => {
  let rootDir: string;

  beforeEach(async () => {
    rootDir = await makeTempDir();
  });
  afterEach(() => removeTempDir(rootDir));

  it('registers once the application listens and stops before the broker does: no ECONNREFUSED, no warning', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    @Module({
      imports: [
        MmmqBrokerModule.forRoot({ persistence: { rootDir } }),
        MmmqConsumerModule.forRoot({ app: 'shop', broker: url, delivery: 'pull', pull: { waitMs: 200 } }),
      ],
      providers: [Stock],
    })
    class ShopModule {}
    const logger = new ProblemLogger();
    const app = await NestFactory.create(ShopModule, { logger, abortOnError: false });
    await app.listen(port, '127.0.0.1');
    try {
      for (let n = 0; n < MESSAGES; n++) {
        const response = await fetch(`${url}/mmmq/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ topic: 'stock.changed', content: { n } }),
        });
        expect(response.status).toBe(200);
      }
      const stock = app.get(Stock);
      await waitFor(() => stock.seen.length === MESSAGES, `${MESSAGES} pulled`);
      expect(stock.seen).toEqual([...Array(MESSAGES).keys()]);
    } finally {
      await app.close();
    }
    expect(logger.problems).toEqual([]);
  });
});
