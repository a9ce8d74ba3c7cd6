import { LoggerService } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { MmmqProducerModule, MmmqProducerOptions, Producer } from '../../src';

/** Keeps what the producer logs, so tests can assert on it without printing it. */
export class RecordingLogger implements LoggerService {
  readonly warnings: string[] = [];
  log(): void {}
  error(): void {}
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}

export interface ProducerApp {
  producer: Producer;
  logger: RecordingLogger;
  module: TestingModule;
  close(): Promise<void>;
}

/** A Nest application context with `MmmqProducerModule.forRoot(options)` and nothing else. */
export async function startProducer(options: MmmqProducerOptions): Promise<ProducerApp> {
  const logger = new RecordingLogger();
  const module = await Test.createTestingModule({ imports: [MmmqProducerModule.forRoot(options)] })
    .setLogger(logger)
    .compile();
  await module.init();
  return { producer: module.get(Producer), logger, module, close: () => module.close() };
}
