import { INestApplication, Module, ModuleMetadata } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CapturedLogger } from './captured-logger';

/** An initialised (not listening) application with `metadata` as its root module, and what it logged. */
export async function initConsumer(metadata: ModuleMetadata): Promise<{ app: INestApplication; logs: CapturedLogger }> {
  @Module(metadata)
  class ConsumerTestModule {}
  const logs = new CapturedLogger();
  // abortOnError false: a bad configuration must reject here, not end the test process.
  const app = await NestFactory.create(ConsumerTestModule, { logger: logs, abortOnError: false });
  try {
    await app.init();
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return { app, logs };
}
