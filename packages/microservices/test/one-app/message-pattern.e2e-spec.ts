import { MmmqBrokerModule } from '@mmmq/broker';
import { MmmqProducerModule, Producer, ReplyError } from '@mmmq/producer';
import { makeTempDir, removeTempDir } from '@mmmq/test-support';
import { Controller, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload, RpcException } from '@nestjs/microservices';
import { lastValueFrom, of } from 'rxjs';
import { MmmqClient, MmmqRecord, MmmqServer } from '../../src';

@Controller()
class CalculatorController {
  @MessagePattern('calc.sum')
  sum(@Payload() numbers: number[]): number {
    return numbers.reduce((total, n) => total + n, 0);
  }

  @MessagePattern('calc.stream')
  stream(@Payload() n: number) {
    return of(n, n + 1, n + 2);
  }

  @MessagePattern('calc.refuse')
  refuse(): never {
    throw new RpcException('no such account');
  }

  @MessagePattern('calc.crash')
  crash(): never {
    throw new Error('a secret detail');
  }
}

describe('@MessagePattern handlers on MmmqServer, in the broker application, answering send() and request()', () => {
  let rootDir: string;
  let app: INestApplication | undefined;
  let client: MmmqClient | undefined;

  beforeEach(async () => {
    rootDir = await makeTempDir();
    @Module({
      imports: [MmmqBrokerModule.forRoot({ persistence: { rootDir } }), MmmqProducerModule.forRoot()],
      controllers: [CalculatorController],
    })
    class AppModule {}
    app = await NestFactory.create(AppModule, { abortOnError: false });
    app.connectMicroservice({ strategy: new MmmqServer({}) });
    await app.startAllMicroservices();
    await app.listen(0, '127.0.0.1');
    client = new MmmqClient({ broker: (await app.getUrl()).replace('[::1]', '127.0.0.1') });
  });
  afterEach(async () => {
    await client?.close();
    await app?.close();
    app = undefined;
    await removeTempDir(rootDir);
  });

  it("answers ClientProxy.send() with the handler's result, an Observable's last value included", async () => {
    await expect(lastValueFrom(client!.send('calc.sum', [1, 2, 3]))).resolves.toBe(6);
    await expect(lastValueFrom(client!.send('calc.stream', new MmmqRecord(10, { id: 'stream-1', timeoutMs: 10_000 })))).resolves.toBe(12);
  });

  it('correlates many concurrent send() calls', async () => {
    const sums = await Promise.all(Array.from({ length: 100 }, (_, i) => lastValueFrom(client!.send<number>('calc.sum', [i, i]))));
    expect(sums).toEqual(Array.from({ length: 100 }, (_, i) => 2 * i));
  });

  it("errors send() with what Nest's RPC exception filter answered, as Nest's own transports do", async () => {
    await expect(lastValueFrom(client!.send('calc.refuse', {}))).rejects.toEqual({ status: 'error', message: 'no such account' });
    await expect(lastValueFrom(client!.send('calc.crash', {}))).rejects.toEqual({ status: 'error', message: 'Internal server error' });
  });

  it("answers the application's own producer.request(), in process", async () => {
    const producer = app!.get(Producer);
    await expect(producer.request('calc.sum', [4, 5])).resolves.toBe(9);
    const refused = await producer.request('calc.refuse', {}).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ReplyError);
    expect(refused).toMatchObject({ remoteMessage: 'no such account', remoteData: { status: 'error', message: 'no such account' } });
  });
});
