import { MmmqBrokerModule } from '@mmmq/broker';
import { makeTempDir, removeTempDir } from '@mmmq/test-support';
import { Controller, INestApplication, Module, ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { EventPattern } from '@nestjs/microservices';
import { InvalidServerOptionsError, MmmqServer, MmmqServerOptions, NoBrokerError } from '../../src';

@Controller()
class OrdersController {
  @EventPattern('order.*')
  onOrder(): void {}
}

describe('MmmqServer without broker: where its handlers receive from, checked when the microservice starts', () => {
  let rootDir: string;
  let app: INestApplication | undefined;

  beforeEach(async () => {
    rootDir = await makeTempDir();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    await removeTempDir(rootDir);
  });

  async function startFailure(metadata: ModuleMetadata, options: MmmqServerOptions): Promise<unknown> {
    @Module({ controllers: [OrdersController], ...metadata })
    class AppModule {}
    app = await NestFactory.create(AppModule, { abortOnError: false, logger: false });
    app.connectMicroservice({ strategy: new MmmqServer(options) });
    return app.startAllMicroservices().then(
      () => app!.init().then(() => undefined),
      (error: unknown) => error,
    );
  }

  it('fails when the application imports no MmmqBrokerModule, naming the fixes', async () => {
    const failure = await startFailure({}, { app: 'shop' });
    expect(failure).toBeInstanceOf(NoBrokerError);
    expect(failure).toBeInstanceOf(InvalidServerOptionsError);
    expect((failure as Error).message).toBe(
      'MmmqServer has no broker to receive from: broker is not set and this application does not import MmmqBrokerModule. ' +
        'Import MmmqBrokerModule.forRoot() in this application (the @EventPattern handlers then receive in process), or set ' +
        "broker to the MMMQ broker's URL (with advertisedUrl for pushes, or delivery: 'pull'), or set transport",
    );
  });

  it('refuses a push option in the broker’s own application, naming it and the fix', async () => {
    const imports = [MmmqBrokerModule.forRoot({ persistence: { rootDir } })];
    const failure = await startFailure({ imports }, { app: 'shop', port: 0 });
    expect(failure).toBeInstanceOf(InvalidServerOptionsError);
    expect((failure as Error).message).toBe(
      'port is set, but this application imports MmmqBrokerModule and broker is not set: its @EventPattern handlers ' +
        'receive from that broker in process, and nothing is pushed. Remove port, or set broker to receive pushes over HTTP',
    );
  });
});
