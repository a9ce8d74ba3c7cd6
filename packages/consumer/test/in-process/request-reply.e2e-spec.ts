import { MmmqBrokerModule } from '@mmmq/broker';
import { MmmqProducerModule, Producer } from '@mmmq/producer';
import { INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { makeTempDir, removeTempDir } from '@mmmq/test-support';
import { MmmqConsumerModule } from '../../src';
import { Calculator } from '../support/calculator.listener';
import { requestReplyCases } from '../support/request-reply.cases';

describe('request-reply with broker, listener and producer in one application (in process)', () => {
  let rootDir: string;
  let app: INestApplication | undefined;

  beforeEach(async () => {
    rootDir = await makeTempDir();
    @Module({
      imports: [MmmqBrokerModule.forRoot({ persistence: { rootDir } }), MmmqConsumerModule.forRoot(), MmmqProducerModule.forRoot()],
      providers: [Calculator],
    })
    class AppModule {}
    app = await NestFactory.create(AppModule, { abortOnError: false });
    await app.listen(0, '127.0.0.1');
  });
  afterEach(async () => {
    app?.get(Calculator).gate.open();
    await app?.close();
    app = undefined;
    await removeTempDir(rootDir);
  });

  requestReplyCases({ producer: () => app!.get(Producer) });
});
